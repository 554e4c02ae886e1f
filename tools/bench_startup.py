"""Start-up time of the command line: ``d3mkit COMMAND --help`` beside a bare interpreter.

    PYTHONPATH=. python tools/bench_startup.py [--repeat 15]

Each case runs in a fresh process (``python -c pass``, then ``python -m d3mkit ...``
with this checkout first on PYTHONPATH); the table gives the best of ``--repeat`` runs
and the difference to the bare interpreter. Target: ``d3mkit validate --help`` within
0.15 s of ``python -c pass``. The shared machine makes single runs noisy, so the best of
many runs is the figure to compare. Also lists which heavy modules each case imported.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _bench_data import best_of  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
CASES = [
    ("python -c pass", ["-c", "pass"]),
    ("d3mkit --version", ["-m", "d3mkit", "--version"]),
    ("d3mkit validate --help", ["-m", "d3mkit", "validate", "--help"]),
    ("d3mkit score --help", ["-m", "d3mkit", "score", "--help"]),
    ("d3mkit --help (all commands)", ["-m", "d3mkit", "--help"]),
    ("d3mkit build --help", ["-m", "d3mkit", "build", "--help"]),
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
        best = best_of(lambda: subprocess.run([sys.executable, *argv], env=env, capture_output=True), args.repeat)
        heavy = ""
        if argv[:2] == ["-m", "d3mkit"]:
            p = subprocess.run([sys.executable, "-c", PROBE, *argv[2:]], env=env, capture_output=True, text=True)
            heavy = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
        rows.append((label, best, heavy))
    bare = rows[0][1]
    print(f"{'case':<30} {'best s':>8} {'vs bare s':>10}  heavy modules imported")
    for label, best, heavy in rows:
        print(f"{label:<30} {best:8.3f} {best - bare:10.3f}  {heavy or '-'}")


if __name__ == "__main__":
    main()
