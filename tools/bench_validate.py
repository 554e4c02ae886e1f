"""Time ``d3mkit validate`` on task roots of 10^4 .. 10^7 rows (learningData and dataSplits).

    PYTHONPATH=. python tools/bench_validate.py [--sizes 10000,100000,1000000] [--repeat 3]
    PYTHONPATH=. python tools/bench_validate.py --sizes 10000000 --repeat 1     # the 10^7 figure

Each size is built once (tools/_bench_data.py: seven columns of five colTypes, holdOut
splits). Per repeat, three fresh processes:

* ``python -m d3mkit validate ROOT``: wall seconds as a user sees them (start-up included),
  CPU seconds, and its peak resident memory (the child's own high-water mark,
  tools/_bench_data.run_measured) also as a multiple of the two input files' size;
* the same validation in process (``validate_paths``, timed inside on its second call:
  start-up and the lazy imports excluded, as the peer's imports are);
* the peer, measured in the same run: ``pandas.read_csv`` of learningData.csv and
  dataSplits.csv in process (default dtypes), as issue 19 compares.

Prints the best of ``--repeat`` of each, the ratio validate (in process) / pandas read, in
wall and in CPU seconds (the CPU ratio holds on a loaded machine, where wall time waits),
the versions of numpy, pandas and pyarrow (pandas 3 stores strings as Arrow when pyarrow
is installed), and the load average (the machine is shared).
Targets (issue 19 item 6): 10^6 rows at most 3x the pandas read, peak at most 3x the inputs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _bench_data import make_task_root, run_measured, versions_line  # noqa: E402

REPO = Path(__file__).resolve().parent.parent

PEER = """
import sys, time
import pandas as pd
t, c = time.perf_counter(), time.process_time()
a = pd.read_csv(sys.argv[1])
b = pd.read_csv(sys.argv[2])
print(f"RESULT {time.perf_counter() - t} {time.process_time() - c}")
"""

INPROC = """
import sys, time
from d3mkit.validation.run import validate_paths
validate_paths([sys.argv[1]])     # warm: lazy imports (jsonschema, the metric registry) done
t, c = time.perf_counter(), time.process_time()
validate_paths([sys.argv[1]])
print(f"RESULT {time.perf_counter() - t} {time.process_time() - c}")
"""


def _files(root: Path) -> tuple[Path, Path]:
    return next(root.glob("*_dataset/tables/learningData.csv")), next(root.glob("*_problem/dataSplits.csv"))


def _child(script: str, *args) -> tuple[float, float]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", script, *map(str, args)], env=env, capture_output=True,
                         text=True, check=True).stdout
    wall, cpu = out.split("RESULT")[-1].split()
    return float(wall), float(cpu)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"# {versions_line()}; load average {os.getloadavg()[0]:.2f} (1 min) at the start")
    print(f"{'rows':>9} {'input MB':>8} {'cmd s':>7} {'cpu s':>6} {'peak MB':>8} {'peak/in':>7} "
          f"{'exit':>4} {'in-proc s':>9} {'pandas s':>8} {'ratio':>6} {'cpu ratio':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            root = make_task_root(Path(tmp), n)
            size_mb = sum(f.stat().st_size for f in _files(root)) / 2 ** 20
            runs = [run_measured("d3mkit", ["validate", root], dict(os.environ, PYTHONPATH=str(REPO)))
                    for _ in range(args.repeat)]
            best = min(runs, key=lambda r: r["wall"])
            inproc, inproc_cpu = min(_child(INPROC, root) for _ in range(args.repeat))
            peer, peer_cpu = min(_child(PEER, *_files(root)) for _ in range(args.repeat))
            print(f"{n:>9} {size_mb:>8.1f} {best['wall']:>7.2f} {best['cpu']:>6.2f} {best['peak_mb']:>8.0f} "
                  f"{best['peak_mb'] / size_mb:>6.1f}x {best['code']:>4} {inproc:>9.2f} {peer:>8.2f} "
                  f"{inproc / peer:>5.1f}x {inproc_cpu / peer_cpu:>8.1f}x", flush=True)
    print(f"# load average {os.getloadavg()[0]:.2f} (1 min) at the end")


if __name__ == "__main__":
    main()
