"""Reading a delimited table with pyarrow's CSV reader: the engine behind the readers of
:mod:`d3mkit.validation.csvread` (validation's :func:`read_csv_checked` and scoring's
:func:`read_columns`).

What this module owns: parsing a file whose header has been read and checked into the
column models the checks and the scorer use, exactly as the general reader (pandas' C
parser, which gives every message) would give them — or None when the file is one this
reader does not read exactly, and the general reader then reads it and says what is wrong.

pyarrow parses in C++ on several threads and keeps a text column as a dictionary (its
distinct values once, a code per row), so a label column of 10^6 rows is never 10^6
Python strings. What sends a file to the general reader: a row whose width is not the
header's, a blank line, bytes that are not UTF-8, a NUL byte, a file with a header and no
rows, a one-column header, and a numeric column with a cell the rules below do not take.

* ``integer`` columns: int64 when every non-empty cell is an optional ``-`` and 1 to 16
  digits (magnitude below 2**53 for validation, whose empty cells are missing);
* ``real`` columns: float64 when every non-empty cell is a finite number written with
  digits, one ``.``, an exponent and signs;
* text columns: codes into the sorted distinct values (-1 where empty for validation).

Why pyarrow and not a tokenizer of d3mkit's own: it is kept by a large project, reads
quoted fields, CRLF endings and multi-line cells, and is as fast as pandas' reader or
faster on every table measured (docs/performance.md).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from d3mkit.validation.columns import Categorical, code_dtype
from d3mkit.validation.tablecols import Floats, Ints, Texts, small_codes, text_cats

_INT = r"-?[0-9]{1,16}"
_REAL = r"[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?"
_EXACT = 2 ** 53
RAW_TEXTS = 4096      # a column of more distinct texts than this keeps their bytes, not Python strings


def _strings(path: Path, width: int, positions: list[int]):
    """``{position: pyarrow string array}`` of the columns at ``positions`` of a file whose
    header has ``width`` names, or None (see the module docstring)."""
    import pyarrow as pa
    from pyarrow import csv
    if width < 2:
        return None
    names = [str(j) for j in range(width)]
    try:
        table = csv.read_csv(
            path,
            read_options=csv.ReadOptions(column_names=names, skip_rows=1, use_threads=True),
            parse_options=csv.ParseOptions(newlines_in_values=True, ignore_empty_lines=False),
            convert_options=csv.ConvertOptions(
                column_types={names[j]: pa.string() for j in positions},
                include_columns=[names[j] for j in positions], null_values=[],
                strings_can_be_null=False, quoted_strings_can_be_null=False, check_utf8=True))
    except (pa.ArrowInvalid, OSError, UnicodeDecodeError):
        return None
    if table.num_rows == 0 or _blank_line(path):
        return None
    out = {}
    for j in positions:
        col = table.column(names[j]).combine_chunks()
        if col.null_count:
            return None
        out[j] = col
    if any(_has_nul(a) for a in out.values()):
        return None
    return out


def _blank_line(path: Path) -> bool:
    """Whether the file holds an empty line (pandas skips it, pyarrow reads a row of empty
    cells: the general reader then decides)."""
    import mmap
    with open(path, "rb") as f:
        if f.seek(0, 2) == 0:
            return False
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            return m.find(b"\n\n") >= 0 or m.find(b"\n\r\n") >= 0


def _has_nul(a) -> bool:
    import pyarrow.compute as pc
    return bool(pc.any(pc.match_substring(a, "\x00")).as_py())


def _np(a, dtype) -> np.ndarray:
    """A primitive pyarrow array without nulls as numpy, from its buffer (pyarrow's own
    ``to_numpy`` imports pandas)."""
    return np.frombuffer(a.buffers()[1], dtype=dtype)[a.offset:a.offset + len(a)]


def _all_match(a, core: str, empty_too: bool) -> bool:
    import pyarrow.compute as pc
    pattern = f"^({core})?$" if empty_too else f"^({core})$"
    return bool(pc.all(pc.match_substring_regex(a, pattern)).as_py())


def _empty(a) -> np.ndarray:
    import pyarrow.compute as pc
    return _np(pc.binary_length(a), np.int32) == 0


def _ints(a, empty_missing: bool) -> tuple[np.ndarray, np.ndarray | None] | None:
    """int64 values (0 where empty) and the empty mask, or None."""
    import pyarrow as pa
    import pyarrow.compute as pc
    if not _all_match(a, _INT, empty_missing):
        return None
    na = _empty(a) if empty_missing else None
    if na is not None and na.any():
        a = pc.replace_substring_regex(a, "^$", "0")
    else:
        na = None
    return _np(pc.cast(a, pa.int64()), np.int64).copy(), na


def _floats(a, empty_missing: bool) -> np.ndarray | None:
    """float64 values (NaN where empty), or None."""
    import pyarrow as pa
    import pyarrow.compute as pc
    if not _all_match(a, _REAL, empty_missing):
        return None
    v = _np(pc.cast(pc.replace_substring_regex(a, "^$", "nan") if empty_missing else a, pa.float64()),
            np.float64).copy()
    return v if np.isfinite(v[~np.isnan(v)]).all() else None


def _sorted_codes(a) -> tuple[np.ndarray, object]:
    """Per row the position of its value among the sorted distinct values, and those
    values (a pyarrow string array)."""
    import pyarrow.compute as pc
    enc = a.dictionary_encode()
    dictionary = enc.dictionary
    sort = pc.sort_indices(dictionary)
    order = _np(sort, np.uint64).astype(np.int64)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    codes = rank[_np(enc.indices, np.int32)] if len(order) else np.zeros(len(a), dtype=np.int64)
    return codes, dictionary.take(sort)


def _bytes(values) -> np.ndarray:
    """A pyarrow string array as a numpy ``S`` array of its UTF-8 bytes (no Python string
    per value)."""
    offsets = np.frombuffer(values.buffers()[1], dtype=np.int32)[values.offset:values.offset + len(values) + 1]
    data = np.frombuffer(values.buffers()[2], dtype=np.uint8) if values.buffers()[2] is not None \
        else np.zeros(0, dtype=np.uint8)
    lengths = np.diff(offsets)
    width = max(int(lengths.max()) if len(lengths) else 1, 1)
    out = np.zeros((len(lengths), width), dtype=np.uint8)
    cols = np.arange(width)
    mask = cols[None, :] < lengths[:, None]
    out[mask] = data[(offsets[:-1, None] + cols[None, :])[mask]]
    return out.view(f"S{width}").ravel()


def _texts(a) -> Texts:
    """Validation's :class:`Texts` of a string array: empty cells -1."""
    codes, values = _sorted_codes(a)
    if len(values) and values[0].as_py() == "":     # "" sorts first: an empty cell
        codes -= 1
        values = values.slice(1)
    if len(values) > RAW_TEXTS:
        return Texts(small_codes(codes, len(values)), raw=_bytes(values))
    return Texts(small_codes(codes, len(values)), text_cats(values.to_pylist()))


def read_checked_columns(path: Path | str, header: list[str], positions: list[int],
                         numeric: dict[str, str]) -> dict | None:
    """Validation's columns (:mod:`d3mkit.validation.tablecols`) at ``positions`` of
    ``header``, keyed by position, or None (the module docstring). ``numeric`` maps header
    names to ``"integer"`` or ``"real"``."""
    got = _strings(Path(path), len(header), positions)
    if got is None:
        return None
    out: dict = {}
    for j, a in got.items():
        kind = numeric.get(header[j])
        if kind == "integer":
            v = _ints(a, True)
            if v is None or (len(v[0]) and int(np.abs(v[0]).max()) >= _EXACT):
                return None
            out[j] = Ints(*v)
        elif kind == "real":
            v = _floats(a, True)
            if v is None:
                return None
            out[j] = Floats(v)
        else:
            out[j] = _texts(a)
    return out


def read_score_columns(path: Path | str, header: list[str], cols: list[str], int_cols=(), category_cols=(),
                       float_cols=()) -> dict | None:
    """Scoring's columns ``cols`` (by name, in file order), or None (the module docstring):
    ``int_cols`` int64 when every cell is an integer, ``float_cols`` float64 when every cell
    is a finite number, ``category_cols`` :class:`~d3mkit.validation.columns.Categorical`,
    every other column (and one of those that does not parse) an object array of strings."""
    wanted = [(j, name) for j, name in enumerate(header) if name in cols]
    got = _strings(Path(path), len(header), [j for j, _ in wanted])
    if got is None:
        return None
    out: dict = {}
    for j, name in wanted:
        a = got[j]
        v = None
        if name in int_cols:
            v = _ints(a, False)
            v = v[0] if v is not None else None
        elif name in float_cols:
            v = _floats(a, False)
        elif name in category_cols:
            codes, values = _sorted_codes(a)
            cats = np.empty(len(values), dtype=object)
            cats[:] = values.to_pylist()
            v = Categorical(codes.astype(code_dtype(len(cats)), copy=False), cats)
        if v is None:
            v = np.empty(len(a), dtype=object)
            v[:] = a.to_pylist()
        out[name] = v
    return out


