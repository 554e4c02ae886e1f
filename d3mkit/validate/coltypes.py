"""colType value checks over whole columns (datasetSchema 3.1.2 column types).

Each check looks at every distinct value once (``category`` columns carry them) and maps
the verdict back to rows with numpy, so a 10^6-row column costs one pass. Empty cells are
missing values and always pass. A column the reader already parsed as a number passed
its integer/real check there.

>>> s = pd.Series(["1", "2.0", "x", None, "1e3"], dtype="category")
>>> bad_rows(s, "integer").tolist()
[2]
>>> bad_rows(pd.Series(["1,2,3", "1, 2", "1;2"], dtype="category"), "realVector").tolist()
[2]
>>> bad_rows(pd.Series(["True", "no", "maybe"], dtype="category"), "boolean").tolist()
[2]
>>> bad_rows(pd.Series(["2020-01-02", "2020-01-02T03:04:05Z", "Jan 3 2020", "yesterday"],
...                    dtype="category"), "dateTime").tolist()
[3]
"""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pandas as pd

CHECKED = ("integer", "real", "boolean", "dateTime", "realVector", "categorical", "json", "geojson")
BOOLEANS = {"true", "false", "t", "f", "yes", "no", "1", "0"}
_NUM = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:nan|inf|infinity)"
_VECTOR = re.compile(rf"\s*(?:{_NUM})(?:\s*,\s*(?:{_NUM}))*\s*", re.IGNORECASE)


def _numbers(values: np.ndarray) -> np.ndarray:
    return pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(dtype=float)


def _ok_integer(v: np.ndarray) -> np.ndarray:
    x = _numbers(v)
    with np.errstate(invalid="ignore"):
        return np.isfinite(x) & (np.floor(x) == x)


def _ok_real(v: np.ndarray) -> np.ndarray:
    x = _numbers(v)
    special = pd.Series(v, dtype=object).str.strip().str.lower().isin(
        ["nan", "inf", "-inf", "+inf", "infinity", "-infinity"]).to_numpy()
    return ~np.isnan(x) | special


def _ok_boolean(v: np.ndarray) -> np.ndarray:
    return pd.Series(v, dtype=object).str.strip().str.lower().isin(BOOLEANS).to_numpy()


def _ok_datetime(v: np.ndarray) -> np.ndarray:
    s = pd.Series(v, dtype=object)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ok = pd.to_datetime(s, format="ISO8601", errors="coerce", utc=True).notna().to_numpy().copy()
        rest = ~ok
        if rest.any():   # numbers (years, epoch seconds) are dates too
            ok[rest] = ~np.isnan(_numbers(v[rest]))
        rest = ~ok
        if rest.any():   # anything dateutil understands ("Jan 3 2020", "03/01/2020 10:00")
            ok[rest] = pd.to_datetime(s[rest], format="mixed", errors="coerce", utc=True).notna().to_numpy()
    return ok


def _ok_vector(v: np.ndarray) -> np.ndarray:
    return np.fromiter((bool(_VECTOR.fullmatch(x)) for x in v), bool, len(v))


def _ok_categorical(v: np.ndarray) -> np.ndarray:
    s = pd.Series(v, dtype=object)
    return (s == s.str.strip()).to_numpy(dtype=bool)


def _ok_json(v: np.ndarray) -> np.ndarray:
    def one(x: str) -> bool:
        try:
            json.loads(x)
            return True
        except (ValueError, RecursionError):
            return False
    return np.fromiter((one(x) for x in v), bool, len(v))


_CHECKS = {"integer": _ok_integer, "real": _ok_real, "boolean": _ok_boolean,
           "dateTime": _ok_datetime, "realVector": _ok_vector, "categorical": _ok_categorical,
           "json": _ok_json, "geojson": _ok_json}


def bad_rows(series: pd.Series, col_type: str) -> np.ndarray:
    """Row positions whose value does not fit ``col_type`` (missing values pass)."""
    check = _CHECKS.get(col_type)
    if check is None:
        return np.zeros(0, dtype=np.int64)
    dtype = series.dtype
    if col_type == "integer" and pd.api.types.is_integer_dtype(dtype):
        return np.zeros(0, dtype=np.int64)
    if col_type == "real" and pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
        return np.zeros(0, dtype=np.int64)
    if isinstance(dtype, pd.CategoricalDtype):
        codes = series.cat.codes.to_numpy()
        values = series.cat.categories.to_numpy(dtype=object).astype(str).astype(object)
    else:   # a column parsed as a number (e.g. a boolean column of 0/1) or strings
        codes, uniques = pd.factorize(series, use_na_sentinel=True)
        values = np.asarray([str(u) for u in uniques], dtype=object)
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64)
    ok = np.asarray(check(values), dtype=bool)
    present = codes >= 0
    bad = np.zeros(len(codes), dtype=bool)
    bad[present] = ~ok[codes[present]]
    return np.flatnonzero(bad)


def describe(col_type: str) -> str:
    return {"integer": "not an integer", "real": "not a number",
            "boolean": "not a boolean (true/false/1/0/yes/no)",
            "dateTime": "not a date or time", "realVector": "not comma-separated numbers",
            "categorical": "has leading or trailing whitespace (a different category from the trimmed value)",
            "json": "not valid JSON", "geojson": "not valid JSON"}[col_type]
