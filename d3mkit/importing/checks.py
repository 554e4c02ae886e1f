"""The refusals of an import that look at the header and the given options.

What this module owns: the checks on column names, the targets, ``types`` overrides (a
given colType against the cells), ``--ignore`` and ``--target`` as written — each refusal
one issue with an ``import.*`` code (:func:`fail`), raised before anything is written.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from d3mkit.core.errors import D3MKitError, EXIT_USAGE, error
from d3mkit.importing import infer
from d3mkit.importing.options import ImportOptions

_ODD = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\ufeff]")


def fail(source: str, code: str, where: dict | str, message: str, exit_code: int = 1):
    """Raise the one error of an import's refusal; ``where`` the location as fields
    (``dict(row=, column=)``, rendered by :class:`~d3mkit.core.errors.Issue`) or ``""``."""
    raise D3MKitError(error(code, "", message, source, **(where or {})), exit_code)


def check_names(columns: list[str], source: str) -> None:
    """Column names: none empty, none repeated, none with control characters or leading/
    trailing whitespace (``import.column_name``, ``csv.duplicate_header``)."""
    seen: set[str] = set()
    for i, c in enumerate(columns):
        if c in seen:
            fail(source, "csv.duplicate_header", dict(row=1, column=c), f"column name {c!r} appears twice")
        seen.add(c)
        if c.strip() == "":
            fail(source, "import.column_name", dict(row=1), f"column {i + 1} has an empty name")
        if c != c.strip() or _ODD.search(c):
            fail(source, "import.column_name", dict(row=1), f"column {i + 1} name {c!r} has control characters "
                  f"or leading/trailing whitespace")


def check_given(levels: np.ndarray, given: str, column: str, cells, row0: int, source: str) -> None:
    """Refuse a colType given for ``column`` (``types``, or a source's declaration) that one
    of its distinct non-empty cells ``levels`` contradicts, naming the first such row
    (``cells`` the column's cells, the first of them on row ``row0``)."""
    from d3mkit.validation.coltypes import bad_rows, describe
    if given not in infer.OVERRIDABLE:
        fail(source, "import.types", dict(column=column), f"unknown colType {given!r} "
              f"(one of {', '.join(infer.OVERRIDABLE)})", EXIT_USAGE)
    if given in ("categorical", "string") or not len(levels):
        return
    bad = bad_rows(pd.Series(levels, dtype="category"), given)
    if len(bad):
        value = levels[int(bad[0])]
        row = int(np.flatnonzero(np.asarray(cells, dtype=object) == value)[0])
        fail(source, "import.types", dict(row=row0 + row, column=column),
              f"value {value!r} is {describe(given)}, yet the column was given colType {given!r}")


def check_header(columns: list[str], targets: list[str], opts: ImportOptions, source: str) -> None:
    """The checks on the header alone: names, the targets, the columns ``types`` names."""
    if not targets:
        fail(source, "import.target", "", "no target column was given", EXIT_USAGE)
    check_names(columns, source)
    for t in targets:
        if t not in columns:
            from d3mkit.core.errors import close_match
            near = close_match(t, columns)
            fail(source, "import.target", dict(row=1), f"target column {t!r} is not in the table"
                  + (f" (did you mean {near!r}?)" if near else "") + f"; its columns: {listed(columns)}",
                  EXIT_USAGE)
        if t == "d3mIndex" or t == opts.index:
            fail(source, "import.target", dict(column=t), "the index column cannot be a target", EXIT_USAGE)
    unknown = [c for c in opts.types if c not in columns]
    if unknown:
        fail(source, "import.types", "", f"types name column(s) not in the table: "
              f"{', '.join(repr(c) for c in unknown[:10])}", EXIT_USAGE)


def listed(columns: list[str], most: int = 30) -> str:
    shown = ", ".join(repr(c) for c in columns[:most])
    return shown + (f" ... ({len(columns)} in all)" if len(columns) > most else "")


def resolve_target(opts: ImportOptions, columns: list[str]) -> None:
    """``--target`` as given names one column when it is exactly a column's name (``a,b`` may
    be a name), else the comma-separated columns it lists."""
    if opts.target_text is not None:
        for name in (opts.target_text, opts.target_text.strip()):    # a header trimmed of spaces: trimmed too
            if name in columns:
                opts.target = [name]
                return


def drop_ignored(df: pd.DataFrame, opts: ImportOptions, source: str) -> pd.DataFrame:
    """``df`` without the ``--ignore`` columns (each must be in the table)."""
    if not opts.ignore:
        return df
    cols = [str(c) for c in df.columns]
    for c in opts.ignore:
        if c not in cols:
            from d3mkit.core.errors import close_match
            near = close_match(c, cols)
            fail(source, "import.ignore", dict(row=1), f"--ignore names {c!r}, which is not a column"
                  + (f" (did you mean {near!r}?)" if near else "") + f"; its columns: {listed(cols)}", EXIT_USAGE)
    return df.drop(columns=list(opts.ignore))
