"""Run the D3M reference runtime on d3mkit task roots and compare its scores with d3mkit's.

Run with d3mkit's Python; the reference environment (tools/d3m_reference/setup_env.sh, with
the d3mkit-d3m plugin of interop/d3m installed) is named by --python or $D3MKIT_D3M_PYTHON:

    python tools/d3m_reference/fit_score.py --build [--only NAME,...] [--work DIR] [--python PY]
    python tools/d3m_reference/fit_score.py TASK_ROOT... [--work DIR] [--python PY]

``--build`` first builds every benchmark's task root at a tiny size with d3mkit's own
commands (``d3mkit build tabular|value|value-detection|visudo|abstraction|prism``; tabular
twice, wine for classification and diabetes for regression; two roots made by ``d3mkit
import table`` from a hand-made mixed CSV, a classification and a kFold regression, and one
from a hand-made table in D3M's long multiLabel form; the offline sources the tests use:
random chess games, scikit-learn's digits, the PRISM demo corpus shipped in datasets/prism/),
into WORK/roots; ``--only`` picks some of them (names in BUILDS below).

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

With ``--score-predictions`` (the default when the environment is d3m core without the
primitives, so no pipeline can be made) each root also gets d3m's own scoring of a
predictions file d3mkit writes (write_predictions: for multiLabel several labels per index):

    PY -m d3m runtime score-predictions -r SCORE_PROBLEM -p predictions-d3mkit.csv
        -a SCORE/dataset_SCORE/datasetDoc.json -c scores.csv

(d3m core's scoring pipeline, ``evaluation.compute_scores.Core``, i.e. d3m's metric classes,
on the metrics d3m knows), compared with ``d3mkit score`` of the same file. Without the
d3mkit-d3m plugin in the environment ``-M d3mkit_d3m`` is not passed (problems with custom
metrics then fail to load, as they do in plain d3m).

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
    # `d3mkit import table` of a table in D3M's long multiLabel form (write_multilabel_source)
    "imported-multilabel": ["import", "table", "--target", "label"],
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


def write_multilabel_source(out: Path) -> Path:
    """A table in D3M's long multiLabel form, as a user might bring it: one row per
    (d3mIndex, label), the instance's cells repeated (a real, an integer and a categorical
    column), 60 instances with one to three of four labels; written with the standard
    library."""
    import random
    rng = random.Random(1)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "weather.csv"
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["d3mIndex", "temperature", "humidity", "city", "label"])
        for i in range(60):
            cells = [round(rng.uniform(-5, 30), 1), rng.randint(20, 100), rng.choice(["Paris", "Lyon", "Nice"])]
            for label in rng.sample(["sun", "rain", "snow", "wind"], rng.randint(1, 3)):
                w.writerow([i, *cells, label])
    return path


IMPORT_SOURCES = {"imported-multilabel": write_multilabel_source}


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
            source = IMPORT_SOURCES.get(name, write_import_source)(out / "import_source")
            cmd = [sys.executable, "-m", "d3mkit"] + argv[:2] + [str(source)] \
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


def _has_plugin(python: str) -> bool:
    """True when the reference environment has the d3mkit-d3m plugin (custom metrics)."""
    probe = subprocess.run([python, "-c", "import importlib.util as u, sys; sys.exit(0 if u.find_spec('d3mkit_d3m') "
                            "else 1)"])
    return probe.returncode == 0


def _pipelines(python: str, work: Path) -> tuple[dict, str]:
    """The fit-score pipelines by kind, or ``({}, why)`` when the environment cannot make them
    (d3m core without the common primitives and the scikit-learn wrappers)."""
    out = subprocess.run([python, str(HERE / "make_pipeline.py"), "--all"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True)
    if out.returncode != 0:
        return {}, _last_line(out.stderr) or "make_pipeline.py failed"
    paths = {}
    for kind, pipe in json.loads(out.stdout).items():
        paths[kind] = work / f"pipeline-{kind}.json"
        paths[kind].write_text(json.dumps(pipe, indent=1))
    return paths, ""


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


def write_predictions(views: Path, problem, path: Path, seed: int = 0) -> str:
    """d3mkit's own predictions for the SCORE rows of ``views``, seeded, written to ``path``:
    for a multiLabel problem one row per (d3mIndex, label), each index either its true label
    set (two in five) or one to three labels drawn from the TRAIN labels; for other
    classification problems each target the true label or a TRAIN label drawn at random (one
    half each); for regression the truth plus seeded noise. Returns "" when written, else why
    not (objectDetection and other layouts are not written)."""
    import numpy as np
    import pandas as pd
    from d3mkit.core.registry import CLASSIFICATION, REGRESSION
    truth = pd.read_csv(views / "SCORE" / "targets.csv", dtype=str, keep_default_na=False)
    train = pd.read_csv(views / "TRAIN" / "dataset_TRAIN" / "tables" / "learningData.csv", dtype=str,
                        keep_default_na=False)
    targets = list(problem.target_names)
    if any(t not in truth.columns or t not in train.columns for t in targets):
        return "targets not in learningData"
    rng = np.random.default_rng(seed)
    if problem.task_type in CLASSIFICATION and problem.task_subtype == "multiLabel" and len(targets) == 1:
        t = targets[0]
        labels = sorted(set(train[t]) - {""})
        rows = []
        for i, g in truth.groupby("d3mIndex", sort=False):
            if rng.random() < 0.4:
                chosen = list(dict.fromkeys(g[t]))
            else:
                chosen = [str(v) for v in rng.choice(labels, int(rng.integers(1, min(3, len(labels)) + 1)),
                                                     replace=False)]
            rows += [(i, lab) for lab in chosen]
        pd.DataFrame(rows, columns=["d3mIndex", t]).to_csv(path, index=False)
        return ""
    out = truth[["d3mIndex"]].drop_duplicates().reset_index(drop=True)
    first = truth.drop_duplicates("d3mIndex").reset_index(drop=True)
    for t in targets:
        if problem.task_type in CLASSIFICATION:
            labels = sorted(set(train[t]) - {""})
            drawn = rng.choice(labels, len(first))
            out[t] = np.where(rng.random(len(first)) < 0.5, first[t].to_numpy(), drawn)
        elif problem.task_type in REGRESSION:
            x = pd.to_numeric(first[t], errors="coerce").to_numpy(dtype=float)
            out[t] = [repr(float(v)) for v in np.round(x + rng.normal(0, max(1e-9, np.nanstd(x)), len(x)), 4)]
        else:
            return f"no predictions writer for {problem.task_type}"
    out.to_csv(path, index=False)
    return ""


def _compare(row: dict, d3m_scores_csv: Path, pred: Path, kept_problem: Path, views: Path, metadata_dir) -> list[dict]:
    """Rows comparing d3m's scores.csv with ``d3mkit score`` of the same predictions."""
    from d3mkit.scoring.score import score_predictions
    with open(d3m_scores_csv, newline="") as fh:
        d3m_scores = {r["metric"]: float(r["value"]) if r["value"] != "" else math.nan for r in csv.DictReader(fh)}
    mine = score_predictions(kept_problem, pred, targets=views / "SCORE" / "targets.csv", metadata_dir=metadata_dir)
    rows = []
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


def _last_line(text: str) -> str:
    tail = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith(" ")][-1:]
    return (tail[0] if tail else "")[:200]


def run_one(root: Path, work: Path, python: str, pipelines: dict, bench: str = "",
            confidence_only: bool = False, plugin: bool = True, score_own: bool = False,
            no_pipelines: str = "") -> list[dict]:
    """The rows of one task root: its load, each fit-score run (``pipelines``; none when the
    environment has no primitives, ``no_pipelines`` saying why) and, with ``score_own``, d3m's
    ``runtime score-predictions`` (d3m core's scoring pipeline) of a predictions file d3mkit
    writes (:func:`write_predictions`), each compared with ``d3mkit score``. ``plugin``: the
    environment has d3mkit_d3m (``-M d3mkit_d3m`` is passed)."""
    from d3mkit.documents import ProblemDoc
    from d3mkit.taskroot.writer import convert_tree
    from d3mkit.taskroot.model import TaskRoot
    from d3mkit.taskroot.views import write_views

    task = TaskRoot.open(root)
    name = root.name
    base = {"benchmark": bench or name, "task root": name, "loads": "", "fit-score": "", "pipeline": "",
            "metric": "", "d3m": "", "d3mkit": "", "equal": None, "note": ""}
    module = ["-M", "d3mkit_d3m"] if plugin else []
    views = work / name / "views"
    write_views(root, views, force=True)
    loads = "yes"
    loaded_root = root
    if _has_boxes(views):
        convert_tree(views, "4.0.0", work / name / "views4", force=True)
        convert_tree(root, "4.0.0", work / name / "root4", force=True)
        views, loaded_root, loads = work / name / "views4", work / name / "root4", "yes (4.0.0)"
    # the task root itself and its three views
    load = subprocess.run([python, str(HERE / "check_load.py"), *module, str(loaded_root)]
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
        if not pipelines:
            rows.append(dict(row, **{"fit-score": "not run"}, metric=",".join(metrics),
                             note=f"no primitive pipeline in this environment ({no_pipelines})"[:200]))
            continue
        if pipe not in pipelines:
            rows.append(dict(row, metric=",".join(metrics), equal=False, note="no pipeline of this kind"))
            continue
        tag = pipe.replace("+", "-")
        pred, scores = work / name / f"predictions-{tag}.csv", work / name / f"scores-{tag}.csv"
        cmd = [python, "-m", "d3m", *module, "runtime", "fit-score",
               "-r", str(views / "TRAIN" / "problem_TRAIN" / "problemDoc.json"),
               "-i", str(views / "TRAIN" / "dataset_TRAIN" / "datasetDoc.json"),
               "-t", str(views / "TEST" / "dataset_TEST" / "datasetDoc.json"),
               "-a", str(views / "SCORE" / "dataset_SCORE" / "datasetDoc.json"),
               "-p", str(pipelines[pipe]), "-o", str(pred), "-c", str(scores)]
        fit = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                             env=_env(metadata_dir))
        if fit.returncode != 0 or not scores.is_file():
            rows.append(dict(row, **{"fit-score": "FAILED"}, metric=",".join(metrics), equal=False,
                             note=_last_line(fit.stdout)))
            continue
        row["fit-score"] = "ok"
        kept = _problem_with(score_problem, metrics, work / name / f"problem_SCORE_{tag}" / "problemDoc.json")
        rows += _compare(row, scores, pred, kept, views, metadata_dir)
    if score_own:
        rows += _score_own(base, problem, names, views, score_problem, work / name, python, module, metadata_dir)
    return rows


def _score_own(base: dict, problem, names: list[str], views: Path, score_problem: Path, out: Path, python: str,
               module: list[str], metadata_dir) -> list[dict]:
    """d3m's ``runtime score-predictions`` (the standard scoring pipeline of d3m core,
    ``evaluation.compute_scores.Core``: d3m's own metric classes) on a predictions file d3mkit
    writes, against the SCORE dataset, on the hard-label metrics d3m knows; compared with
    ``d3mkit score`` of the same file."""
    row = dict(base, **{"fit-score": "-"}, pipeline="score-predictions")
    metrics = [n for n in names if n in D3M_NAMES and not _needs_confidence(n)]
    if not metrics:
        return [dict(row, note="no hard-label metric d3m knows")]
    pred = out / "predictions-d3mkit.csv"
    why = write_predictions(views, problem, pred)
    if why:
        return [dict(row, metric=",".join(metrics), note=why)]
    kept = _problem_with(score_problem, metrics, out / "problem_SCORE_own" / "problemDoc.json")
    scores = out / "scores-d3mkit-predictions.csv"
    cmd = [python, "-m", "d3m", *module, "runtime", "score-predictions", "-r", str(kept), "-p", str(pred),
           "-a", str(views / "SCORE" / "dataset_SCORE" / "datasetDoc.json"), "-c", str(scores)]
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                         env=_env(metadata_dir))
    if run.returncode != 0 or not scores.is_file():
        return [dict(row, **{"fit-score": "FAILED"}, metric=",".join(metrics), equal=False,
                     note=_last_line(run.stdout))]
    return _compare(row, scores, pred, kept, views, metadata_dir)


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
    ap.add_argument("--score-predictions", action="store_true",
                    help="also score a predictions file d3mkit writes with d3m's runtime score-predictions (d3m "
                         "core's scoring pipeline; the default when the environment has no primitives)")
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
    pipelines, why = _pipelines(args.python, work)
    plugin = _has_plugin(args.python)
    for bench, root in targets:
        try:
            rows += run_one(root, work, args.python, pipelines, bench, args.confidence_only, plugin=plugin,
                            score_own=args.score_predictions or not pipelines, no_pipelines=why)
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
    return 0 if any(r["equal"] is True for r in rows) and all(r["equal"] is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
