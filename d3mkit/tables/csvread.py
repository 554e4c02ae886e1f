"""Reading CSV files that come from outside: the one reader that reports issues.

Every CSV d3mkit reads (learningData and other tables, dataSplits, predictions,
targets, metadata) goes through this module: :func:`read_header` refuses what must not
be opened (a FIFO, a device, a file over ``D3MKIT_MAX_FILE_BYTES``, a header over
``D3MKIT_MAX_COLUMNS`` columns; see :mod:`d3mkit.io.limits`) and reads the header;
:func:`read_csv_checked` reads a table for validation (below); :func:`read_strings`
reads a table as strings for the task-root readers (:func:`d3mkit.tables.read_table`), and
:func:`read_columns` the same cells as the scoring pipeline's
:class:`~d3mkit.tables.columns.ColumnTable`.

The engine is pyarrow's CSV reader (:mod:`d3mkit.tables.arrow`: multithreaded, text
columns dictionary-encoded, never pandas). A file it does not read exactly (a ragged row,
a blank line, bytes that are not UTF-8, a numeric column with a cell that is not a plain
number, ...) is read by pandas' C parser, which gives every message: columns named by
position (0..n-1); columns the caller declares numeric parsed as ``Int64``/``float64``,
all others as ``category`` so value checks run once per distinct value. When a typed
parse fails (a value that is not a number), the file is read again with every column as
``category`` and the value checks find the culprits. Empty cells are missing (NA). Rows
with too many fields are skipped and reported (``csv.bad_row``), rows with too few are
reported too (:func:`field_counts` owns the check; scoring's reader refuses both).
"""

from __future__ import annotations

import csv
import io
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from d3mkit.core.errors import D3MKitError, Issue, error
from d3mkit.io.limits import file_issue, how_to_raise, limit
from d3mkit.io.readlog import note_fd
from d3mkit.core.codes import make
from d3mkit.tables.columns import ColumnTable
from d3mkit.tables.tablecols import Column, from_frame
from d3mkit.tables.rows import row_issues
from d3mkit.tables.arrow import read_checked_columns, read_score_columns

if TYPE_CHECKING:   # pandas is imported by the functions that read through it
    import pandas as pd

SNIFF_BYTES = 1 << 16
HEADER_BYTES = 1 << 24    # the header line may be at most 16 MiB



@dataclass
class Table:
    """A read CSV file: ``header`` as written, ``cols`` its parsed columns by position
    (:mod:`d3mkit.tables.tablecols`; None when the file could not be read) and ``rows``
    their length."""

    path: Path
    header: list[str] | None = None
    cols: dict[int, Column] | None = None
    rows: int = 0
    issues: list[Issue] = field(default_factory=list)

    def position(self, name: str) -> int | None:
        if self.header is None:
            return None
        try:
            return self.header.index(name)
        except ValueError:
            return None

    def column(self, name: str) -> Column | None:
        pos = self.position(name)
        if pos is None or self.cols is None:
            return None            # not a column, or one not parsed (``columns`` of the reader)
        return self.cols.get(pos)

    def keep(self, names) -> None:
        """Let go of every parsed column but those named ``names`` (the checks still to run
        read only these)."""
        if self.cols is not None:
            wanted = {self.position(n) for n in names}
            self.cols = {i: c for i, c in self.cols.items() if i in wanted}

    def drop(self, name: str) -> None:
        """Let go of the parsed column ``name``."""
        if self.cols is not None:
            self.cols.pop(self.position(name), None)

    def __len__(self) -> int:
        return 0 if self.cols is None else self.rows


def _first_row(text: str, eof: bool) -> list[str] | None:
    """The first record of ``text`` (the csv module's reading, as ever), or None when it
    is still inside a quoted field at the end of ``text`` and more of the file follows (a
    quoted header name may hold a newline, RFC 4180). Raises :class:`csv.Error` for a
    quoted field that the end of the file leaves open."""
    try:
        return next(csv.reader(io.StringIO(text, newline=""), strict=True), None)
    except csv.Error as exc:
        if "unexpected end of data" not in str(exc):    # other slips: read as csv always did
            return next(csv.reader(io.StringIO(text, newline="")), None)
        if eof:
            raise csv.Error("a quoted name is not closed before the end of the file") from None
        return None


def read_header(path: Path | str) -> tuple[list[str] | None, list[Issue]]:
    """The header row of a CSV file, or ``(None, issues)``: the file is missing, not a
    regular file, too large, binary, not UTF-8, empty, unparseable or too wide."""
    path = Path(path)
    p = str(path)
    refused = file_issue(path, "CSV file")
    if refused is not None:
        return None, [refused]
    try:
        with open(path, "rb") as fh:   # read up to the end of the first record, not the whole file
            note_fd(fh.fileno(), path)   # an input: no output of this run may replace it
            head = fh.read(SNIFF_BYTES)
            eof = len(head) < SNIFF_BYTES
            row = None
            while True:
                if b"\x00" in head[:SNIFF_BYTES]:
                    return None, [make("file.binary", "", "file is binary, not UTF-8 CSV text", p)]
                bom = 3 if head.startswith(b"\xef\xbb\xbf") else 0
                cut = head.find(b"\n")
                if cut >= 0 or eof:
                    # the first line as before (a newline never splits a character) ...
                    line = head[bom:cut + 1 if cut >= 0 else len(head)].decode("utf-8")
                    row = _first_row(line, eof=cut < 0)
                    if row is None:   # ... unless a quoted name runs past it: up to the last newline
                        end = len(head) if eof else head.rfind(b"\n") + 1
                        row = _first_row(head[bom:end].decode("utf-8", "surrogateescape"), eof)
                    if row is not None or eof:
                        break
                if len(head) >= HEADER_BYTES:
                    return None, [make("csv.too_wide", "", f"the header line is longer than "
                                       f"{HEADER_BYTES:,} bytes", p, row=1)]
                chunk = fh.read(min(1 << 20, HEADER_BYTES - len(head)))
                eof = not chunk
                head += chunk
        if row is not None and any("\udc80" <= ch <= "\udcff" for name in row for ch in name):
            return None, [make("file.encoding", "", "file is not valid UTF-8 (invalid bytes in "
                               "the header)", p, row=1)]
    except FileNotFoundError:
        return None, [make("file.missing", "", "file does not exist", p)]
    except IsADirectoryError:
        return None, [make("file.is_directory", "", "expected a CSV file, found a directory", p)]
    except UnicodeDecodeError as exc:
        return None, [make("file.encoding", "", f"file is not valid UTF-8 ({exc.reason})", p, row=1)]
    except csv.Error as exc:
        return None, [make("csv.parse", "", f"cannot parse the header: {exc}", p, row=1)]
    except OSError as exc:
        return None, [make("file.unreadable", "", f"cannot read file: {exc.strerror or exc}", p)]
    if not row or all(c == "" for c in row):
        return None, [make("csv.empty", "", "no header row (the file or its first line is empty)", p, row=1)]
    if len(row) > limit("MAX_COLUMNS"):
        return None, [make("csv.too_wide", "", f"the header has {len(row):,} columns, over the "
                           f"{how_to_raise('MAX_COLUMNS')}", p, row=1)]
    return row, []


def _inexact_ints(df: pd.DataFrame, cols) -> list:
    """The columns of ``df`` among ``cols`` that pandas parsed as numbers (integers, or
    the categories of a ``category`` column) and that hold a value beyond 2**53: pandas'
    parser takes a column through float64 when one cell is written ``N.0`` (and infers
    float categories), so such a column may hold rounded values (9007199254740993 read as
    ...992). They are read again as text, compared in the integer colType's exact form
    (:func:`d3mkit.validation.coltypes.exact_numbers`)."""
    import pandas as pd
    out = []
    for c in cols:
        if c not in df.columns:
            continue
        col = df[c]
        if isinstance(col.dtype, pd.CategoricalDtype):
            col = pd.Series(col.cat.categories)
        if pd.api.types.is_integer_dtype(col.dtype) or pd.api.types.is_float_dtype(col.dtype):
            v = col.dropna().to_numpy(dtype=np.float64)
            if len(v) and (np.abs(v) >= 2.0 ** 53).any():
                out.append(c)
    return out


def _short_rows(path: Path, n: int, df: pd.DataFrame) -> list[Issue]:
    """Rows with too few fields (pandas padded them): only a row whose last cell is
    missing can be one, so the file is counted only when there is such a row."""
    if n < 2 or df is None or len(df) == 0 or not df[n - 1].isna().any():
        return []
    return field_count_issues(path, n, skipped=True)


def _parse(path: Path, n: int, dtype, usecols=None) -> tuple[pd.DataFrame, list]:
    import pandas as pd
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = pd.read_csv(path, header=0, names=list(range(n)), dtype=dtype, encoding="utf-8-sig",
                         keep_default_na=False, na_values=[""], on_bad_lines="warn",
                         engine="c", skip_blank_lines=True, usecols=usecols)
    return df, caught


def _keep_text(path: Path, n: int, df: pd.DataFrame) -> None:
    """pandas infers the categories of a ``category`` column (``1.0`` and ``1`` become the
    one float 1.0): read such columns again as text, so every cell is checked and quoted as
    the file writes it (``'1.0' is not a boolean``, never ``'1'``)."""
    import pandas as pd
    def lossy(cats: pd.Index) -> bool:
        # strings are the text; booleans come only from true/false spellings, each of which
        # every check reads alike; numbers and dates may merge texts ("1" and "1.0")
        return not (pd.api.types.is_object_dtype(cats.dtype) or pd.api.types.is_string_dtype(cats.dtype)
                    or pd.api.types.is_bool_dtype(cats.dtype))
    cols = [i for i in df.columns if isinstance(df[i].dtype, pd.CategoricalDtype) and lossy(df[i].cat.categories)]
    if not cols:
        return
    text = pd.read_csv(path, header=0, names=list(range(n)), usecols=cols, dtype=str, encoding="utf-8-sig",
                       keep_default_na=False, na_values=[""], on_bad_lines="skip", engine="c",
                       skip_blank_lines=True)
    if len(text) != len(df):
        return    # the parse disagreed (bad rows): keep the first parse
    for i in cols:
        df[i] = text[i].astype("category").array


def read_csv_checked(path: Path | str, numeric: dict[str, str] | None = None,
                     columns: set[str] | None = None, held=None) -> Table:
    """Read ``path``; ``numeric`` maps header names to ``"integer"`` or ``"real"``. With
    ``columns``, only those header names are parsed (the others' cells are not read; every
    row's width is still checked). ``held``: the frame a writer has just written to ``path``
    (:class:`d3mkit.tables.held.Held`), whose columns are taken instead of parsing the file
    (its rows were written from that frame, each the header's width). The file is read by
    pyarrow (:mod:`d3mkit.tables.arrow`); one that reader declines, by pandas."""
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
            t.issues.append(make("csv.duplicate_header", "",
                                 f"header names {name!r} twice (positions {seen[name]} and {i})", p, row=1, column=name))
        else:
            seen[name] = i
    n = len(header)
    numeric = numeric or {}
    usecols = None if columns is None else [i for i, name in enumerate(header) if name in columns]
    if held is not None and len(seen) == n:
        df = _from_memory(held, header, numeric, usecols)
        if df is not None:
            t.cols, t.rows = from_frame(df), len(df)
            return t
    try:
        plain = read_checked_columns(path, header, usecols if usecols is not None else list(range(n)), numeric)
    except OSError:
        plain = None          # the general reader says what is wrong
    if plain is not None:
        t.cols = plain
        t.rows = len(next(iter(plain.values()))) if plain else 0
        if plain:
            return t
    import pandas as pd
    typed = {i: ("Int64" if numeric.get(name) == "integer" else
                 "float64" if numeric.get(name) == "real" else "category")
             for i, name in enumerate(header) if usecols is None or i in usecols}
    try:
        try:
            df, caught = _parse(path, n, typed, usecols)
        except pd.errors.ParserError:
            raise
        except D3MKitError:   # a ValueError too: an input problem already stated
            raise
        except (ValueError, TypeError, OverflowError):
            df, caught = _parse(path, n, "category", usecols)
        inexact = _inexact_ints(df, [i for i, name in enumerate(header) if numeric.get(name) != "real"])
        if inexact:
            df, caught = _parse(path, n, {**typed, **{i: str for i in inexact}}, usecols)
            for i in inexact:
                df[i] = df[i].astype("category")
        _keep_text(path, n, df)
    except pd.errors.EmptyDataError:
        t.issues.append(make("csv.empty", "", "no header row", p, row=1))
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
    t.issues += field_count_issues(path, n, skipped=bool(caught)) if caught or usecols is not None \
        else _short_rows(path, n, df)
    t.cols, t.rows = from_frame(df), len(df)
    return t



def _from_memory(frame: pd.DataFrame, header: list[str], numeric: dict[str, str],
                 usecols: list[int] | None) -> pd.DataFrame | None:
    """The frame :func:`read_csv_checked` would parse, from the columns a writer holds
    (``held``): positional columns, ``Int64``/``float64`` for the ``numeric`` ones,
    ``category`` for the others, empty cells missing. None (read the file) when a column is not
    held or a numeric column holds a cell that is not a plain number (the parser's messages
    name such cells as written)."""
    import pandas as pd
    out = {}
    for i in (usecols if usecols is not None else range(len(header))):
        name = header[i]
        if name not in frame.columns:
            return None
        col = frame[name]
        a = col.to_numpy()
        kind = numeric.get(name)
        if kind is not None:
            if a.dtype.kind in "iu" and kind == "integer":
                out[i] = pd.array(a, dtype="Int64")
                continue
            obj = np.asarray(a, dtype=object)
            empty = obj == ""
            x = pd.to_numeric(pd.Series(np.where(empty, None, obj) if empty.any() else obj), errors="coerce")
            if (x.isna().to_numpy() & ~empty).any():
                return None
            if kind == "integer":
                if not pd.api.types.is_integer_dtype(x.dtype) or (np.abs(x.dropna().to_numpy()) >= 2 ** 53).any():
                    return None
                out[i] = x.astype("Int64").array
            else:
                out[i] = x.astype("float64").to_numpy()
            continue
        codes, uniq = pd.factorize(np.asarray(a, dtype=object))
        uniq = np.asarray(uniq, dtype=object)
        if not all(isinstance(u, str) for u in uniq):
            return None
        empty = np.flatnonzero(uniq == "")
        if len(empty):
            codes = np.where(codes == empty[0], -1, codes - (codes > empty[0]))
            uniq = np.delete(uniq, empty)
        out[i] = pd.Categorical.from_codes(codes, categories=pd.Index(uniq, dtype=object))
    return pd.DataFrame(out)


_DELIMITERS = ((";", "semicolons"), ("\t", "tabs"), ("|", "'|'"))
_SAW = re.compile(r"line (\d+), saw (\d+)")


_CHUNK = 1 << 24


def field_counts(path: Path | str, n: int, sep: str = ",") -> tuple[np.ndarray, np.ndarray] | Issue:
    """The records of ``path`` (after the header) whose number of fields is not ``n``:
    ``(row numbers, field counts)``, rows numbered as in every issue (the header is row 1;
    blank lines are skipped but counted). The one owner of "every row has the header's
    width" (pandas pads short rows, and skips long ones when it parses only some columns).

    ``sep`` is the delimiter (a TSV file's tab). A file without a double quote is counted
    with numpy (delimiters per line, in 16 MiB
    steps); one with quotes or a line that ends in a lone CR through the :mod:`csv` module,
    which knows quoted commas and newlines and every line ending; rows are numbered by the
    physical line they start on either way. Returns an :class:`Issue` when the file cannot
    be parsed or decoded.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text("a,b,c\\n1,2,3\\n4,5\\n\\n6,7,8,9\\n")
    >>> [x.tolist() for x in field_counts(p, 3)]
    [[3, 5], [2, 4]]
    >>> _ = p.write_text('a,b,c\\n1,"2,x",3\\n"4\\n5",6\\n7,8\\n')
    >>> [x.tolist() for x in field_counts(p, 3)]
    [[3, 5], [2, 2]]
    >>> _ = p.write_bytes(b"a,b\\r\\n1,2\\r3,4\\n5\\r\\n")
    >>> [x.tolist() for x in field_counts(p, 2)]
    [[4], [1]]
    """
    p = str(path)
    rows: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    try:
        with open(path, "rb") as fh:
            line0 = 1                     # the number of the line that starts ``carry``
            carry = b""
            header_done = False
            while True:
                chunk = fh.read(_CHUNK)
                if b'"' in chunk or (b"\r" in chunk and chunk.count(b"\r") != chunk.count(b"\r\n")):
                    return _field_counts_csv(path, n, sep)   # quotes, or a line ending in a lone CR
                data = carry + chunk
                cut = data.rfind(b"\n") + 1 if chunk else len(data)
                whole, carry = data[:cut], data[cut:]
                if whole:
                    a = np.frombuffer(whole, dtype=np.uint8)
                    # one pass over the bytes: the newlines and commas in file order; the
                    # commas before the k-th newline are its place in that list minus k
                    marks = np.flatnonzero((a == 10) | (a == ord(sep)))
                    newline = np.flatnonzero(a[marks] == 10)
                    ends = marks[newline]
                    before = newline - np.arange(len(newline))
                    if not chunk and (len(ends) == 0 or ends[-1] != len(a) - 1):
                        ends = np.append(ends, len(a))      # the last line without a newline
                        before = np.append(before, len(marks) - len(newline))
                    starts = np.concatenate(([0], ends[:-1] + 1))
                    fields = np.diff(before, prepend=0) + 1
                    length = ends - starts
                    cr = (length > 0) & (a[np.minimum(np.maximum(ends - 1, 0), len(a) - 1)] == 13)
                    blank = (length - cr) == 0
                    numbers = line0 + np.arange(len(ends))
                    skip = 0 if header_done else 1
                    header_done = True
                    bad = (fields != n) & ~blank
                    bad[:skip] = False
                    if bad.any():
                        rows.append(numbers[bad])
                        counts.append(fields[bad])
                    line0 += len(ends)
                if not chunk:
                    break
    except OSError as exc:
        return make("file.unreadable", "", f"cannot read file: {exc.strerror or exc}", p)
    if not rows:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(rows), np.concatenate(counts)


def _records(path: Path | str, sep: str = ","):
    """``(line, fields)`` of each non-blank record of a CSV file, ``line`` the physical line
    it starts on (1 for the header): quoted newlines and blank lines count, and a line may
    end in LF, CRLF or a lone CR. Raises what :mod:`csv` and decoding raise."""
    with open(path, encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh, delimiter=sep)
        end = 0
        for row in reader:
            start, end = end + 1, reader.line_num
            if row:
                yield start, row


def record_lines(path: Path | str) -> np.ndarray | Issue:
    """The physical line each data record of ``path`` starts on (index 0: the first record
    after the header; blank lines are skipped, as the table readers skip them): what a
    message names as ``row R``. One pass with :mod:`csv`; callers ask only when a message
    needs it.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_bytes(b'a,b\\n1,"x\\ny"\\n\\n2,z\\r3,w\\r\\n')
    >>> record_lines(p).tolist()
    [2, 5, 6]
    """
    old_limit = csv.field_size_limit()
    try:
        csv.field_size_limit((1 << 31) - 1)
        records = _records(path)
        next(records, None)   # the header
        return np.asarray([line for line, _row in records], dtype=np.int64)
    except csv.Error as exc:
        return make("csv.parse", "", f"cannot parse CSV: {exc}", str(path))
    except UnicodeDecodeError as exc:
        return make("file.encoding", "", f"file is not valid UTF-8 ({exc.reason})", str(path))
    except OSError as exc:
        return make("file.unreadable", "", f"cannot read file: {exc.strerror or exc}", str(path))
    finally:
        csv.field_size_limit(old_limit)


def _field_counts_csv(path: Path | str, n: int, sep: str = ",") -> tuple[np.ndarray, np.ndarray] | Issue:
    p = str(path)
    rows: list[int] = []
    counts: list[int] = []
    old_limit = csv.field_size_limit()
    try:
        csv.field_size_limit((1 << 31) - 1)   # a long quoted cell is valid (the file's size is capped)
        records = _records(path, sep)
        next(records, None)   # the header
        for line, row in records:
            if len(row) != n:
                rows.append(line)
                counts.append(len(row))
    except csv.Error as exc:
        return make("csv.parse", "", f"cannot parse CSV: {exc}", p)
    except UnicodeDecodeError as exc:
        return make("file.encoding", "", f"file is not valid UTF-8 ({exc.reason})", p)
    except OSError as exc:
        return make("file.unreadable", "", f"cannot read file: {exc.strerror or exc}", p)
    finally:
        csv.field_size_limit(old_limit)
    return np.asarray(rows, np.int64), np.asarray(counts, np.int64)


def field_count_issues(path: Path | str, n: int, *, skipped: bool = False, sep: str = ",") -> list[Issue]:
    """``csv.bad_row`` issues (error) for the rows of :func:`field_counts`; ``skipped`` says
    a row with too many fields was left out of the table (validation's reader)."""
    found = field_counts(path, n, sep)
    if isinstance(found, Issue):
        return [found]
    rows, counts = found
    by_row = dict(zip(rows.tolist(), counts.tolist()))

    def message(r: int) -> str:
        k = by_row[r + 2]
        what = "too many" if k > n else "too few"
        tail = ("; row skipped" if skipped else "") if k > n else ""
        return f"expected {n} fields, found {k} ({what}){tail}"
    return row_issues("csv.bad_row", rows - 2, None, message, str(path))


def _table_header(path: Path) -> tuple[list[str] | None, list[Issue]]:
    """The header of a table to read (:func:`read_header`), refused (None and the error)
    when its columns are separated by something else than commas or a name repeats."""
    p = str(path)
    header, issues = read_header(path)
    if header is None:
        return None, issues
    if len(header) == 1 and "d3mIndex" not in header:
        for sep, name in _DELIMITERS:
            if sep in header[0]:
                return None, [error("csv.delimiter", "", f"columns are separated by {name}, not "
                                   f"commas (header {header[0][:60]!r})", p, row=1)]
    seen: set[str] = set()
    dups: list[str] = []
    for h in header:
        if h in seen and h not in dups:
            dups.append(h)
        seen.add(h)
    if dups:
        return None, [make("csv.duplicate_header", "", "duplicate column names: "
                           + ", ".join(repr(d[:60]) for d in dups[:10]), p, row=1)]
    return header, []


def read_columns(path: Path | str, usecols: list[str] | None = None, int_cols: tuple[str, ...] = (),
                 allow_empty: bool = False, category_cols: tuple[str, ...] = (),
                 float_cols: tuple[str, ...] = ()) -> tuple[ColumnTable | None, list[Issue]]:
    """:func:`read_strings` as a :class:`~d3mkit.tables.columns.ColumnTable` (the
    scoring pipeline's table): the same columns, values, issues and messages. The file is
    read by pyarrow (:mod:`d3mkit.tables.arrow`), never importing pandas (there ``float_cols``
    whose cells are all finite numbers are float64; the general reader gives their strings);
    a file that reader declines (a ragged row, a blank line, bytes that are not UTF-8, ...)
    goes through :func:`read_strings`."""
    path = Path(path)
    header, issues = _table_header(path)
    if header is None:
        return None, issues
    cols = [c for c in usecols if c in header] if usecols is not None else header
    try:
        got = read_score_columns(path, header, cols, int_cols, category_cols, float_cols)
    except OSError:
        got = None          # the general reader says what is wrong
    if got is not None:   # named as pandas names them: an empty name is "Unnamed: <position>"
        got = {(name or f"Unnamed: {header.index(name)}"): v for name, v in got.items()}
        return ColumnTable(got, {} if len(cols) == len(header) else {"header": list(header)}), []
    df, issues = read_strings(path, usecols, int_cols, allow_empty, category_cols)
    if df is None:
        return None, issues
    table = ColumnTable.from_frame(df)
    if len(cols) != len(header):
        table.attrs["header"] = list(header)
    return table, issues


def read_strings(path: Path | str, usecols: list[str] | None = None, int_cols: tuple[str, ...] = (),
                 allow_empty: bool = False, category_cols: tuple[str, ...] = ()
                 ) -> tuple[pd.DataFrame | None, list[Issue]]:
    """Read a CSV with every cell a string (empty cells stay ``""``), the ``int_cols``
    as int64 when they all parse, the ``category_cols`` as pandas categoricals of those
    strings (the parser hashes the raw cells, so a label column of 10^6 rows with few
    distinct values never becomes 10^6 Python strings). Returns ``(frame, issues)``,
    frame None when any issue is an error: those of :func:`read_header`, another delimiter
    than commas, repeated column names, a row with more or fewer fields than the header
    (``csv.bad_row``, :func:`field_counts`; checked whatever ``usecols``), and no rows
    (``csv.no_rows``, unless ``allow_empty``). ``usecols`` restricts the columns parsed
    (absent names are skipped). Time is linear in rows x columns.

    When every column is parsed, the row widths are counted only when the parser hints
    at a bad row: it refuses a long row, and pads a short one with an empty last cell."""
    import pandas as pd
    path = Path(path)
    p = str(path)
    header, issues = _table_header(path)
    if header is None:
        return None, issues
    cols = [c for c in usecols if c in header] if usecols is not None else header
    dtypes = {c: (np.int64 if c in int_cols else "category" if c in category_cols else object)
              for c in cols}
    kwargs = dict(keep_default_na=False, na_filter=False, encoding="utf-8-sig", engine="c")
    # every row must have the header's width: pandas pads short rows with empty cells and,
    # parsing only some columns, ignores the extra fields of long ones (field_counts owns it)
    every = len(cols) == len(header)
    if not every:
        ragged = field_count_issues(path, len(header))
        if ragged:
            return None, ragged
    if not every:   # with usecols, pandas drops the extra fields of a long row silently
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
        inexact = _inexact_ints(df, int_cols)
        if inexact:
            df = pd.read_csv(path, dtype={**dtypes, **{c: object for c in inexact}}, **kwargs)
    except pd.errors.ParserError as exc:
        ragged = field_count_issues(path, len(header)) if every else []
        if ragged:
            return None, ragged
        m = _SAW.search(str(exc))
        if m:
            return None, [make("csv.parse", "", f"row has {m.group(2)} fields, "
                               f"the header has {len(header)}", p, row=m.group(1))]
        msg = str(exc).replace("Error tokenizing data. C error: ", "").strip()
        return None, [make("csv.parse", "", f"cannot parse CSV: {msg}", p)]
    except UnicodeDecodeError as exc:
        return None, [make("file.encoding", f"byte {exc.start}", "file is not valid UTF-8", p)]
    except pd.errors.EmptyDataError:
        return None, [make("csv.empty", "", "no header row", p, row=1)]
    except OSError as exc:
        return None, [make("file.unreadable", "", f"cannot read file: {exc.strerror or exc}", p)]
    if every and len(df) and _maybe_short(df.iloc[:, -1]):
        ragged = field_count_issues(path, len(header))
        if ragged:
            return None, ragged
    if len(df) == 0 and not allow_empty:
        return None, [error("csv.no_rows", "", "file has a header but no rows", p, row=1)]
    return df, []


def _maybe_short(last: pd.Series) -> bool:
    """Whether the last column holds an empty cell, as a row with too few fields does
    once the parser has padded it."""
    import pandas as pd
    if isinstance(last.dtype, pd.CategoricalDtype):
        return "" in set(last.cat.categories)
    return last.dtype.kind not in "iuf" and bool((last.to_numpy() == "").any())
