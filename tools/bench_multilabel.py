"""multiLabel scoring: d3mkit beside the D3M reference package (d3m 2022.5.5), in one run.

    PYTHONPATH=. python tools/bench_multilabel.py [--sizes 10000,100000] [--reference PY]

For n indices, 20 string labels, 1-4 true labels per index (one row per (d3mIndex,
label)); predictions keep each true label with probability 0.8 and add each other label
with probability 0.05 (at least one row per index), rows shuffled. ``d3mkit score`` runs
end to end in a fresh process (read, check, group into label sets, score accuracy,
f1Macro and hammingLoss, write scores.csv), best of three; the reference's
AccuracyMetric, F1MacroMetric and HammingLossMetric are timed once on the same files read
with pandas (tools/d3m_reference/time_metrics.py multiLabel, reference interpreter given
by --reference, default $D3MKIT_D3M_PYTHON; skipped when neither is set). Prints seconds, the ratio reference/d3mkit and whether
the values agree to 1e-9.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scoring import d3mkit_score, reference  # noqa: E402

LABELS = np.array([f"tag_{i:02d}" for i in range(20)])
METRICS = ("accuracy", "f1Macro", "hammingLoss")


def files(tmp: Path, n: int, rng) -> tuple[Path, Path, int]:
    k = len(LABELS)
    truth = np.zeros((n, k), bool)
    size = rng.integers(1, 5, n)
    scores = rng.random((n, k))
    kth = np.sort(scores, axis=1)[np.arange(n), size - 1]
    truth[:] = scores <= kth[:, None]                         # `size` labels per index
    pred = np.where(truth, rng.random((n, k)) < 0.8, rng.random((n, k)) < 0.05)
    empty = ~pred.any(axis=1)
    pred[np.flatnonzero(empty), rng.integers(0, k, int(empty.sum()))] = True
    ti, tl = np.nonzero(truth)
    pi, pl = np.nonzero(pred)
    order = rng.permutation(len(pi))
    t, p = tmp / f"ml_targets{n}.csv", tmp / f"ml_pred{n}.csv"
    pd.DataFrame({"d3mIndex": ti, "label": LABELS[tl]}).to_csv(t, index=False)
    pd.DataFrame({"d3mIndex": pi[order], "label": LABELS[pl[order]]}).to_csv(p, index=False)
    return t, p, len(pi)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--reference", default=os.environ.get("D3MKIT_D3M_PYTHON"),
                    help="python of the D3M reference environment (default $D3MKIT_D3M_PYTHON)")
    args = ap.parse_args()
    from d3mkit.documents import ProblemDoc, Target
    rng = np.random.default_rng(0)
    print(f"{'case':<52} {'d3mkit s':>9} {'d3m ref s':>10} {'ratio':>8}  agree")
    with tempfile.TemporaryDirectory() as tmpd:
        tmp = Path(tmpd)
        pdoc = tmp / "problemDoc.json"
        ProblemDoc.new("ml_problem", "ml", "classification", "multiLabel", "ml_dataset",
                       [Target(0, "learningData", 1, "label")],
                       [{"metric": "accuracy"}, {"metric": "f1Macro"},
                        {"metric": "other", "specifyOther": "hammingLoss"}]).save(pdoc)
        for n in (int(s) for s in args.sizes.split(",")):
            t, p, rows = files(tmp, n, rng)
            ours, values = d3mkit_score(pdoc, p, t, tmp / "scores.csv")
            ref = reference(args.reference, "multiLabel", t, p)
            ref_s = None if ref is None else sum(ref[m][0] for m in METRICS)
            agree = "-" if ref is None else \
                ("yes" if all(abs(values[m] - ref[m][1]) <= 1e-9 for m in METRICS) else
                 f"NO {[(values[m], ref[m][1]) for m in METRICS]}")
            ratio = "-" if ref_s is None else f"{ref_s / ours:.1f}x"
            ref_txt = "-" if ref_s is None else f"{ref_s:.2f}"
            print(f"{n:>8} indices, {rows:>8} prediction rows, 3 metrics  {ours:9.2f} "
                  f"{ref_txt:>10} {ratio:>8}  {agree}", flush=True)


if __name__ == "__main__":
    main()
