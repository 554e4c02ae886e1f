"""What the row-width check costs (issue 10: score refuses rows with more or fewer fields).

``d3mkit.tables.csvread.field_counts`` counts every row's fields before a table is read,
numpy over the bytes when the file has no double quote, the csv module when it has. This
prints, for N rows of a 4-column table (d3mIndex, a real, an integer, a label), the best
of R wall times of field_counts on the plain file and on the same file with every label
quoted, beside the peer: pandas reading the same file as strings (what scoring's reader
does after the check), and the ratio.

    python tools/bench_rows.py [--rows 100000 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from d3mkit.tables.csvread import field_counts  # noqa: E402
from tools._bench_data import best_of  # noqa: E402


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="bench_rows_"))
    try:
        print(f"best of {args.repeat}; peer: pandas.read_csv(dtype=str) of the same file")
        print("| rows | MB | field_counts (s) | quoted: csv module (s) | pandas read (s) | ratio | quoted ratio |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        rng = np.random.default_rng(0)
        for n in args.rows:
            df = pd.DataFrame({"d3mIndex": np.arange(n), "x": rng.random(n), "z": rng.integers(0, 100, n),
                               "y": rng.choice(["cat", "dog", "owl"], n)})
            plain, quoted = tmp / f"p{n}.csv", tmp / f"q{n}.csv"
            df.to_csv(plain, index=False)
            df.assign(y='"' + df["y"] + '"').to_csv(quoted, index=False, quoting=3)
            fc = best_of(lambda: field_counts(plain, 4), args.repeat)
            fq = best_of(lambda: field_counts(quoted, 4), args.repeat)
            pr = best_of(lambda: pd.read_csv(plain, dtype=str, keep_default_na=False), args.repeat)
            mb = plain.stat().st_size / 1e6
            print(f"| {n:,} | {mb:.0f} | {fc:.3f} | {fq:.3f} | {pr:.3f} | {fc / pr:.2f} | {fq / pr:.2f} |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
