"""Reading a delimited table with pyarrow's CSV reader: the engine behind the readers of
:mod:`d3mkit.tables.csvread` (validation's :func:`read_csv_checked` and scoring's
:func:`read_columns`).

What this module owns: parsing a file whose header has been read and checked into the
column models the checks and the scorer use, exactly as the general reader (pandas' C
parser, which gives every message) would give them — or None when the file is one this
reader does not read exactly, and the general reader then reads it and says what is wrong.

pyarrow parses in C++ on several threads, numbers straight into numeric arrays and text
columns dictionary-encoded (the distinct values once, a code per row), so a label column is
never one Python string a row. What sends a file to the general reader: a row
whose width is not the header's, a blank line or a cell spanning lines (rows are located by
their lines), bytes that are not UTF-8, a NUL byte, a file with a header and no rows, a
one-column header, and a numeric column with a cell pyarrow does not parse as its type
(``+3``, ``1.0`` in an integer column, ``x``).

* ``integer`` columns: int64 (pyarrow's parse: an optional ``-`` and digits); empty cells
  are missing for validation, and a magnitude of 2**53 or more goes to the general reader
  (pandas reads such a column through float64);
* ``real`` columns: float64 when every written value is finite (NaN where empty);
* text columns: codes into the sorted distinct values (-1 where empty for validation).

Why pyarrow and not a tokenizer of d3mkit's own: it is kept by a large project, reads
quoted fields, CRLF endings and multi-line cells; how it compares with pandas' reader is
measured in docs/performance.md.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from d3mkit.tables.columns import Categorical, code_dtype
from d3mkit.tables.tablecols import Floats, Ints, Texts, small_codes, text_cats

_EXACT = 2 ** 53
RAW_TEXTS = 4096      # a column of more distinct texts than this keeps their bytes, not Python strings


BLOCK = 1 << 22       # bytes parsed per batch: memory beyond the columns is a few blocks
TEXT_BLOCK = 1 << 21  # text_batches: every column text; one thread (docs/performance.md: peak memory)


def _batches(path: Path, width: int, types: dict[int, object]):
    """The record batches of the columns ``types`` (position -> pyarrow type) of a file whose
    header has ``width`` names, columns named by position, streamed a block at a time;
    raises ``pyarrow.ArrowInvalid`` where a row or a cell does not parse."""
    import pyarrow as pa
    from pyarrow import csv
    names = [str(j) for j in range(width)]
    # a Python file and the system allocator: pyarrow's own file and pool kept 10-20 MB more
    # resident for a 50 MB table (docs/performance.md)
    fh = open(path, "rb")
    reader = csv.open_csv(
        fh, memory_pool=pa.system_memory_pool(),
        read_options=csv.ReadOptions(column_names=names, skip_rows=1, use_threads=True, block_size=BLOCK),
        parse_options=csv.ParseOptions(newlines_in_values=True, ignore_empty_lines=True),
        convert_options=csv.ConvertOptions(
            column_types={names[j]: t for j, t in types.items()},
            include_columns=[names[j] for j in types], null_values=[""],
            strings_can_be_null=False, quoted_strings_can_be_null=False, check_utf8=True))
    with fh, reader:
        yield from reader


class _Numbers:
    """A numeric column filled a block at a time into one numpy array, sized from the file's
    size and the first block's rows (5% over) and grown by a quarter when short, so that
    the column is never held twice (pyarrow's blocks are let go as they are copied)."""

    def __init__(self, dtype, expect: int):
        self.values = np.zeros(expect, dtype=dtype)
        self.na: np.ndarray | None = None
        self.n = 0

    def add(self, a) -> None:
        k = len(a)
        if self.n + k > len(self.values):
            grow = max(self.n + k, len(self.values) + len(self.values) // 4)
            self.values = np.resize(self.values, grow)
            if self.na is not None:
                self.na = np.resize(self.na, grow)
        self.values[self.n:self.n + k] = _np(a, self.values.dtype)
        if a.null_count:
            if self.na is None:
                self.na = np.zeros(len(self.values), dtype=bool)
            self.na[self.n:self.n + k] = ~_valid(a)
        self.n += k

    def done(self) -> tuple[np.ndarray, np.ndarray | None]:
        values = self.values[:self.n] if len(self.values) != self.n else self.values
        na = None if self.na is None else self.na[:self.n]
        return values, na


def _columns(path: Path, width: int, types: dict[int, object]) -> dict | None:
    """``{position: column}`` of the file, or None: the file is not one this reader reads
    (see the module docstring), a cell does not convert, a text holds a NUL byte. A numeric
    column is a ``(values, missing mask or None)`` pair of numpy arrays; a text column the
    list of its pyarrow arrays (one a block)."""
    import os
    import pyarrow as pa
    if width < 2:
        return None
    out: dict[int, object] = {}
    rows = 0
    size = os.path.getsize(path)
    try:
        for batch in _batches(path, width, types):
            if not out:
                # the first block is about BLOCK bytes of the file (all of a smaller one)
                expect = min(int(batch.num_rows * max(size / BLOCK, 1) * 1.05) + 16, size // 2 + 16)
                out = {j: _Numbers(np.int64 if pa.types.is_integer(t) else np.float64, expect)
                       if pa.types.is_integer(t) or pa.types.is_floating(t) else [] for j, t in types.items()}
            rows += batch.num_rows
            for j in types:
                a = batch.column(str(j))
                if (pa.types.is_dictionary(a.type) and _has_nul(a.dictionary)) or \
                        (pa.types.is_string(a.type) and _has_nul(a)):
                    return None
                out[j].add(a) if isinstance(out[j], _Numbers) else out[j].append(a)
            del batch
    except (pa.ArrowInvalid, OSError, UnicodeDecodeError):
        return None
    if not rows or not _one_row_a_line(path, rows):
        return None
    return {j: c.done() if isinstance(c, _Numbers) else c for j, c in out.items()}


def _lines(path: Path) -> tuple[int, bool]:
    """The number of newline bytes of the file and whether it ends with one (one pass, a
    block at a time)."""
    n, last = 0, b""
    with open(path, "rb") as f:
        while block := f.read(1 << 24):
            n += block.count(b"\n")
            last = block[-1:]
    return n, last == b"\n"


def _one_row_a_line(path: Path, rows: int) -> bool:
    """Whether each of the ``rows`` rows pyarrow read is one line after the header: no blank
    line (pyarrow and pandas skip it, and every row after it would be placed a line too
    early) and no cell spanning lines (rows are located by line). A file that is not is read
    by the general reader, which locates rows by their lines."""
    newlines, final = _lines(path)
    return newlines == rows + (1 if final else 0)


def _has_nul(a) -> bool:
    import pyarrow.compute as pc
    return bool(pc.any(pc.match_substring(a, "\x00")).as_py())


def _np(a, dtype) -> np.ndarray:
    """A primitive pyarrow array without nulls as numpy, from its buffer (pyarrow's own
    ``to_numpy`` imports pandas)."""
    return np.frombuffer(a.buffers()[1], dtype=dtype)[a.offset:a.offset + len(a)]


def _joined(chunks, dtype) -> np.ndarray:
    """The values of primitive arrays, one after the other, in one new numpy array."""
    return np.concatenate([_np(c, dtype) for c in chunks]) if chunks else np.zeros(0, dtype)


def _valid(a) -> np.ndarray:
    """Per row, whether the cell is not null (an empty cell of a numeric column)."""
    if not a.null_count:
        return np.ones(len(a), dtype=bool)
    bits = np.frombuffer(a.buffers()[0], dtype=np.uint8)
    return np.unpackbits(bits, bitorder="little")[a.offset:a.offset + len(a)].astype(bool)


def _ints(column) -> tuple[np.ndarray, np.ndarray | None]:
    """int64 values (0 where empty) and the mask of the empty cells (None when none)."""
    values, na = column
    if na is not None:
        values[na] = 0
    return values, na


def _floats(column) -> np.ndarray | None:
    """float64 values, NaN where empty; None when a written value is not finite (``nan``,
    ``inf``, ``1e400``: pandas' reader words those)."""
    values, na = column
    if not np.isfinite(values if na is None else values[~na]).all():
        return None
    if na is not None:
        values[na] = np.nan
    return values


#: a finite number as scoring takes it from a float column: digits, one ``.``, an exponent,
#: signs, nothing else (no space, ``nan``, ``inf``): pyarrow's float parse is more lenient
_WRITTEN_REAL = r"^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$"


def _written_floats(chunks) -> np.ndarray | None:
    """float64 of string arrays whose every cell is written as :data:`_WRITTEN_REAL` (and
    finite), else None."""
    import pyarrow as pa
    import pyarrow.compute as pc
    if not all(pc.all(pc.match_substring_regex(c, _WRITTEN_REAL)).as_py() is not False for c in chunks):
        return None
    v = np.concatenate([_np(pc.cast(c, pa.float64()), np.float64) for c in chunks]) if chunks else np.zeros(0)
    return v if np.isfinite(v).all() else None


def _sorted_codes(chunks) -> tuple[np.ndarray, object]:
    """Per row the position of its value among the sorted distinct values, and those
    values (a pyarrow string array), of dictionary-encoded arrays (one dictionary each)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    unified = pa.chunked_array(chunks, chunks[0].type).unify_dictionaries().chunks if chunks else []
    dictionary = unified[0].dictionary if unified else pa.array([], pa.string())
    sort = pc.sort_indices(dictionary)
    order = _np(sort, np.uint64).astype(np.int64)
    rank = np.empty(len(order), dtype=np.int32 if len(order) < 2 ** 31 else np.int64)
    rank[order] = np.arange(len(order), dtype=rank.dtype)
    indices = _joined([c.indices for c in unified], np.int32)
    codes = rank[indices] if len(order) else indices.astype(np.int64)
    return codes, dictionary.take(sort)


def _strings(chunks) -> np.ndarray:
    """An object array of the cells of string arrays."""
    out = np.empty(sum(len(c) for c in chunks), dtype=object)
    at = 0
    for c in chunks:
        out[at:at + len(c)] = c.to_pylist()
        at += len(c)
    return out


def _bytes(values) -> np.ndarray:
    """A pyarrow string array as a numpy ``S`` array of its UTF-8 bytes (no Python string
    per value)."""
    offsets = np.frombuffer(values.buffers()[1], dtype=np.int32)[values.offset:values.offset + len(values) + 1]
    data = np.frombuffer(values.buffers()[2], dtype=np.uint8) if values.buffers()[2] is not None \
        else np.zeros(0, dtype=np.uint8)
    lengths = np.diff(offsets)
    starts = offsets[:-1]
    width = max(int(lengths.max()) if len(lengths) else 1, 1)
    out = np.zeros((len(lengths), width), dtype=np.uint8)
    for k in range(width):             # a byte position at a time: temporaries of one row each
        rows = np.flatnonzero(lengths > k)
        out[rows, k] = data[starts[rows] + k]
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
    """Validation's columns (:mod:`d3mkit.tables.tablecols`) at ``positions`` of
    ``header``, keyed by position, or None (the module docstring). ``numeric`` maps header
    names to ``"integer"`` or ``"real"``: those are parsed as numbers by pyarrow (a cell that
    is not one sends the file to the general reader), the others dictionary-encoded."""
    import pyarrow as pa
    kinds = {j: numeric.get(header[j]) for j in positions}
    types = {j: pa.int64() if k == "integer" else pa.float64() if k == "real" else
             pa.dictionary(pa.int32(), pa.string()) for j, k in kinds.items()}
    got = _columns(Path(path), len(header), types)
    if got is None:
        return None
    out: dict = {}
    for j in list(got):
        a = got.pop(j)                 # each column's blocks let go once converted
        if kinds[j] == "integer":
            values, na = _ints(a)
            present = values if na is None else values[~na]
            if len(present) and int(np.abs(present).max()) >= _EXACT:
                return None                  # pandas reads such a column through float64
            out[j] = Ints(values, na)
        elif kinds[j] == "real":
            values = _floats(a)
            if values is None:
                return None
            out[j] = Floats(values)
        else:
            out[j] = _texts(a)
    return out


def read_score_columns(path: Path | str, header: list[str], cols: list[str], int_cols=(), category_cols=(),
                       float_cols=()) -> dict | None:
    """Scoring's columns ``cols`` (by name, in file order), or None (the module docstring):
    ``int_cols`` int64 when every cell is an integer, ``float_cols`` float64 when every cell
    is a finite number, ``category_cols`` :class:`~d3mkit.tables.columns.Categorical`,
    every other column (and one of those that does not parse) an object array of strings."""
    import pyarrow as pa
    wanted = [(j, name) for j, name in enumerate(header) if name in cols]
    text = pa.dictionary(pa.int32(), pa.string())

    def typed(name, numbers: bool):
        if numbers and name in int_cols:
            return pa.int64()
        return text if name in category_cols else pa.string()
    got = _columns(Path(path), len(header), {j: typed(name, True) for j, name in wanted})
    if got is None and set(int_cols) & set(cols):
        # a numeric column with a cell that is not a number: read as text, as the general reader
        got = _columns(Path(path), len(header), {j: typed(name, False) for j, name in wanted})
    if got is None:
        return None
    out: dict = {}
    for j, name in wanted:
        a = got.pop(j)                 # each column's blocks let go once converted
        kind = pa.int64() if isinstance(a, tuple) else a[0].type if a else pa.string()
        if isinstance(a, tuple) and a[1] is None and (not len(a[0]) or int(np.abs(a[0]).max()) < _EXACT):
            out[name] = a[0]
        elif name in float_cols and pa.types.is_string(kind) and (v := _written_floats(a)) is not None:
            out[name] = v
        elif pa.types.is_dictionary(kind):
            codes, values = _sorted_codes(a)
            cats = np.empty(len(values), dtype=object)
            cats[:] = values.to_pylist()
            out[name] = Categorical(codes.astype(code_dtype(len(cats)), copy=False), cats)
        elif pa.types.is_string(kind):
            out[name] = _strings(a)
        else:     # a numeric column with an empty, non-finite or inexact (2**53 or more) cell: as text
            return read_score_columns(path, header, cols, (), category_cols, ())
    return out


def text_batches(path: Path | str, spec):
    """The record batches of the table at ``path`` with every cell text (empty cells ``""``,
    columns named by position 0..``spec.width``-1, the header line skipped), a block of
    bytes at a time, in ``spec``'s delimiter and quote (a :class:`~d3mkit.tables.spec.TableSpec`);
    raises :class:`~d3mkit.tables.spec.Unreadable` where a row does not parse."""
    import pyarrow as pa
    from pyarrow import csv
    from d3mkit.tables.spec import Unreadable
    names = [str(j) for j in range(spec.width)]
    fh = open(path, "rb")
    try:
        reader = csv.open_csv(
            fh,
            read_options=csv.ReadOptions(column_names=names, skip_rows=1 + spec.skip_rows, use_threads=False,
                                         block_size=TEXT_BLOCK),
            parse_options=csv.ParseOptions(delimiter=spec.sep, quote_char=spec.quote, newlines_in_values=True,
                                           ignore_empty_lines=True),
            convert_options=csv.ConvertOptions(column_types={n: pa.string() for n in names}, null_values=[],
                                               strings_can_be_null=False, quoted_strings_can_be_null=False))
    except (pa.ArrowInvalid, UnicodeDecodeError) as exc:
        fh.close()
        raise Unreadable(str(exc)) from None
    with fh, reader:
        while True:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                return
            except (pa.ArrowInvalid, UnicodeDecodeError) as exc:
                raise Unreadable(str(exc)) from None
            yield batch
