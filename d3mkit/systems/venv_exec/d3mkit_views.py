"""The views as a system in its own environment reads them (imports nothing of d3mkit, only
pandas): the learningData of a view's dataset with its datasetDoc's colTypes and roles, the
problem's target, task type and first metric, and the predictions and timings written.

What this module owns: :func:`problem_of`, :func:`load`, :func:`features` (the feature
columns — index, targets, non-attribute roles and media references dropped — each of a kind:
``number``, ``category``, ``datetime`` or ``text``, typed as pandas does each) and
:func:`write`.
"""

import json
from pathlib import Path

KEEP = {"attribute", "timeIndicator", "locationIndicator", "suggestedGroupingKey"}


def problem_of(problem_dir) -> dict:
    """target, task (classification/regression), subtype, metric (the first), posLabel."""
    problem = json.loads((Path(problem_dir) / "problemDoc.json").read_text(encoding="utf-8"))
    about, inputs = problem["about"], problem["inputs"]
    keywords = about.get("taskKeywords") or []
    task = about.get("taskType") or next((k for k in keywords if k in ("classification", "regression")), None)
    sub = about.get("taskSubType") or next((k for k in keywords if k in ("binary", "multiClass")), None)
    first = (inputs.get("performanceMetrics") or [{}])[0]
    return {"target": inputs["data"][0]["targets"][0]["colName"], "task": task, "subtype": sub,
            "metric": first.get("metric"), "posLabel": first.get("posLabel")}


def load(dataset_dir):
    """(learningData as text cells, empty cells None; colName -> its datasetDoc column)."""
    import pandas as pd
    doc = json.loads((Path(dataset_dir) / "datasetDoc.json").read_text(encoding="utf-8"))
    res = next(r for r in doc["dataResources"] if r.get("resID") == "learningData" or
               r.get("resType") == "table")
    df = pd.read_csv(Path(dataset_dir) / res["resPath"], dtype=str, keep_default_na=False)
    df = df.replace("", None)
    return df, {c["colName"]: c for c in res.get("columns") or []}


def _kind(values, coltype: str) -> str:
    import pandas as pd
    if coltype in ("integer", "real"):
        return "number"
    if coltype in ("categorical", "boolean"):
        return "category"
    if coltype == "dateTime":
        return "datetime"
    filled = values.dropna().astype(str)
    if coltype == "unknown" and len(filled) and pd.to_numeric(filled, errors="coerce").notna().all():
        return "number"
    if coltype == "text" or (len(filled) and filled.str.count(" ").mean() >= 3 and
                             filled.nunique() > 0.5 * len(filled)):
        return "text"
    return "category"


def features(df, cols, targets):
    """(the feature columns typed, colName -> kind); an undeclared column is read as an
    ``unknown`` one (a number when every filled cell is one)."""
    import pandas as pd
    X, kinds = {}, {}
    for name in df.columns:
        c = cols.get(name)
        if name == "d3mIndex" or name in targets:
            continue
        if c is not None and (not set(c.get("role", [])) & KEEP or
                              (isinstance(c.get("refersTo"), dict) and c["refersTo"].get("resObject") == "item")):
            continue
        kind = kinds[name] = _kind(df[name], (c or {}).get("colType", "unknown"))
        s = df[name]
        if kind == "number":
            s = pd.to_numeric(s, errors="coerce")
        elif kind == "category":
            s = s.astype("category")
        elif kind == "datetime":
            s = pd.to_datetime(s, errors="coerce", utc=True).dt.tz_localize(None)
        X[name] = s
    return pd.DataFrame(X, index=df.index), kinds


def write(out, index, target: str, values, fit_seconds: float, predict_seconds: float) -> None:
    """predictions.csv (d3mIndex, the target) and timings.json beside it."""
    import pandas as pd
    pd.DataFrame({"d3mIndex": index, target: values}).to_csv(out, index=False)
    Path(out).with_name("timings.json").write_text(json.dumps({"fit_seconds": fit_seconds,
                                                               "predict_seconds": predict_seconds}))
