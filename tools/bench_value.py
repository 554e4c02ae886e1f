#!/usr/bin/env python
"""VALUE speed figures: renderer images/s per core at 512x512 (target >= 50), parallel
rendering over processes, and the vectorised rule checker's boards/s.

    PYTHONPATH=. python tools/bench_value.py [--images 200] [--boards 1000000] [--workers N]

Prints a markdown table (and writes it to tools/results/value_bench.md with --save).
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from d3mkit.benchmarks.value import games, render          # noqa: E402
from d3mkit.benchmarks.value.boards import fens_to_codes   # noqa: E402
from d3mkit.benchmarks.value.metrics import board_f1, sane_f1   # noqa: E402
from d3mkit.benchmarks.value.rules import check            # noqa: E402
from _bench_data import best_of                               # noqa: E402




def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--images", type=int, default=200)
    ap.add_argument("--boards", type=int, default=1_000_000)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--save", action="store_true")
    args = ap.parse_args(argv)

    fens = games.sample_positions(games.random_game_positions(10, np.random.default_rng(0), 120),
                                  args.images, np.random.default_rng(1))
    rows = []

    def render_only():
        for i, f in enumerate(fens):
            render.render_board(f, render.image_rng(0, i), 512)

    def render_jpeg():
        for i, f in enumerate(fens):
            img, _, _ = render.render_board(f, render.image_rng(0, i), 512)
            img.save(io.BytesIO(), format="JPEG", quality=92)

    t = best_of(render_only, 2)
    rows.append(("render 512x512, 1 process (drawing only)", f"{args.images / t:.0f} img/s"))
    t1 = best_of(render_jpeg, 2)
    rows.append(("render 512x512 + JPEG encode, 1 process", f"{args.images / t1:.0f} img/s"))
    with tempfile.TemporaryDirectory() as d:
        paths = [Path(d) / f"{i}.jpg" for i in range(len(fens))]
        ts = best_of(lambda: render.render_many(fens, paths, seed=0, size=512, workers=1), 2)
        tp = best_of(lambda: render.render_many(fens, paths, seed=0, size=512, workers=args.workers), 2)
    rows.append(("render_many to files, 1 worker", f"{args.images / ts:.0f} img/s"))
    rows.append((f"render_many to files, {args.workers} workers",
                 f"{args.images / tp:.0f} img/s (speedup {ts / tp:.2f}x)"))

    g = np.random.default_rng(2)
    probs = np.full(13, 0.3 / 12)
    probs[0] = 0.7
    codes = g.choice(13, size=(args.boards, 64), p=probs).astype(np.uint8)
    tc = best_of(lambda: check(codes), 3)
    rows.append((f"rule checker, {args.boards:,} random boards", f"{args.boards / tc / 1e6:.2f} M boards/s"))
    real = fens_to_codes(fens)
    real = np.repeat(real, max(1, 100_000 // len(real)), axis=0)
    tr = best_of(lambda: check(real), 3)
    rows.append((f"rule checker, {len(real):,} game positions", f"{len(real) / tr / 1e6:.2f} M boards/s"))
    tm = best_of(lambda: (board_f1(real, real), sane_f1(real, real)), 3)
    rows.append((f"boardF1 + saneF1 on {len(real):,} boards", f"{len(real) / tm / 1e6:.2f} M boards/s"))

    load = os.getloadavg()
    head = (f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores "
            f"(shared; load average {load[0]:.2f}), Python {platform.python_version()}, "
            f"numpy {np.__version__}")
    lines = [head, "", "| measurement | result |", "|---|---|"] + [f"| {a} | {b} |" for a, b in rows]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.save:
        out = REPO / "tools" / "results" / "value_bench.md"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(f"Command: PYTHONPATH=. python tools/bench_value.py {' '.join(argv or sys.argv[1:])}\n\n"
                       + text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
