"""The column checks every scoring step shares: what a d3mIndex is, what a missing cell is,
how a target, a confidence or a box column parses, and how a message lists rows.

The truth reader (:mod:`d3mkit.scoring.truth`) and each predictions layout
(:mod:`d3mkit.scoring.layouts`) call these pure functions on string columns; every problem
becomes an :class:`~d3mkit.core.errors.Issue` appended to the caller's list, so that all of a
file's issues are reported at once. Locations are ``row R, column NAME`` with R the line
of the file (the header is row 1).
"""

from __future__ import annotations

import itertools
import re

import numpy as np

from d3mkit.core.errors import Issue, error, warning
from d3mkit.core.lazy import pandas as pd   # imported by the branches that use it
from d3mkit.validation import coltypes
from d3mkit.tables.columns import Categorical, code_dtype
from d3mkit.tables.csvread import record_lines

INDEX = "d3mIndex"
NUMERIC_TYPES = ("integer", "real")
SHOW = 10   # how many offending rows/indices a message lists
_BLOCK = 1 << 16   # rows per step of a whole-column pass that would otherwise copy the column
_NOT_A_NUMBER = re.compile(r"[^0-9+\-.eE\s]")   # a character outside every number's text


def read_only(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.flags.writeable = False
    return a


def rows_text(rows, total: int | None = None) -> str:
    rows = list(rows)
    shown = ", ".join(str(r) for r in rows[:SHOW])
    more = (total if total is not None else len(rows)) - min(len(rows), SHOW)
    return shown + (f" and {more} more" if more > 0 else "")


def unique_in_order(a) -> np.ndarray:
    """The distinct values of ``a`` in order of first appearance (``pandas.unique``).

    >>> unique_in_order(np.array([3, 1, 3, 2])).tolist(), unique_in_order(["b", "a", "b"]).tolist()
    ([3, 1, 2], ['b', 'a'])
    """
    a = np.asarray(a)
    if a.dtype.kind in "iub" or (a.dtype.kind == "f" and not np.isnan(a).any()):
        _, first = np.unique(a, return_index=True)
        return a[np.sort(first)]
    if a.dtype.kind not in "OUS":   # floats with NaN, dates, ...
        return np.asarray(pd.unique(a))
    keys = list(dict.fromkeys(a.tolist()))
    out = np.empty(len(keys), dtype=object)
    out[:] = keys
    return out


def group_codes(a) -> np.ndarray:
    """Each value's group: equal values share a code (integers through numpy's sort, text
    through a dict; no pandas).

    >>> group_codes(np.array([30, 10, 30])).tolist(), group_codes(np.array(["b", "a", "b"], dtype=object)).tolist()
    ([1, 0, 1], [0, 1, 0])
    """
    a = np.asarray(a)
    if a.dtype.kind in "iub":
        return np.unique(a, return_inverse=True)[1].reshape(len(a))
    at: dict = {}
    return np.fromiter((at.setdefault(v, len(at)) for v in a.tolist()), np.intp, len(a))


def duplicated(a, keep="first") -> np.ndarray:
    """``pandas.Index(a).duplicated(keep=keep)`` without pandas: with ``keep="first"`` every
    occurrence of a value after its first, with ``keep=False`` every occurrence of a value
    that occurs more than once.

    >>> duplicated(np.array([3, 1, 3, 3])).tolist(), duplicated(np.array([3, 1, 3]), keep=False).tolist()
    ([False, False, True, True], [True, False, True])
    """
    codes = group_codes(a)
    if not len(codes):
        return np.zeros(0, bool)
    if keep is False:
        return np.bincount(codes)[codes] > 1
    if keep != "first":
        raise ValueError(f"keep must be 'first' or False, not {keep!r}")
    order = np.argsort(codes, kind="stable")       # each group's rows, in row order
    later = np.zeros(len(codes), bool)
    later[1:] = codes[order][1:] == codes[order][:-1]
    out = np.empty(len(codes), bool)
    out[order] = later
    return out


def index_values(col) -> np.ndarray:
    """d3mIndex as int64 when every value is an integer of the integer colType (as an
    integer label is), else stripped strings."""
    a = np.asarray(col)
    if a.dtype.kind in "iu":
        return a.astype(np.int64, copy=False)
    # the integer colType's canonical form: "1.0" and " 1" are index 1, exactly; "2_5" and
    # full-width digits, which Python's int() reads, are not integers here either. A cell
    # holding a character no number is written with ("r12") makes the index text without
    # a number parse (which would import pandas)
    if len(a) and _NOT_A_NUMBER.search("\n".join(str(v) for v in a.tolist())):
        return np.asarray([str(v).strip() for v in a], dtype=object)
    x, bad = coltypes.canonical(a, "integer")
    if len(x) and not bad.any():
        if x.dtype == float and (x == np.round(x)).all():
            return x.astype(np.int64)
        if x.dtype == object and all(isinstance(v, int) and -2 ** 63 <= v < 2 ** 63 for v in x):
            return x.astype(np.int64)
    return np.asarray([str(v).strip() for v in a], dtype=object)


def same_kind(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if a.dtype.kind == b.dtype.kind:
        return a, b
    return a.astype(str).astype(object), b.astype(str).astype(object)


def lookup(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, bool]:
    """``(pos, unique)``: ``pos[i]`` is the position of ``values[i]`` among ``keys``, -1
    when absent; ``unique`` says whether ``keys`` has no repeated value (when it has, ``pos``
    only tells present, >= 0, from absent). Integer keys and values within a span of a few
    times their count (d3mIndex almost always is) go through one direct table, O(n) with
    no hashing; anything else (text) through a dict, so pandas is not imported.

    >>> pos, unique = lookup(np.array([10, 12, 11]), np.array([11, 13, 10]))
    >>> pos.tolist(), unique
    ([2, -1, 0], True)
    >>> lookup(np.array(["a", "b", "a"], dtype=object), np.array(["b", "c"], dtype=object))[1]
    False
    """
    if keys.dtype.kind == "i" and values.dtype.kind == "i" and len(keys):
        first, n = int(keys[0]), len(keys)
        dtype = np.int32 if n < 2 ** 31 else np.int64
        # every step in blocks of rows: no temporary of 8 bytes a row beside the result
        pos = np.empty(len(values), dtype=dtype)
        if int(keys[-1]) - first == n - 1 and all(
                (np.diff(keys[o:o + _BLOCK + 1]) == 1).all() for o in range(0, n - 1, _BLOCK)):
            for o in range(0, len(values), _BLOCK):   # keys are first, first + 1, ...: no table
                p = values[o:o + _BLOCK] - first
                p[(p < 0) | (p >= n)] = -1
                pos[o:o + _BLOCK] = p
            return pos, True
        lo = min(int(keys.min()), int(values.min()) if len(values) else int(keys.min()))
        hi = max(int(keys.max()), int(values.max()) if len(values) else int(keys.max()))
        if hi - lo < 4 * (len(keys) + len(values)) + 1024:
            table = np.full(hi - lo + 1, -1, dtype=dtype)
            for o in range(0, n, _BLOCK):
                table[keys[o:o + _BLOCK] - lo] = np.arange(o, min(o + _BLOCK, n), dtype=dtype)
            # a repeated key fills one slot
            unique = sum(int(np.count_nonzero(table[o:o + _BLOCK] >= 0))
                         for o in range(0, len(table), _BLOCK)) == n
            for o in range(0, len(values), _BLOCK):
                pos[o:o + _BLOCK] = table[values[o:o + _BLOCK] - lo]
            return pos, unique
    at = dict(zip(keys.tolist(), range(len(keys))))   # strings: a dict (no pandas)
    pos = np.fromiter(map(at.get, values.tolist(), itertools.repeat(-1)), np.intp, len(values))
    if len(at) == len(keys):
        return pos, True
    return np.where(pos >= 0, 0, -1), False


class Source(str):
    """A table's name as messages show it (its path, or ``"predictions (DataFrame)"``) that
    also numbers its rows: data row ``i`` is the physical line of the file it starts on
    (:func:`d3mkit.tables.csvread.record_lines`: blank lines and quoted newlines count,
    any line ending; read again only when a message needs it), or, for a DataFrame, the
    line the frame's CSV would give it (``i + 2``)."""

    def __new__(cls, name, file=None):
        obj = super().__new__(cls, str(name))
        obj.file = file
        obj._lines = None
        return obj

    def lines(self, pos) -> np.ndarray:
        pos = np.asarray(pos, dtype=np.int64)
        if self.file is not None and self._lines is None:
            found = record_lines(self.file)
            self._lines = found if isinstance(found, np.ndarray) else np.zeros(0, np.int64)
        known = self._lines if self._lines is not None else np.zeros(0, np.int64)
        if not len(pos) or not len(known):
            return pos + 2
        return np.where(pos < len(known), known[np.minimum(pos, len(known) - 1)], pos + 2)


def lines(pos: np.ndarray, source=None) -> np.ndarray:
    """The row numbers messages give data rows ``pos`` (0-based) of ``source``: its physical
    lines when it is a :class:`Source` of a file, else ``pos + 2`` (the header is row 1)."""
    return source.lines(pos) if isinstance(source, Source) else np.asarray(pos) + 2


def is_missing(a: np.ndarray, col_type: str | None = None) -> np.ndarray:
    """The missing cells of a column (:func:`d3mkit.validation.coltypes.is_missing`, the one
    definition: an empty cell, and a NaN of a number colType); of a
    :class:`~d3mkit.tables.columns.Categorical`, through its distinct values."""
    if isinstance(a, Categorical):
        return coltypes.is_missing(a.categories, col_type)[a.codes] if len(a.categories) \
            else np.zeros(len(a), bool)
    a = np.asarray(a)
    return coltypes.is_missing(a, col_type) if a.dtype == object else np.zeros(len(a), bool)


def parse_numeric(a: np.ndarray, name: str, path: str, code: str, what: str,
                   issues: list[Issue], positions: np.ndarray | None = None,
                   exact: bool = False) -> np.ndarray:
    """Floats; with ``exact`` the integer colType's canonical form
    (:func:`d3mkit.validation.coltypes.exact_numbers`: an object array of exact Python numbers
    when an integral value is beyond 2**53)."""
    if exact:
        vals, bad = coltypes.canonical(a, "integer")
    elif a.dtype.kind in "iuf":
        vals = a.astype(float)
        bad = ~np.isfinite(vals)
    else:
        vals = pd.to_numeric(pd.Series(a, dtype=object), errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(vals)
    if bad.any():
        pos = np.flatnonzero(bad)
        rows = lines(pos if positions is None else positions[pos], path)
        sample = str(a[pos[0]])[:40]
        issues.append(error(code, "",
                            f"{len(pos)} value(s) in column {name!r} are not {what} "
                            f"(first: {sample!r}; rows {rows_text(rows, len(pos))})", path, row=rows[0], column=name))
    return vals


def parse_target(a: np.ndarray, name: str, col_type: str, path: str,
                  issues: list[Issue], positions=None, kind: str = "predictions") -> np.ndarray:
    """Check blanks/NaN and parse per colType; returns floats or strings. Text colTypes
    are looked at once per distinct value (one factorize), then mapped back to rows."""
    return parse_labels(a, name, col_type, path, issues, positions, kind)[0]


def category_codes(col: Categorical) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, values)`` of a categorical column of strings, with only the values that
    occur (a subset of rows keeps its parent's categories)."""
    codes = np.asarray(col.codes)
    codes = codes if codes.dtype.kind == "i" else codes.astype(np.intp)
    values = np.asarray(col.categories, dtype=object)
    used = np.zeros(len(values), bool)
    used[codes] = True        # (no bincount: it would copy the codes as intp)
    if not used.all():
        remap = (np.cumsum(used) - 1).astype(code_dtype(int(used.sum())))
        codes, values = remap[codes], values[used]
    return codes, values


def parse_labels(a: np.ndarray, name: str, col_type: str, path: str, issues: list[Issue],
                  positions=None, kind: str = "predictions", order=None, values: bool = True
                  ) -> tuple[np.ndarray | None, tuple[np.ndarray, np.ndarray] | None]:
    """:func:`parse_target` and, for text colTypes, ``(codes, distinct)``: the distinct
    parsed values and each row's position among them (``vals == distinct[codes]``), else
    None; callers need not hash the rows again. ``a`` may be a
    :class:`~d3mkit.tables.columns.Categorical` (the reader's form of a text target
    column): its codes are used as they are, and no per-row array of its strings is made
    but the one returned. With ``order`` the values (and codes) are returned for the rows
    ``order``, in that order (the issues still name the rows as read). With
    ``values=False`` the per-row values are not made when ``(codes, distinct)`` is returned
    (``vals`` is then None: 8 bytes a row that a caller holding the codes need not pay)."""
    if order is not None and not (isinstance(a, Categorical) and col_type not in NUMERIC_TYPES):
        vals, distinct = parse_labels(a, name, col_type, path, issues, positions, kind, values=values)
        return (None if vals is None else vals[order]), \
            (None if distinct is None else (distinct[0][order], distinct[1]))
    codes = uniq = None
    if isinstance(a, Categorical) and col_type not in NUMERIC_TYPES:
        codes, uniq = category_codes(a)
        a = None          # the cells are uniq[codes]
    else:
        a = np.asarray(a)
    if codes is not None:
        miss = coltypes.is_missing(uniq, col_type)[codes]
    elif col_type not in NUMERIC_TYPES and a.dtype == object and len(a):
        codes, uniq = coltypes.factorize(a)
        miss = coltypes.is_missing(uniq, col_type)[codes] | (codes < 0)   # -1: None or NaN
    else:
        miss = is_missing(a, col_type)
    if miss.any():
        pos = np.flatnonzero(miss)
        rows = lines(pos if positions is None else positions[pos], path)
        issues.append(error(f"{kind}.missing_value", "",
                            f"{len(pos)} blank or NaN value(s) in column {name!r} "
                            f"(rows {rows_text(rows, len(pos))})", path, row=rows[0], column=name))
    if col_type in NUMERIC_TYPES:
        ok = ~miss
        sub_issues: list[Issue] = []
        pos_ok = np.flatnonzero(ok)
        got = parse_numeric(a[ok], name, path, f"{kind}.not_numeric",
                             f"numbers ({col_type})", sub_issues,
                             pos_ok if positions is None else positions[pos_ok],
                             exact=col_type == "integer")
        out = np.full(len(a), np.nan, dtype=got.dtype)
        out[ok] = got
        issues += sub_issues
        return out, None
    distinct = None
    if codes is None:
        vals, bad = coltypes.canonical(a, col_type)
    else:
        cu, bad_u = coltypes.canonical(uniq, col_type)
        same = len(cu) == len(uniq) and bool((cu == uniq).all())
        rows_codes = codes if order is None else codes[order]
        bad = bad_u[codes]
        if same:
            distinct = (rows_codes, uniq)
        else:   # values that differ only in form (" a", "a") share one parsed value
            ccodes, du = coltypes.factorize(cu)
            distinct = (ccodes.astype(code_dtype(len(du)))[rows_codes], du)
        if (codes < 0).any():
            distinct = None
        vals = (uniq if same else cu)[rows_codes] if values or distinct is None else None
    bad &= ~miss
    if bad.any():
        pos = np.flatnonzero(bad)
        rows = lines(pos if positions is None else positions[pos], path)
        issues.append(error(f"{kind}.bad_value", "",
                            f"{len(pos)} value(s) in column {name!r} are {coltypes.describe(col_type)} "
                            f"(colType {col_type}; first: "
                            f"{str(a[pos[0]] if a is not None else uniq[codes[pos[0]]])[:40]!r}; rows "
                            f"{rows_text(rows, len(pos))})", path, row=rows[0], column=name))
    return vals, distinct


def find_column(columns, name: str) -> tuple[str | None, list[str]]:
    hits = [c for c in columns if c.lower() == name]
    return (hits[0] if hits else None), hits


def index_issues(pred_idx, truth_idx, path, issues, what="index", *, truth_pos=None,
                  pred_pos=None) -> tuple[np.ndarray, np.ndarray]:
    """Missing/extra d3mIndex values; returns (missing, extra) masks. ``truth_pos`` /
    ``pred_pos``, when the caller has them, are :func:`lookup` (truth_idx, pred_idx) and
    (pred_idx, truth_idx)."""
    pos = lookup(truth_idx, pred_idx)[0] if truth_pos is None else truth_pos
    extra_mask = pos < 0
    present = lookup(pred_idx, truth_idx)[0] if pred_pos is None else pred_pos
    missing_mask = present < 0
    if missing_mask.any() or extra_mask.any():
        miss = truth_idx[missing_mask]
        extra = unique_in_order(pred_idx[extra_mask])
        parts = []
        if len(miss):
            parts.append(f"{len(miss)} TEST {what}(es) missing ({rows_text(miss)})")
        if len(extra):
            parts.append(f"{len(extra)} not in the TEST set ({rows_text(extra)})")
        where = {"row": lines(np.flatnonzero(extra_mask), path)[0], "column": INDEX} if len(extra) else {}
        issues.append(error("predictions.index_set", "",
                            f"d3mIndex values differ from the TEST set: {'; '.join(parts)}", path, **where))
    return missing_mask, extra_mask


def unseen_labels(pred: np.ndarray, truth: np.ndarray, name: str, path: str, issues) -> None:
    unseen = set(np.asarray(pred).tolist()) - set(np.asarray(truth).tolist())
    unseen = [u for u in unseen if not (isinstance(u, str) and u.strip() == "")]
    if unseen:
        issues.append(warning("predictions.unseen_label", "",
                              f"{len(unseen)} predicted label(s) never occur in the truth: "
                              f"{rows_text(repr(u) for u in sorted(map(str, unseen)))}", path, column=name))


def confidence_values(df, col, path, issues) -> np.ndarray:
    vals = parse_numeric(np.asarray(df[col]), col, path, "predictions.confidence",
                          "numbers", issues)
    out = (vals < 0) | (vals > 1)
    if out.any():
        pos = np.flatnonzero(out)
        rows = lines(pos, path)
        issues.append(error("predictions.confidence_range", "",
                            f"{len(pos)} confidence value(s) outside [0, 1] "
                            f"(first {float(vals[pos[0]])}; rows {rows_text(rows, len(pos))})", path, row=rows[0], column=col))
    return vals


def row_issue(issues: list[Issue], code: str, mask: np.ndarray, column: str, path, positions=None,
              values=None, what: str = "") -> None:
    """Append one error for the rows in ``mask``: located at the first (``row R, column C``),
    saying how many, the first value (from ``values``) and which rows, numbered as ``path``
    numbers them (``positions`` maps the mask's rows to the file's data rows)."""
    if not mask.any():
        return
    pos = np.flatnonzero(mask)
    rows = lines(pos if positions is None else positions[pos], path)
    first = "" if values is None else f"first {str(values[pos[0]])[:60]!r}; "
    issues.append(error(code, "",
                        f"{len(pos)} {what} ({first}rows {rows_text(rows, len(pos))})", path, row=rows[0], column=column))


def parse_boxes(a: np.ndarray, name: str, path: str, issues: list[Issue],
                positions: np.ndarray | None = None) -> np.ndarray:
    """``"x_min,y_min,x_max,y_max"`` strings (or 8-number rectangle polygons, the 4.x
    form, whose vertices must make an axis-aligned rectangle) to an ``(n, 4)`` float array;
    bad boxes become issues (``predictions.bad_box``)."""
    n = len(a)
    out = np.full((n, 4), np.nan)
    miss = is_missing(np.asarray(a, dtype=object))
    parts = pd.Series(np.asarray(a, dtype=object)).str.split(",")
    lens = parts.str.len().to_numpy()
    skewed = np.zeros(n, bool)
    for k in (4, 8):
        sel = (lens == k) & ~miss
        if sel.any():
            vals = pd.DataFrame(parts[sel].tolist()).apply(pd.to_numeric, errors="coerce").to_numpy(float)
            if k == 8:   # x_min,y_min, x_min,y_max, x_max,y_max, x_max,y_min: an axis-aligned
                # rectangle, as d3m.metrics requires (its other vertices are not read)
                rect = (vals[:, 0] == vals[:, 2]) & (vals[:, 1] == vals[:, 7]) & \
                    (vals[:, 3] == vals[:, 5]) & (vals[:, 4] == vals[:, 6])
                skew = np.isfinite(vals).all(axis=1) & ~rect
                skewed[np.flatnonzero(sel)[skew]] = True
                vals = vals[:, [0, 1, 4, 5]]
                vals[skew] = np.nan
            out[sel] = vals
    box_rule = "x_min,y_min, x_min,y_max, x_max,y_max, x_max,y_min"
    row_issue(issues, "predictions.bad_box", skewed, name, path, positions, a,
              f"bounding polygon(s) are not axis-aligned rectangles {box_rule}")
    row_issue(issues, "predictions.bad_box", ~np.isfinite(out).all(axis=1) & ~skewed, name, path,
              positions, a, "bounding box(es) are not 4 comma-separated numbers x_min,y_min,x_max,y_max")
    inverted = np.isfinite(out).all(axis=1) & ((out[:, 2] < out[:, 0]) | (out[:, 3] < out[:, 1]))
    row_issue(issues, "predictions.bad_box", inverted, name, path, positions, None,
              "bounding box(es) have x_max < x_min or y_max < y_min")
    return out
