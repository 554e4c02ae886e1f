"""Comparable keys for index and foreign-key values read from different CSV files.

A column the reader parsed as integers (no empty cell) keys as its ``int64`` values (fast);
any other becomes codes into canonical strings, numbers written alike ("7", "7.0") giving
the same key, so a d3mIndex of 7 in learningData matches "7.0" in dataSplits. Keys of two
columns compare as ints when both are, else as strings (an int as its decimal text).
Everything works on the distinct values and on integer codes (no string per row).

>>> from d3mkit.tables.tablecols import Ints, Texts
>>> k = keys(Texts(np.array([0, 1, -1]), np.array(["7.0", "a"], dtype=object)))
>>> k.uniq.tolist(), k.codes.tolist()
(['7', 'a'], [0, 1, -1])
>>> isin(keys(Ints(np.array([7, 8]))), k).tolist()
[True, False]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from d3mkit.validation.coltypes import exact_numbers
from d3mkit.validation.common import dense_span, first_index, sorted_unique
from d3mkit.tables.tablecols import Floats, Ints, Texts, lookup, offsets

_PLAIN_INT = re.compile(r"-?[0-9]{1,40}")
_MAYBE_NUMBER = re.compile(r"[\s0-9+\-.eEnNaAiIfFtTyY]*")


def _canon(values: np.ndarray) -> np.ndarray:
    """Canonical strings for distinct values: integral numbers as exact ints (the integer
    colType's form, :func:`d3mkit.validation.coltypes.exact_numbers`; 9007199254740993.0 is
    9007199254740993, never 9007199254740992), others as read. A text of digits is its int
    and a text that cannot be a number is itself, without asking pandas.

    >>> _canon(np.asarray(["9007199254740993.0", " 7", "7.5", "a", "007"], dtype=object)).tolist()
    ['9007199254740993', '7', '7.5', 'a', '7']
    """
    strs = np.asarray([str(v) for v in values], dtype=object)
    out = strs.copy()
    rest = []
    for i, v in enumerate(strs.tolist()):
        if _PLAIN_INT.fullmatch(v):
            out[i] = str(int(v))
        elif _MAYBE_NUMBER.fullmatch(v):
            rest.append(i)
    if not rest:
        return out
    rest_a = np.asarray(rest, dtype=np.intp)
    x = exact_numbers(strs[rest_a])
    if x.dtype == object:
        integral = np.fromiter((isinstance(v, int) for v in x), bool, len(x))
        out[rest_a[integral]] = [str(v) for v in x[integral]]
        return out
    with np.errstate(invalid="ignore"):
        integral = np.isfinite(x) & (np.floor(x) == x)
    out[rest_a[integral]] = [str(int(v)) for v in x[integral]]
    return out


@dataclass
class Keys:
    """The keys of one column: ``ints`` (int64 per row, no missing value), or ``codes`` (per
    row, -1 where missing) into ``uniq`` (distinct canonical strings)."""

    ints: np.ndarray | None = None
    codes: np.ndarray | None = None
    uniq: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.ints) if self.ints is not None else len(self.codes)

    def missing(self) -> np.ndarray:
        return np.zeros(len(self.ints), dtype=bool) if self.ints is not None else self.codes < 0

    def take(self, rows) -> "Keys":
        return Keys(ints=self.ints[rows]) if self.ints is not None else Keys(codes=self.codes[rows], uniq=self.uniq)

    def strings(self) -> tuple[np.ndarray, np.ndarray]:
        """``(codes, distinct strings)``: int keys as their decimal texts."""
        if self.ints is None:
            return self.codes, self.uniq
        u, codes = _factor_ints(self.ints)
        return codes, np.asarray([str(v) for v in u.tolist()], dtype=object)

    def spread(self) -> tuple[np.ndarray, int]:
        """:meth:`factor` without compacting int keys in a narrow range: their offsets from
        the lowest, and the span (codes equal where keys are; some codes unused)."""
        if self.ints is not None:
            dense = dense_span(self.ints)
            if dense is not None:
                return offsets(self.ints, *dense), dense[1]
        return self.factor()

    def factor(self) -> tuple[np.ndarray, int]:
        """Per row a code (equal keys, equal codes; -1 missing) and how many codes."""
        if self.ints is None:
            return self.codes, len(self.uniq)
        u, codes = _factor_ints(self.ints)
        return codes, len(u)


def _factor_ints(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values of an int array and each row's position among them."""
    dense = dense_span(a)
    if dense is not None:      # a table indexed by value: no sort, no binary search
        lo, span = dense
        at = offsets(a, lo, span)
        present = np.zeros(span, dtype=bool)
        present[at] = True
        rank = np.cumsum(present, dtype=np.int32 if span < 2 ** 31 else np.intp)
        rank -= 1
        return np.flatnonzero(present) + lo, rank[at]
    u = sorted_unique(a)
    return u, np.searchsorted(u, a).astype(np.intp)


def _merge(codes: np.ndarray, canon: np.ndarray) -> Keys:
    """Keys from per-row ``codes`` into values whose canonical strings may repeat."""
    seen: dict[str, int] = {}
    remap = np.fromiter((seen.setdefault(c, len(seen)) for c in canon.tolist()), np.int64, len(canon))
    uniq = np.empty(len(seen), dtype=object)
    uniq[:] = list(seen)
    if len(uniq) == len(canon) and (remap == np.arange(len(canon))).all():
        return Keys(codes=codes, uniq=uniq)
    out = lookup(remap, codes)
    return Keys(codes=out, uniq=uniq)


def keys(col) -> Keys:
    """The keys of a column (:mod:`d3mkit.tables.tablecols`)."""
    if isinstance(col, Ints) and col.na is None:
        return Keys(ints=col.values)
    if isinstance(col, Texts):
        return _merge(col.codes, _canon(col.cats))
    present = ~col.missing()
    vals = col.values[present]
    if isinstance(col, Floats):
        u = np.unique(vals)
        codes_p = np.searchsorted(u, vals)
        canon = _canon(np.asarray(u.tolist(), dtype=object))
    else:
        u, codes_p = _factor_ints(vals)
        canon = np.asarray([str(v) for v in u.tolist()], dtype=object)
    codes = np.full(len(col), -1, dtype=np.int64)
    codes[present] = codes_p
    return _merge(codes, canon)


def _to_strings(a: Keys, b: Keys):
    """Both keys as (codes, distinct strings)."""
    return a.strings(), b.strings()


def isin(a: Keys, b: Keys) -> np.ndarray:
    """Per row of ``a``: whether its key occurs in ``b`` (a missing key never does)."""
    if a.ints is not None and b.ints is not None:
        dense = dense_span(a.ints, b.ints)
        if dense is not None:
            lo, span = dense
            present = np.zeros(span, dtype=bool)
            present[offsets(b.ints, lo, span)] = True
            return present[offsets(a.ints, lo, span)]
        u = sorted_unique(b.ints)
        if not len(u):
            return np.zeros(len(a), dtype=bool)
        pos = np.minimum(np.searchsorted(u, a.ints), len(u) - 1)
        return u[pos] == a.ints
    (ca, ua), (cb, ub) = _to_strings(a, b)
    pool = set(ub[np.unique(cb[cb >= 0])].tolist()) if len(ub) else set()
    hit = np.fromiter((v in pool for v in ua.tolist()), bool, len(ua))
    return (ca >= 0) & lookup(hit, ca, False)


def first_rows(a: Keys, b: Keys) -> np.ndarray:
    """Per row of ``a``: the first row of ``b`` with the same key, or -1."""
    if a.ints is not None and b.ints is not None:
        dense = dense_span(a.ints, b.ints)
        if dense is not None:
            lo, span = dense
            return first_index(offsets(b.ints, lo, span), span)[offsets(a.ints, lo, span)]
        order = np.argsort(b.ints, kind="stable")
        s = b.ints[order]
        if not len(s):
            return np.full(len(a), -1, dtype=np.intp)
        pos = np.minimum(np.searchsorted(s, a.ints), len(s) - 1)
        return np.where(s[pos] == a.ints, order[pos], -1)
    (ca, ua), (cb, ub) = _to_strings(a, b)
    first = first_index(cb, len(ub))
    where = {v: i for i, v in enumerate(ub.tolist())}
    to_b = np.fromiter((where.get(v, -1) for v in ua.tolist()), np.intp, len(ua))
    return lookup(lookup(first, to_b), ca)


def joint(a: Keys, b: Keys) -> tuple[np.ndarray, np.ndarray]:
    """Codes of both in one code space (equal keys, equal codes; -1 missing)."""
    if a.ints is not None and b.ints is not None:
        dense = dense_span(a.ints, b.ints)
        if dense is not None:
            return offsets(a.ints, *dense), offsets(b.ints, *dense)
        u = sorted_unique(np.concatenate([a.ints, b.ints]))
        return np.searchsorted(u, a.ints).astype(np.intp), np.searchsorted(u, b.ints).astype(np.intp)
    (ca, ua), (cb, ub) = _to_strings(a, b)
    where: dict[str, int] = {}
    ma = np.fromiter((where.setdefault(v, len(where)) for v in ua.tolist()), np.intp, len(ua))
    mb = np.fromiter((where.setdefault(v, len(where)) for v in ub.tolist()), np.intp, len(ub))
    return lookup(ma, ca), lookup(mb, cb)
