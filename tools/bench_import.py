"""Benchmark ``d3mkit import table`` end to end against a pandas read of the same file.

Issue 21's target: importing a 10^6-row x 20-column CSV of mixed types (integers, reals,
booleans, dates, categoricals, free text) end to end — reading, inferring every colType,
writing learningData, the documents and dataSplits, validating the written root and renaming
it into place — takes at most 3x ``pandas.read_csv`` of the same file, measured in the same
run, with a peak memory of at most 4x the file's size. Each measurement is a fresh process
(wall time, peak RSS and CPU of the process tree, :func:`_bench_data.measure_command`).

    python tools/bench_import.py [--rows 1000000] [--cols 20] [--repeat 1] [--cases csv|all|a,b]
                                 [--tmp DIR] [--save] [--before OTHER_CHECKOUT]

Cases (``--cases``, default ``csv``): ``csv`` the plain file; ``tsv`` and ``gzip`` the same
table tab-separated and gzip-compressed; ``index`` with an ``--index row_id`` column;
``d3mIndex-last`` with a ``d3mIndex`` column that is not the first; ``empty-targets`` with
every 97th target cell empty (rows dropped). Each beside pandas reading the same file.
Prints a table (markdown) with the CPU and wall ratios, peak memory against the file size,
the numpy/pandas/pyarrow versions and the load average; ``--save`` writes it to
tools/results/bench_import.md.
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


#: the cases: (name, file suffix, extra import options, how the peer reads the file)
CASES = {
    "csv": ("mixed.csv", [], "pd.read_csv(p)"),
    "tsv": ("mixed.tsv", [], "pd.read_csv(p, sep='\\t')"),
    "gzip": ("mixed.csv.gz", [], "pd.read_csv(p)"),
    "index": ("indexed.csv", ["--index", "row_id"], "pd.read_csv(p)"),
    "d3mIndex-last": ("lastindex.csv", [], "pd.read_csv(p)"),
    "empty-targets": ("holes.csv", [], "pd.read_csv(p)"),
}


def _variant(src: Path, case: str, tmp: Path) -> Path:
    """The file of ``case`` made from the plain CSV ``src`` (chunk by chunk: the bench stays
    lean too)."""
    import gzip
    out = tmp / CASES[case][0]
    if case == "csv":
        return src
    if case == "gzip":
        with open(src, "rb") as fin, gzip.open(out, "wb", compresslevel=1) as fout:
            while block := fin.read(1 << 24):
                fout.write(block)
        return out
    with open(out, "w", encoding="utf-8", newline="") as fh:
        for k, chunk in enumerate(pd.read_csv(src, dtype=str, keep_default_na=False, chunksize=200_000)):
            start = k * 200_000
            if case == "index":
                chunk.insert(0, "row_id", np.arange(start, start + len(chunk)) * 3 + 7)
            elif case == "d3mIndex-last":
                chunk["d3mIndex"] = np.arange(start, start + len(chunk))
            elif case == "empty-targets":
                chunk.loc[chunk.index[::97], "y"] = ""
            chunk.to_csv(fh, sep="\t" if case == "tsv" else ",", header=k == 0, index=False,
                         lineterminator="\n")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--cols", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=1, help="runs of each measurement (the best is kept)")
    ap.add_argument("--cases", default="csv", help=f"comma-separated, of {', '.join(CASES)} (or 'all')")
    ap.add_argument("--save", action="store_true")
    ap.add_argument("--tmp", default=None, help="directory for the CSV and the root (default: the system's)")
    ap.add_argument("--before", default=None, metavar="CHECKOUT",
                    help="another checkout (a directory holding d3mkit/) whose import is measured in the same "
                         "run, interleaved: the before/after of a change")
    args = ap.parse_args(argv)
    cases = list(CASES) if args.cases == "all" else args.cases.split(",")
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        ap.error(f"unknown case(s): {', '.join(unknown)}")
    with tempfile.TemporaryDirectory(prefix="bench-import-", dir=args.tmp) as tmp:
        tmp = Path(tmp)
        src = mixed_csv(tmp / "mixed.csv", args.rows, args.cols)
        load_before = os.getloadavg()
        rows = []
        for case in cases:
            path = _variant(src, case, tmp)
            size_mib = path.stat().st_size / 2 ** 20
            data_mib = src.stat().st_size / 2 ** 20 if case == "gzip" else size_mib   # the table's own bytes
            peer = [sys.executable, "-c", f"import pandas as pd; p = {str(path)!r}; {CASES[case][2]}"]
            mine = [sys.executable, "-m", "d3mkit", "import", "table", str(path), "--target", "y",
                    *CASES[case][1], "--out", str(tmp / "out"), "--force"]
            runs = {"pandas": [], "d3mkit": [], "before": []}
            before_env = dict(os.environ, PYTHONPATH=str(Path(args.before).resolve())) if args.before else None
            for _ in range(args.repeat):
                runs["pandas"].append(measure_command(peer))
                runs["d3mkit"].append(measure_command(mine))
                if before_env is not None:
                    runs["before"].append(measure_command(mine, env=before_env))
            # each figure the best of its runs (wall, peak and CPU apart: under load the run with the
            # least CPU is not the one with the least wall time)
            (pw, prss, pcpu), (w, rss, cpu) = (tuple(min(r[i] for r in runs[k]) for i in range(3))
                                               for k in ("pandas", "d3mkit"))
            rows.append([case, f"{size_mib:.1f}", f"{pcpu:.2f}", f"{cpu:.2f}", f"{cpu / pcpu:.2f}x",
                         f"{pw:.2f}", f"{w:.2f}", f"{w / pw:.2f}x", f"{prss:,.0f}", f"{rss:,.0f}",
                         f"{rss / data_mib:.2f}x"])
            if runs["before"]:
                bw, brss, bcpu = (min(r[i] for r in runs["before"]) for i in range(3))
                rows.append([f"{case} (before)", "", f"{pcpu:.2f}", f"{bcpu:.2f}", f"{bcpu / pcpu:.2f}x",
                             f"{pw:.2f}", f"{bw:.2f}", f"{bw / pw:.2f}x", "", f"{brss:,.0f}",
                             f"{brss / data_mib:.2f}x"])
            if path != src:
                path.unlink()
        load_after = os.getloadavg()
        text = "\n".join([
            f"# d3mkit import table: {args.rows:,} rows x {args.cols} mixed columns, beside pandas.read_csv of "
            f"the same file",
            "",
            *md_table(["case", "file MiB", "pandas CPU s", "import CPU s", "CPU ratio", "pandas wall s",
                       "import wall s", "wall ratio", "pandas peak MiB", "import peak MiB",
                       "import peak / table bytes"], rows),
            "",
            f"targets: import <= 3.00x pandas.read_csv, peak RSS <= 4.00x the file size (gzip: of the table it "
            f"holds); each figure the best of "
            f"{args.repeat} run(s), each a fresh process (interpreter start-up and imports included); pandas "
            f"{pd.__version__} parses a whole local file in a thread pool (its wall time can be below its CPU "
            f"time), the import's chunked read in one thread ahead of the inference",
            f"{versions_line()}; {os.cpu_count()} CPUs; load average {load_before[0]:.2f} before, "
            f"{load_after[0]:.2f} after",
        ])
        emit(text, "bench_import.md", args.save)
    return 0


if __name__ == "__main__":
    sys.exit(main())
