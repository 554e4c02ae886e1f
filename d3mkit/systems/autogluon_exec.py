"""Runs inside AutoGluon's own environment (not d3mkit's): ``python autogluon_exec.py TRAIN
TEST PROBLEM OUT OPTIONS_JSON``. Imports nothing of d3mkit (it is not installed there).

What this script owns: the handover to AutoGluon — learningData of the TRAIN view with the
datasetDoc's colTypes (index and non-attribute roles dropped; categorical/boolean as
categories, dateTime parsed, text left as text for AutoGluon's own featurizer), the
problem's task type as ``problem_type`` and its first metric as ``eval_metric`` (where
AutoGluon has it, :data:`METRICS`), ``time_limit`` and ``num_cpus`` from the options; then
the TEST view's rows predicted and written as predictions.csv with the timings beside it.
"""

import json
import sys
import time
from pathlib import Path

#: D3M metric -> AutoGluon eval_metric (others: AutoGluon's default for the problem type)
METRICS = {"accuracy": "accuracy", "f1": "f1", "f1Macro": "f1_macro", "f1Micro": "f1_micro",
           "rocAuc": "roc_auc", "rocAucMacro": "roc_auc_ovo_macro", "meanSquaredError": "mean_squared_error",
           "rootMeanSquaredError": "root_mean_squared_error", "meanAbsoluteError": "mean_absolute_error",
           "rSquared": "r2", "balancedAccuracy": "balanced_accuracy"}
KEEP = {"attribute", "timeIndicator", "locationIndicator"}


def load(dataset_dir, problem=None):
    import pandas as pd
    doc = json.loads((Path(dataset_dir) / "datasetDoc.json").read_text(encoding="utf-8"))
    res = next(r for r in doc["dataResources"] if r.get("resID") == "learningData" or
               r.get("resType") == "table")
    df = pd.read_csv(Path(dataset_dir) / res["resPath"], dtype=str, keep_default_na=False)
    df = df.replace("", None)
    cols = {c["colName"]: c for c in res.get("columns") or []}
    return df, cols


def features(df, cols, targets):
    import pandas as pd
    keep = []
    for name in df.columns:
        c = cols.get(name)
        if name == "d3mIndex" or name in targets:
            continue
        if c is not None and (not set(c.get("role", [])) & KEEP or
                              (isinstance(c.get("refersTo"), dict) and c["refersTo"].get("resObject") == "item")):
            continue
        keep.append(name)
    X = df[keep].copy()
    for name in keep:
        t = (cols.get(name) or {}).get("colType", "unknown")
        if t in ("integer", "real"):
            X[name] = pd.to_numeric(X[name], errors="coerce")
        elif t in ("categorical", "boolean"):
            X[name] = X[name].astype("category")
        elif t == "dateTime":
            X[name] = pd.to_datetime(X[name], errors="coerce", utc=True).dt.tz_localize(None)
        elif t == "unknown":
            num = pd.to_numeric(X[name], errors="coerce")
            X[name] = num if num.notna().sum() == X[name].notna().sum() else X[name]
    return X


def main(argv):
    from autogluon.tabular import TabularPredictor
    train_dir, test_dir, problem_dir, out, options = argv[:5]
    options = json.loads(options)
    problem = json.loads((Path(problem_dir) / "problemDoc.json").read_text(encoding="utf-8"))
    about, inputs = problem["about"], problem["inputs"]
    target = inputs["data"][0]["targets"][0]["colName"]
    task = about.get("taskType") or next((k for k in about.get("taskKeywords", [])
                                          if k in ("classification", "regression")), None)
    sub = about.get("taskSubType") or next((k for k in about.get("taskKeywords", [])
                                            if k in ("binary", "multiClass")), None)
    problem_type = "regression" if task == "regression" else ("binary" if sub == "binary" else "multiclass")
    metric = (inputs.get("performanceMetrics") or [{}])[0].get("metric")
    t0 = time.perf_counter()
    df, cols = load(train_dir)
    X = features(df, cols, {target}).reset_index(drop=True)
    X["__target__"] = (pd_numeric(df[target]) if problem_type == "regression" else df[target]).to_numpy()
    limit = options.get("time_limit")
    predictor = TabularPredictor(label="__target__", problem_type=problem_type, eval_metric=METRICS.get(metric),
                                 path=str(Path(out).parent / "ag_models"), verbosity=1)
    predictor.fit(X, time_limit=None if limit is None else max(1.0, 0.8 * limit),
                  num_cpus=options.get("cores", 1), num_gpus=0)
    t1 = time.perf_counter()
    tdf, _ = load(test_dir)
    tdf = tdf.drop_duplicates("d3mIndex")
    pred = predictor.predict(features(tdf, cols, {target}).reset_index(drop=True))
    import pandas as pd
    pd.DataFrame({"d3mIndex": tdf["d3mIndex"].to_numpy(), target: pred.to_numpy()}).to_csv(out, index=False)
    Path(out).with_name("timings.json").write_text(json.dumps({"fit_seconds": t1 - t0,
                                                               "predict_seconds": time.perf_counter() - t1}))
    return 0


def pd_numeric(s):
    import pandas as pd
    return pd.to_numeric(s, errors="coerce")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
