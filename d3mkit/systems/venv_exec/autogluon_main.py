"""Runs inside AutoGluon's own environment (not d3mkit's): ``python -I autogluon_main.py TRAIN
TEST PROBLEM OUT OPTIONS_JSON``. Imports nothing of d3mkit (it is not installed there).

What this script owns: the handover to AutoGluon — the TRAIN view's features as
:mod:`d3mkit_views` types them (numbers, categories, datetimes; text left as text for
AutoGluon's own featurizer), the problem's task type as ``problem_type`` and its first metric
as ``eval_metric`` (where AutoGluon has it, :data:`METRICS`), ``time_limit`` and ``num_cpus``
from the options; then the TEST view's rows predicted and written with the timings.
"""

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))   # -I left it out: d3mkit_views beside us

#: D3M metric -> AutoGluon eval_metric (others: AutoGluon's default for the problem type)
METRICS = {"accuracy": "accuracy", "f1": "f1", "f1Macro": "f1_macro", "f1Micro": "f1_micro",
           "rocAuc": "roc_auc", "rocAucMacro": "roc_auc_ovo_macro", "meanSquaredError": "mean_squared_error",
           "rootMeanSquaredError": "root_mean_squared_error", "meanAbsoluteError": "mean_absolute_error",
           "rSquared": "r2", "balancedAccuracy": "balanced_accuracy"}


def main(argv):
    import pandas as pd
    from autogluon.tabular import TabularPredictor
    import d3mkit_views as views
    train_dir, test_dir, problem_dir, out, options = argv[:5]
    options = json.loads(options)
    p = views.problem_of(problem_dir)
    target = p["target"]
    problem_type = ("regression" if p["task"] == "regression" else
                    "binary" if p["subtype"] == "binary" else "multiclass")
    t0 = time.perf_counter()
    df, cols = views.load(train_dir)
    X, _ = views.features(df, cols, {target})
    X = X.reset_index(drop=True)
    y = pd.to_numeric(df[target], errors="coerce") if problem_type == "regression" else df[target]
    X["__target__"] = y.to_numpy()
    limit = options.get("time_limit")
    predictor = TabularPredictor(label="__target__", problem_type=problem_type, eval_metric=METRICS.get(p["metric"]),
                                 path=str(Path(out).parent / "ag_models"), verbosity=1)
    predictor.fit(X, time_limit=None if limit is None else max(1.0, 0.8 * limit),
                  num_cpus=options.get("cores", 1), num_gpus=0)
    t1 = time.perf_counter()
    tdf, _ = views.load(test_dir)
    tdf = tdf.drop_duplicates("d3mIndex")
    pred = predictor.predict(views.features(tdf, cols, {target})[0].reset_index(drop=True))
    views.write(out, tdf["d3mIndex"].to_numpy(), target, pred.to_numpy(), t1 - t0, time.perf_counter() - t1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
