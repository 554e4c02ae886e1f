"""Small helpers every check uses: type-guarded access to parsed JSON (documents can hold
anything), integer uniques, short quoting of cell values, and bounded issue lists (the
per-row ones, :func:`row_issues`, are :mod:`d3mkit.tables.rows`').

>>> as_int(True), as_int(3), as_int("3")
(None, 3, None)
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from d3mkit.core.errors import Issue
from d3mkit.validation.codes import make
from d3mkit.tables.columns import dense_span, first_index  # noqa: F401  (validation's checks use them)
from d3mkit.tables.rows import MAX_ROW_ISSUES, row_issues  # noqa: F401



def as_dict(x: Any) -> dict:
    return x if isinstance(x, dict) else {}


def as_list(x: Any) -> list:
    return x if isinstance(x, list) else []


def as_int(x: Any) -> int | None:
    return x if isinstance(x, int) and not isinstance(x, bool) else None


def as_str(x: Any) -> str | None:
    return x if isinstance(x, str) else None


def as_number(x: Any) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None






def sorted_unique(a: np.ndarray, return_index: bool = False):
    """``np.unique`` of an integer array by sorting, whatever numpy's default path is:
    numpy 2.3+ takes a hash table for a plain ``np.unique`` of ints, much slower than a
    sort on large arrays (docs/performance.md); values in a narrow range
    (:func:`dense_span`) are found with a table indexed by value, without sorting. With
    ``return_index``, also the position of each value's first occurrence (as ``np.unique``
    gives it).

    >>> sorted_unique(np.array([3, 1, 3, 2])).tolist()
    [1, 2, 3]
    >>> [x.tolist() for x in sorted_unique(np.array([3, 1, 3, 2]), return_index=True)]
    [[1, 2, 3], [1, 3, 0]]
    >>> [x.tolist() for x in sorted_unique(np.array([10**12, 5, 10**12]), return_index=True)]
    [[5, 1000000000000], [1, 0]]
    """
    a = np.asarray(a)
    dense = dense_span(a) if a.dtype.kind in "iu" else None
    if dense is not None:
        lo, span = dense
        at = np.subtract(a, np.int64(lo), dtype=np.int32 if span < 2 ** 31 else np.intp)
        if return_index:
            first = first_index(at, span)
            vals = np.flatnonzero(first >= 0)
            return (vals + lo).astype(a.dtype), first[vals]
        present = np.zeros(span, dtype=bool)
        present[at] = True
        return (np.flatnonzero(present) + lo).astype(a.dtype)
    order = np.argsort(a, kind="stable") if return_index else None
    s = a[order] if return_index else np.sort(a)
    first = np.ones(len(s), dtype=bool)
    first[1:] = s[1:] != s[:-1]
    return (s[first], order[first]) if return_index else s[first]



def short(value: Any, limit: int = 60) -> str:
    """Quoted text of a cell value (numbers as read), cut to ``limit`` characters."""
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()   # numpy scalar -> Python
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    r = repr(value if isinstance(value, str) else str(value))
    return r if len(r) <= limit else r[:limit - 3] + "..."



def bounded(issues: Iterable[Issue], code: str, max_items: int = MAX_ROW_ISSUES,
            location: str = "", path: str = "") -> list[Issue]:
    """At most ``max_items`` of ``issues`` plus a summary of the rest."""
    items = list(issues)
    if len(items) <= max_items:
        return items
    rest = len(items) - max_items
    return items[:max_items] + [make(code, location, f"... and {rest} more of the same ({len(items)} in all)",
                                     path, items[0].severity)]
