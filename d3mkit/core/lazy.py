"""pandas, imported on first use: ``from d3mkit.core.lazy import pandas as pd`` gives a module
stand-in whose first attribute access (``pd.Series``, ``pd.factorize``, ...) imports pandas.

The scoring pipeline reads CSV files without pandas (:mod:`d3mkit.tables.arrow`);
pandas, about 0.2 s and 80 MB of an interpreter, is imported only by the branches that
need it (a DataFrame given through the API, string d3mIndex values, dates, layouts other
than ``rows``, ...). :func:`is_frame` asks whether an object is a DataFrame without
importing pandas (none exists before pandas is imported).

>>> is_frame("predictions.csv")
False
"""

from __future__ import annotations

import importlib
import sys


class _Lazy:
    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str):
        module = importlib.import_module(self._name)
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


pandas = _Lazy("pandas")


def is_frame(obj) -> bool:
    """Whether ``obj`` is a pandas DataFrame (pandas is not imported to tell)."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(obj, pd.DataFrame)
