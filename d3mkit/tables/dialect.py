"""Reading a table file in a dialect other than d3mkit's own (a :class:`~d3mkit.tables.spec.TableSpec`).

What this module owns: the reads the checked reader (:mod:`d3mkit.tables.csvread`, pyarrow's
engine) does not take because pyarrow declines them — comment lines, rows skipped before
the header, runs of whitespace between fields, a row of a width other than the header's
that must be refused in pandas' words, chunks whose numbers and booleans are parsed as
pandas parses them (the importer's inference decisions rest on that parse) — through
pandas' C parser (its python engine for whitespace); and the records of a few lines or of
an open text file (:func:`records`, :func:`dict_records`) for the readers that look at a
file a record at a time (a delimiter sniffed, a header line, a PRISM manifest).
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Iterable, Iterator

from d3mkit.core.lazy import pandas as pd
from d3mkit.tables.spec import WHITESPACE, TableSpec, Unreadable


def _options(spec: TableSpec) -> dict:
    """pandas' ``read_csv`` keywords of ``spec``."""
    kw: dict = dict(encoding=spec.encoding, sep=spec.sep, quotechar=spec.quote,
                    engine="python" if spec.sep == WHITESPACE else "c")
    if spec.na_values is None:
        kw.update(keep_default_na=False, na_filter=False)
    else:
        kw.update(keep_default_na=False, na_values=list(spec.na_values))
    if spec.width is not None:
        kw.update(header=0, names=list(range(spec.width)))
    else:
        kw.update(header=0)
    if spec.typed:
        kw["dtype"] = {j: str if j in spec.str_columns else object for j in spec.text | spec.str_columns}
    else:
        kw["dtype"] = object
    if not spec.implicit_index:
        kw["index_col"] = False
    if spec.skip_rows:
        kw["skiprows"] = spec.skip_rows
    if spec.comment:
        kw["comment"] = spec.comment
    if spec.usecols is not None:
        kw["usecols"] = list(spec.usecols)
    if spec.max_rows is not None:
        kw["nrows"] = spec.max_rows
    return kw


def _unreadable(exc: Exception) -> Unreadable:
    if isinstance(exc, UnicodeDecodeError):
        return Unreadable("file is not valid UTF-8", exc.start)
    return Unreadable(str(exc).replace("Error tokenizing data. C error: ", "").strip())


def read_whole(path: Path | str, spec: TableSpec) -> pd.DataFrame:
    """The table at ``path`` (gzip-compressed too: by its suffix) read whole in ``spec``'s
    dialect; raises :class:`~d3mkit.tables.spec.Unreadable`."""
    try:
        return pd.read_csv(path, compression="infer", **_options(spec))
    except (UnicodeDecodeError, pd.errors.ParserError, ValueError) as exc:   # EmptyDataError is one
        raise _unreadable(exc) from None


def read_chunks(path: Path | str, spec: TableSpec) -> Iterator[pd.DataFrame]:
    """The table at ``path`` ``spec.chunk_rows`` rows at a time in ``spec``'s dialect (the
    chunks are parsed as they are taken, so a caller may parse the next one in a thread);
    raises :class:`~d3mkit.tables.spec.Unreadable` where a chunk does not parse. pandas'
    ``ParserWarning`` (a first row longer than the header, cut) is left to the caller."""
    try:
        reader = pd.read_csv(path, chunksize=spec.chunk_rows, **_options(spec))   # reads the header
    except (UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise _unreadable(exc) from None
    with reader:
        while True:
            try:
                chunk = next(reader)
            except StopIteration:
                return
            except (UnicodeDecodeError, pd.errors.ParserError) as exc:
                raise _unreadable(exc) from None
            yield chunk


def records(lines: Iterable[str], sep: str = ",", quote: str = '"') -> Iterator[list[str]]:
    """The fields of each record of ``lines`` (lines of text, or an open text file: a quoted
    field may then span lines), quotes respected; raises :class:`~d3mkit.tables.spec.Unreadable`
    on a record that does not parse."""
    try:
        yield from csv.reader(lines, delimiter=sep, quotechar=quote)
    except csv.Error as exc:
        raise Unreadable(str(exc)) from None


class DictRecords:
    """The records of an open text file as dicts keyed by the header's names (``None``: the
    fields beyond them), with ``line_num`` the physical lines read so far and ``fieldnames``
    the header (None for an empty file); a field may be up to 1 GiB. Raises
    :class:`~d3mkit.tables.spec.Unreadable` on a record that does not parse."""

    def __init__(self, fh, sep: str = ","):
        csv.field_size_limit(1 << 30)
        self._reader = csv.DictReader(fh, delimiter=sep)
        try:
            self.fieldnames = self._reader.fieldnames
        except csv.Error as exc:
            raise Unreadable(str(exc)) from None

    @property
    def line_num(self) -> int:
        return self._reader.line_num

    def __iter__(self):
        try:
            yield from self._reader
        except csv.Error as exc:
            raise Unreadable(str(exc)) from None
