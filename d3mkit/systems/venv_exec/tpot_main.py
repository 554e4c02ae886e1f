"""Runs inside TPOT's own environment (not d3mkit's): ``python -I tpot_main.py TRAIN TEST
PROBLEM OUT OPTIONS_JSON``. Imports nothing of d3mkit (it is not installed there).

What this script owns: the handover to TPOT 1.x — the TRAIN view's features as
:mod:`d3mkit_views` types them (numbers as floats, categories as text cells that TPOT's own
preprocessing imputes and one-hot encodes, datetimes as seconds since 1970; text columns are
left out: TPOT's search space has no text featurizer), classification as
``TPOTClassifier`` with the classes coded 0..k-1 (the problem's ``posLabel`` as 1),
regression as ``TPOTRegressor``, the problem's first metric as TPOT's scorer (a scikit-learn
scorer name, :data:`METRICS`; a metric without one leaves TPOT's default), the time budget
(``max_time_mins``: half of what is left of the time limit after starting and reading, less
2 s, since TPOT overruns it by its last generation and the final fit; at most a sixth of it
per pipeline; a population of 20 below :data:`SHORT` seconds), ``n_jobs`` and
``random_state``; its Dask cluster is made here, in threads (no worker processes, no
dashboard port). Then the TEST view's rows predicted and written with the timings.
"""

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))   # -I left it out: d3mkit_views beside us

#: D3M metric -> scikit-learn scorer name TPOT maximises (others: TPOT's default)
METRICS = {"accuracy": "accuracy", "f1": "f1", "f1Macro": "f1_macro", "f1Micro": "f1_micro",
           "rocAuc": "roc_auc", "rocAucMacro": "roc_auc_ovr", "balancedAccuracy": "balanced_accuracy",
           "logLoss": "neg_log_loss", "meanSquaredError": "neg_mean_squared_error",
           "rootMeanSquaredError": "neg_root_mean_squared_error", "meanAbsoluteError": "neg_mean_absolute_error",
           "medianAbsoluteError": "neg_median_absolute_error", "rSquared": "r2"}
BUDGET_SHARE = 0.5
SHORT = 120    # a budget (s) below which the population is 20, not TPOT's 50


def tpot_frame(X, kinds):
    """Numbers and datetimes as floats, categories as text cells (missing: NaN); text out.
    Returns (frame, the categorical column names)."""
    import numpy as np
    import pandas as pd
    out, cats = {}, []
    for name, kind in kinds.items():
        s = X[name]
        if kind == "number":
            out[name] = s.astype(float)
        elif kind == "datetime":
            out[name] = (s - pd.Timestamp(0)).dt.total_seconds()
        elif kind == "category":
            out[name] = s.astype(object).where(s.notna(), np.nan).astype(object)
            cats.append(name)
    if not out:                    # no usable feature: a constant one, so TPOT has something to fit
        out["__none__"] = np.zeros(len(X))
    return pd.DataFrame(out, index=X.index).reset_index(drop=True), cats


def classes_of(y, pos_label):
    """The sorted class labels, the positive one (binary f1) last so that it is coded 1."""
    classes = sorted(y.astype(str).unique())
    if pos_label is not None and str(pos_label) in classes and len(classes) == 2:
        classes = [c for c in classes if c != str(pos_label)] + [str(pos_label)]
    return classes


def main(argv):
    import numpy as np
    import pandas as pd
    import tpot
    from dask.distributed import Client, LocalCluster
    import d3mkit_views as views
    started = time.time()
    train_dir, test_dir, problem_dir, out, options = argv[:5]
    options = json.loads(options)
    p = views.problem_of(problem_dir)
    target, classification = p["target"], p["task"] == "classification"
    t0 = time.perf_counter()
    df, cols = views.load(train_dir)
    df = df[df[target].notna()].drop_duplicates("d3mIndex").reset_index(drop=True)
    X, kinds = views.features(df, cols, {target})
    X, cats = tpot_frame(X, kinds)
    scorer = METRICS.get(p["metric"])
    if classification:
        classes = classes_of(df[target], p["posLabel"])
        y = df[target].astype(str).map({c: k for k, c in enumerate(classes)}).to_numpy()
        if scorer in ("f1", "roc_auc") and len(classes) != 2:
            scorer = None
    else:
        y = pd.to_numeric(df[target], errors="coerce").to_numpy(dtype=float)
    limit = options.get("time_limit") or 60.0
    left = limit - (time.time() - started)
    budget = max(2.0, BUDGET_SHARE * left - 2.0)
    cores = int(options.get("cores") or 1)
    kwargs = dict(scorers=[scorer], scorers_weights=[1]) if scorer else {}
    print(f"tpot: {budget:.1f} s to search, scorer {scorer or 'default'}", flush=True)
    with LocalCluster(n_workers=cores, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        Estimator = tpot.TPOTClassifier if classification else tpot.TPOTRegressor
        est = Estimator(search_space="linear", cv=5, max_time_mins=budget / 60, max_eval_time_mins=budget / 6 / 60,
                        n_jobs=cores, random_state=options.get("seed", 0), verbose=0, client=client,
                        categorical_features=cats or None, preprocessing=True,
                        population_size=20 if budget < SHORT else 50, **kwargs)
        est.fit(X, y)
    t1 = time.perf_counter()
    tdf, _ = views.load(test_dir)
    tdf = tdf.drop_duplicates("d3mIndex").reset_index(drop=True)
    TX, _ = views.features(tdf, cols, {target})
    for name in kinds:
        if name not in TX.columns:
            TX[name] = None
    TX, _ = tpot_frame(TX[list(kinds)], kinds)
    pred = est.predict(TX)
    if classification:
        pred = np.asarray(classes, dtype=object)[np.asarray(pred, dtype=int)]
    views.write(out, tdf["d3mIndex"].to_numpy(), target, pred, t1 - t0, time.perf_counter() - t1)
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)    # not sys.exit: threads TPOT and Dask leave behind hold the interpreter's exit for seconds
