"""How a user's text table is written: its delimiter (sniffed unless given), comment lines,
rows to skip before the header, and the header fixes an import makes (an empty first name
is the row index pandas and R write; names trimmed of surrounding whitespace).

What this module owns: the :class:`Dialect` of ``d3mkit import table`` (``--sep``,
``--comment``, ``--skip-rows``), :func:`sniff` (the delimiter from the first lines: ``,``
``;`` tab ``|``, else runs of whitespace), :func:`read_dialect` (a file in a dialect other
than the plain one read whole through :func:`d3mkit.tables.dialect.read_whole`, every cell
text, the message in the import's words) and :func:`fix_header`. A
file in the plain dialect (commas, or tabs for .tsv/.tab; no comment, nothing skipped)
whose header needs no fix takes the import's chunked reader instead (:mod:`.scan`).
"""

from __future__ import annotations

import dataclasses
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.core.errors import D3MKitError, Issue, error, warning
from d3mkit.tables import WHITESPACE, TableSpec, Unreadable
from d3mkit.tables.dialect import read_whole, records

CANDIDATES = (",", ";", "\t", "|")
NAMES = {",": "commas", ";": "semicolons", "\t": "tabs", "|": "pipes", WHITESPACE: "whitespace"}
SNIFF_BYTES = 1 << 16
SNIFF_LINES = 50


@dataclasses.dataclass(frozen=True)
class Dialect:
    """``sep`` None: sniffed; ``comment`` a character starting a comment (to the line's end);
    ``skip_rows`` lines before the header."""

    sep: str | None = None
    comment: str | None = None
    skip_rows: int = 0

    def plain(self, default: str) -> bool:
        """Whether this is the plain dialect of a file whose default delimiter is ``default``."""
        return self.sep in (None, default) and not self.comment and not self.skip_rows


def default_sep(name: str) -> str:
    """The delimiter a file's name says: tabs for .tsv/.tab (gzip too), else commas."""
    name = name.lower().removesuffix(".gz")
    return "\t" if name.endswith((".tsv", ".tab")) else ","


def _head_lines(path: Path, d: Dialect) -> list[str]:
    import gzip
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    try:
        with opener(path, "rb") as fh:
            raw = fh.read(SNIFF_BYTES)
    except (OSError, EOFError, zlib.error):      # the reader names what is wrong with the file
        return []
    text = raw.decode("utf-8-sig", errors="replace")
    lines = text.splitlines()[d.skip_rows:]
    if len(raw) == SNIFF_BYTES and lines:
        lines = lines[:-1]                      # the last line may be cut
    if d.comment:
        lines = [ln for ln in lines if not ln.lstrip().startswith(d.comment)]
    return [ln for ln in lines if ln.strip()][:SNIFF_LINES]


def sniff(path: Path, d: Dialect) -> str:
    """The delimiter of the text table at ``path``: ``d.sep`` when given; else the first of
    the file's default (:func:`default_sep`), ``,`` ``;`` tab ``|`` that splits every one of
    the first lines into the same number (more than one) of fields, quotes respected; else
    whitespace when runs of it do; else the default."""
    default = default_sep(path.name)
    if d.sep is not None:
        return d.sep
    lines = _head_lines(path, d)
    if not lines:
        return default
    best, width = None, 1
    for c in (default, *[c for c in CANDIDATES if c != default]):
        try:
            counts = {len(r) for r in records(lines, c)}
        except Unreadable:
            continue
        if len(counts) == 1 and (n := counts.pop()) > width:
            if c == default:
                return c
            best, width = c, n
    if best is not None:
        return best
    counts = {len(ln.split()) for ln in lines}
    if len(counts) == 1 and counts.pop() > 1:
        return WHITESPACE
    return default


def read_dialect(path: Path, display: str, d: Dialect, sep: str) -> pd.DataFrame:
    """The table at ``path`` (gzip-compressed too) read whole in dialect ``d`` with delimiter
    ``sep``: every cell text, empty cells ``""``, header names as written (fixed later)."""
    from d3mkit.io.limits import file_issue
    refused = file_issue(path, "table file")
    if refused is not None:
        raise D3MKitError(refused)
    spec = TableSpec(sep=sep, comment=d.comment or None, skip_rows=d.skip_rows)
    try:
        df = read_whole(path, spec)       # pandas' words for what does not parse (the checked reader has others)
    except Unreadable as exc:
        if exc.byte is not None:
            raise D3MKitError(error("file.encoding", f"byte {exc.byte}", exc.detail, display)) from None
        raise D3MKitError(error("csv.parse", "", f"cannot read the table with {NAMES.get(sep, repr(sep))} "
                                f"between fields: {exc.detail} (the sep, comment and skip_rows options choose the "
                                f"dialect)", display)) from None
    header = header_line(path, d, sep)            # pandas names an unnamed column "Unnamed: 0": as written
    if header is not None and len(header) == len(df.columns):
        df.columns = header
    return df.fillna("")


def header_line(path: Path, d: Dialect, sep: str) -> list[str] | None:
    lines = _head_lines(path, Dialect(sep, d.comment, d.skip_rows))
    if not lines:
        return None
    if sep == WHITESPACE:
        return lines[0].split()
    try:
        return next(records([lines[0]], sep), None)
    except Unreadable:
        return None


def needs_fix(header: list[str]) -> bool:
    """Whether :func:`fix_header` would change ``header``."""
    return bool(header) and (header[0].strip() == "" or any(h != h.strip() for h in header))


def fix_header(df: pd.DataFrame, index_given: bool, source: str) -> tuple[pd.DataFrame, list[Issue]]:
    """``df`` with its header fixed, and the notes: names trimmed of surrounding whitespace;
    an empty first name is the row index pandas and R write: ``d3mIndex`` when its values are
    0..n-1 (and no d3mIndex or ``--index`` is given), else a column named ``unnamed_index``."""
    notes: list[Issue] = []
    names = [str(c) for c in df.columns]
    trimmed = [n.strip() for n in names]
    changed = [f"{a!r}" for a, b in zip(names, trimmed) if a != b and b]
    if changed:
        notes.append(warning("import.header_trimmed", "", f"column name(s) {', '.join(changed[:5])}"
                             f"{' ...' if len(changed) > 5 else ''} trimmed of surrounding whitespace", source, row=1))
    if trimmed and trimmed[0] == "":
        col = df.iloc[:, 0].astype(str)
        counting = (not index_given and "d3mIndex" not in trimmed
                    and bool(col.str.fullmatch(r"\d+").all())
                    and np.array_equal(pd.to_numeric(col).to_numpy(), np.arange(len(df))))
        new = "d3mIndex" if counting else _free("unnamed_index", trimmed)
        trimmed[0] = new
        notes.append(warning("import.index_column", "", f"the first column has no name: the row "
                             f"index pandas and R write; it is {new}"
                             + ("" if counting else " (its values are not 0..n-1)"), source,
                             row=1, column=1))
    df = df.copy()
    df.columns = trimmed
    return df, notes


def _free(name: str, taken: list[str]) -> str:
    out, k = name, 1
    while out in taken:
        k += 1
        out = f"{name}_{k}"
    return out
