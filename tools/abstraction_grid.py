#!/usr/bin/env python
"""Build a whole table's worth of abstraction task roots (one per row x n_train x repetition).

    python tools/abstraction_grid.py --table 4 --out grid/ [--n-train 1000 2000]
        [--repetitions 5] [--n-test N] [--seed 0] [--force]

Each cell of the paper's table ``N`` (see :mod:`d3mkit.benchmarks.abstraction.paper`)
becomes ``abstraction_t<N>_<transform>[_testnoise<L>]_n<n_train>_r<rep>`` built with seed
``seed + rep``; the paths are printed one per line, as ``d3mkit build`` does. Bad options
give a message and exit 1 (2 for usage errors), nothing half-written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from d3mkit.benchmarks.abstraction.cli import build_task_root  # noqa: E402
from d3mkit.benchmarks.abstraction.paper import REPETITIONS, table  # noqa: E402
from d3mkit.core.errors import D3MKitError  # noqa: E402


def cell_name(number: int, row, n_train: int, rep: int) -> str:
    extra = "" if row.test_noise is None else f"_testnoise{row.test_noise:g}"
    return f"abstraction_t{number}_{row.transform}{extra}_n{n_train}_r{rep}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", type=int, required=True, help="the paper's table number, 1-13")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--n-train", type=int, nargs="*", default=None,
                    help="n_train columns to build (default: the table's)")
    ap.add_argument("--repetitions", type=int, default=REPETITIONS)
    ap.add_argument("--n-test", type=int, default=None,
                    help="test images per task root (default: as many as n_train, the paper)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args(argv)
    try:
        t = table(args.table)
    except ValueError as exc:
        ap.error(str(exc))
    cols = args.n_train or list(t.n_train)
    try:
        for row in t.rows:
            for n in cols:
                for rep in range(args.repetitions):
                    p = t.protocol(row, n, args.n_test)
                    print(build_task_root(args.out, p, seed=args.seed + rep,
                                          name=cell_name(t.number, row, n, rep), force=args.force),
                          flush=True)
    except D3MKitError as exc:
        for issue in exc.issues:
            print(issue.format(), file=sys.stderr)
        return exc.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
