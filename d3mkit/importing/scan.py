"""One pass over a large table file in chunks, for ``d3mkit import table``: the lean path.

What this module owns: importing a CSV or TSV file (a gzip or Parquet source arrives here as
a temporary CSV/TSV file, :func:`d3mkit.importing.source.lean_source`) without holding it as
Python strings. The file is read through the front door in chunks
(:func:`d3mkit.tables.read_table_chunks` with a :class:`~d3mkit.tables.TableSpec`: numbers
and booleans parsed as pandas parses them, which the inference rules rest on); each chunk's
distinct cells feed every column's :class:`~d3mkit.importing.infer.Evidence` and the
``types`` checks; only the index, the targets and a media column are kept. learningData is
then written from the file again: its bytes as they are when the first column is the index,
its lines numbered when it has no index and no double quote (:func:`write_indexed`), else
re-written chunk by chunk through pandas (:func:`rewrite`: rows with an empty target left
out, the index column moved first, tabs made commas). Peak memory is a chunk plus the kept
columns, not the table.

The table goes through :func:`d3mkit.importing.prepare.prepare_frame` instead
(:func:`prepare_csv` returns None) for a multiLabel task, a media column not clear from the
first rows, and a one-column file.
"""

from __future__ import annotations

import dataclasses
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.io.beside import ahead
from d3mkit.core.errors import D3MKitError
from d3mkit.importing import infer
from d3mkit.importing.checks import check_given, check_header
from d3mkit.importing.index import canonical_ints, index_column
from d3mkit.importing.mediacheck import media_column
from d3mkit.importing.options import ImportOptions
from d3mkit.importing.prepare import drop_empty_targets
from d3mkit.importing.prepared import Prepared, is_multilabel, long_form_possible, target_types
from d3mkit.io.numtext import number_lines
from d3mkit.tables import TableSpec, Unreadable, read_table, read_table_chunks

CHUNK_ROWS = 250_000
REWRITE_ROWS = 50_000      # rows of text cells held while learningData is re-written
BLOCK = 1 << 24


def _chunks(path: Path, n: int, sep: str = ",", rows: int | None = None, **spec):
    """Chunks of ``rows`` rows (default :data:`CHUNK_ROWS`) of the table (``sep`` its
    delimiter), columns named by position, through :func:`d3mkit.tables.read_table_chunks`;
    ``spec`` the other :class:`~d3mkit.tables.TableSpec` fields (all text by default)."""
    return read_table_chunks(path, TableSpec(sep=sep, width=n, chunk_rows=rows or CHUNK_ROWS, **spec))


def _kind(s: pd.Series) -> str:
    dt = s.dtype
    if pd.api.types.is_bool_dtype(dt):
        return "bool"
    if pd.api.types.is_integer_dtype(dt):
        return "int"
    if pd.api.types.is_float_dtype(dt):
        return "float"
    return "text"


def _add_text(ev: infer.Evidence, cells: pd.Series, given: str | None, column: str, row0: int,
              display: str) -> bool:
    """Feed one chunk of a text column (``""`` or NA for an empty cell) to ``ev``; False (and
    nothing fed) when pandas turned some cells into other objects (an integer beyond 64 bits
    in an otherwise text column: its text is what counts)."""
    if given is None and ev.settled():      # free text: only the count of non-empty cells matters
        present = cells.notna().to_numpy()
        if cells.dtype == object:
            present &= cells.to_numpy() != ""
        ev.n_present += int(present.sum())
        return True
    uniq = np.asarray(cells.unique(), dtype=object)       # distinct cells, no codes: 2-4x a factorize
    missing = pd.isna(uniq)
    n_present = int(cells.notna().sum())
    if missing.any():
        uniq = uniq[~missing]
    if cells.dtype == object and not all(isinstance(u, str) for u in uniq):
        return False
    empty = uniq == ""
    if empty.any():
        n_present -= int((cells == "").sum())
    levels = uniq[~empty] if empty.any() else uniq
    if given is not None:
        cells = cells.fillna("") if cells.hasnans else cells
        check_given(levels, given, column, cells.to_numpy(dtype=object), row0, display)
    ev.add(levels, n_present)
    return True


def _add_typed(ev: infer.Evidence, s: pd.Series, kind: str) -> bool:
    """Feed one chunk of a column pandas read as numbers or booleans to ``ev``; False when the
    chunk cannot tell (integral floats beside empty cells: ``1`` or ``1.0`` in the file?)."""
    present = s.notna().to_numpy()
    n = int(present.sum())
    if kind == "bool":
        ev.add(np.array(sorted({"true" if v else "false" for v in s[present].unique().tolist()}), dtype=object), n)
        return True
    x = s.to_numpy(dtype=float)[present]
    if kind == "float" and len(x) < len(s) and np.all(np.isfinite(x) & (np.floor(x) == x)):
        return False
    ev.n_present += n
    ev.boolean = ev.date = False
    if n:
        ev.any_number = True
        if kind == "float":
            ev.integer = False
    if ev.levels is not None and n:    # numbers: never categorical, only the count matters
        ev.levels = None
    return True


def prepare_csv(path: Path, display: str, header: list[str], opts: ImportOptions,
                targets: list[str], issues: list | None = None, sep: str = ",",
                hints: dict[str, str] | None = None, meanwhile=None) -> Prepared | None:
    """:class:`Prepared` of the CSV at ``path`` (``sep`` its delimiter; header already read and
    checked for width), or None when the whole-table path must take it (module docstring).
    Warnings (rows left out for an empty target) go to ``issues``; ``hints`` are colTypes the
    source declares (checked against the cells like ``types``); ``meanwhile()``, if given,
    runs while the first chunk is parsed (the import warms the validation it runs on commit).

    The chunks are read with pandas' own number and boolean parsing (no Python string per
    cell); a column whose chunks come back as numbers feeds :class:`~d3mkit.importing.infer.Evidence`
    the numbers' verdict (integers, or reals), the others their distinct cells. A column
    whose chunks disagree in kind, or whose floats cannot say whether the file wrote ``1`` or
    ``1.0``, is read again as text and judged on its cells, so the colType is the one the
    rules give for the whole column. Only the index, the targets and their row count are kept;
    learningData is written from the file again (:func:`write_indexed`, or :func:`rewrite`
    when rows are left out, the index column moves or its values change, or the file is not
    comma-separated)."""
    long_possible = long_form_possible(targets, opts)
    if len(header) == 1 or (long_possible and opts.subtype == "multiLabel"):
        return None                         # another delimiter (the checked reader names it); the long form
    check_header(header, targets, opts, display)
    given = {**(hints or {}), **opts.types}
    idx_name = opts.index or ("d3mIndex" if "d3mIndex" in header else None)
    if opts.index is not None and opts.index != "d3mIndex" and "d3mIndex" in header:
        index_column(pd.DataFrame(columns=header), opts.index, display)     # the one message for both
    if idx_name is not None and idx_name not in header:
        from d3mkit.core.errors import EXIT_USAGE, error
        raise D3MKitError(error("import.index", "", f"index column {idx_name!r} is not in the table",
                                display, row=1), EXIT_USAGE)
    idx_pos = header.index(idx_name) if idx_name is not None else None
    others = [c for j, c in enumerate(header) if j != idx_pos]
    evidence = {c: infer.Evidence(opts.na_tokens) for c in others}
    media_name = None
    if opts.media is not None:
        media_name = _media_column(path, header, sep, {"d3mIndex", idx_name, *targets}, Path(opts.media))
        if media_name is None:
            return None                     # the whole-table path names what is wrong
    keep_pos = ([idx_pos] if idx_pos is not None else []) + [header.index(t) for t in targets] + \
        ([header.index(media_name)] if media_name is not None and media_name not in targets else [])
    text_pos = set(keep_pos) | {header.index(c) for c in given}
    kinds: dict[int, str] = {}
    retext: set[int] = set()
    kept: list[pd.DataFrame] = []
    rows = 0
    short = False       # a row with too few fields would show as a missing last cell
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", pd.errors.ParserWarning)    # a long first row: cut
            # the next chunk is parsed in a thread (pandas tokenizes outside the interpreter lock)
            # while this one feeds the evidence (d3mkit.io.beside.ahead)
            # the index column as pandas' own str dtype (Arrow strings where pyarrow is installed:
            # its checks and its integers in C++, index._int64), the other kept columns as objects
            with ahead(_chunks(path, len(header), sep, na_values=("",), typed=True, text=frozenset(text_pos),
                               str_columns=frozenset({idx_pos} - {None}))) as chunks:
                if meanwhile is not None:
                    meanwhile()                 # while the first chunk is parsed
                for chunk in chunks:
                    short = short or bool(chunk[len(header) - 1].isna().any())
                    for j, c in enumerate(header):
                        if j in retext or j == idx_pos:
                            continue
                        kind = "text" if j in text_pos else _kind(chunk[j])
                        if kinds.setdefault(j, kind) != kind and {kinds[j], kind} != {"int", "float"}:
                            retext.add(j)
                        elif kind == "text":
                            if not _add_text(evidence[c], chunk[j], given.get(c), c, rows + 2, display):
                                retext.add(j)
                        elif not _add_typed(evidence[c], chunk[j], kind):
                            retext.add(j)
                    kept.append(chunk[keep_pos].fillna(""))
                    rows += len(chunk)
        if short or any(issubclass(w.category, pd.errors.ParserWarning) for w in caught):
            _refuse_ragged(path, len(header), sep, display)
        if retext:
            for j in retext:
                evidence[header[j]] = infer.Evidence(opts.na_tokens)
            start = 0
            for chunk in _chunks(path, len(header), sep, usecols=tuple(sorted(retext))):
                for j in sorted(retext):
                    _add_text(evidence[header[j]], chunk[j], None, header[j], start + 2, display)
                start += len(chunk)
    except (Unreadable, D3MKitError) as exc:
        _refuse_ragged(path, len(header), sep, display)   # a ragged row explains the others: named first
        from d3mkit.core.errors import error
        if isinstance(exc, Unreadable) and exc.byte is not None:
            raise D3MKitError(error("file.encoding", f"byte {exc.byte}", exc.detail, display)) from None
        if isinstance(exc, Unreadable):
            raise D3MKitError(error("csv.parse", "", f"cannot parse CSV: {exc.detail}", display)) from None
        raise
    if any(ev.na_seen and ev.coltype() in (*infer.NUMERIC, "dateTime") for ev in evidence.values()):
        return None                         # missing-value tokens become empty cells: the whole-table path
    if rows == 0:
        from d3mkit.core.errors import error
        raise D3MKitError(error("csv.no_rows", "", "the table has a header but no rows", display, row=1))
    frame = pd.concat(kept, ignore_index=True)
    frame.columns = [header[j] for j in keep_pos]
    if len(targets) > 1:                    # label columns: the whole-table path makes one label column
        nonempty = {t: int(frame[t][frame[t] != ""].nunique()) for t in targets}
        if is_multilabel(target_types(evidence, targets, given, nonempty), opts):
            return None
    media = media_column(frame[[media_name]], set(), Path(opts.media), display) if media_name is not None else None
    written = frame[idx_name] if idx_pos is not None else None
    if idx_pos is not None:
        frame = index_column(frame, opts.index, display, repeats=long_possible)
        if long_possible and bool(frame["d3mIndex"].duplicated().any()):
            return None                     # the long multiLabel form: its rows are checked against each other
    else:
        frame.insert(0, "d3mIndex", np.arange(rows, dtype=np.int64))
    frame, keep = drop_empty_targets(frame, targets, display, issues if issues is not None else [])
    dropped = rows - len(frame)
    # learningData is the file's bytes (numbered when it has no index, its first header name made
    # d3mIndex when the index is the first column) when only the numbering or that name changes
    as_is = (idx_pos is None or (idx_pos == 0 and (idx_name == "d3mIndex" or _plain_first_line(path)))) and \
        sep == "," and keep is None and (written is None or canonical_ints(written))
    if as_is:
        write = lambda out: write_indexed(path, out, header, idx_pos == 0)   # noqa: E731
    else:                                   # rows left out, the index moved or rewritten, tabs: re-written
        index = frame["d3mIndex"].to_numpy()
        write = lambda out: rewrite(path, out, header, sep, idx_pos, index, keep)   # noqa: E731
    return Prepared(["d3mIndex", *others], len(frame), evidence, {c: t for c, t in given.items()},
                    frame, write, dropped, media=media)


class _NotPlain(Exception):
    """The file holds what its lines cannot be numbered one by one with (:func:`_line_blocks`'
    ``bad``), or a cell pyarrow's writer would have to quote: learningData is written through
    pandas instead."""


def _media_column(path: Path, header: list[str], sep: str, skip: set, media: Path) -> str | None:
    """The column whose first non-empty cell (within the first rows) names a file under
    ``media`` (the rule of :func:`d3mkit.importing.mediacheck.media_column`), or None."""
    if not media.is_dir():
        return None
    head = read_table(path, TableSpec(sep=sep, width=len(header), max_rows=1000))
    for j, c in enumerate(header):
        if c in skip:
            continue
        values = head[j][head[j] != ""]
        if not len(values):
            return None                     # not seen yet: the whole table decides
        if (media / str(values.iloc[0])).is_file():
            return c
    return None


def rewrite(src: Path, dst: Path, header: list[str], sep: str, idx_pos: int | None, index: np.ndarray,
            keep: np.ndarray | None) -> None:
    """learningData.csv at ``dst`` from the table ``src`` (``sep`` its delimiter): the rows of
    ``keep`` (all when None), the column at ``idx_pos`` (if any) left out and ``index`` (the
    kept rows' d3mIndex values) put first. Read and written by pyarrow a block at a time
    (:func:`_rewrite_arrow`) when the index is integers and no cell needs quoting, else by
    pandas from the start (:func:`_rewrite_pandas`): the same bytes either way."""
    if index.dtype.kind == "i":
        try:
            return _rewrite_arrow(src, dst, header, sep, idx_pos, index, keep)
        except _NotPlain:
            pass
    _rewrite_pandas(src, dst, header, sep, idx_pos, index, keep)


def _rewrite_arrow(src: Path, dst: Path, header: list[str], sep: str, idx_pos: int | None, index: np.ndarray,
                   keep: np.ndarray | None) -> None:
    """:func:`rewrite` with pyarrow's reader and writer (text cells, never quoted: a cell
    that would need quotes, a comma, a double quote or a line end, raises :class:`_NotPlain`,
    and pandas writes the file instead, quoting as it does)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    from pyarrow import csv
    names = [c for j, c in enumerate(header) if j != idx_pos]
    plain = csv.WriteOptions(include_header=False, quoting_style="none")
    row = at = 0
    with open(dst, "wb") as fout:
        fout.write(_csv_line(["d3mIndex", *names]))
        try:
            for batch in read_table_chunks(src, TableSpec(sep=sep, width=len(header), arrow=True)):
                k = batch.num_rows
                cols = [batch.column(j) for j in range(len(header)) if j != idx_pos]
                if keep is not None:
                    mask = pa.array(keep[row:row + k])
                    cols = [pc.filter(c, mask) for c in cols]
                m = len(cols[0]) if cols else int(keep[row:row + k].sum()) if keep is not None else k
                table = pa.Table.from_arrays([pa.array(index[at:at + m]), *cols],
                                             names=[str(j) for j in range(len(cols) + 1)])
                csv.write_csv(table, fout, plain)
                row += k
                at += m
        except (pa.ArrowInvalid, Unreadable):
            raise _NotPlain from None


def _rewrite_pandas(src: Path, dst: Path, header: list[str], sep: str, idx_pos: int | None, index: np.ndarray,
                    keep: np.ndarray | None) -> None:
    """:func:`rewrite` by pandas, chunk by chunk (commas, quoting as needed). Memory: one
    chunk of text cells of :data:`REWRITE_ROWS` rows."""
    names = [c for j, c in enumerate(header) if j != idx_pos]
    at = 0
    start = 0
    with open(dst, "w", encoding="utf-8", newline="") as fout:
        for k, chunk in enumerate(_chunks(src, len(header), sep, REWRITE_ROWS)):
            n = len(chunk)
            if keep is not None:
                chunk = chunk[keep[start:start + n]]
            start += n
            if idx_pos is not None:
                chunk = chunk.drop(columns=[idx_pos])
            chunk.columns = names
            chunk.insert(0, "d3mIndex", index[at:at + len(chunk)])
            at += len(chunk)
            chunk.to_csv(fout, header=k == 0, index=False, lineterminator="\n")


def _refuse_ragged(path: Path, n: int, sep: str = ",", display: str | None = None) -> None:
    """Raise the ``csv.bad_row`` issues of rows whose width is not ``n``, if any (the one
    owner of the check, :func:`d3mkit.tables.csvread.field_counts`). Called only when the
    parse hints at one: pandas refuses a long row (and cuts a long first row, warning), and
    pads a short row with a missing last cell. The issues name ``display`` (the user's file)."""
    from d3mkit.tables.csvread import field_count_issues
    ragged = field_count_issues(path, n, sep=sep)
    if ragged:          # named by the user's file (``display``), not a gzip file's temporary copy
        raise D3MKitError([dataclasses.replace(i, path=display) for i in ragged] if display else ragged)


def write_indexed(src: Path, dst: Path, header: list[str], has_index: bool) -> None:
    """learningData.csv at ``dst`` from the CSV ``src``: its bytes as they are when the first
    column is the index (its header name made ``d3mIndex``); else each record prefixed with
    its number (blank lines skipped, as every reader skips them), line by line while no
    double quote is read, through pandas in chunks from the start once one is (a quoted cell
    may hold a newline)."""
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        bom = fin.read(3)
        if bom != b"\xef\xbb\xbf":
            fin.seek(0)
        if has_index:
            if header[0] != "d3mIndex":                  # the index named another way (a plain header line)
                fin.readline()
                fout.write(_csv_line(["d3mIndex", *header[1:]]))
            shutil.copyfileobj(fin, fout, BLOCK)
            return
        number = 0
        try:
            head = fin.readline()                         # the header (read_header found it first)
            if b'"' in head:
                raise _NotPlain
            fout.write(b"d3mIndex," + head)
            for lines in _line_blocks(fin, (b'"',), final_newline=False):   # numbers put in front with numpy
                text, count = number_lines(lines, number)                   # (d3mkit.io.numtext)
                fout.write(text)
                number += count
            return
        except _NotPlain:
            pass
    with open(dst, "wb") as fout:
        for k, chunk in enumerate(_chunks(src, len(header))):
            chunk.columns = header
            chunk.insert(0, "d3mIndex", np.arange(k * CHUNK_ROWS, k * CHUNK_ROWS + len(chunk)))
            chunk.to_csv(fout, header=k == 0, index=False, lineterminator="\n")


def _plain_first_line(path: Path) -> bool:
    """Whether the file's first line (its header) holds no double quote: it is then one line."""
    with open(path, "rb") as fh:
        return b'"' not in fh.readline()


def _csv_line(cells: list[str]) -> bytes:
    """One CSV record of ``cells`` (quoted where needed), ended by ``\\n``."""
    import csv
    import io
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(cells)
    return out.getvalue().encode("utf-8")


def _line_blocks(fin, bad: tuple[bytes, ...] = (), final_newline: bool = True):
    """The rest of the binary file ``fin`` in blocks of whole lines, each ended by ``\\n`` (a
    last line without one is given one): views into blocks of :data:`BLOCK` bytes, and the
    line that straddles two blocks on its own. With ``bad`` (single bytes: ``in`` is a
    ``memchr``), :class:`_NotPlain` is raised at the first block read that holds one of
    them, or at the end of a file without a final newline when ``final_newline``."""
    carry = b""
    while True:
        block = fin.read(BLOCK)
        if bad and any(b in block for b in bad):
            raise _NotPlain
        if not block:
            if carry:
                if bad and final_newline:
                    raise _NotPlain
                yield carry + b"\n"
            return
        cut = block.rfind(b"\n") + 1
        if cut == 0:
            carry += block
            continue
        start = 0
        if carry:
            start = block.find(b"\n") + 1
            yield carry + block[:start]
        if start < cut:
            yield memoryview(block)[start:cut]
        carry = block[cut:]
