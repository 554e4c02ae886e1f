"""The CSV log a reproduction keeps (one line per finished run) and its two options.

What this module owns, for every ``d3mkit reproduce`` command that trains for long:

* ``--resume`` and ``--from-csv`` (:func:`add_arguments`);
* starting the log (a fresh header, or with ``--resume`` the keys of the runs already in it),
  appending one record as soon as a run is done (a stopped reproduction loses at most the
  run in progress) and reading the log back (:class:`RunLog`);
* choosing between training and ``--from-csv`` (:func:`results`): the latter needs no torch
  and a missing log is a usage error (exit 2) naming the option.

The log is read through the checked table reader (:func:`d3mkit.tables.read_table`), so a
damaged log is a one-line message naming the file (exit 1): a missing column, or text where
a number belongs (column and row named). Empty cells of number columns read as NaN.

>>> import tempfile
>>> log = RunLog(Path(tempfile.mkdtemp()) / "r.csv", columns=("model", "rep", "acc"),
...              key=("model", "rep"), text=("model",))
>>> log.start(resume=False)
set()
>>> log.append({"model": "cnn", "rep": 0, "acc": 0.5})
>>> log.start(resume=True)
{('cnn', 0)}
>>> log.read()["acc"].tolist()
[0.5]
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pandas as pd

from d3mkit.core.errors import D3MKitError, InvalidArgument


@dataclass(frozen=True)
class RunLog:
    """A reproduction's CSV: its ``columns``, the ``key`` columns naming one run, and the
    ``text`` columns (kept as strings; every other column holds numbers)."""

    path: Path
    columns: tuple[str, ...]
    key: tuple[str, ...]
    text: tuple[str, ...] = ()

    def start(self, resume: bool) -> set[tuple]:
        """The keys already done: with ``resume`` those in an existing log, else none (and
        the log restarts with its header; the parent directory is created)."""
        if resume and self.path.exists():
            df = self.read()
            return set(zip(*(df[k] for k in self.key))) if len(df) else set()
        from d3mkit.tables import write_table
        write_table(pd.DataFrame(columns=list(self.columns)), self.path)
        return set()

    def append(self, record: dict) -> None:
        """Add one finished run (a dict over :attr:`columns`) to the end of the log."""
        pd.DataFrame([record], columns=list(self.columns)).to_csv(
            self.path, mode="a", header=False, index=False, lineterminator="\n")

    def read(self) -> pd.DataFrame:
        """The log as a frame: text columns as strings, the others as numbers. Raises
        :class:`~d3mkit.core.errors.D3MKitError` naming the file when it is damaged."""
        from d3mkit.tables import read_table
        df = read_table(self.path)
        missing = [c for c in self.columns if c not in df.columns]
        if missing:
            raise D3MKitError.single(self.path, "runlog.columns", "",
                                     f"the run log lacks column(s) {', '.join(missing)}")
        for c in self.columns:
            if c in self.text:
                continue
            values = pd.to_numeric(df[c], errors="coerce")
            bad = values.isna() & (df[c].str.strip() != "")
            if bad.any():
                row = int(bad.to_numpy().nonzero()[0][0])
                raise D3MKitError.single(self.path, "runlog.value", "", f"{df[c].iloc[row]!r} is not a number",
                                         row=row + 1, column=c)
            df[c] = values
        return df


def add_arguments(parser, runs: str = "runs") -> None:
    """``--resume`` and ``--from-csv``; ``runs`` names what one log line records."""
    parser.add_argument("--resume", action="store_true",
                        help=f"keep the {runs} already in the CSV, run the rest")
    parser.add_argument("--from-csv", action="store_true",
                        help="only rewrite the report(s) from the CSV of an earlier run (no training)")


def results(log: RunLog, from_csv: bool, train: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    """The log's frame: read as it is with ``from_csv``, else after ``train()`` (which
    needs torch, checked first with a message naming the extra)."""
    if from_csv:
        if not log.path.is_file():
            raise InvalidArgument("from_csv", f"{{from_csv}}: no {log.path}", str(log.path))
        return log.read()
    from d3mkit.baselines.common import require_torch
    require_torch()
    return train()
