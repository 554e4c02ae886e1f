"""The ``h2o`` system: H2O AutoML (GBM, XGBoost, GLM, DRF, deep learning, stacked ensembles)
within the time limit (``pip install "d3mkit[h2o]"``; needs a Java runtime on ``PATH``).

What this module owns: the mapping of a TRAIN view to H2O — colTypes to H2O column types
(integer/real as ``numeric``, categorical/boolean as ``enum``, dateTime as seconds since 1970,
``numeric``; text columns are left out: H2O AutoML does not use ``string`` columns), the task
type (an ``enum`` target for classification, ``numeric`` for regression), the problem's first
metric to H2O's ``sort_metric`` and ``stopping_metric`` (:data:`METRICS`; a metric H2O lacks
leaves ``AUTO``), the budget (``max_runtime_secs``: what is left of the time limit after
starting the JVM and uploading, less 20 % of it and 2 s for predicting and shutting down), the
JVM (below :data:`SHORT` seconds without cross-validation, so a model finishes); the
JVM (``nthreads`` = cores; heap = :func:`heap_mb` of the memory limit; its files under the
sandbox's ``TMPDIR``). Each fold starts its own H2O server on a free local port
(``H2OLocalServer.start``, never ``h2o.init``, which would join any H2O already listening on
54321) and shuts it down after predicting. It handles one target: binary, multiClass,
univariate regression; it refuses the others.

H2O shares d3mkit's environment: its Python client needs only ``requests`` and ``tabulate``;
the work is done by the JVM (h2o.jar, bundled in the wheel).
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

#: D3M metric -> (H2O sort_metric, H2O stopping_metric)
METRICS = {"accuracy": ("AUTO", "misclassification"), "rocAuc": ("AUC", "AUC"),
           "balancedAccuracy": ("mean_per_class_error", "mean_per_class_error"),
           "meanSquaredError": ("MSE", "MSE"), "rootMeanSquaredError": ("RMSE", "RMSE"),
           "meanAbsoluteError": ("MAE", "MAE"), "rootMeanSquaredLogError": ("RMSLE", "RMSLE"),
           "logLoss": ("logloss", "logloss")}
TYPES = {"integer": "numeric", "real": "numeric", "categorical": "enum", "boolean": "enum", "dateTime": "numeric"}
BUDGET_SHARE = 0.8
#: a budget (s) below which AutoML runs without cross-validation
SHORT = 30
#: MB of the memory limit kept for the Python child and the JVM's memory outside its heap
OUTSIDE_HEAP_MB = 450


def heap_mb(memory_limit: int | None) -> int | None:
    """The JVM's heap (-Xmx, MB) under a memory limit of ``memory_limit`` MB for the whole
    tree: what is left after :data:`OUTSIDE_HEAP_MB`, at least 256 MB (None: H2O's default,
    a quarter of the machine's memory).

    >>> heap_mb(None), heap_mb(2000), heap_mb(500)
    (None, 1550, 256)
    """
    return None if memory_limit is None else max(256, int(memory_limit) - OUTSIDE_HEAP_MB)


def metrics_of(train) -> tuple[str, str]:
    """(sort_metric, stopping_metric) for the problem's first metric.

    >>> from types import SimpleNamespace as S
    >>> metrics_of(S(metric={"metric": "rocAuc"})), metrics_of(S(metric={"metric": "f1Macro"}))
    (('AUC', 'AUC'), ('AUTO', 'AUTO'))
    """
    return METRICS.get((train.metric or {}).get("metric"), ("AUTO", "AUTO"))


def frame(X: pd.DataFrame, coltypes: dict[str, str]) -> tuple[pd.DataFrame, dict[str, str]]:
    """The feature columns H2O is given, and their H2O types."""
    out, types = {}, {}
    for c, t in coltypes.items():
        if t not in TYPES:
            continue
        s = X[c]
        if t in ("integer", "real"):
            s = pd.to_numeric(s, errors="coerce").astype(float)
        elif t == "dateTime":
            when = pd.to_datetime(s, errors="coerce", utc=True)
            s = pd.Series((when - pd.Timestamp(0, tz="UTC")).dt.total_seconds(), index=X.index)
        else:
            s = s.astype(str).where(s.notna(), None)
        out[c], types[c] = s, TYPES[t]
    return pd.DataFrame(out, index=X.index), types


def _h2o_frame(h2o, df: pd.DataFrame, types: dict[str, str]):
    if df.shape[1] == 0:     # no usable feature: a constant column, so H2O has something to read
        df, types = pd.DataFrame({"__none__": np.zeros(len(df))}), {"__none__": "numeric"}
    return h2o.H2OFrame(df, column_types=types, na_strings=["", "nan", "None", "NaN"])


def fit(train, options):
    import time
    import h2o
    from h2o.automl import H2OAutoML
    from h2o.backend import H2OLocalServer
    tmp = os.environ.get("TMPDIR") or None
    heap = heap_mb(options.memory_limit)
    server = H2OLocalServer.start(nthreads=max(1, options.cores), max_mem_size=None if heap is None else heap << 20,
                                  ice_root=tmp, log_dir=tmp, verbose=False, bind_to_localhost=True)
    try:
        h2o.connect(server=server, verbose=False)
        h2o.no_progress()
        X, types = frame(train.X, train.coltypes)
        target = train.targets[0]
        y = train.y[target]
        if train.classification:
            X[target], types[target] = y.astype(str).to_numpy(), "enum"
        else:
            X[target], types[target] = y.astype(float).to_numpy(), "numeric"
        data = _h2o_frame(h2o, X.reset_index(drop=True), types)
        sort_metric, stopping_metric = metrics_of(train)
        if train.classification and sort_metric == "AUC" and y.astype(str).nunique() != 2:
            sort_metric, stopping_metric = "AUTO", "AUTO"
        left = options.remaining()
        limit = options.time_limit or 60.0
        budget = max(1, int((left if left is not None else 60.0) - (1 - BUDGET_SHARE) * limit - 2.0))
        # a short budget: no cross-validation (and so no stacked ensemble), or no model finishes
        aml = H2OAutoML(max_runtime_secs=budget, seed=options.seed, sort_metric=sort_metric,
                        stopping_metric=stopping_metric, nfolds=-1 if budget >= SHORT else 0, verbosity=None)
        started = time.time()
        aml.train(y=target, training_frame=data)
        if aml.leader is None:
            raise RuntimeError(f"H2O AutoML trained no model in {time.time() - started:.0f} s")
        return aml, server, list(types)
    except BaseException:
        _shutdown(server)
        raise


def _shutdown(server) -> None:
    import h2o
    try:
        h2o.cluster().shutdown()
    except Exception:   # noqa: BLE001 - not connected: the server process is stopped below
        pass
    server.shutdown()


def predict(model, test, options):
    import h2o
    aml, server, _ = model
    try:
        X, types = frame(test.X, test.coltypes)
        pred = aml.leader.predict(_h2o_frame(h2o, X.reset_index(drop=True), types))
        rows = pred["predict"].as_data_frame(use_pandas=False, header=False)
    finally:
        _shutdown(server)
    return np.asarray([r[0] for r in rows], dtype=object).reshape(-1, 1)


def ready() -> str | None:
    import shutil
    from importlib.util import find_spec
    if find_spec("h2o") is None:
        return 'h2o is not installed: pip install "d3mkit[h2o]"'
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "H2O needs a Java runtime (java on PATH; e.g. apt-get install default-jre-headless)"
    return None


def install(echo) -> None:
    echo('h2o is an optional extra of d3mkit: pip install "d3mkit[h2o]" (and a Java runtime on PATH)')
