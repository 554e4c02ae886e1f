"""What a caller tells the table reader: :class:`TableSpec`, one typed object instead of
keyword arguments.

What this module owns: the description of a read — the dialect (delimiter, quote, comment
character, rows before the header, encoding), which cells are missing values, which columns
to keep and how to type them, and the limits (rows read, rows a chunk) — and
:class:`Unreadable`, what the reader raises when a file does not parse in that dialect (the
caller words the message: the importer names its own options). The readers are
:func:`d3mkit.tables.read_table` and :func:`d3mkit.tables.read_table_chunks`.
"""

from __future__ import annotations

from dataclasses import dataclass

#: the delimiter "runs of whitespace" (pandas' python engine reads it; pyarrow has none)
WHITESPACE = r"\s+"
CHUNK_ROWS = 2048


@dataclass(frozen=True)
class TableSpec:
    """How to read a delimited table file.

    * dialect: ``sep`` (a character, or :data:`WHITESPACE`), ``quote``, ``comment`` (a
      character starting a comment to the line's end), ``skip_rows`` (lines before the
      header), ``encoding`` (a UTF-8 BOM is skipped by the default);
    * cells: ``na_values`` None: every cell text, empty cells ``""``; a tuple: those cells
      are missing and, with ``typed``, columns not in ``text`` are read as numbers or
      booleans where every cell is one (``text`` columns stay text; ``str_columns`` are
      read as pandas' ``str`` dtype, Arrow strings where pyarrow is installed);
    * columns: ``width`` names the columns by position 0..width-1 (the header line is then
      skipped, not read), ``usecols`` the positions (or names) kept, ``columns`` the names a
      header must have where the caller knows them;
    * limits: ``max_rows`` rows read at most, ``chunk_rows`` rows a chunk
      (:func:`d3mkit.tables.read_table_chunks`); ``implicit_index`` lets a first column
      without a header name be an index (pandas' default) rather than a ragged row;
    * engine: ``arrow`` chunks as pyarrow record batches of text columns (pyarrow's reader,
      multithreaded, a block of bytes a batch; needs ``width``, every cell text) instead of
      DataFrames.
    """

    sep: str = ","
    quote: str = '"'
    comment: str | None = None
    skip_rows: int = 0
    encoding: str = "utf-8-sig"
    na_values: tuple[str, ...] | None = None
    typed: bool = False
    text: frozenset[int] = frozenset()
    str_columns: frozenset[int] = frozenset()
    width: int | None = None
    usecols: tuple | None = None
    columns: tuple[str, ...] | None = None
    max_rows: int | None = None
    chunk_rows: int = CHUNK_ROWS
    implicit_index: bool = False
    arrow: bool = False

    def plain(self) -> bool:
        """Whether this is d3mkit's own dialect: commas, no comment, nothing skipped, every
        cell text (the checked reader :func:`d3mkit.tables.csvread.read_strings` reads it)."""
        return (self.sep == "," and self.quote == '"' and not self.comment and not self.skip_rows
                and self.na_values is None and not self.typed and self.width is None
                and self.max_rows is None and self.encoding == "utf-8-sig" and not self.arrow)


class Unreadable(Exception):
    """A table file that does not parse in the dialect asked for: ``detail`` the parser's
    words, ``byte`` the offset of a byte that is not valid in the encoding (None for a
    syntax problem)."""

    def __init__(self, detail: str, byte: int | None = None):
        super().__init__(detail)
        self.detail = detail
        self.byte = byte
