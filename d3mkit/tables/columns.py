"""The table the scoring pipeline passes between its steps: :class:`ColumnTable`, named
numpy columns, and :class:`Categorical`, a text column as codes into its distinct values.

The scorer reads its inputs (predictions, a targets table, the TEST rows of learningData,
dataSplits) into this small type instead of a pandas DataFrame, so that scoring a CSV
file never imports pandas (docs/performance.md says what that saves). A column is an
``int64`` array (a d3mIndex that is all integers), an object array of strings, or a
:class:`Categorical` (a label column: the reader hashed its cells once). ``np.asarray``
of any column gives its values.

>>> t = ColumnTable({"d3mIndex": np.array([3, 1]), "y": Categorical(np.array([1, 0]),
...                  np.array(["a", "b"], dtype=object))})
>>> t.columns, len(t), np.asarray(t["y"]).tolist()
(['d3mIndex', 'y'], 2, ['b', 'a'])
>>> s = t.take(np.array([1]))
>>> s["d3mIndex"].tolist(), np.asarray(s["y"]).tolist()
([1], ['a'])
"""

from __future__ import annotations

import numpy as np


def int_dtype(lo: int, hi: int) -> np.dtype:
    """The narrowest signed integer dtype holding ``lo`` and ``hi`` (the one owner of this
    choice: codes, validation's integer columns).

    >>> [int_dtype(lo, hi).name for lo, hi in ((-1, 127), (-129, 0), (0, 40000), (0, 2 ** 31))]
    ['int8', 'int16', 'int32', 'int64']
    """
    for dt in (np.int8, np.int16, np.int32):
        info = np.iinfo(dt)
        if info.min <= lo and hi <= info.max:
            return np.dtype(dt)
    return np.dtype(np.int64)


def code_dtype(n: int) -> np.dtype:
    """The smallest signed integer dtype holding the codes ``0 .. n-1`` of ``n`` values
    (and ``-1``): a label column of 10^6 rows with a few labels is 1 MB of ``int8`` codes,
    not 8 MB of ``intp``.

    >>> [code_dtype(n).name for n in (10, 128, 129, 40000, 2 ** 31 + 1)]
    ['int8', 'int8', 'int16', 'int32', 'int64']
    """
    return int_dtype(-1, n - 1)


class Categorical:
    """A column of strings as ``codes`` (a signed integer array, one per row, of any width:
    the readers give the smallest, :func:`code_dtype`) into ``categories`` (an object
    array of distinct strings): ``values == categories[codes]``."""

    __slots__ = ("codes", "categories")
    dtype = np.dtype(object)

    def __init__(self, codes: np.ndarray, categories: np.ndarray):
        self.codes = codes
        self.categories = categories

    def __len__(self) -> int:
        return len(self.codes)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        out = self.categories[self.codes]
        return out if dtype is None else out.astype(dtype)

    def to_numpy(self) -> np.ndarray:
        return np.asarray(self)

    def take(self, rows) -> "Categorical":
        return Categorical(self.codes[rows], self.categories)


class ColumnTable:
    """Named columns of one length (numpy arrays or :class:`Categorical`), in file order.
    ``attrs`` carries what a reader knows beside the columns (``header``: the whole header
    when only some columns were parsed)."""

    def __init__(self, columns: dict, attrs: dict | None = None):
        self._cols = dict(columns)
        self.attrs = dict(attrs or {})
        lengths = {len(c) for c in self._cols.values()}
        if len(lengths) > 1:
            raise ValueError(f"columns of different lengths: {sorted(lengths)}")
        self._len = lengths.pop() if lengths else 0

    @property
    def columns(self) -> list[str]:
        return list(self._cols)

    def __getitem__(self, name: str):
        return self._cols[name]

    def __contains__(self, name: str) -> bool:
        return name in self._cols

    def __len__(self) -> int:
        return self._len

    def take(self, rows) -> "ColumnTable":
        """The rows ``rows`` (positions or a boolean mask), every column."""
        return ColumnTable({k: v.take(rows) if isinstance(v, Categorical) else v[rows]
                            for k, v in self._cols.items()}, self.attrs)

    def assign(self, **columns) -> "ColumnTable":
        """A table with ``columns`` added (or replaced)."""
        return ColumnTable({**self._cols, **columns}, self.attrs)

    @classmethod
    def from_frame(cls, df) -> "ColumnTable":
        """A pandas DataFrame of strings as the reader returns it (a ``category`` column
        becomes a :class:`Categorical`, anything else its numpy values)."""
        cols = {}
        for name in df.columns:
            col = df[name]
            if col.dtype.name == "category":
                cols[str(name)] = Categorical(col.cat.codes.to_numpy(),   # pandas' smallest width
                                              np.asarray(col.cat.categories, dtype=object))
            else:
                a = col.to_numpy()
                cols[str(name)] = a if a.dtype.kind in "iu" else a.astype(object, copy=False)
        return cls(cols, dict(df.attrs))


def dense_span(*arrays: np.ndarray) -> tuple[int, int] | None:
    """``(lowest value, span)`` of integer arrays whose values lie in a range at most twice
    their total length (plus 1024), where a table indexed by value beats sorting; else None.

    >>> dense_span(np.array([5, 7]), np.array([6])), dense_span(np.array([0, 10**9]))
    ((5, 3), None)
    """
    arrays = [a for a in arrays if len(a)]
    if not arrays or any(a.dtype.kind not in "iu" for a in arrays):
        return None
    lo = min(int(a.min()) for a in arrays)
    hi = max(int(a.max()) for a in arrays)
    span = hi - lo + 1
    return (lo, span) if span <= 2 * sum(len(a) for a in arrays) + 1024 else None


def first_index(codes: np.ndarray, k: int) -> np.ndarray:
    """Per code 0..k-1, the position of its first occurrence in ``codes`` (-1 when absent;
    negative codes are ignored).

    >>> first_index(np.array([2, 0, 2, -1]), 4).tolist()
    [1, -1, 0, -1]
    """
    n = len(codes)
    small = np.int32 if n < 2 ** 31 else np.intp         # positions in 4 bytes where they fit
    first = np.full(k, n, dtype=small)
    ok = codes >= 0
    if ok.all():
        np.minimum.at(first, codes, np.arange(n, dtype=small))
    else:
        np.minimum.at(first, codes[ok], np.flatnonzero(ok).astype(small))
    first[first == n] = -1
    return first
