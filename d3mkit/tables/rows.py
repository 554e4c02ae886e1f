"""The issues of many rows of a table.

What this module owns: how a data row is numbered in an issue (its ``row`` field is the line
of the file, the header being row 1, so data row ``pos`` is ``pos + 2``) and the rule that
one issue is written per row up to :data:`MAX_ROW_ISSUES`, then one summary — for every
table reader and check. Locations are fields of the issue, rendered by
:class:`~d3mkit.core.errors.Issue`.

>>> [i.location for i in row_issues("index.empty", [0, 1], "d3mIndex", lambda r: "empty", max_rows=1)]
['row 2, column d3mIndex', 'column d3mIndex']
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from d3mkit.core.codes import make
from d3mkit.core.errors import Issue

MAX_ROW_ISSUES = 10


def row_issues(code: str, rows: Sequence[int] | np.ndarray, column: str | None,
               message: Callable[[int], str], path: str = "", severity: str | None = None,
               max_rows: int = MAX_ROW_ISSUES, what: str = "rows") -> list[Issue]:
    """One issue per row in ``rows`` up to ``max_rows``, then one summary issue."""
    rows = np.asarray(rows)
    out = [make(code, "", message(int(r)), path, severity, row=int(r) + 2, column=column)
           for r in rows[:max_rows]]
    if len(rows) > max_rows:
        out.append(make(code, "", f"... and {len(rows) - max_rows} more {what} with the same problem "
                                  f"({len(rows)} in all)", path, severity, column=column))
    return out
