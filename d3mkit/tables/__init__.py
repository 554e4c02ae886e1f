"""CSV tables as d3mkit reads and writes them.

Every table is read as strings (``dtype=str``, empty cells stay ``""``, nothing becomes
NaN behind the user's back) and written with ``\\n`` line endings and no pandas index, so
the same frame always gives the same bytes.

>>> import pandas as pd, tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
>>> write_table(pd.DataFrame({"d3mIndex": [0, 1], "y": ["a", ""]}), p)
>>> p.read_text()
'd3mIndex,y\\n0,a\\n1,\\n'
>>> read_table(p)["y"].tolist()
['a', '']
"""

from __future__ import annotations

from pathlib import Path

from d3mkit.core.lazy import pandas as pd   # imported on first use (importing this module costs nothing)

from d3mkit.io.atomic import write_with
from d3mkit.tables.spec import WHITESPACE, TableSpec, Unreadable

__all__ = ["read_table", "read_table_chunks", "write_table", "TableSpec", "Unreadable", "WHITESPACE"]


def read_table(path: Path | str, spec: TableSpec | list[str] | None = None, *,
               usecols: list[str] | None = None) -> pd.DataFrame:
    """Read a CSV file with every cell as a string and no NA conversion, through the one
    checked reader (:func:`d3mkit.tables.csvread.read_strings`; ``spec`` a list, or ``usecols``: the
    columns to keep, every row's width still checked). Raises
    :class:`~d3mkit.core.errors.D3MKitError` naming the file: exit 2 when it is missing or
    unreadable, else exit 1 (not a regular file, too large, ragged rows, ...).

    ``spec`` a :class:`~d3mkit.tables.spec.TableSpec` of another dialect (a delimiter other
    than commas, comment lines, rows before the header, missing-value tokens, a row limit):
    the file as that spec says (:func:`d3mkit.tables.dialect.read_whole`), raising
    :class:`~d3mkit.tables.spec.Unreadable` where it does not parse."""
    from d3mkit.core.errors import EXIT_USAGE, D3MKitError
    from d3mkit.tables.csvread import read_strings
    if isinstance(spec, TableSpec):
        if not spec.plain():
            from d3mkit.tables.dialect import read_whole
            return read_whole(path, spec)
        spec = list(spec.usecols) if spec.usecols is not None else None
    usecols = spec if spec is not None else usecols
    df, issues = read_strings(path, usecols, allow_empty=True)
    if df is None:
        usage = issues[0].code in ("file.missing", "file.unreadable", "file.is_directory")
        raise D3MKitError(issues, EXIT_USAGE if usage else 1)
    return df


CHUNK_ROWS = 2048      # the exporters' chunks


def read_table_chunks(path: Path | str, usecols: list[str] | TableSpec | None = None, rows: int = CHUNK_ROWS):
    """:func:`read_table` ``rows`` rows at a time (the same cells: every one a string, empty
    cells ``""``), for readers whose memory must not grow with the table (the exporters).
    ``usecols`` restricts the columns (absent names are skipped). The header is checked as
    :func:`read_table` checks it; a row the parser cannot read raises
    :class:`~d3mkit.core.errors.D3MKitError` (``csv.unreadable``) naming the file.

    ``usecols`` a :class:`~d3mkit.tables.spec.TableSpec`: the chunks of that spec
    (:func:`d3mkit.tables.dialect.read_chunks`; ``spec.chunk_rows`` rows each, the header
    not checked here: the caller has read it), raising :class:`~d3mkit.tables.spec.Unreadable`."""
    from d3mkit.core.errors import EXIT_USAGE, D3MKitError, error
    if isinstance(usecols, TableSpec):
        if usecols.arrow:
            from d3mkit.tables.arrow import text_batches
            yield from text_batches(path, usecols)
            return
        from d3mkit.tables.dialect import read_chunks
        yield from read_chunks(path, usecols)
        return
    from d3mkit.tables.csvread import read_header
    header, issues = read_header(path)
    if header is None:
        raise D3MKitError(issues, EXIT_USAGE if issues[0].code in ("file.missing", "file.unreadable") else 1)
    cols = [c for c in usecols if c in header] if usecols is not None else header
    try:
        with pd.read_csv(path, dtype=object, keep_default_na=False, na_filter=False, encoding="utf-8-sig",
                         engine="c", usecols=cols, chunksize=rows) as reader:
            for chunk in reader:
                yield chunk
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise D3MKitError(error("csv.unreadable", "", f"cannot read the table: {exc}", str(path))) from None


def write_table(df: pd.DataFrame, path: Path | str) -> None:
    """Write a CSV file deterministically and atomically (:mod:`d3mkit.io.atomic`; parent
    directories are created)."""
    write_with(path, lambda tmp: df.to_csv(tmp, index=False, lineterminator="\n"))
