"""Run the D3M reference runtime on d3mkit task roots and compare its scores with d3mkit's.

Run with d3mkit's Python; the reference environment (tools/d3m_reference/setup_env.sh, with
the d3mkit-d3m plugin of interop/d3m installed) is named by --python or $D3MKIT_D3M_PYTHON:

    python tools/d3m_reference/fit_score.py --build [--only NAME,...] [--work DIR] [--python PY]
    python tools/d3m_reference/fit_score.py TASK_ROOT... [--work DIR] [--python PY]

``--build`` first builds every benchmark's task root at a tiny size with d3mkit's own
commands (``d3mkit build tabular|value|value-detection|visudo|abstraction|prism``; tabular
twice, wine for classification and diabetes for regression; and two roots made by
``d3mkit import table`` from a hand-made mixed CSV, a classification and a kFold regression; the
offline sources the tests use: random chess games, scikit-learn's digits, the PRISM demo
corpus shipped in datasets/prism/), into WORK/roots; ``--only`` picks some of them (names
in BUILDS below).

For each task root: write its TRAIN/TEST/SCORE views (``d3mkit views``); convert the root
and the views to the 4.0.0 schemas when the dataset has bounding boxes (d3m knows only the
4.0.0 ``boundingPolygon``; ``d3mkit convert TREE --to 4.0.0 --out DIR``); load the root and
every view with ``Problem.load`` and ``Dataset.load`` (check_load.py); run

    PY -m d3m -M d3mkit_d3m runtime fit-score -r TRAIN/problem_TRAIN/problemDoc.json
        -i TRAIN/dataset_TRAIN/datasetDoc.json -t TEST/dataset_TEST/datasetDoc.json
        -a SCORE/dataset_SCORE/datasetDoc.json -p PIPELINE -o predictions.csv -c scores.csv

with a pipeline of standard primitives (make_pipeline.py: a scikit-learn dummy classifier
or regressor, which runs on any attributes, images included), and score the same
predictions.csv with d3mkit against SCORE/targets.csv. Metrics that read a confidence
(rocAuc*, objectDetectionAP: d3m requires a ``confidence`` column for them) are scored on a
second run whose pipeline ends in d3m's ``construct_confidence`` (one row per (d3mIndex,
label) with the learner's probability), the others on hard labels (``construct_predictions``)
— on the per-label layout d3m scores hard-label metrics as label sets, d3mkit as each
index's most confident label, a documented difference.

Prints one row per (task root, metric): whether the views load, whether fit-score ran,
d3m's value, d3mkit's, and whether they are equal (|difference| <= 1e-9); exits 1 if a
step failed or a value differs, 2 without the reference environment. The plugin runs
d3mkit as ``D3MKIT_COMMAND`` (this interpreter, ``-m d3mkit``, with this repository on
PYTHONPATH) and, for metrics that read per-row metadata, ``D3MKIT_METADATA_DIR`` (the task
root's ``<name>_debug``).
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
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))

REGRESSION_TASKS = ("regression", "timeSeriesForecasting", "collaborativeFiltering")
# metrics d3m scores only from a confidence column (its requires_score), besides any d3mkit
# metric that needs one
CONFIDENCE_METRICS = {"rocAuc", "rocAucMicro", "rocAucMacro", "objectDetectionAP"}
# d3mkit metric name -> d3m's PerformanceMetric name in scores.csv (the custom ones keep theirs)
D3M_NAMES = {"accuracy": "ACCURACY", "precision": "PRECISION", "recall": "RECALL", "f1": "F1",
             "f1Micro": "F1_MICRO", "f1Macro": "F1_MACRO", "rocAuc": "ROC_AUC", "rocAucMicro": "ROC_AUC_MICRO",
             "rocAucMacro": "ROC_AUC_MACRO", "meanSquaredError": "MEAN_SQUARED_ERROR",
             "rootMeanSquaredError": "ROOT_MEAN_SQUARED_ERROR", "meanAbsoluteError": "MEAN_ABSOLUTE_ERROR",
             "rSquared": "R_SQUARED", "normalizedMutualInformation": "NORMALIZED_MUTUAL_INFORMATION",
             "jaccardSimilarityScore": "JACCARD_SIMILARITY_SCORE", "precisionAtTopK": "PRECISION_AT_TOP_K",
             "objectDetectionAP": "OBJECT_DETECTION_AVERAGE_PRECISION", "hammingLoss": "HAMMING_LOSS",
             "meanReciprocalRank": "MEAN_RECIPROCAL_RANK", "hitsAtK": "HITS_AT_K"}

TINY_GAMES = ["--n-train", "8", "--n-test", "4", "--size", "64", "--random-games", "1", "--workers", "1"]
# name -> the arguments of `d3mkit build` (each also gets --out, --seed 0, --quiet, --force);
# PRISM's --manifest is written from the demo corpus first
BUILDS = {
    "tabular": ["tabular", "--dataset", "wine"],
    "tabular-regression": ["tabular", "--dataset", "diabetes"],
    "value": ["value"] + TINY_GAMES,
    "value-detection": ["value-detection"] + TINY_GAMES,
    "visudo": ["visudo", "--sources", "digits", "--n-train", "4", "--n-test", "4", "--n-valid", "1"],
    "abstraction": ["abstraction", "--n-train", "20", "--n-test", "10", "--workers", "1"],
    "pvli": ["prism", "--task", "pvli"],
    "pvlr": ["prism", "--task", "pvlr"],
    # not a build: `d3mkit import table` of a hand-made mixed CSV (write_import_source)
    "imported": ["import", "table", "--target", "label"],
    "imported-regression": ["import", "table", "--target", "price", "--split", "kFold", "--folds", "3"],
}


def write_import_source(out: Path) -> Path:
    """A CSV a user might bring (no d3mIndex; integer, real, boolean, date, categorical and
    text columns; a text label and a real price), written with the standard library."""
    import random
    rng = random.Random(0)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "mixed.csv"
    cities = ["Paris", "Lyon", "Nice", "Lille"]
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["age", "income", "member", "joined", "city", "note", "label", "price"])
        for i in range(60):
            w.writerow([rng.randint(18, 80), round(rng.uniform(1000, 9000), 2), rng.choice(["yes", "no"]),
                        f"20{rng.randint(10, 23)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}",
                        rng.choice(cities), f"note {i}, free text", rng.choice(["low", "mid", "high"]),
                        round(rng.uniform(5, 50), 3)])
    return path


def _env(metadata_dir: Path | None) -> dict:
    env = dict(os.environ)
    env["D3MKIT_COMMAND"] = f"{shlex.quote(sys.executable)} -m d3mkit"
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    if metadata_dir is not None and metadata_dir.is_dir():
        env["D3MKIT_METADATA_DIR"] = str(metadata_dir)
    else:
        env.pop("D3MKIT_METADATA_DIR", None)
    return env


def build_roots(names: list[str], out: Path) -> list[tuple[str, Path]]:
    """Build the named benchmarks' task roots into ``out`` with ``d3mkit build``."""
    roots = []
    manifest = None
    for name in names:
        argv = list(BUILDS[name])
        if argv[0] == "import":
            cmd = [sys.executable, "-m", "d3mkit"] + argv[:2] + [str(write_import_source(out / "import_source"))] \
                + argv[2:] + ["--out", str(out), "--name", name.replace("-", "_"), "--force"]
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                                  env=_env(None))
            if proc.returncode != 0:
                raise RuntimeError(f"d3mkit import {name} failed: {proc.stderr.strip()[-300:]}")
            roots.append((name, Path(proc.stdout.split()[-1])))
            continue
        if argv[0] == "prism":
            if manifest is None:
                from d3mkit.benchmarks.prism.demo import write_demo_manifest
                manifest = write_demo_manifest(out / "prism_source", variants=1, seed=0)
            argv += ["--manifest", str(manifest)]
        cmd = [sys.executable, "-m", "d3mkit", "build"] + argv + ["--out", str(out), "--seed", "0",
                                                                   "--quiet", "--force"]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                              env=_env(None))
        if proc.returncode != 0:
            raise RuntimeError(f"d3mkit build {name} failed: {proc.stderr.strip()[-300:]}")
        roots.append((name, Path(proc.stdout.split()[-1])))
    return roots


def _has_boxes(tree: Path) -> bool:
    """A task root (``*_dataset/``) or views tree (``*/dataset_*/``) with bounding boxes."""
    docs = list(tree.glob("*/datasetDoc.json")) + list(tree.glob("*/*/datasetDoc.json"))
    return any('"boundingBox"' in doc.read_text(encoding="utf-8") for doc in docs)


def _metric_name(entry: dict) -> str:
    return entry.get("specifyOther") if entry.get("metric") == "other" else entry.get("metric")


def _needs_confidence(name: str) -> bool:
    from d3mkit.scoring.registry import registry
    metric = registry().get(name)
    return name in CONFIDENCE_METRICS or (metric is not None and metric.needs_confidence)


def _problem_with(problem_doc: Path, names: list[str], path: Path) -> Path:
    """A copy of the SCORE problem keeping only the metrics ``names`` (d3mkit scores every
    metric of a problem; each run is compared on the metrics its predictions are for)."""
    doc = json.loads(problem_doc.read_text(encoding="utf-8"))
    doc["inputs"]["performanceMetrics"] = [m for m in doc["inputs"]["performanceMetrics"]
                                           if _metric_name(m) in names]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


def _pipelines(python: str, work: Path) -> dict:
    out = subprocess.run([python, str(HERE / "make_pipeline.py"), "--all"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True, check=True)
    paths = {}
    for kind, pipe in json.loads(out.stdout).items():
        paths[kind] = work / f"pipeline-{kind}.json"
        paths[kind].write_text(json.dumps(pipe, indent=1))
    return paths


def _equal(theirs, mine) -> bool:
    return theirs is not None and (theirs == mine or (math.isfinite(theirs) and math.isfinite(mine)
                                                      and abs(theirs - mine) <= 1e-9))


def _diff(theirs, mine):
    try:
        d = abs(theirs - mine)
    except TypeError:
        return None
    return d if math.isfinite(d) else None


def _fmt(v) -> str:
    return "" if v is None else ("empty" if isinstance(v, float) and math.isnan(v) else f"{v:.6g}")


def run_one(root: Path, work: Path, python: str, pipelines: dict, bench: str = "",
            confidence_only: bool = False) -> list[dict]:
    from d3mkit.docs import ProblemDoc
    from d3mkit.package import convert_tree
    from d3mkit.scoring.score import score_predictions
    from d3mkit.taskroot import TaskRoot
    from d3mkit.views import write_views

    task = TaskRoot.open(root)
    name = root.name
    base = {"benchmark": bench or name, "task root": name, "loads": "", "fit-score": "", "pipeline": "",
            "metric": "", "d3m": "", "d3mkit": "", "equal": None, "note": ""}
    views = work / name / "views"
    write_views(root, views, force=True)
    loads = "yes"
    loaded_root = root
    if _has_boxes(views):
        convert_tree(views, "4.0.0", work / name / "views4", force=True)
        convert_tree(root, "4.0.0", work / name / "root4", force=True)
        views, loaded_root, loads = work / name / "views4", work / name / "root4", "yes (4.0.0)"
    # the task root itself and its three views
    load = subprocess.run([python, str(HERE / "check_load.py"), "-M", "d3mkit_d3m", str(loaded_root)]
                          + [str(views / v) for v in ("TRAIN", "TEST", "SCORE")],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                          env=_env(None))
    if load.returncode != 0:
        return [dict(base, loads="FAILED", equal=False,
                     note=next((ln for ln in load.stdout.splitlines() if "FAILED" in ln), "")[:300])]
    problem = ProblemDoc.load(views / "TRAIN" / "problem_TRAIN" / "problemDoc.json")
    kind = "regression" if problem.task_type in REGRESSION_TASKS else "classification"
    score_problem = views / "SCORE" / "problem_SCORE" / "problemDoc.json"
    entries = json.loads(score_problem.read_text(encoding="utf-8"))["inputs"]["performanceMetrics"]
    names = [_metric_name(m) for m in entries]
    custom = any(m.get("metric") == "other" for m in entries)
    base["loads"] = loads + (" (plugin)" if custom else "")
    runs = []
    hard = [n for n in names if not _needs_confidence(n)]
    soft = [n for n in names if _needs_confidence(n)]
    if hard and not confidence_only:
        runs.append((kind, hard))
    if soft:
        runs.append((kind + "+confidence", soft))
    metadata_dir = task.debug_dir if task.debug_dir.is_dir() else None
    rows: list[dict] = []
    for pipe, metrics in runs:
        row = dict(base, pipeline=pipe)
        if pipe not in pipelines:
            rows.append(dict(row, metric=",".join(metrics), equal=False, note="no pipeline of this kind"))
            continue
        tag = pipe.replace("+", "-")
        pred, scores = work / name / f"predictions-{tag}.csv", work / name / f"scores-{tag}.csv"
        cmd = [python, "-m", "d3m", "-M", "d3mkit_d3m", "runtime", "fit-score",
               "-r", str(views / "TRAIN" / "problem_TRAIN" / "problemDoc.json"),
               "-i", str(views / "TRAIN" / "dataset_TRAIN" / "datasetDoc.json"),
               "-t", str(views / "TEST" / "dataset_TEST" / "datasetDoc.json"),
               "-a", str(views / "SCORE" / "dataset_SCORE" / "datasetDoc.json"),
               "-p", str(pipelines[pipe]), "-o", str(pred), "-c", str(scores)]
        fit = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                             env=_env(metadata_dir))
        if fit.returncode != 0 or not scores.is_file():
            tail = [ln for ln in fit.stdout.splitlines() if ln.strip() and not ln.startswith(" ")][-1:]
            rows.append(dict(row, **{"fit-score": "FAILED"}, metric=",".join(metrics), equal=False,
                             note=(tail[0] if tail else "")[:200]))
            continue
        row["fit-score"] = "ok"
        with open(scores, newline="") as fh:
            d3m_scores = {r["metric"]: float(r["value"]) if r["value"] != "" else math.nan
                          for r in csv.DictReader(fh)}
        kept = _problem_with(score_problem, metrics, work / name / f"problem_SCORE_{tag}" / "problemDoc.json")
        mine = score_predictions(kept, pred, targets=views / "SCORE" / "targets.csv",
                                 metadata_dir=metadata_dir)
        # a singleTarget metric of a multi-target problem: d3mkit scores each target, d3m the mean
        per_target: dict = {}
        for s in mine.scores:
            if s.target is not None:
                per_target.setdefault(s.metric, []).append(s.value)
        for metric, values in per_target.items():
            theirs = d3m_scores.get(D3M_NAMES.get(metric, metric))
            mean = sum(values) / len(values)
            rows.append(dict(row, metric=f"{metric} (mean of {len(values)} targets)", d3m=_fmt(theirs),
                             d3mkit=_fmt(mean), equal=_equal(theirs, mean), diff=_diff(theirs, mean),
                             note="d3mkit: " + ", ".join(f"{s.label} {s.value:.6g}" for s in mine.scores
                                                         if s.metric == metric) + "; d3m: the mean"))
        for s in mine.scores:
            if s.target is not None:
                continue
            theirs = d3m_scores.get(D3M_NAMES.get(s.metric, s.metric))
            equal = _equal(theirs, s.value)
            rows.append(dict(row, metric=s.label, d3m=_fmt(theirs), d3mkit=_fmt(s.value), equal=equal,
                             diff=_diff(theirs, s.value),
                             note="" if equal else ("d3m has no value for it" if theirs is None else "")))
    return rows


COLUMNS = ["benchmark", "task root", "loads", "fit-score", "pipeline", "metric", "d3m", "d3mkit", "equal", "note"]


def print_table(rows: list[dict]) -> None:
    width = {c: max([len(c)] + [len(str(r[c])) for r in rows]) for c in COLUMNS}
    print("  ".join(c.ljust(width[c]) for c in COLUMNS).rstrip())
    for r in rows:
        print("  ".join(str(r[c]).ljust(width[c]) for c in COLUMNS).rstrip())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roots", nargs="*", type=Path, metavar="TASK_ROOT")
    ap.add_argument("--build", action="store_true",
                    help="build every benchmark's task root at a tiny size with d3mkit build first")
    ap.add_argument("--only", help="with --build: comma-separated names of " + ", ".join(BUILDS))
    ap.add_argument("--python", default=os.environ.get("D3MKIT_D3M_PYTHON"),
                    help="the reference interpreter (default $D3MKIT_D3M_PYTHON)")
    ap.add_argument("--work", type=Path, help="where roots, views, pipelines and outputs go (default: a temp dir)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    ap.add_argument("--confidence-only", action="store_true",
                    help="run only the confidence pipeline (the metrics that read a confidence column)")
    args = ap.parse_args(argv)
    if not args.python:
        print("no reference environment: pass --python or set D3MKIT_D3M_PYTHON "
              "(build one with tools/d3m_reference/setup_env.sh DIR)", file=sys.stderr)
        return 2
    names = list(BUILDS)
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in BUILDS]
        if unknown or not args.build:
            ap.error(f"--only needs --build and names of {', '.join(BUILDS)}")
    if not args.roots and not args.build:
        ap.error("give TASK_ROOTs or --build")
    work = (args.work or Path(tempfile.mkdtemp(prefix="d3mkit-fit-score-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    targets = [("", r.resolve()) for r in args.roots]
    rows: list[dict] = []
    if args.build:
        try:
            targets += build_roots(names, work / "roots")
        except RuntimeError as exc:
            print(str(exc), file=sys.stderr)
            return 1
    pipelines = _pipelines(args.python, work)
    for bench, root in targets:
        try:
            rows += run_one(root, work, args.python, pipelines, bench, args.confidence_only)
        except Exception as exc:   # one failing root must not hide the others
            rows.append({c: "" for c in COLUMNS} | {"benchmark": bench or root.name, "task root": root.name,
                                                   "equal": False, "note": f"{type(exc).__name__}: {exc}"[:200]})
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print_table(rows)
        diffs = [r["diff"] for r in rows if r.get("diff") is not None]
        print(f"{sum(r['equal'] is True for r in rows)} equal, {sum(r['equal'] is False for r in rows)} failed or "
              f"different (largest |d3m - d3mkit| {max(diffs, default=0):.3g}), "
              f"{time.perf_counter() - t0:.0f} s; work directory: {work}")
    return 0 if rows and all(r["equal"] is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
