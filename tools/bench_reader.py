"""The one table reader (d3mkit.tables.arrow, pyarrow's CSV reader) measured as users meet it:
whole processes of ``d3mkit validate`` and ``d3mkit score`` on a task root of n rows, beside
their peers and, with ``--before``, another checkout, in one run, interleaved.

    PYTHONPATH=. python tools/bench_reader.py [--rows 1000000] [--repeat 3] [--before OTHER_CHECKOUT]

Peers (issue 31): for validate, a process that imports pandas and reads learningData.csv and
dataSplits.csv (``pandas.read_csv``, default dtypes); for score, a pandas + scikit-learn script
that reads learningData, dataSplits and the predictions, keeps the TEST rows, merges them on
d3mIndex and computes accuracy and f1Macro. Each command is a fresh process with its bytecode
compiled as an installed package has it (tools/_bench_data.with_bytecode); best of
``--repeat`` wall seconds, with the CPU seconds and the peak resident memory of that best run.
Prints numpy, pandas and pyarrow versions and the load average (the machine may be shared).
Targets: validate no slower than the pandas peer; score at least 3x the pandas+sklearn peer;
each no slower than ``--before``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _bench_data import make_predictions, make_task_root, measure_command, versions_line  # noqa: E402

PANDAS_READ = ("import sys, pandas as pd\n"
               "for p in sys.argv[1:]: pd.read_csv(p)\n")
PANDAS_SCORE = ("import sys, pandas as pd\n"
                "from sklearn.metrics import accuracy_score, f1_score\n"
                "ld, sp, pr = (pd.read_csv(p) for p in sys.argv[1:4])\n"
                "test = sp.loc[sp['type'] == 'TEST', 'd3mIndex']\n"
                "truth = ld[ld['d3mIndex'].isin(test)][['d3mIndex', 'label']]\n"
                "m = truth.merge(pr, on='d3mIndex', suffixes=('', '_p'))\n"
                "print(accuracy_score(m['label'], m['label_p']), f1_score(m['label'], m['label_p'], average='macro'))\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--before", default=None, metavar="CHECKOUT")
    args = ap.parse_args()
    print(f"# {versions_line()}; load average {os.getloadavg()[0]:.2f} at the start")
    with tempfile.TemporaryDirectory() as tmp:
        root = make_task_root(Path(tmp), args.rows)
        name = root.name
        ld = root / f"{name}_dataset" / "tables" / "learningData.csv"
        sp = root / f"{name}_problem" / "dataSplits.csv"
        pred = Path(tmp) / "predictions.csv"
        make_predictions(root, pred)
        envs = {"d3mkit": None}
        if args.before:
            envs["before"] = dict(os.environ, PYTHONPATH=str(Path(args.before).resolve()))
        jobs = {}
        for label, env in envs.items():
            jobs[f"validate {label}"] = ([sys.executable, "-m", "d3mkit", "validate", str(root)], env)
            jobs[f"score {label}"] = ([sys.executable, "-m", "d3mkit", "score", "--problem", str(root),
                                       "--predictions", str(pred)], env)
        jobs["validate peer: pandas read"] = ([sys.executable, "-c", PANDAS_READ, str(ld), str(sp)], None)
        jobs["score peer: pandas+sklearn"] = ([sys.executable, "-c", PANDAS_SCORE, str(ld), str(sp), str(pred)], None)
        runs: dict[str, list] = {k: [] for k in jobs}
        for _ in range(args.repeat):
            for k, (cmd, env) in jobs.items():
                runs[k].append(measure_command(cmd, env=env))
    best = {k: min(v) for k, v in runs.items()}
    print(f"{'command':<30} {'wall s':>7} {'peak MB':>8} {'cpu s':>6}")
    for k, (wall, peak, cpu) in best.items():
        print(f"{k:<30} {wall:>7.2f} {peak:>8.0f} {cpu:>6.2f}")
    v, s = best["validate d3mkit"][0], best["score d3mkit"][0]
    print(f"# validate / pandas read: {v / best['validate peer: pandas read'][0]:.2f}x (target <= 1)")
    print(f"# pandas+sklearn / score: {best['score peer: pandas+sklearn'][0] / s:.2f}x (target >= 3)")
    if args.before:
        print(f"# validate before / after: {best['validate before'][0] / v:.2f}x; "
              f"score before / after: {best['score before'][0] / s:.2f}x (>= 1: no slower)")
    print(f"# load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
