"""The scikit-learn preprocessing of every D3M colType (``random-forest``, ``flaml``).

What this module owns: :func:`preprocessor`, a :class:`~sklearn.compose.ColumnTransformer`
built from the features' colTypes:

==============================  ===========================================================
colType                         becomes
==============================  ===========================================================
integer, real                   the number, missing values imputed with the TRAIN median
categorical, boolean            an ordinal code (unseen and missing: -1)
dateTime                        year, month, day, weekday, hour and seconds since 1970
                                (missing imputed with the median)
text                            TF-IDF of its words (at most 2,000 terms)
anything else (realVector,      left out
json, geojson, ...)
==============================  ===========================================================

The index and columns of other roles never reach it (:mod:`d3mkit.systems.data`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

NUMBERS = ("integer", "real")
CODED = ("categorical", "boolean")
MAX_TERMS = 2000


def date_parts(X) -> np.ndarray:
    """Numeric parts of each dateTime column of ``X`` (a DataFrame), NaN where missing.

    >>> date_parts(pd.DataFrame({"d": pd.to_datetime(["2020-03-04 05:00", None], utc=True)})).tolist()[0]
    [2020.0, 3.0, 4.0, 2.0, 5.0, 1583298000.0]
    """
    parts = []
    for c in X.columns:
        d = pd.to_datetime(X[c], errors="coerce", utc=True)
        secs = (d - pd.Timestamp(0, tz="UTC")).dt.total_seconds()
        for p in (d.dt.year, d.dt.month, d.dt.day, d.dt.day_of_week, d.dt.hour, secs):
            parts.append(pd.to_numeric(p, errors="coerce").astype(float).to_numpy())
    return np.column_stack(parts) if parts else np.empty((len(X), 0))


def _as_numbers(X):
    return pd.DataFrame(X).apply(pd.to_numeric, errors="coerce").astype(float)


def _as_text(X):
    return pd.Series(np.asarray(X).ravel()).fillna("").astype(str).to_numpy()


def _as_codes(X):
    return pd.DataFrame(X).astype(object).where(pd.DataFrame(X).notna(), "\x00missing").astype(str)


def preprocessor(coltypes: dict[str, str]):
    """The ColumnTransformer for features typed ``coltypes`` (column -> colType)."""
    from sklearn.compose import ColumnTransformer
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer, OrdinalEncoder

    def cols(kinds):
        return [c for c, t in coltypes.items() if t in kinds]
    parts = []
    if cols(NUMBERS):
        parts.append(("numbers", make_pipeline(
            FunctionTransformer(_as_numbers, feature_names_out="one-to-one"),
            SimpleImputer(strategy="median", keep_empty_features=True)), cols(NUMBERS)))
    if cols(CODED):
        parts.append(("codes", make_pipeline(
            FunctionTransformer(_as_codes, feature_names_out="one-to-one"),
            OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)), cols(CODED)))
    if cols(("dateTime",)):
        parts.append(("dates", make_pipeline(FunctionTransformer(date_parts),
                                             SimpleImputer(strategy="median", keep_empty_features=True)),
                      cols(("dateTime",))))
    for c in cols(("text",)):
        parts.append((f"text_{c}", make_pipeline(FunctionTransformer(_as_text),
                                                 TfidfVectorizer(max_features=MAX_TERMS, min_df=1)), [c]))
    return ColumnTransformer(parts, remainder="drop", sparse_threshold=0.3)
