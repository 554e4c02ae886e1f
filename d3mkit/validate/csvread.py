"""Reading CSV files that come from outside: the one reader that reports issues.

Every CSV d3mkit reads (learningData and other tables, dataSplits, predictions,
targets, metadata) goes through this module: :func:`read_header` refuses what must not
be opened (a FIFO, a device, a file over ``D3MKIT_MAX_FILE_BYTES``, a header over
``D3MKIT_MAX_COLUMNS`` columns; see :mod:`d3mkit.limits`) and reads the header;
:func:`read_csv_checked` reads a table for validation (below); :func:`read_strings`
reads a table as strings for scoring and the task-root readers
(:func:`d3mkit.tables.read_table`).

For validation, the header is read with :mod:`csv` (so duplicate names survive); the body with pandas'
C parser, columns named by position (0..n-1). Columns the caller declares numeric are
parsed as ``Int64``/``float64`` directly (about 8x faster than strings for 10^6 rows);
all others as ``category`` so value checks run once per distinct value. When a typed
parse fails (a value that is not a number), the file is read again with every column
as ``category`` and the value checks find the culprits. Empty cells are missing (NA).
Rows with too many fields are skipped and reported (``csv.bad_row``).
"""

from __future__ import annotations

import csv
import io
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.errors import D3MKitError, Issue, error
from d3mkit.limits import file_issue, how_to_raise, limit
from d3mkit.validate.codes import make
from d3mkit.validate.common import row_issues

SNIFF_BYTES = 1 << 16
HEADER_BYTES = 1 << 24    # the header line may be at most 16 MiB
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


def read_header(path: Path | str) -> tuple[list[str] | None, list[Issue]]:
    """The header row of a CSV file, or ``(None, issues)``: the file is missing, not a
    regular file, too large, binary, not UTF-8, empty, unparseable or too wide."""
    path = Path(path)
    p = str(path)
    refused = file_issue(path, "CSV file")
    if refused is not None:
        return None, [refused]
    try:
        with open(path, "rb") as fh:   # read up to the first newline, not the whole file
            parts = [fh.read(SNIFF_BYTES)]
            size = len(parts[0])
            while b"\n" not in parts[-1] and size < HEADER_BYTES:
                chunk = fh.read(min(1 << 20, HEADER_BYTES - size))
                if not chunk:
                    break
                parts.append(chunk)
                size += len(chunk)
            head = b"".join(parts)
        if b"\x00" in head[:SNIFF_BYTES]:
            return None, [make("file.binary", "", "file is binary, not UTF-8 CSV text", p)]
        if head.startswith(b"\xef\xbb\xbf"):
            head = head[3:]
        cut = head.find(b"\n")
        if cut < 0 and len(head) == HEADER_BYTES:
            return None, [make("csv.too_wide", "row 1", f"the header line is longer than "
                               f"{HEADER_BYTES:,} bytes", p)]
        if cut < 0:
            cut = len(head)
        text = head[:cut + 1].decode("utf-8")   # a newline never splits a character
        row = next(csv.reader(io.StringIO(text, newline="")), None)
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
    if len(row) > limit("MAX_COLUMNS"):
        return None, [make("csv.too_wide", "row 1", f"the header has {len(row):,} columns, over the "
                           f"{how_to_raise('MAX_COLUMNS')}", p)]
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
    header, issues = read_header(path)
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
        except D3MKitError:   # a ValueError too: an input problem already stated
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



_DELIMITERS = ((";", "semicolons"), ("\t", "tabs"), ("|", "'|'"))
_SAW = re.compile(r"line (\d+), saw (\d+)")


def _ragged_rows(path: Path, n: int) -> list[Issue]:
    """The first row with more fields than the header's ``n`` (as a csv.parse issue)."""
    p = str(path)
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            rows = csv.reader(fh)
            next(rows, None)
            for rec, row in enumerate(rows, start=2):
                if len(row) > n:
                    return [make("csv.parse", f"row {rec}", f"row has {len(row)} fields, the header has {n}", p)]
    except csv.Error as exc:
        return [make("csv.parse", "", f"cannot parse CSV: {exc}", p)]
    except UnicodeDecodeError as exc:
        return [make("file.encoding", "", f"file is not valid UTF-8 ({exc.reason})", p)]
    return []


def read_strings(path: Path | str, usecols: list[str] | None = None, int_cols: tuple[str, ...] = (),
                 allow_empty: bool = False, check_rows: bool = False
                 ) -> tuple[pd.DataFrame | None, list[Issue]]:
    """Read a CSV with every cell a string (empty cells stay ``""``), the ``int_cols``
    as int64 when they all parse. Returns ``(frame, issues)``, frame None when any
    issue is an error: those of :func:`read_header`, another delimiter than commas,
    repeated column names, a row with more fields than the header (``csv.parse``; rows
    with fewer fields are padded with empty cells), and no rows (``csv.no_rows``,
    unless ``allow_empty``). ``usecols`` restricts the columns parsed (absent names are
    skipped); rows with too many fields are then only found with ``check_rows`` (a pass
    of the csv module). Time is linear in rows x columns."""
    path = Path(path)
    p = str(path)
    header, issues = read_header(path)
    if header is None:
        return None, issues
    if len(header) == 1 and "d3mIndex" not in header:
        for sep, name in _DELIMITERS:
            if sep in header[0]:
                return None, [error("csv.delimiter", "row 1", f"columns are separated by {name}, not "
                                   f"commas (header {header[0][:60]!r})", p)]
    seen: set[str] = set()
    dups: list[str] = []
    for h in header:
        if h in seen and h not in dups:
            dups.append(h)
        seen.add(h)
    if dups:
        return None, [make("csv.duplicate_header", "row 1", "duplicate column names: "
                           + ", ".join(repr(d[:60]) for d in dups[:10]), p)]
    cols = [c for c in usecols if c in seen] if usecols is not None else header
    dtypes = {c: (np.int64 if c in int_cols else object) for c in cols}
    kwargs = dict(keep_default_na=False, na_filter=False, encoding="utf-8-sig", engine="c")
    if usecols is not None and check_rows:
        # count every row's fields with the csv module (pandas ignores ragged rows under
        # usecols), then parse only the wanted columns: for a wide file of few rows this is
        # far cheaper than pandas' cost per column
        ragged = _ragged_rows(path, len(header))
        if ragged:
            return None, ragged
    if usecols is not None:   # pandas skips ragged rows here: check_rows, or validate, finds them
        kwargs["usecols"] = cols
    try:
        try:
            df = pd.read_csv(path, dtype=dtypes, **kwargs)
        except D3MKitError:   # a ValueError too: an input problem already stated
            raise
        except (ValueError, OverflowError) as exc:
            if isinstance(exc, pd.errors.ParserError):
                raise
            df = pd.read_csv(path, dtype=object, **kwargs)
    except pd.errors.ParserError as exc:
        m = _SAW.search(str(exc))
        if m:
            return None, [make("csv.parse", f"row {m.group(1)}", f"row has {m.group(2)} fields, "
                               f"the header has {len(header)}", p)]
        msg = str(exc).replace("Error tokenizing data. C error: ", "").strip()
        return None, [make("csv.parse", "", f"cannot parse CSV: {msg}", p)]
    except UnicodeDecodeError as exc:
        return None, [make("file.encoding", f"byte {exc.start}", "file is not valid UTF-8", p)]
    except pd.errors.EmptyDataError:
        return None, [make("csv.empty", "row 1", "no header row", p)]
    except OSError as exc:
        return None, [make("file.unreadable", "", f"cannot read file: {exc.strerror or exc}", p)]
    if len(df) == 0 and not allow_empty:
        return None, [error("csv.no_rows", "row 1", "file has a header but no rows", p)]
    return df, []
