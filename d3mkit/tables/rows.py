"""Where a finding sits in a table, and the issues of many rows.

What this module owns: the text of a data row's location (``row R, column C``: R the line
of the file, the header being row 1) and the rule that one issue is written per row up to
:data:`MAX_ROW_ISSUES`, then one summary — for every table reader and check.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from d3mkit.core.codes import make
from d3mkit.core.errors import Issue

MAX_ROW_ISSUES = 10


def row_location(pos: int, column: str | None = None) -> str:
    """Location of data row ``pos`` (0-based position after the header)."""
    loc = f"row {int(pos) + 2}"
    return f"{loc}, column {column}" if column is not None else loc


def row_issues(code: str, rows: Sequence[int] | np.ndarray, column: str | None,
               message: Callable[[int], str], path: str = "", severity: str | None = None,
               max_rows: int = MAX_ROW_ISSUES, what: str = "rows") -> list[Issue]:
    """One issue per row in ``rows`` up to ``max_rows``, then one summary issue."""
    rows = np.asarray(rows)
    out = [make(code, row_location(r, column), message(int(r)), path, severity)
           for r in rows[:max_rows]]
    if len(rows) > max_rows:
        where = f"column {column}" if column is not None else ""
        out.append(make(code, where, f"... and {len(rows) - max_rows} more {what} with the same problem "
                                     f"({len(rows)} in all)", path, severity))
    return out
