#!/usr/bin/env python
"""Speed of the abstraction benchmark: sample generation, task-root building, CNN training,
and the projected CPU time of the paper's full Table 1 and Table 8.

    python tools/bench_abstraction.py [--skip-train]

Prints a markdown table. Generation is one fancy-indexing step over the precomputed
outcome tables plus vectorised noise; building adds one PNG per image; training is the
paper's CNN, 10 passes, one CPU thread.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from d3mkit.benchmarks.abstraction.cli import build_task_root  # noqa: E402
from d3mkit.benchmarks.abstraction.paper import REPETITIONS, table  # noqa: E402
from d3mkit.benchmarks.abstraction.protocol import Protocol, generate  # noqa: E402


from _bench_data import best_of  # noqa: E402  (the one best-of timer of tools/)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-train", action="store_true")
    args = ap.parse_args(argv)
    rows = []
    for n in (1_000, 10_000, 100_000):
        p = Protocol("translation", 5, n, 500, 2)
        s = best_of(lambda: generate(p, np.random.default_rng(0)))
        rows.append((f"generate (translation, K=5, noise 2), {n + 500} images", s, s / (n + 500) * 1e6, "µs/image"))
    with tempfile.TemporaryDirectory() as tmp:
        p = Protocol("rotation", 5, 2000, 500, 2)
        s = best_of(lambda: build_task_root(Path(tmp), p, seed=0, force=True), 2)
        rows.append(("build task root (PNGs, docs, validate), 2500 images", s, s / 2500 * 1e6, "µs/image"))
    if not args.skip_train:
        from d3mkit.benchmarks.abstraction.model import fit_predict
        p = Protocol("rotation", 0, 1000, 500, 0)
        imgs, meta = generate(p, np.random.default_rng(0))
        tr = (meta["split"] == "TRAIN").to_numpy()
        y = meta["shape"].to_numpy()
        s = best_of(lambda: fit_predict(imgs[tr], y[tr], imgs[~tr]), 2)
        per = s / 1000
        rows.append(("CNN: train 1000 images x 10 passes + predict 500 (1 thread)", s, per * 1e3, "ms/train image"))
        for number in (1, 8):
            t = table(number)
            total = sum(t.n_train) * len(t.rows) * REPETITIONS * per
            rows.append((f"projected full Table {number} ({len(t.rows)} rows x {t.n_train} x "
                         f"{REPETITIONS} reps)", total, total / 60, "min"))
    print("| step | seconds | rate | unit |")
    print("|---|---|---|---|")
    for what, s, rate, unit in rows:
        print(f"| {what} | {s:.2f} | {rate:.1f} | {unit} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
