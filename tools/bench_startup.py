"""Start-up time of the command line: ``d3mkit COMMAND --help`` beside a bare interpreter.

    PYTHONPATH=. python tools/bench_startup.py [--repeat 15]

Each case runs in a fresh process (``python -c pass``, then ``python -m d3mkit ...``
with this checkout first on PYTHONPATH); the table gives the best of ``--repeat`` runs
and the difference to the bare interpreter. Target: ``d3mkit validate --help`` within
0.15 s of ``python -c pass``. The shared machine makes single runs noisy, so the best of
many runs is the figure to compare. Also lists which heavy modules each case imported.

CPU seconds (user + system of the child, the least of the runs) are printed beside the wall
figure: they hold on a loaded machine where the wall figure does not. The two last cases
time entry-point discovery alone against its peer in the same run: importlib.metadata's
``entry_points(group=...)`` (what d3mkit used) and :func:`d3mkit.core.entrypoints.third_party`
(the scan of entry_points.txt texts it uses now).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _bench_data import versions_line  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
CASES = [
    ("python -c pass", ["-c", "pass"]),
    ("d3mkit --version", ["-m", "d3mkit", "--version"]),
    ("d3mkit validate --help", ["-m", "d3mkit", "validate", "--help"]),
    ("d3mkit score --help", ["-m", "d3mkit", "score", "--help"]),
    ("d3mkit --help (all commands)", ["-m", "d3mkit", "--help"]),
    ("d3mkit build --help", ["-m", "d3mkit", "build", "--help"]),
    ("peer: importlib.metadata eps", ["-c", "from importlib.metadata import entry_points; "
                                            "entry_points(group='d3mkit.benchmarks')"]),
    ("d3mkit.core.entrypoints scan", ["-c", "from d3mkit.core.entrypoints import third_party; "
                                       "third_party('d3mkit.benchmarks')"]),
]
HEAVY = ("pandas", "numpy", "sklearn", "torch", "scipy", "jsonschema", "PIL", "matplotlib")
PROBE = ("import sys, runpy; sys.argv = ['d3mkit'] + sys.argv[1:]\n"
         "try:\n    runpy.run_module('d3mkit', run_name='__main__')\nexcept SystemExit:\n    pass\n"
         "print(' '.join(m for m in %r if m in sys.modules), file=sys.stderr)" % (HEAVY,))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=str(REPO))
    rows = []
    for label, argv in CASES:
        best, cpu = _best(lambda: subprocess.run([sys.executable, *argv], env=env, capture_output=True), args.repeat)
        heavy = ""
        if argv[:2] == ["-m", "d3mkit"]:
            p = subprocess.run([sys.executable, "-c", PROBE, *argv[2:]], env=env, capture_output=True, text=True)
            heavy = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
        rows.append((label, best, cpu, heavy))
    bare, bare_cpu = rows[0][1], rows[0][2]
    print(f"{versions_line()}; load {' '.join(open('/proc/loadavg').read().split()[:3])}")
    print(f"{'case':<30} {'best s':>8} {'vs bare s':>10} {'CPU s':>7} {'vs bare CPU':>12}  heavy modules imported")
    for label, best, cpu, heavy in rows:
        print(f"{label:<30} {best:8.3f} {best - bare:10.3f} {cpu:7.3f} {cpu - bare_cpu:12.3f}  {heavy or '-'}")


def _best(fn, repeat: int) -> tuple[float, float]:
    """(least wall seconds, least child CPU seconds) of ``repeat`` calls of ``fn()``."""
    import time
    wall = cpu = float("inf")
    for _ in range(repeat):
        r0, t = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        fn()
        w, r1 = time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = min(wall, w)
        cpu = min(cpu, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime))
    return wall, cpu


if __name__ == "__main__":
    main()
