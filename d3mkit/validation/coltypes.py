"""colType values: the one definition of what each colType accepts and of its canonical
form (datasetSchema 3.1.2 column types).

Validation (:func:`bad_rows`), truth loading and prediction parsing
(:mod:`d3mkit.scoring.predictions`) and metric parameters such as ``posLabel`` all go
through this module, so two spellings that validation accepts score as the same value
(:func:`canonical`):

* ``boolean`` — ``true/false/t/f/yes/no/1/0`` in any case, surrounding whitespace
  ignored; canonical ``"true"`` / ``"false"``;
* ``integer`` — numbers (``1``, ``1.0``, ``1e0``, `` 1 ``) compared exactly
  (:func:`exact_numbers`): floats while every integral value is within 2**53, exact Python
  ints beyond, so 9007199254740993 and 9007199254740992 are two labels;
* ``real`` — numbers; canonical float;
* ``categorical`` — the value with surrounding whitespace removed (validation warns
  about such whitespace), in Unicode NFC (``café`` typed as one code point or as ``e`` and
  a combining accent is one label);
* ``dateTime`` — ISO 8601, numbers (years, epoch seconds) or anything dateutil reads;
  canonical ISO 8601 UTC text, so ``2020-01-02`` and ``2020-01-02T00:00:00Z`` agree;
* ``string`` — the text in Unicode NFC; any other colType (``realVector``, ``json``, ...)
  — the text as written.

Each check looks at every distinct value once (``category`` columns carry them) and maps
the verdict back to rows with numpy: one pass over a column's distinct values. Missing is one
definition for every reader (:func:`is_missing`): an empty cell (or one of only
whitespace), and for the number colTypes a ``NaN``; a label such as ``NA``, ``None``,
``null`` or ``N/A`` is a label. Missing values always pass. A column the reader already parsed as a number passed
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
import sys
import unicodedata
import warnings
from decimal import Decimal, InvalidOperation

import numpy as np

from d3mkit.core.lazy import pandas as pd   # imported by the branches that use it

CHECKED = ("integer", "real", "boolean", "dateTime", "realVector", "categorical", "json", "geojson")
COLTYPE_CODES = {"integer": "coltype.integer", "real": "coltype.real", "boolean": "coltype.boolean",
                 "dateTime": "coltype.dateTime", "realVector": "coltype.realVector",
                 "categorical": "coltype.categorical", "json": "coltype.json", "geojson": "coltype.json"}
"""The issue code of a cell that fails its colType, per checked colType (:data:`CHECKED`)."""
BOOLEANS = {"true", "false", "t", "f", "yes", "no", "1", "0"}
_NUM = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:nan|inf|infinity)"
_VECTOR = re.compile(rf"\s*(?:{_NUM})(?:\s*,\s*(?:{_NUM}))*\s*", re.IGNORECASE)


def _numbers(values: np.ndarray) -> np.ndarray:
    return pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(dtype=float)


def numbers(values: np.ndarray) -> np.ndarray:
    """float64 of text cells as ``pandas.to_numeric`` reads them (NaN where not a number)."""
    return _numbers(values)


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
    return np.fromiter((x.strip().lower() in BOOLEANS for x in v.tolist()), bool, len(v))


_ISO = re.compile(r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
                  r"(?:[T ](?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:\.[0-9]{1,6})?)?)?")


def _ok_datetime(v: np.ndarray) -> np.ndarray:
    """Dates and times in the plain ISO 8601 forms (``2020-01-02``, ``2020-01-02T03:04[:05[.f]]``,
    years 1700-2200) are checked by numpy (which refuses a day a month lacks) without pandas;
    any other value, or a batch numpy refuses, as :func:`_datetimes` reads it."""
    ok = np.zeros(len(v), dtype=bool)
    quick = np.fromiter((bool(_ISO.fullmatch(x)) and 1700 <= int(x[:4]) <= 2200 for x in v.tolist()),
                        bool, len(v))
    if quick.any():
        try:
            np.asarray(v[quick].tolist(), dtype="datetime64[us]")
            ok[quick] = True
        except ValueError:
            pass
    rest = np.flatnonzero(~ok)
    if len(rest):
        ok[rest] = ~pd.isna(_datetimes(v[rest]))
    return ok


def _ok_vector(v: np.ndarray) -> np.ndarray:
    return np.fromiter((bool(_VECTOR.fullmatch(x)) for x in v), bool, len(v))


def _ok_categorical(v: np.ndarray) -> np.ndarray:
    return np.fromiter((x == x.strip() for x in v.tolist()), bool, len(v))


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


def bad_rows(series, col_type: str) -> np.ndarray:
    """Row positions whose value does not fit ``col_type`` (missing values pass).
    ``series`` is a pandas Series or a column of :mod:`d3mkit.tables.tablecols` (whose
    checks need pandas only for numbers written as text and dates beyond plain ISO 8601)."""
    check = _CHECKS.get(col_type)
    if check is None:
        return np.zeros(0, dtype=np.int64)
    kind = getattr(series, "kind", None)
    if kind is not None:
        if col_type in NUMBER_TYPES and kind in ("int", "float") and not (col_type == "integer" and kind == "float"):
            return np.zeros(0, dtype=np.int64)
        if kind == "text":
            codes = series.codes
            values = np.asarray([str(u) for u in series.cats.tolist()], dtype=object)
        else:
            present = ~series.missing()
            u = np.unique(series.values[present])
            codes = np.full(len(series), -1, dtype=np.intp)
            codes[present] = np.searchsorted(u, series.values[present])
            values = np.asarray([str(x) for x in u.tolist()], dtype=object)
    else:
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


_TRUE = {"true", "t", "yes", "1"}


def _datetimes(v: np.ndarray) -> np.ndarray:
    """UTC timestamps (NaT where not a date), by the rules of :func:`_ok_datetime`."""
    s = pd.Series(v, dtype=object)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = pd.to_datetime(s, format="ISO8601", errors="coerce", utc=True)
        rest = out.isna().to_numpy()
        if rest.any():
            # microseconds: the unit pandas inferred from the ISO cells (seconds when there were
            # none) would refuse an epoch second with a fraction ("2.5") or year 1 assigned below
            out = out.dt.as_unit("us")
            x = _numbers(v[rest])
            num = ~np.isnan(x)
            if num.any():   # years (< 10000) or epoch seconds, as the validator reads them
                idx = np.flatnonzero(rest)[num]
                yrs = x[num]
                vals = [pd.Timestamp(year=int(y), month=1, day=1, tz="UTC")
                        if float(y).is_integer() and 1 <= y < 10000 else
                        pd.to_datetime(y, unit="s", utc=True, errors="coerce") for y in yrs]
                out.iloc[idx] = pd.array(vals, dtype=out.dtype)
            rest = out.isna().to_numpy()
            if rest.any():
                out[rest] = pd.to_datetime(s[rest], format="mixed", errors="coerce", utc=True)
    return out.to_numpy()


NUMBER_TYPES = ("integer", "real")


SMALL = 4096   # up to this many values, distinct values are found with a dict (no pandas)


def _is_na(v) -> bool:
    if v is None:
        return True
    try:
        return bool(v != v)    # NaN, NaT
    except TypeError:          # pd.NA
        return True


def factorize(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``pandas.factorize`` of an object array (codes, distinct values in order of first
    appearance; None and NaN are code -1): pandas' hash table for a large array when pandas
    is already imported (validation), else a dict (the scorer, which does not import pandas
    for it; the distinct values of a column, as the scorer passes them, are small).

    >>> codes, uniq = factorize(np.array(["b", "a", None, "b"], dtype=object))
    >>> codes.tolist(), uniq.tolist()
    ([0, 1, -1, 0], ['b', 'a'])
    """
    if len(a) > SMALL and "pandas" in sys.modules:
        codes, uniq = pd.factorize(a)
        return codes, np.asarray(uniq, dtype=object)
    cells = a.tolist()
    keys = list(dict.fromkeys(cells))      # distinct cells in order (each NaN object its own)
    na = [_is_na(v) for v in keys]
    kept = [k for k, m in zip(keys, na) if not m]
    code_of = dict(zip(kept, range(len(kept))))
    if len(kept) < len(keys):
        code_of.update((k, -1) for k, m in zip(keys, na) if m)
    codes = np.fromiter(map(code_of.__getitem__, cells), np.intp, len(cells))
    uniq = np.empty(len(kept), dtype=object)
    uniq[:] = kept
    return codes, uniq


def is_missing(values, col_type: str | None = None) -> np.ndarray:
    """The cells that are missing values: empty or only whitespace (None and NaN too), and
    for ``integer``/``real`` a ``nan`` in any case. Every reader asks this (validation's
    :func:`typed`, the scorer's truth and predictions), so a word such as ``NA`` is a
    label wherever a label is read.

    >>> is_missing(["", " ", "NA", "None", "null", "N/A", "x"]).tolist()
    [True, True, False, False, False, False, False]
    >>> is_missing(["NaN", "1"], "real").tolist(), is_missing(["NaN"], "categorical").tolist()
    ([True, False], [False])
    """
    a = np.asarray(values, dtype=object)
    if not len(a):
        return np.zeros(0, bool)
    codes, uniq = factorize(a)
    words = ("nan",) if col_type in NUMBER_TYPES else ()
    u = np.fromiter(((not isinstance(v, str) and v != v) or (isinstance(v, str) and
                     (v.strip() == "" or v.strip().lower() in words)) for v in uniq), bool, len(uniq))
    return np.where(codes < 0, True, u[codes] if len(u) else False)


def _nfc(values: np.ndarray) -> np.ndarray:
    """Strings in Unicode NFC (ASCII text is left as it is, cheaply)."""
    return np.asarray([v if not isinstance(v, str) or v.isascii() else unicodedata.normalize("NFC", v)
                       for v in values], dtype=object)


def canonical(values, col_type: str) -> tuple[np.ndarray, np.ndarray]:
    """``(canonical values, bad mask)`` of cells written as text, for ``col_type``:
    floats for integer/real (NaN where not a number), strings otherwise (the input
    value where bad). Missing cells are the caller's business.

    >>> canonical(["True", "yes", " 0", "no", "maybe"], "boolean")[0].tolist()
    ['true', 'true', 'false', 'false', 'maybe']
    >>> canonical(["1", "1.0", " 2 ", "x"], "integer")[0].tolist()
    [1.0, 1.0, 2.0, nan]
    >>> canonical([" cat", "cat "], "categorical")[0].tolist()
    ['cat', 'cat']
    >>> canonical(["caf\u00e9", "cafe\u0301"], "categorical")[0].tolist() == ["caf\u00e9"] * 2
    True
    >>> v, bad = canonical(["2020-01-02", "2020-01-02T00:00:00Z", "nope"], "dateTime")
    >>> v.tolist(), bad.tolist()
    (['2020-01-02T00:00:00Z', '2020-01-02T00:00:00Z', 'nope'], [False, False, True])
    """
    if col_type in NUMBER_TYPES and isinstance(values, np.ndarray) and values.dtype.kind in "iuf" \
            and not (values.dtype.kind in "iu" and len(values) and np.abs(values).max() >= 2 ** 53):
        x = values.astype(float)   # numbers as read (floats hold integers within 2**53 exactly)
        return x, ~np.isfinite(x)
    a = np.asarray(values, dtype=object)
    if col_type == "integer":
        x = exact_numbers(a)
        return x, (~np.isfinite(x) if x.dtype == float else
                   np.fromiter((isinstance(v, float) and not np.isfinite(v) for v in x), bool, len(x)))
    if col_type == "real":
        x = _numbers(a)
        return x, ~np.isfinite(x)
    if len(a) == 0:
        return a.astype(object), np.zeros(0, bool)
    codes, uniq = factorize(a)
    u = np.asarray([str(x) for x in uniq], dtype=object)
    bad_u = np.zeros(len(u), bool)
    if col_type == "boolean":
        low = [x.strip().lower() for x in u.tolist()]
        bad_u = np.asarray([x not in BOOLEANS for x in low], dtype=bool)
        cu = np.asarray(["true" if x in _TRUE else "false" for x in low], dtype=object)
    elif col_type == "categorical":
        cu = _nfc(np.asarray([x.strip() for x in u.tolist()], dtype=object))
    elif col_type == "string":
        cu = _nfc(u)
    elif col_type == "dateTime":
        ts = pd.Series(_datetimes(u))
        bad_u = ts.isna().to_numpy()
        cu = ts.dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ").str.replace(".000000Z", "Z", regex=False) \
            .to_numpy(dtype=object) if len(u) else u
    else:
        cu = u
    cu = np.where(bad_u, u, cu).astype(object)
    return cu[codes], bad_u[codes]


_EXACT_DIGITS = 40     # integers of more digits than this are compared as floats (no int() bomb)


def _exact(text) -> int | float:
    """One cell as an exact number: a Python int when the value is integral (``7``,
    ``7.0``, `` 7e0 ``, ``+7``), else a float (NaN when it is not a number)."""
    t = str(text).strip()
    try:
        d = Decimal(t)
    except (InvalidOperation, ValueError):
        return float(_numbers(np.asarray([t], dtype=object))[0])
    if not d.is_finite():
        return float(d) if not d.is_nan() else float("nan")
    if d == d.to_integral_value() and d.adjusted() < _EXACT_DIGITS:
        return int(d)
    return float(d)


def exact_numbers(values) -> np.ndarray:
    """The integer colType's canonical form: numbers compared exactly. A float64 array when
    every integral value is within +-2**53 (floats hold those exactly; the usual case, and
    fast); else an object array of Python ints (integral values) and floats (others), so
    9007199254740993 and 9007199254740992 stay two values. Each distinct text is parsed once.

    >>> exact_numbers(["1", "2.0", " 3e0 ", "x"]).tolist()
    [1.0, 2.0, 3.0, nan]
    >>> v = exact_numbers(["9007199254740993", "9007199254740992.0", "1.5"]); v.tolist()
    [9007199254740993, 9007199254740992, 1.5]
    >>> bool(v[0] == v[1])
    False
    """
    a = np.asarray(values, dtype=object)
    if len(a) == 0:
        return np.zeros(0)
    x = _numbers(a)
    with np.errstate(invalid="ignore"):
        if not (np.abs(x) >= 2.0 ** 53).any():     # NaN compares False: every value is exact
            return x
    codes, uniq = pd.factorize(np.asarray([str(v).strip() for v in a], dtype=object))
    exact = np.empty(len(uniq), dtype=object)
    exact[:] = [_exact(u) for u in uniq]
    out = exact[codes] if len(codes) else np.zeros(0, dtype=object)
    out[codes < 0] = float("nan")
    return out


def comparable(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two arrays of :func:`exact_numbers` (truth and predictions of one integer target)
    in one kind: unchanged when both are float64, else both object arrays of exact Python
    numbers, so no comparison goes through a float that rounds.

    >>> t, p = comparable(exact_numbers(["9007199254740993"]), exact_numbers(["9007199254740992"]))
    >>> bool(t[0] == p[0]), type(p[0]).__name__
    (False, 'int')
    """
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != object and b.dtype != object:
        return a, b

    def obj(x: np.ndarray) -> np.ndarray:
        if x.dtype == object:
            return x
        out = np.empty(len(x), dtype=object)
        with np.errstate(invalid="ignore"):
            integral = np.isfinite(x) & (np.floor(x) == x)
        out[:] = [int(v) if i else float(v) for v, i in zip(x.tolist(), integral.tolist())]
        return out
    return obj(a), obj(b)


def typed(series: pd.Series, col_type: str) -> pd.Series:
    """A column of text cells as the pandas type its colType means (for loaders such as
    :meth:`d3mkit.taskroot.model.TaskRoot.frame`): integer -> ``Int64`` (``float64`` when a value
    is not integral), real -> ``float64``, boolean -> ``boolean``, dateTime -> UTC
    ``datetime64``, categorical -> ``category`` (trimmed), realVector -> tuples of floats,
    anything else -> the text. Empty cells become missing values.

    The coercion policy (:func:`coerce`): a column with a cell its colType cannot read is
    never typed by dropping that cell; the column is kept as its text (see :func:`coerce`).

    >>> typed(pd.Series(["1", "2", ""]), "integer").tolist()
    [1, 2, <NA>]
    >>> typed(pd.Series(["yes", "0"]), "boolean").tolist(), typed(pd.Series(["1,2"]), "realVector")[0]
    ([True, False], (1.0, 2.0))
    >>> typed(pd.Series(["2020-01-02", "2021"]), "dateTime").tolist()
    [Timestamp('2020-01-02 00:00:00+0000', tz='UTC'), Timestamp('2021-01-01 00:00:00+0000', tz='UTC')]
    """
    return coerce(series, col_type)[0]


def coerce(series: pd.Series, col_type: str) -> tuple[pd.Series, np.ndarray]:
    """The one coercion policy for cells that do not read as their colType: ``(column,
    bad row positions)``. When every non-empty cell reads, the column is typed as
    :func:`typed` says. When some do not (``'N'`` in a boolean column, ``'?'`` in a real
    one), no cell is lost: the whole column is kept as its text (``category`` for boolean
    and categorical columns, text otherwise), and the bad positions are returned for the
    caller to report. ``d3mkit validate`` reports the same cells as warnings (errors with
    ``--strict``); d3m's column parser would read them as missing values (docs/validation.md).

    >>> col, bad = coerce(pd.Series(["Y", "N", ""]), "boolean")
    >>> col.tolist(), bad.tolist(), str(col.dtype)
    (['Y', 'N', nan], [0, 1], 'category')
    >>> col, bad = coerce(pd.Series(["1.5", "?"]), "real")
    >>> col.tolist(), bad.tolist()
    (['1.5', '?'], [1])
    """
    s = series.astype(object)
    missing = is_missing(s.to_numpy(), col_type)
    text = pd.Series(np.where(missing, None, s.to_numpy(dtype=object)), index=series.index,
                     name=series.name, dtype=object)
    bad = bad_rows(text, col_type) if col_type in CHECKED and col_type != "categorical" else np.zeros(0, np.int64)
    if len(bad):
        kept = text.astype("category") if col_type in ("boolean", "categorical") else text
        return kept, bad
    if col_type in ("integer", "real"):
        x = np.array(_numbers(s.to_numpy(dtype=object)), dtype=float)
        x[missing] = np.nan
        out = pd.Series(x, index=series.index, name=series.name)
        fin = np.isfinite(x)
        if col_type == "integer" and np.all(np.equal(np.mod(x[fin], 1), 0)) and np.all(np.abs(x[fin]) < 2.0**63):
            return out.astype("Int64"), bad          # (beyond int64: float64, the nearest numbers)
        return out, bad
    if col_type == "dateTime":
        v = _datetimes(s.to_numpy(dtype=object))
        out = pd.Series(v, index=series.index, name=series.name)
        out[missing] = pd.NaT
        return pd.to_datetime(out, utc=True), bad
    vals, _ = canonical(s.fillna("").to_numpy(dtype=object), col_type)
    if col_type == "boolean":
        return pd.Series(np.where(missing, None, vals == "true"), index=series.index, name=series.name,
                         dtype="boolean"), bad
    if col_type == "categorical":
        return pd.Series(np.where(missing, None, vals), index=series.index, name=series.name,
                         dtype="category"), bad
    if col_type == "realVector":
        return pd.Series([None if g else tuple(float(p) for p in str(v).split(","))
                          for v, g in zip(vals, missing)], index=series.index, name=series.name,
                         dtype=object), bad
    return text, bad


def describe(col_type: str) -> str:
    """What a value that fails ``col_type`` is, after "is"/"are" (``are {describe}``);
    :func:`fault` is the same as a predicate of one cell."""
    return {"integer": "not an integer", "real": "not a number",
            "boolean": "not a boolean (true/false/1/0/yes/no)",
            "dateTime": "not a date or time", "realVector": "not comma-separated numbers",
            "categorical": "padded with leading or trailing whitespace (scored as the trimmed value)",
            "json": "not valid JSON", "geojson": "not valid JSON"}[col_type]


def fault(col_type: str) -> str:
    """What is wrong with one cell that fails ``col_type``, as a predicate: ``'x' {fault}``.

    >>> fault("boolean"), fault("categorical")
    ('is not a boolean (true/false/1/0/yes/no)', 'has leading or trailing whitespace (scored as the trimmed value)')
    """
    if col_type == "categorical":
        return "has leading or trailing whitespace (scored as the trimmed value)"
    return "is " + describe(col_type)
