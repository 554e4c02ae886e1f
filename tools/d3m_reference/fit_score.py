"""Run the D3M reference runtime on d3mkit task roots and compare its scores with d3mkit's.

Run with d3mkit's Python; the reference environment (tools/d3m_reference/setup_env.sh, with
the d3mkit-d3m plugin of interop/d3m installed) is named by --python or $D3MKIT_D3M_PYTHON:

    python tools/d3m_reference/fit_score.py TASK_ROOT... [--work DIR] [--python PY] [--keep]

For each task root: write its TRAIN/TEST/SCORE views (``d3mkit views``); convert them to the
4.0.0 schemas when the dataset has bounding boxes (d3m knows only the 4.0.0
``boundingPolygon``; ``d3mkit convert TREE --to 4.0.0 --out DIR``); load every view with
``Problem.load`` and ``Dataset.load`` (check_load.py); write a pipeline of standard
primitives (make_pipeline.py: a scikit-learn dummy classifier or regressor, which runs on
any attributes, images included); run

    PY -m d3m -M d3mkit_d3m runtime fit-score -r TRAIN/problem_TRAIN/problemDoc.json
        -i TRAIN/dataset_TRAIN/datasetDoc.json -t TEST/dataset_TEST/datasetDoc.json
        -a SCORE/dataset_SCORE/datasetDoc.json -p PIPELINE -o predictions.csv -c scores.csv

and score the same predictions.csv with ``d3mkit score`` against SCORE/targets.csv. Prints
one row per (task root, metric): d3m's value, d3mkit's, and whether they are equal
(|difference| <= 1e-9); exits 1 if a step failed or a value differs, 2 without the
reference environment. The plugin runs d3mkit as ``D3MKIT_COMMAND`` (this interpreter,
``-m d3mkit``, with this repository on PYTHONPATH) and, for metrics that read per-row
metadata, ``D3MKIT_METADATA_DIR`` (the task root's ``<name>_debug``).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))

LEARNERS = {"classification": "d3m.primitives.classification.dummy.SKlearn",
            "regression": "d3m.primitives.regression.dummy.SKlearn"}
REGRESSION_TASKS = ("regression", "timeSeriesForecasting", "collaborativeFiltering")
# d3mkit metric name -> d3m's PerformanceMetric name in scores.csv (the custom ones keep theirs)
D3M_NAMES = {"accuracy": "ACCURACY", "precision": "PRECISION", "recall": "RECALL", "f1": "F1",
             "f1Micro": "F1_MICRO", "f1Macro": "F1_MACRO", "rocAuc": "ROC_AUC", "rocAucMicro": "ROC_AUC_MICRO",
             "rocAucMacro": "ROC_AUC_MACRO", "meanSquaredError": "MEAN_SQUARED_ERROR",
             "rootMeanSquaredError": "ROOT_MEAN_SQUARED_ERROR", "meanAbsoluteError": "MEAN_ABSOLUTE_ERROR",
             "rSquared": "R_SQUARED", "normalizedMutualInformation": "NORMALIZED_MUTUAL_INFORMATION",
             "jaccardSimilarityScore": "JACCARD_SIMILARITY_SCORE", "precisionAtTopK": "PRECISION_AT_TOP_K",
             "objectDetectionAP": "OBJECT_DETECTION_AVERAGE_PRECISION", "hammingLoss": "HAMMING_LOSS",
             "meanReciprocalRank": "MEAN_RECIPROCAL_RANK", "hitsAtK": "HITS_AT_K"}


def _env(metadata_dir: Path | None) -> dict:
    env = dict(os.environ)
    env["D3MKIT_COMMAND"] = f"{shlex.quote(sys.executable)} -m d3mkit"
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    if metadata_dir is not None and metadata_dir.is_dir():
        env["D3MKIT_METADATA_DIR"] = str(metadata_dir)
    else:
        env.pop("D3MKIT_METADATA_DIR", None)
    return env


def _has_boxes(views: Path) -> bool:
    for doc in views.glob("*/dataset_*/datasetDoc.json"):
        text = doc.read_text(encoding="utf-8")
        if '"boundingBox"' in text:
            return True
    return False


def _without_confidence_metrics(problem_doc: Path, predictions: Path, work: Path) -> dict:
    """The SCORE problem without the metrics that need a confidence column when the
    predictions have none (d3mkit refuses such a file; d3m scores those metrics as empty)."""
    from d3mkit.scoring.registry import registry
    from d3mkit.tables import read_table
    doc = json.loads(problem_doc.read_text(encoding="utf-8"))
    if "confidence" in read_table(predictions).columns:
        return {"problem": problem_doc, "dropped": [], "no_confidence": False}
    metrics = doc["inputs"]["performanceMetrics"]
    def needs(m):
        metric = registry().get(m.get("specifyOther") if m.get("metric") == "other" else m.get("metric"))
        return metric is not None and metric.needs_confidence
    dropped = [m.get("specifyOther", m["metric"]) for m in metrics if needs(m)]
    if not dropped:
        return {"problem": problem_doc, "dropped": [], "no_confidence": True}
    doc["inputs"]["performanceMetrics"] = [m for m in metrics if not needs(m)]
    copy = work / "problem_SCORE_scored" / "problemDoc.json"
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return {"problem": copy, "dropped": dropped, "no_confidence": True}


def run_one(root: Path, work: Path, python: str, pipelines: dict) -> list[dict]:
    from d3mkit.docs import ProblemDoc
    from d3mkit.package import convert_tree
    from d3mkit.scoring.score import score_predictions
    from d3mkit.taskroot import TaskRoot
    from d3mkit.views import write_views

    task = TaskRoot.open(root)
    name = root.name
    rows: list[dict] = []
    base = {"task root": name}
    views = work / name / "views"
    write_views(root, views, force=True)
    converted = ""
    if _has_boxes(views):
        convert_tree(views, "4.0.0", work / name / "views4", force=True)
        views, converted = work / name / "views4", " (converted to 4.0.0)"
    load = subprocess.run([python, str(HERE / "check_load.py"), "-M", "d3mkit_d3m"]
                          + [str(views / v) for v in ("TRAIN", "TEST", "SCORE")],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                          env=_env(None))
    if load.returncode != 0:
        return [dict(base, metric="load" + converted, d3m="FAILED", d3mkit="", equal=False,
                     detail=next((ln for ln in load.stdout.splitlines() if "FAILED" in ln), "")[:300])]
    problem = ProblemDoc.load(views / "TRAIN" / "problem_TRAIN" / "problemDoc.json")
    kind = "regression" if problem.task_type in REGRESSION_TASKS else "classification"
    learner = LEARNERS[kind]
    if learner not in pipelines:
        out = subprocess.run([python, str(HERE / "make_pipeline.py"), learner], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, universal_newlines=True, check=True)
        path = work / f"pipeline-{kind}.json"
        path.write_text(out.stdout)
        pipelines[learner] = path
    pred, scores = work / name / "predictions.csv", work / name / "scores.csv"
    metadata_dir = task.debug_dir
    cmd = [python, "-m", "d3m", "-M", "d3mkit_d3m", "runtime", "fit-score",
           "-r", str(views / "TRAIN" / "problem_TRAIN" / "problemDoc.json"),
           "-i", str(views / "TRAIN" / "dataset_TRAIN" / "datasetDoc.json"),
           "-t", str(views / "TEST" / "dataset_TEST" / "datasetDoc.json"),
           "-a", str(views / "SCORE" / "dataset_SCORE" / "datasetDoc.json"),
           "-p", str(pipelines[learner]), "-o", str(pred), "-c", str(scores)]
    fit = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                         env=_env(metadata_dir))
    if fit.returncode != 0 or not scores.is_file():
        tail = [ln for ln in fit.stdout.splitlines() if ln.strip() and not ln.startswith(" ")][-1:]
        return [dict(base, metric="fit-score" + converted, d3m="FAILED", d3mkit="", equal=False,
                     detail=(tail[0] if tail else "")[:200])]
    with open(scores, newline="") as fh:
        d3m_scores = {r["metric"]: float(r["value"]) if r["value"] != "" else math.nan
                      for r in csv.DictReader(fh)}
    score_problem = views / "SCORE" / "problem_SCORE" / "problemDoc.json"
    kept = _without_confidence_metrics(score_problem, pred, work / name)
    for m in kept["dropped"]:
        theirs = d3m_scores.get(D3M_NAMES.get(m, m))
        rows.append(dict(base, metric=m + converted, d3m="" if theirs is None else f"{theirs:.6g}",
                         d3mkit="refused", equal=None,
                         detail="the pipeline writes no confidence column: d3mkit refuses the file "
                                "(predictions.no_confidence), d3m writes an empty value"))
    mine = score_predictions(kept["problem"], pred, targets_path=views / "SCORE" / "targets.csv",
                             metadata_dir=metadata_dir if metadata_dir.is_dir() else None)
    # a singleTarget metric of a multi-target problem: d3mkit scores each target, d3m the mean
    per_target: dict = {}
    for s in mine.scores:
        if s.target is not None:
            per_target.setdefault(s.metric, []).append(s.value)
    for metric, values in per_target.items():
        theirs = d3m_scores.get(D3M_NAMES.get(metric, metric))
        mean = sum(values) / len(values)
        equal = theirs is not None and abs(theirs - mean) <= 1e-9
        rows.append(dict(base, metric=f"{metric} (mean of {len(values)} targets)" + converted,
                         d3m="" if theirs is None else f"{theirs:.6g}", d3mkit=f"{mean:.6g}", equal=equal,
                         detail="d3mkit writes one value per target; d3m averages over the targets"))
    for s in mine.scores:
        if s.target is not None:
            rows.append(dict(base, metric=s.label + converted, d3m="", d3mkit=f"{s.value:.6g}", equal=None,
                             detail="per target (d3m has only the mean)"))
            continue
        d3m_name = D3M_NAMES.get(s.metric, s.metric)
        theirs = d3m_scores.get(d3m_name)
        if theirs is not None and math.isnan(theirs) and kept["no_confidence"]:
            rows.append(dict(base, metric=s.label + converted, d3m="empty", d3mkit=f"{s.value:.6g}", equal=None,
                             detail="no confidence column: d3m writes an empty value, d3mkit scores the "
                                    "detections as equally confident"))
            continue
        equal = theirs is not None and (theirs == s.value or (math.isfinite(theirs) and math.isfinite(s.value)
                                                              and abs(theirs - s.value) <= 1e-9))
        rows.append(dict(base, metric=s.label + converted, d3m="" if theirs is None else f"{theirs:.6g}",
                         d3mkit=f"{s.value:.6g}", equal=equal,
                         detail="" if equal else ("d3m has no single value for it" if theirs is None else "")))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roots", nargs="+", type=Path, metavar="TASK_ROOT")
    ap.add_argument("--python", default=os.environ.get("D3MKIT_D3M_PYTHON"),
                    help="the reference interpreter (default $D3MKIT_D3M_PYTHON)")
    ap.add_argument("--work", type=Path, help="where views, pipelines and outputs go (default: a temp dir)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args(argv)
    if not args.python:
        print("no reference environment: pass --python or set D3MKIT_D3M_PYTHON "
              "(build one with tools/d3m_reference/setup_env.sh DIR)", file=sys.stderr)
        return 2
    work = args.work or Path(tempfile.mkdtemp(prefix="d3mkit-fit-score-"))
    work.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    pipelines: dict = {}
    for root in args.roots:
        try:
            rows += run_one(root.resolve(), work.resolve(), args.python, pipelines)
        except Exception as exc:   # one failing root must not hide the others
            rows.append({"task root": root.name, "metric": "error", "d3m": "", "d3mkit": "",
                         "equal": False, "detail": f"{type(exc).__name__}: {exc}"[:200]})
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        cols = ["task root", "metric", "d3m", "d3mkit", "equal", "detail"]
        width = {c: max([len(c)] + [len(str(r[c])) for r in rows]) for c in cols}
        print("  ".join(c.ljust(width[c]) for c in cols).rstrip())
        for r in rows:
            print("  ".join(str(r[c]).ljust(width[c]) for c in cols).rstrip())
        print(f"work directory: {work}")
    return 0 if rows and all(r["equal"] is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
