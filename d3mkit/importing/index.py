"""The d3mIndex column of an imported table.

What this module owns: making ``d3mIndex`` (the column as is, another column renamed, or
0..n-1 in file order), refusing a value that is not an integer or (outside D3M's long
multiLabel form) repeats, and whether the integers' own text is the file's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from d3mkit.core.errors import EXIT_USAGE
from d3mkit.importing.checks import fail

def index_column(df: pd.DataFrame, index: str | None, source: str, repeats: bool = False) -> pd.DataFrame:
    """``df`` with its ``d3mIndex`` first: the column as is, ``index`` renamed, or numbers
    0..n-1 in file order. A value on several rows is refused unless ``repeats`` (a table that
    may be in the long multiLabel form, :func:`long_form_possible`)."""
    col = index or ("d3mIndex" if "d3mIndex" in df.columns else None)
    if index is not None and index != "d3mIndex" and "d3mIndex" in df.columns:
        fail(source, "import.index", dict(column="d3mIndex"), f"the table has a d3mIndex column and the index "
              f"{index!r} was named too; drop one")
    if col is None:
        df.insert(0, "d3mIndex", np.arange(len(df), dtype=np.int64))
        return df
    if col not in df.columns:
        fail(source, "import.index", dict(row=1), f"index column {col!r} is not in the table", EXIT_USAGE)
    values = df[col].astype(str)
    bad = np.flatnonzero(~values.str.fullmatch(r"[+-]?\d+").to_numpy())
    if len(bad):
        r = int(bad[0])
        fail(source, "import.index", dict(row=r + 2, column=col),
              f"index value {values.iloc[r]!r} is not an integer")
    try:          # the cells matched [+-]?\d+; Python ints beyond 64 bits
        ints = pd.Series(_int64(values))
    except OverflowError:
        ints = values.map(lambda v: int(v))
    dup = np.flatnonzero(ints.duplicated().to_numpy()) if not repeats else ()
    if len(dup):
        r = int(dup[0])
        fail(source, "import.index", dict(row=r + 2, column=col),
              f"index value {values.iloc[r]!r} appears on more than one row (an index repeats only in D3M's "
              f"long multiLabel form, with one classification target)")
    df = df.drop(columns=[col])
    df.insert(0, "d3mIndex", ints.to_numpy())
    return df


def _int64(values: pd.Series) -> np.ndarray:
    """int64 of texts that all match ``[+-]?\\d+`` (OverflowError beyond 64 bits): pyarrow's
    cast (C++, no Python int a cell) where pyarrow is installed and reads them all (it takes
    no ``+``), else numpy's ``int()`` of each."""
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:
        pa = None
    if pa is not None:
        try:
            return np.asarray(pc.cast(pa.array(values.array), pa.int64()))
        except (pa.ArrowException, TypeError, ValueError):
            pass
    return np.asarray(values, dtype=object).astype(np.int64)


def canonical_ints(texts: pd.Series) -> bool:
    """Whether every text is an integer as ``str(int)`` writes it (no ``+``, no leading zero,
    no ``-0``): then the integers' own text is the file's."""
    return bool(texts.astype(str).str.fullmatch(r"0|-?[1-9]\d*").all())


def index_values(df: pd.DataFrame, index: str | None, source: str, repeats: bool = False) -> list[int]:
    """The d3mIndex each row of ``df`` gets (:func:`_index`), in row order; ``repeats``: a
    value may repeat (the long multiLabel form, :func:`long_form_possible`)."""
    return index_column(df.copy(), index, source, repeats)["d3mIndex"].tolist()
