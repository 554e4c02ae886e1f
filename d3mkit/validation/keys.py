"""Comparable keys for index and foreign-key values read from different CSV files.

A column the reader parsed as integers stays an ``int64`` array (fast); anything else
becomes canonical strings, numbers written alike ("7", "7.0") giving the same key, so a
d3mIndex of 7 in learningData matches "7.0" in dataSplits.

>>> keys(pd.Series([1, 2, None], dtype="Int64")).tolist()
[1, 2, None]
>>> keys(pd.Series(["7.0", "a", None], dtype="category")).tolist()
['7', 'a', None]
>>> a, b = comparable(keys(pd.Series([7], dtype="Int64")), keys(pd.Series(["7.0"], dtype="category")))
>>> bool(np.isin(b, a)[0])
True
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from d3mkit.validation.coltypes import exact_numbers


def _canon(values: np.ndarray) -> np.ndarray:
    """Canonical strings for distinct values: integral numbers as exact ints (the integer
    colType's form, :func:`d3mkit.validation.coltypes.exact_numbers`; 9007199254740993.0 is
    9007199254740993, never 9007199254740992), others as read.

    >>> _canon(np.asarray(["9007199254740993.0", " 7", "7.5", "a"], dtype=object)).tolist()
    ['9007199254740993', '7', '7.5', 'a']
    """
    strs = np.asarray([str(v) for v in values], dtype=object)
    x = exact_numbers(strs)
    out = strs.copy()
    if x.dtype == object:
        integral = np.fromiter((isinstance(v, int) for v in x), bool, len(x))
        out[integral] = [str(v) for v in x[integral]]
        return out
    with np.errstate(invalid="ignore"):
        integral = np.isfinite(x) & (np.floor(x) == x)
    out[integral] = [str(int(v)) for v in x[integral]]
    return out


def keys(series: pd.Series) -> np.ndarray:
    """int64 array (no missing values, integer dtype) or object array with None for NA."""
    if pd.api.types.is_integer_dtype(series.dtype):
        if not series.isna().any():
            return series.to_numpy(dtype=np.int64)
        arr = series.astype(object).to_numpy()
        return np.asarray([None if v is pd.NA else int(v) for v in arr], dtype=object)
    if isinstance(series.dtype, pd.CategoricalDtype):
        codes = series.cat.codes.to_numpy()
        cats = _canon(series.cat.categories.to_numpy(dtype=object))
    else:
        codes, uniq = pd.factorize(series, use_na_sentinel=True)
        cats = _canon(np.asarray(uniq, dtype=object))
    out = np.empty(len(codes), dtype=object)
    present = codes >= 0
    out[present] = cats[codes[present]] if len(cats) else None
    out[~present] = None
    return out


def comparable(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bring two key arrays to one kind (int64 both, or strings both)."""
    if a.dtype == np.int64 and b.dtype == np.int64:
        return a, b

    def to_str(x: np.ndarray) -> np.ndarray:
        if x.dtype == np.int64:
            return x.astype(str).astype(object)
        return np.asarray([None if v is None else str(v) for v in x], dtype=object)
    return to_str(a), to_str(b)


def isin(values: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """Boolean mask: which of ``values`` occur in ``pool`` (missing values never do)."""
    v, p = comparable(values, pool)
    if v.dtype == np.int64:
        return np.isin(v, p)
    pool_s = pd.Series(p, dtype=object).dropna().unique()
    vs = pd.Series(v, dtype=object)
    return (vs.isin(pool_s) & vs.notna()).to_numpy(dtype=bool, copy=True)   # writable (pandas CoW)
