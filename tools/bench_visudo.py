"""Speed of the ViSudo-PC generator (issue 5 target: >= 2,000 9x9 puzzles/s without image I/O).

Puzzles are generated on an MNIST-sized label catalogue (10 labels x 7,000 images, no
pixels) so only the generator is timed: layouts, pools, overlap, image assignment and
corruption with its rejection loop. A puzzle counts once whether correct or corrupted
(each correct puzzle brings one corrupted twin). Also timed: the vectorised layout
sampler and correctness check alone, and, for reference, tiling + PNG encoding
(image I/O, excluded from the target).

    PYTHONPATH=$PWD python tools/bench_visudo.py [--repeat 3] [--n-train 1000]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import numpy as np

from _bench_data import best_of
from d3mkit.benchmarks.visudo import sudoku
from d3mkit.benchmarks.visudo.generator import STRATEGIES, Catalog, Config, generate

TARGET = 2000.0


def best_rate(fn, n_items: int, repeat: int) -> float:
    """Items per second of the fastest of ``repeat`` calls (tools/_bench_data.best_of)."""
    return n_items / best_of(fn, repeat)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--n-train", dest="train_count", type=int, default=1000)
    args = ap.parse_args()
    cat = Catalog.synthetic(20, 11000)          # >= 9 x (1000 + 100 + 100) images per label
    rows = []
    for d in (9, 4):
        for strat in STRATEGIES:
            cfg = Config(strategy=strat, sources=("synthetic",), dimension=d,
                         train_count=args.train_count, test_count=100, valid_count=100)
            n = 2 * (cfg.train_count + cfg.test_count + cfg.valid_count)
            rate = best_rate(lambda: generate(cfg, cat), n, args.repeat)
            rows.append((f"generate {strat}", d, n, rate))
        for ov in (1.0,):
            cfg = Config(strategy="basic", sources=("synthetic",), dimension=d, overlap=ov,
                         train_count=args.train_count, test_count=100, valid_count=100)
            n = 2 * (cfg.train_count + 200)
            rows.append((f"generate basic, overlap {ov:g}", d, n, best_rate(lambda: generate(cfg, cat), n, args.repeat)))
        rng = np.random.default_rng(0)
        rows.append(("layouts only", d, 20000, best_rate(lambda: sudoku.random_layouts(20000, d, rng), 20000, args.repeat)))
        grids = sudoku.random_layouts(20000, d, rng)
        rows.append(("is_correct only", d, 20000, best_rate(lambda: sudoku.is_correct(grids), 20000, args.repeat)))
    # image I/O for reference: tile + PNG for puzzle and cells (9x9, 200 puzzles)
    from d3mkit.benchmarks.visudo.render import save_png, tile
    px = np.random.default_rng(0).integers(0, 256, size=(500, 28, 28), dtype=np.uint8)
    idx = np.random.default_rng(1).integers(0, 500, size=(200, 9, 9))
    with tempfile.TemporaryDirectory() as tmp:
        def write():
            for i in range(200):
                save_png(tile(idx[i], px), Path(tmp) / f"{i}.png")
                for r in range(9):
                    for c in range(9):
                        save_png(px[idx[i, r, c]], Path(tmp) / f"{i}_{r}_{c}.png")
        rows.append(("image I/O (grid + 81 cell PNGs)", 9, 200, best_rate(write, 200, 1)))
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"{'what':34s} {'d':>2s} {'puzzles':>8s} {'per second':>11s}")
    for what, d, n, rate in rows:
        flag = ""
        if what.startswith("generate") and d == 9:
            flag = "  ok (>= 2000)" if rate >= TARGET else "  BELOW TARGET"
        print(f"{what:34s} {d:2d} {n:8d} {rate:11,.0f}{flag}")


if __name__ == "__main__":
    main()
