"""The columns of a table read for validation, as numpy arrays: what every dataset and
dataSplits check reads, whichever reader parsed the file.

Three kinds, each the reading pandas' C parser gave the checks before (so every message
quotes the same values):

* :class:`Ints`: a column declared ``integer`` whose non-empty cells are integers: int64
  values and a mask of the empty cells (pandas' ``Int64``);
* :class:`Floats`: a column declared ``real`` whose cells are numbers: float64, NaN where
  empty;
* :class:`Texts`: any other column: per row a code into the distinct values (-1 where the
  cell is empty), the values as written (pandas' ``category``; a column of only
  ``true``/``false`` spellings holds booleans, as pandas infers them).

A check asks a column for its missing cells (:meth:`missing`), the value of one row for a
message (:meth:`at`: what ``Series.iloc`` gave, so :func:`~d3mkit.validation.common.short`
prints it alike) and its codes. Nothing here imports pandas; :func:`from_frame` converts
the frame of the general reader.

>>> t = Texts(np.array([1, -1, 0], dtype=np.int32), np.array(["a", "b"], dtype=object))
>>> t.missing().tolist(), t.at(0), t.at(1)
([False, True, False], 'b', nan)
>>> i = Ints(np.array([3, 0]), np.array([False, True]))
>>> i.at(0), str(i.at(1)), i.missing().tolist()
(3, '<NA>', [False, True])
"""

from __future__ import annotations

import numpy as np

from d3mkit.tables.columns import code_dtype, dense_span, first_index, int_dtype


class _Missing:
    """The value of an empty cell of an :class:`Ints` column (pandas' ``<NA>``)."""

    def __str__(self) -> str:
        return "<NA>"

    __repr__ = __str__


NA = _Missing()


class Ints:
    """int64 ``values`` (0 where empty) and ``na`` (a bool mask, or None when no cell is
    empty)."""

    __slots__ = ("values", "na")
    kind = "int"

    def __init__(self, values: np.ndarray, na: np.ndarray | None = None):
        self.values = values
        self.na = na if na is not None and na.any() else None

    def __len__(self) -> int:
        return len(self.values)

    def missing(self) -> np.ndarray:
        return self.na.copy() if self.na is not None else np.zeros(len(self.values), dtype=bool)

    def at(self, r: int):
        return NA if self.na is not None and self.na[r] else int(self.values[r])


class Floats:
    """float64 ``values``, NaN where empty."""

    __slots__ = ("values",)
    kind = "float"

    def __init__(self, values: np.ndarray):
        self.values = values

    def __len__(self) -> int:
        return len(self.values)

    def missing(self) -> np.ndarray:
        return np.isnan(self.values)

    def at(self, r: int):
        return float(self.values[r])


class Texts:
    """``codes`` (an integer array, -1 where empty) into the distinct values: ``cats`` (an
    object array), or, for a column of many distinct texts (file names), ``raw``: their
    UTF-8 bytes as a sorted numpy ``S`` array, a few bytes each instead of a Python string
    each (``cats`` then decodes them on each use, :meth:`at` one). A column read as
    ``cells`` (each row's bytes, ``b""`` where empty) finds its codes and ``raw`` when first
    asked (:func:`distinct_bytes`); a check that reads only the rows (the collection items)
    never sorts them."""

    __slots__ = ("_codes", "_cats", "raw", "cells")
    kind = "text"

    def __init__(self, codes: np.ndarray | None = None, cats: np.ndarray | None = None,
                 raw: np.ndarray | None = None, cells: np.ndarray | None = None):
        self._codes = codes
        self._cats = cats
        self.raw = raw
        self.cells = cells

    @property
    def codes(self) -> np.ndarray:
        if self._codes is None:
            self._codes, self.raw = distinct_bytes(self.cells)
            self.cells = None
        return self._codes

    @property
    def cats(self) -> np.ndarray:
        if self._cats is not None:
            return self._cats
        raw = self.raw if self._codes is not None else (self.codes, self.raw)[1]
        out = np.empty(len(raw), dtype=object)
        out[:] = [b.decode("utf-8") for b in raw.tolist()]
        return out

    @property
    def ncats(self) -> int:
        return len(self._cats) if self._cats is not None else len((self.codes, self.raw)[1])

    def __len__(self) -> int:
        return len(self.cells) if self.cells is not None else len(self._codes)

    def missing(self) -> np.ndarray:
        return self.cells == b"" if self.cells is not None else self._codes < 0

    def at(self, r: int):
        if self.cells is not None:
            v = self.cells[r]
            return v.decode("utf-8") if v != b"" else float("nan")
        c = int(self._codes[r])
        if c < 0:
            return float("nan")
        return self._cats[c] if self._cats is not None else self.raw[c].decode("utf-8")


def distinct_bytes(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, distinct)`` of an ``S`` array: each row's position in the sorted distinct
    non-empty values (-1 for ``b""``)."""
    order = np.argsort(cells, kind="stable")
    srt = cells[order]
    first = np.ones(len(srt), dtype=bool)
    first[1:] = srt[1:] != srt[:-1]
    raw = srt[first]
    del srt
    codes = np.empty(len(cells), dtype=np.int32 if len(raw) < 2 ** 31 else np.int64)
    codes[order] = np.cumsum(first, dtype=codes.dtype)
    del order, first
    codes -= 1
    if len(raw) and raw[0] == b"":
        raw = raw[1:]
        codes -= 1
    return codes, raw


Column = Ints | Floats | Texts

#: the cells pandas' parser reads as booleans (its default true and false values)
BOOL_TEXTS = {"True": True, "TRUE": True, "true": True, "False": False, "FALSE": False, "false": False}


def text_cats(texts: list[str]) -> np.ndarray:
    """The categories of distinct non-empty ``texts`` as pandas gives them: booleans when
    every text is a true/false spelling of its parser, else the texts."""
    out = np.empty(len(texts), dtype=object)
    if texts and all(t in BOOL_TEXTS for t in texts):
        out[:] = [BOOL_TEXTS[t] for t in texts]
    else:
        out[:] = texts
    return out


def narrow(values: np.ndarray) -> np.ndarray:
    """An integer array in the narrowest signed type that holds its values."""
    if not len(values):
        return values
    return values.astype(int_dtype(int(values.min()), int(values.max())), copy=False)


def offsets(values: np.ndarray, lo: int, span: int) -> np.ndarray:
    """``values - lo`` (values in ``[lo, lo + span)``) as int32 when that holds the span,
    else intp, whatever the values' own integer type."""
    return np.subtract(values, np.int64(lo), dtype=np.int32 if span < 2 ** 31 else np.intp)   # wraps exactly


def small_codes(codes: np.ndarray, k: int) -> np.ndarray:
    """``codes`` (-1..k-1) in the narrowest signed integer type that holds them."""
    return codes.astype(code_dtype(k), copy=False)


def from_frame(df) -> dict[int, Column]:
    """The columns of a frame of the general reader (``Int64``, ``float64`` and ``category``
    columns by position), converted column by column."""
    import pandas as pd
    out: dict[int, Column] = {}
    for i in list(df.columns):
        col = df[i]
        if isinstance(col.dtype, pd.CategoricalDtype):
            cats = col.cat.categories.to_numpy(dtype=object)
            if len(cats) and all(isinstance(c, str) for c in cats):
                cats = text_cats(cats.tolist())     # pandas 2 keeps true/false texts; 3 infers booleans
            out[i] = Texts(small_codes(col.cat.codes.to_numpy(), len(cats)), cats)
        elif pd.api.types.is_integer_dtype(col.dtype):
            na = col.isna().to_numpy()
            out[i] = Ints(col.to_numpy(dtype=np.int64, na_value=0), na)
        elif pd.api.types.is_float_dtype(col.dtype):
            out[i] = Floats(col.to_numpy(dtype=np.float64))
        else:
            codes, uniq = pd.factorize(col, use_na_sentinel=True)
            out[i] = Texts(small_codes(codes, len(uniq)), np.asarray(uniq, dtype=object))
    return out


def raw_codes(col: Column) -> tuple[np.ndarray, int]:
    """Per row a code of its value as read (equal values, equal codes; -1 where missing)
    and how many codes: what pandas' ``duplicated`` and ``factorize`` compare. An int
    column in a narrow range codes as its value minus the lowest (no sort; some codes may
    be unused)."""
    if isinstance(col, Texts):
        return col.codes, col.ncats
    present = ~col.missing()
    every = bool(present.all())
    vals = col.values if every else col.values[present]
    dense = dense_span(vals) if isinstance(col, Ints) else None
    if dense is not None:
        inv, k = offsets(vals, *dense), dense[1]
    else:
        order = np.argsort(vals, kind="stable")
        s = vals[order]
        first = np.ones(len(s), dtype=bool)
        first[1:] = s[1:] != s[:-1]
        del s
        inv = np.empty(len(vals), dtype=np.intp)
        inv[order] = np.cumsum(first) - 1
        k = int(first.sum())
    if every:
        return inv, k
    codes = np.full(len(col), -1, dtype=np.intp)
    codes[present] = inv
    return codes, k


def first_row(codes: np.ndarray, k: int) -> np.ndarray:
    """Per code (0..k-1), the first row holding it (-1 when none)."""
    return first_index(codes, k)


def distinct_values(col: Column) -> tuple[np.ndarray, list]:
    """:func:`raw_codes` and the value of each code (None for a code no row holds)."""
    if isinstance(col, Texts):
        return col.codes, col.cats.tolist()
    codes, k = raw_codes(col)
    return codes, [col.at(int(r)) if r >= 0 else None for r in first_row(codes, k)]


def joint_raw(a: Column, b: Column) -> tuple[np.ndarray, np.ndarray, int]:
    """Codes of the values of two columns in one code space (equal values as read, equal
    codes; -1 where missing) and how many codes."""
    ca, va = distinct_values(a)
    cb, vb = distinct_values(b)
    where: dict = {}
    ma = np.fromiter((where.setdefault(v, len(where)) for v in va), np.intp, len(va))
    mb = np.fromiter((where.setdefault(v, len(where)) for v in vb), np.intp, len(vb))
    return lookup(ma, ca), lookup(mb, cb), len(where)


def lookup(table: np.ndarray, codes: np.ndarray, fill=-1) -> np.ndarray:
    """``table[codes]`` where a code is >= 0, ``fill`` elsewhere (``table`` may be empty)."""
    if not len(table):
        return np.full(len(codes), fill)
    return np.where(codes >= 0, table[np.maximum(codes, 0)], fill)
