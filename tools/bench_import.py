"""Benchmark ``d3mkit import table`` end to end against a pandas read of the same file.

Issue 21's target: importing a 10^6-row x 20-column CSV of mixed types (integers, reals,
booleans, dates, categoricals, free text) end to end — reading, inferring every colType,
writing learningData, the documents and dataSplits, validating the written root and renaming
it into place — takes at most 3x ``pandas.read_csv`` of the same file, measured in the same
run, with a peak memory of at most 4x the file's size. Each measurement is a fresh process
(wall time, peak RSS and CPU of the process tree, :func:`_bench_data.measure_command`).

    python tools/bench_import.py [--rows 1000000] [--cols 20] [--repeat 1] [--tmp DIR] [--save]

Prints a table (markdown) with the ratios and the numpy/pandas/pyarrow versions and the load
average beside the figures; ``--save`` writes it to tools/results/bench_import.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _bench_data import emit, md_table, measure_command, versions_line  # noqa: E402

KINDS = ["integer", "real", "boolean", "dateTime", "categorical", "string"]


def mixed_csv(path: Path, rows: int, cols: int, seed: int = 0) -> Path:
    """A CSV of ``rows`` x ``cols`` with the column kinds cycling through :data:`KINDS`
    (plus a categorical target ``y`` as the last column), written in chunks."""
    rng = np.random.default_rng(seed)
    cities = np.array([f"city_{i}" for i in range(40)])
    words = np.array(["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"])
    names = [f"{KINDS[j % len(KINDS)]}_{j}" for j in range(cols - 1)] + ["y"]
    chunk = 200_000
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(",".join(names) + "\n")
        for start in range(0, rows, chunk):
            n = min(chunk, rows - start)
            data = {}
            for j, name in enumerate(names[:-1]):
                kind = KINDS[j % len(KINDS)]
                if kind == "integer":
                    data[name] = rng.integers(-10_000, 10_000, n)
                elif kind == "real":
                    data[name] = rng.normal(size=n).round(5)
                elif kind == "boolean":
                    data[name] = np.where(rng.random(n) < 0.5, "true", "false")
                elif kind == "dateTime":
                    days = rng.integers(0, 3650, n)
                    data[name] = (np.datetime64("2015-01-01") + days.astype("timedelta64[D]")).astype(str)
                elif kind == "categorical":
                    data[name] = cities[rng.integers(0, len(cities), n)]
                else:
                    data[name] = np.char.add(words[rng.integers(0, len(words), n)],
                                             (start + np.arange(n)).astype(str))
            data["y"] = np.array(["a", "b", "c"])[rng.integers(0, 3, n)]
            pd.DataFrame(data).to_csv(fh, header=False, index=False, lineterminator="\n")
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--cols", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=1, help="runs of each measurement (the best is kept)")
    ap.add_argument("--save", action="store_true")
    ap.add_argument("--tmp", default=None, help="directory for the CSV and the root (default: the system's)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-import-", dir=args.tmp) as tmp:
        tmp = Path(tmp)
        src = mixed_csv(tmp / "mixed.csv", args.rows, args.cols)
        size_mib = src.stat().st_size / 2 ** 20
        load_before = os.getloadavg()
        peer = [sys.executable, "-c", f"import pandas as pd; pd.read_csv({str(src)!r})"]
        mine = [sys.executable, "-m", "d3mkit", "import", "table", str(src), "--target", "y",
                "--out", str(tmp / "out"), "--force"]
        runs = {"pandas.read_csv": [], "d3mkit import table": []}
        for _ in range(args.repeat):
            runs["pandas.read_csv"].append(measure_command(peer))
            runs["d3mkit import table"].append(measure_command(mine))
        load_after = os.getloadavg()
        best = {k: min(v, key=lambda r: r[0]) for k, v in runs.items()}
        base = best["pandas.read_csv"][0]
        rows = []
        for name, (wall, rss, cpu) in best.items():
            rows.append([name, f"{wall:.2f}", f"{wall / base:.2f}x", f"{cpu:.2f}", f"{rss:,.0f}",
                         f"{rss / size_mib:.2f}x"])
        text = "\n".join([
            f"# d3mkit import table: {args.rows:,} rows x {args.cols} mixed columns, {size_mib:.1f} MiB CSV",
            "",
            *md_table(["what", "wall s", "vs pandas", "CPU s", "peak RSS MiB", "RSS / file size"], rows),
            "",
            f"targets: import <= 3.00x pandas.read_csv, peak RSS <= 4.00x the file size; "
            f"best of {args.repeat} run(s), each a fresh process",
            f"{versions_line()}; {os.cpu_count()} CPUs; load average {load_before[0]:.2f} before, "
            f"{load_after[0]:.2f} after",
        ])
        emit(text, "bench_import.md", args.save)
    return 0


if __name__ == "__main__":
    sys.exit(main())
