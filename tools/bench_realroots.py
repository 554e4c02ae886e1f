"""Time ``validate`` over the 30 published task roots of the shared corpus (issue 20: all of
them, 37 MB with their TRAIN/TEST/SCORE views, in under 15 s on 2 cores).

    D3MKIT_REALWORLD=<the shared realworld directory> PYTHONPATH=. python tools/bench_realroots.py [--repeat 3]

In this process, best of ``--repeat``: ``validate_paths`` of each root (every document of
the root and its views), and the peer measured in the same run: ``pandas.read_csv`` of every
CSV file under the roots (default dtypes; a file pandas refuses is skipped). Prints a row
per root and the totals with the ratio validate / pandas read, in wall and CPU seconds,
the numpy/pandas/pyarrow versions and the load average (the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _bench_data import timed, versions_line  # noqa: E402




def _read_all(root: Path) -> None:
    import pandas as pd
    for f in sorted(root.rglob("*.csv")):
        try:
            pd.read_csv(f)
        except Exception:   # noqa: BLE001 - the peer reads what pandas can
            pass


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    base = os.environ.get("D3MKIT_REALWORLD")
    if not base:
        raise SystemExit("set D3MKIT_REALWORLD to the shared realworld directory")
    from d3mkit.validation.run import validate_paths
    roots = sorted(p for p in (Path(base) / "roots").iterdir() if p.is_dir())
    print(f"# {versions_line()}; load average {os.getloadavg()[0]:.2f} (1 min) at the start")
    print(f"{'root':<42} {'MB':>6} {'valid':>5} {'validate s':>10} {'pandas s':>8} {'ratio':>6}")
    tot_v = tot_p = tot_vc = tot_pc = mb_all = 0.0
    for root in roots:
        mb = sum(f.stat().st_size for f in root.rglob("*") if f.is_file()) / 2 ** 20
        ok = validate_paths([root]).valid()
        (v, vc), (p, pc) = timed(lambda: validate_paths([root]), args.repeat), timed(lambda: _read_all(root), args.repeat)
        tot_v, tot_vc, tot_p, tot_pc, mb_all = tot_v + v, tot_vc + vc, tot_p + p, tot_pc + pc, mb_all + mb
        print(f"{root.name[:42]:<42} {mb:>6.1f} {'yes' if ok else 'no':>5} {v:>10.2f} {p:>8.2f} {v / p:>5.1f}x")
    print(f"{'all ' + str(len(roots)) + ' roots (wall)':<42} {mb_all:>6.1f} {'':>5} {tot_v:>10.2f} {tot_p:>8.2f} "
          f"{tot_v / tot_p:>5.1f}x")
    print(f"{'all ' + str(len(roots)) + ' roots (CPU)':<42} {'':>6} {'':>5} {tot_vc:>10.2f} {tot_pc:>8.2f} "
          f"{tot_vc / tot_pc:>5.1f}x")
    print(f"# load average {os.getloadavg()[0]:.2f} (1 min) at the end; target: all roots under 15 s")


if __name__ == "__main__":
    main()
