"""Time ``d3mkit validate`` on task roots of 10^4 .. 10^6 rows (learningData and dataSplits).

    PYTHONPATH=. python tools/bench_validate.py [--sizes 10000,100000,1000000] [--repeat 3]

Each size is built once (tools/_bench_data.py: seven columns of five colTypes, holdOut
splits), then validated in a fresh ``python -m d3mkit validate`` process per repeat so the
figures include interpreter start-up and imports, as a user sees them. Prints wall seconds
(best of ``--repeat``), CPU seconds of that run and its peak resident memory (MB, the
process's own high-water mark: tools/_bench_data.run_measured), beside
the peer: a fresh process that only reads learningData.csv and dataSplits.csv with
``pandas.read_csv`` (best of ``--repeat``), and the ratio validate / pandas read.
Targets (issue 11): 10^6 rows at most 6x the pandas read of the same run, peak <= 1.5 GB.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _bench_data import make_task_root, run_measured  # noqa: E402

REPO = Path(__file__).resolve().parent.parent

PEER = """
import sys, time
import pandas as pd
t = time.perf_counter()
a = pd.read_csv(sys.argv[1], dtype=str, keep_default_na=False)
b = pd.read_csv(sys.argv[2], dtype=str, keep_default_na=False)
print(f"RESULT {time.perf_counter() - t}", file=sys.stderr)
"""


def peer_once(root: Path) -> float:
    """Wall seconds of a fresh process reading the two CSVs with pandas (start-up included)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    ld = next(root.glob("*_dataset/tables/learningData.csv"))
    sp = next(root.glob("*_problem/dataSplits.csv"))
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", PEER, str(ld), str(sp)], env=env, capture_output=True, check=True)
    return time.perf_counter() - t


def run_once(root: Path) -> tuple[float, float, float, int]:
    """(wall s, CPU s, peak MB, exit code) of a fresh ``d3mkit validate ROOT`` process."""
    r = run_measured("d3mkit", ["validate", root], dict(os.environ, PYTHONPATH=str(REPO)))
    return r["wall"], r["cpu"], r["peak_mb"], r["code"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"{'rows':>9} {'wall s':>8} {'cpu s':>7} {'peak MB':>8} {'exit':>5} {'pandas s':>9} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            root = make_task_root(Path(tmp), n)
            runs = [run_once(root) for _ in range(args.repeat)]
            wall, cpu, mb, code = min(runs)
            peer = min(peer_once(root) for _ in range(args.repeat))
            print(f"{n:>9} {wall:>8.2f} {cpu:>7.2f} {mb:>8.0f} {code:>5} {peer:>9.2f} {wall / peer:>5.1f}x",
                  flush=True)


if __name__ == "__main__":
    main()
