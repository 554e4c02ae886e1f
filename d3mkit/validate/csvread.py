"""Reading a CSV file for validation, fast on the happy path and never raising.

The header is read with :mod:`csv` (so duplicate names survive); the body with pandas'
C parser, columns named by position (0..n-1). Columns the caller declares numeric are
parsed as ``Int64``/``float64`` directly (about 8x faster than strings for 10^6 rows);
all others as ``category`` so value checks run once per distinct value. When a typed
parse fails (a value that is not a number), the file is read again with every column
as ``category`` and the value checks find the culprits. Empty cells are missing (NA).
Rows with too many fields are skipped and reported (``csv.bad_row``).
"""

from __future__ import annotations

import csv
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from d3mkit.errors import Issue
from d3mkit.validate.codes import make
from d3mkit.validate.common import row_issues

SNIFF_BYTES = 1 << 16
_BAD_LINE = re.compile(r"line (\d+): expected (\d+) fields, saw (\d+)")


@dataclass
class Table:
    """A read CSV file: ``header`` as written, ``df`` with positional columns (or None)."""

    path: Path
    header: list[str] | None = None
    df: pd.DataFrame | None = None
    issues: list[Issue] = field(default_factory=list)

    def position(self, name: str) -> int | None:
        if self.header is None:
            return None
        try:
            return self.header.index(name)
        except ValueError:
            return None

    def column(self, name: str) -> pd.Series | None:
        pos = self.position(name)
        if pos is None or self.df is None or pos >= self.df.shape[1]:
            return None
        return self.df[pos]

    def __len__(self) -> int:
        return 0 if self.df is None else len(self.df)


def _read_header(path: Path, p: str) -> tuple[list[str] | None, list[Issue]]:
    try:
        with open(path, "rb") as fh:
            head = fh.read(SNIFF_BYTES)
        if b"\x00" in head:
            return None, [make("file.binary", "", "file is binary, not UTF-8 CSV text", p)]
        with open(path, encoding="utf-8-sig", newline="") as fh:
            row = next(csv.reader(fh), None)
    except FileNotFoundError:
        return None, [make("file.missing", "", "file does not exist", p)]
    except IsADirectoryError:
        return None, [make("file.is_directory", "", "expected a CSV file, found a directory", p)]
    except UnicodeDecodeError as exc:
        return None, [make("file.encoding", "row 1", f"file is not valid UTF-8 ({exc.reason})", p)]
    except csv.Error as exc:
        return None, [make("csv.parse", "row 1", f"cannot parse the header: {exc}", p)]
    except OSError as exc:
        return None, [make("file.unreadable", "", f"cannot read file: {exc.strerror or exc}", p)]
    if not row or all(c == "" for c in row):
        return None, [make("csv.empty", "row 1", "no header row (the file or its first line is empty)", p)]
    return row, []


def _bad_rows(caught, p: str) -> list[Issue]:
    found: dict[int, tuple[int, int]] = {}
    for w in caught:
        for m in _BAD_LINE.finditer(str(w.message)):
            found[int(m.group(1)) - 2] = (int(m.group(2)), int(m.group(3)))
    return row_issues("csv.bad_row", sorted(found), None,
                      lambda r: f"expected {found[r][0]} fields, found {found[r][1]}; row skipped", p)


def _parse(path: Path, n: int, dtype) -> tuple[pd.DataFrame, list]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = pd.read_csv(path, header=0, names=list(range(n)), dtype=dtype, encoding="utf-8-sig",
                         keep_default_na=False, na_values=[""], on_bad_lines="warn",
                         engine="c", skip_blank_lines=True)
    return df, caught


def read_csv_checked(path: Path | str, numeric: dict[str, str] | None = None) -> Table:
    """Read ``path``; ``numeric`` maps header names to ``"integer"`` or ``"real"``."""
    path = Path(path)
    p = str(path)
    t = Table(path)
    header, issues = _read_header(path, p)
    t.issues += issues
    if header is None:
        return t
    t.header = header
    seen: dict[str, int] = {}
    for i, name in enumerate(header):
        if name in seen:
            t.issues.append(make("csv.duplicate_header", f"row 1, column {name}",
                                 f"header names {name!r} twice (positions {seen[name]} and {i})", p))
        else:
            seen[name] = i
    n = len(header)
    numeric = numeric or {}
    typed = {i: ("Int64" if numeric.get(name) == "integer" else
                 "float64" if numeric.get(name) == "real" else "category")
             for i, name in enumerate(header)}
    try:
        try:
            df, caught = _parse(path, n, typed)
        except pd.errors.ParserError:
            raise
        except (ValueError, TypeError, OverflowError):
            df, caught = _parse(path, n, "category")
    except pd.errors.EmptyDataError:
        t.issues.append(make("csv.empty", "row 1", "no header row", p))
        return t
    except UnicodeDecodeError as exc:
        t.issues.append(make("file.encoding", "", f"file is not valid UTF-8 ({exc.reason})", p))
        return t
    except pd.errors.ParserError as exc:
        msg = str(exc).replace("Error tokenizing data. C error: ", "")
        t.issues.append(make("csv.parse", "", f"cannot parse CSV: {msg}", p))
        return t
    except OSError as exc:
        t.issues.append(make("file.unreadable", "", f"cannot read file: {exc.strerror or exc}", p))
        return t
    except Exception as exc:  # anything else the parser trips on is still bad input
        t.issues.append(make("csv.parse", "", f"cannot parse CSV: {type(exc).__name__}: {exc}", p))
        return t
    t.issues += _bad_rows(caught, p)
    t.df = df
    return t

