"""d3mkit's scorer beside the D3M reference package (d3m 2022.5.5), in one run.

    PYTHONPATH=. python tools/bench_scoring.py [--sizes 10000,100000,1000000]
        [--root-sizes 1000000] [--reference PY]

Prints the python, numpy, pandas and pyarrow versions first (pandas 3 stores strings as
Arrow when pyarrow is importable: run it in an environment with and one without pyarrow).

Classification: a predictions.csv of n rows (10 string labels, rows shuffled, ~70% right)
against a targets.csv of the same n rows; problem multiClass with accuracy and f1Macro.
``d3mkit score`` runs end to end in a fresh process (read, check, align, score, write
scores.csv), best of three (wall and CPU seconds of the fastest run, peak resident memory
of the process, MB, the largest of the three, and that peak over the size of the input
files, ``peak/in``); the reference's AccuracyMetric and F1MacroMetric are timed on
the same files read with pandas (tools/d3m_reference/time_metrics.py, in the reference
interpreter given by --reference, default $D3MKIT_D3M_PYTHON; skipped when neither is set;
see docs/d3m-interop.md).

Task root (``--root-sizes``): a task root of n learningData rows (7 columns, a holdOut 0.2
dataSplits; tools/_bench_data.make_task_root) and predictions for its TEST rows scored with
``d3mkit score --problem ROOT`` (the truth is the TEST rows of learningData selected through
dataSplits); the reference is timed on the TEST rows' targets and the predictions. The input
size is learningData, dataSplits and the predictions.

Object detection: 2,000 images, 10,000 true boxes, 20,000 scored detections. d3mkit's
objectDetectionAP function alone and ``d3mkit score`` end to end, beside the reference's
ObjectDetectionAveragePrecisionMetric on the equivalent 4.x polygons.
Prints a table with seconds and the ratio reference/d3mkit (``ratio``: wall seconds;
``cpu rat``: the reference's CPU seconds in its metric calls over d3mkit's CPU seconds for
the whole process, imports included: on a loaded machine the wall ratio means little);
values must agree.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _bench_data import (best_of, make_predictions, make_task_root, run_measured,  # noqa: E402
                         versions_line)

REPO = Path(__file__).resolve().parent.parent
LABELS = np.array([f"label_{i}" for i in range(10)])


def problem_doc(kind: str) -> dict:
    from d3mkit.documents import ProblemDoc, Target
    if kind == "classification":
        return ProblemDoc.new("b_problem", "b", "classification", "multiClass", "b_dataset",
                              [Target(0, "learningData", 1, "label")],
                              [{"metric": "accuracy"}, {"metric": "f1Macro"}])
    return ProblemDoc.new("od_problem", "od", "objectDetection", None, "od_dataset",
                          [Target(0, "learningData", 2, "bounding_box")],
                          [{"metric": "objectDetectionAP"}])


def d3mkit_score(pdoc: Path, pred: Path, targets: Path | None, out: Path) -> tuple[dict, dict]:
    """Best of three ``d3mkit score`` processes: (the fastest run's wall and CPU seconds
    and the largest peak memory of the three, the scores). Without ``targets`` the truth is
    the problem's dataset (``pdoc`` a task root)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    truth = ["--targets", targets] if targets is not None else []
    runs = [run_measured("d3mkit", ["score", "--problem", pdoc, "--predictions", pred, *truth,
                                    "--out", out, "--force", "--format", "json"], env) for _ in range(3)]
    p = runs[-1]
    if p["code"] != 0:
        raise SystemExit(f"d3mkit score failed: {p['stdout']}{p['stderr']}")
    report = json.loads(p["stdout"])
    best = min(runs, key=lambda r: r["wall"])
    timing = {"wall": best["wall"], "cpu": best["cpu"], "peak_mb": max(r["peak_mb"] for r in runs)}
    return timing, {s["metric"]: s["value"] for s in report["scores"]}


def reference(py: str | None, kind: str, truth: Path, pred: Path) -> dict | None:
    if not py or not Path(py).exists():
        return None
    p = subprocess.run([py, str(REPO / "tools/d3m_reference/time_metrics.py"), kind, str(truth),
                        str(pred)], capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stderr[-2000:], file=sys.stderr)
        return None
    return json.loads(p.stdout.strip().splitlines()[-1])


def classification_files(tmp: Path, n: int, rng) -> tuple[Path, Path]:
    truth = LABELS[rng.integers(0, 10, n)]
    pred = truth.copy()
    wrong = rng.random(n) >= 0.7
    pred[wrong] = LABELS[rng.integers(0, 10, int(wrong.sum()))]
    order = rng.permutation(n)
    t, p = tmp / f"targets{n}.csv", tmp / f"pred{n}.csv"
    pd.DataFrame({"d3mIndex": np.arange(n), "label": truth}).to_csv(t, index=False)
    pd.DataFrame({"d3mIndex": order, "label": pred[order]}).to_csv(p, index=False)
    return t, p


def od_data(rng, n_img=2000, per_img=5, det_per_img=10):
    """(truth boxes, truth images, pred boxes, pred images, confidence)."""
    xy = rng.integers(0, 400, (n_img * per_img, 2))
    wh = rng.integers(20, 80, (n_img * per_img, 2))
    tb = np.hstack([xy, xy + wh])
    ti = np.repeat(np.arange(n_img), per_img)
    src = rng.integers(0, per_img, (n_img, det_per_img)) + np.arange(n_img)[:, None] * per_img
    src = src.ravel()
    pb = tb[src] + rng.integers(-12, 13, (len(src), 4))
    pb[:, 2:] = np.maximum(pb[:, 2:], pb[:, :2] + 1)
    pi = ti[src]
    conf = (rng.permutation(len(src)) + 1) / len(src)   # distinct: tie order is implementation-defined
    return tb, ti, pb, pi, conf


def od_files(tmp: Path, rng):
    tb, ti, pb, pi, conf = od_data(rng)
    box = lambda b: [",".join(map(str, r)) for r in b]  # noqa: E731
    poly = lambda b: [",".join(map(str, (r[0], r[1], r[0], r[3], r[2], r[3], r[2], r[1]))) for r in b]  # noqa: E731
    img = np.array([f"img_{i:05d}.png" for i in range(ti.max() + 1)])
    t3, p3 = tmp / "od_targets.csv", tmp / "od_pred.csv"
    pd.DataFrame({"d3mIndex": ti, "image": img[ti], "bounding_box": box(tb)}).to_csv(t3, index=False)
    pd.DataFrame({"d3mIndex": pi, "image": img[pi], "bounding_box": box(pb),
                  "confidence": conf}).to_csv(p3, index=False)
    t4, p4 = tmp / "od_targets4.csv", tmp / "od_pred4.csv"
    pd.DataFrame({"d3mIndex": ti, "bounding_box": poly(tb)}).to_csv(t4, index=False)
    pd.DataFrame({"d3mIndex": pi, "bounding_box": poly(pb), "confidence": conf}).to_csv(p4, index=False)
    return (tb, ti, pb, pi, conf), t3, p3, t4, p4


def ref_cpu(ref: dict | None, names) -> float | None:
    """The reference's CPU seconds over ``names`` (None when it did not report them)."""
    if ref is None or any(len(ref[n]) < 3 for n in names):
        return None
    return sum(ref[n][2] for n in names)


def row(what, ours, theirs, v_ours, v_theirs, cpu=None, peak_mb=None, inputs=(), theirs_cpu=None):
    ratio = f"{theirs / ours:8.1f}x" if theirs is not None else "       -"
    cpu_ratio = f"{theirs_cpu / cpu:7.1f}x" if theirs_cpu is not None and cpu else "      -"
    ts = f"{theirs:10.3f}" if theirs is not None else "         -"
    agree = "-" if v_theirs is None else ("yes" if abs(v_ours - v_theirs) <= 1e-9 else f"NO ({v_theirs})")
    c = f"{cpu:6.2f}" if cpu is not None else "     -"
    m = f"{peak_mb:8.0f}" if peak_mb is not None else "       -"
    size_mb = sum(Path(f).stat().st_size for f in inputs) / 2 ** 20
    per = f"{peak_mb / size_mb:7.1f}x" if peak_mb is not None and size_mb else "       -"
    print(f"{what:<44} {ours:9.3f} {c} {m} {per} {ts} {ratio} {cpu_ratio} {v_ours:9.6f}  {agree}",
          flush=True)


def task_root_case(tmp: Path, n: int, reference_py: str | None) -> None:
    """``d3mkit score`` of a task root's TEST rows (truth through dataSplits)."""
    root = make_task_root(tmp / f"root{n}", n)
    pred = tmp / f"root_pred{n}.csv"
    preds = make_predictions(root, pred)
    ours, values = d3mkit_score(root, pred, None, tmp / "root_scores.csv")
    ref = None
    if reference_py:
        from d3mkit.taskroot.model import TaskRoot
        ld = TaskRoot.open(root).learning_data()
        truth = pd.Series(ld["label"].to_numpy(), index=ld["d3mIndex"].astype(np.int64).to_numpy())
        t = tmp / f"root_targets{n}.csv"
        pd.DataFrame({"d3mIndex": preds["d3mIndex"], "label": truth.loc[preds["d3mIndex"].to_numpy()]
                      .to_numpy()}).sort_values("d3mIndex").to_csv(t, index=False)
        ref = reference(reference_py, "classification", t, pred)
    ref_s = None if ref is None else ref["accuracy"][0] + ref["f1Macro"][0]
    tables = sorted((root / f"{root.name}_dataset" / "tables").glob("*.csv"))
    splits = sorted((root / f"{root.name}_problem").glob("*.csv"))
    row(f"{n:>8} rows task root ({len(preds)} TEST)", ours["wall"], ref_s, values["accuracy"],
        None if ref is None else ref["accuracy"][1], ours["cpu"], ours["peak_mb"], [*tables, *splits, pred],
        ref_cpu(ref, ("accuracy", "f1Macro")))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--root-sizes", default="1000000", help="task-root cases (comma list; '' for none)")
    ap.add_argument("--reference", default=os.environ.get("D3MKIT_D3M_PYTHON"),
                    help="python of the D3M reference environment (default $D3MKIT_D3M_PYTHON)")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    print(versions_line(), f"; load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "")
    print(f"{'case':<44} {'d3mkit s':>9} {'cpu s':>6} {'peak MB':>8} {'peak/in':>8} {'d3m ref s':>10} "
          f"{'ratio':>9} {'cpu rat':>8} {'value':>9}  agree")
    with tempfile.TemporaryDirectory() as tmpd:
        tmp = Path(tmpd)
        pdoc = tmp / "problemDoc.json"
        problem_doc("classification").save(pdoc)
        for n in (int(s) for s in args.sizes.split(",")):
            t, p = classification_files(tmp, n, rng)
            ours, values = d3mkit_score(pdoc, p, t, tmp / "scores.csv")
            ref = reference(args.reference, "classification", t, p)
            ref_s = None if ref is None else ref["accuracy"][0] + ref["f1Macro"][0]
            row(f"{n:>8} rows accuracy+f1Macro (end to end)", ours["wall"], ref_s, values["accuracy"],
                None if ref is None else ref["accuracy"][1], ours["cpu"], ours["peak_mb"], [t, p],
                ref_cpu(ref, ("accuracy", "f1Macro")))
        for n in (int(s) for s in args.root_sizes.split(",") if s):
            task_root_case(tmp, n, args.reference)
        from d3mkit.scoring.objectdetection import average_precision
        arrays, t3, p3, t4, p4 = od_files(tmp, rng)
        ap_value = average_precision(*arrays[:5])
        best = best_of(lambda: average_precision(*arrays[:5]), 3)
        ref = reference(args.reference, "objectDetection", t4, p4)
        ref_s = None if ref is None else ref["objectDetectionAP"][0]
        ref_v = None if ref is None else ref["objectDetectionAP"][1]
        row("objectDetectionAP 10k boxes/20k dets (metric)", best, ref_s, ap_value, ref_v)
        pod = tmp / "od_problemDoc.json"
        problem_doc("objectDetection").save(pod)
        ours, values = d3mkit_score(pod, p3, t3, tmp / "od_scores.csv")
        row("objectDetectionAP (d3mkit score end to end)", ours["wall"], ref_s, values["objectDetectionAP"],
            ref_v, ours["cpu"], ours["peak_mb"], [t3, p3], ref_cpu(ref, ("objectDetectionAP",)))


if __name__ == "__main__":
    main()
