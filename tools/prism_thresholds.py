"""Fig. 4 of the PRISM paper at small scale: the share of extracted instances, and the
share of "allow" among them, kept at each labeling-function precision threshold.

Usage: PYTHONPATH=. python tools/prism_thresholds.py --captions FILE [--out CSV]

Extraction runs once at threshold 0 (the highest-precision matching function wins a
sentence); an instance survives threshold t exactly when its winning function's precision
is >= t, which equals re-running the extraction at t. Functions without a precision
("—" in Table 3) are left out, as they have no place on the precision axis.
"""

from __future__ import annotations

import argparse
import csv
import sys

from d3mkit.benchmarks.prism.extract import extract_records, read_captions
from d3mkit.benchmarks.prism.labeling import default_labeling_functions


def curve(records: list[dict]) -> list[dict]:
    rated = [r for r in records if r["precision"] is not None]
    thresholds = sorted({lf.precision for lf in default_labeling_functions() if lf.precision is not None})
    out = []
    for t in thresholds:
        kept = [r for r in rated if r["precision"] >= t]
        allow = sum(r["label"] == "allow" for r in kept)
        out.append({"threshold": t, "instances": len(kept),
                    "percent_of_data": 100.0 * len(kept) / len(rated) if rated else 0.0,
                    "percent_allow": 100.0 * allow / len(kept) if kept else 0.0})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--captions", required=True)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    records = list(extract_records(read_captions(a.captions), threshold=0.0))
    rows = curve(records)
    fh = open(a.out, "w", newline="", encoding="utf-8") if a.out else sys.stdout
    w = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: (f"{v:.3f}" if isinstance(v, float) else v) for k, v in r.items()})
    if a.out:
        fh.close()


if __name__ == "__main__":
    main()
