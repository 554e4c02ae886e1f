"""The ``flaml`` system: FLAML's AutoML (LightGBM, random forest, extra trees) searched within
the time limit (``pip install "d3mkit[flaml]"``).

What this module owns: the mapping of a TRAIN view to FLAML — colTypes to DataFrame dtypes
(numbers as floats, categorical/boolean/text as pandas categories, dateTime as naive
datetimes, which FLAML splits into parts itself), the task type (``classification`` /
``regression``), the problem's first metric to FLAML's ``metric`` (:data:`METRICS`; a
metric it lacks leaves FLAML's default for the task, ``auto``), the time budget (what is left of the time limit
after starting and reading, less 20 % of it and 1 s for predicting and writing), ``n_jobs`` and ``seed``.
Classes are given to FLAML as codes 0..k-1, the problem's ``posLabel`` (binary f1) as 1.
It handles one target: binary, multiClass, univariate regression; it refuses the others.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: D3M metric -> FLAML metric
METRICS = {"accuracy": "accuracy", "f1": "f1", "f1Macro": "macro_f1", "f1Micro": "micro_f1",
           "rocAuc": "roc_auc", "rocAucMacro": "roc_auc_ovr", "rocAucMicro": "roc_auc_ovr",
           "meanSquaredError": "mse", "rootMeanSquaredError": "rmse", "meanAbsoluteError": "mae",
           "rSquared": "r2", "logLoss": "log_loss"}
BUDGET_SHARE = 0.8
ESTIMATORS = ["lgbm", "rf", "extra_tree"]


def frame(X: pd.DataFrame, coltypes: dict[str, str]) -> pd.DataFrame:
    out = {}
    for c, t in coltypes.items():
        s = X[c]
        if t in ("integer", "real"):
            out[c] = pd.to_numeric(s, errors="coerce").astype(float)
        elif t == "dateTime":
            out[c] = pd.to_datetime(s, errors="coerce", utc=True).dt.tz_localize(None)
        elif t in ("categorical", "boolean", "text"):
            out[c] = s.astype(str).where(s.notna(), None).astype("category")
    return pd.DataFrame(out, index=X.index)


def metric_of(train) -> str:
    """FLAML's name for the problem's first metric, or ``auto``.

    >>> from types import SimpleNamespace as S
    >>> metric_of(S(metric={"metric": "f1Macro"})), metric_of(S(metric={"metric": "jaccardSimilarityScore"}))
    ('macro_f1', 'auto')
    """
    return METRICS.get((train.metric or {}).get("metric"), "auto")


def fit(train, options):
    from flaml import AutoML
    metric = metric_of(train)
    X = frame(train.X, train.coltypes)
    y = train.y.iloc[:, 0]
    classes = None
    if train.classification:
        classes = sorted(y.astype(str).unique())
        pos = (train.metric or {}).get("posLabel")
        if pos is not None and str(pos) in classes and len(classes) == 2:
            classes = [c for c in classes if c != str(pos)] + [str(pos)]
        y = y.astype(str).map({c: k for k, c in enumerate(classes)}).to_numpy()
        if metric in ("f1", "roc_auc") and len(classes) != 2:
            metric = "auto"
    else:
        y = y.astype(float).to_numpy()
    left = options.remaining()
    # what is left after starting and reading, less a share for predicting and writing
    budget = max(1.0, (left if left is not None else 60.0) - (1 - BUDGET_SHARE) * (options.time_limit or 60.0) - 1.0)
    automl = AutoML()
    automl.fit(X, y, task="classification" if train.classification else "regression", metric=metric,
               time_budget=budget, estimator_list=ESTIMATORS, n_jobs=options.cores, seed=options.seed,
               verbose=0, retrain_full="budget")
    return automl, classes


def predict(model, test, options):
    automl, classes = model
    pred = automl.predict(frame(test.X, test.coltypes))
    if classes is not None:
        pred = np.asarray(classes, dtype=object)[np.asarray(pred, dtype=int)]
    return np.asarray(pred, dtype=object).reshape(-1, 1)


def install(echo) -> None:
    echo('flaml is an optional extra of d3mkit: pip install "d3mkit[flaml]"')
