"""CSV tables as d3mkit reads and writes them.

Every table is read as strings (``dtype=str``, empty cells stay ``""``, nothing becomes
NaN behind the user's back) and written with ``\\n`` line endings and no pandas index, so
the same frame always gives the same bytes.

>>> import pandas as pd, tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
>>> write_table(pd.DataFrame({"d3mIndex": [0, 1], "y": ["a", ""]}), p)
>>> p.read_text()
'd3mIndex,y\\n0,a\\n1,\\n'
>>> read_table(p)["y"].tolist()
['a', '']
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def read_table(path: Path | str, **kwargs) -> pd.DataFrame:
    """Read a CSV file with every cell as a string and no NA conversion."""
    return pd.read_csv(path, dtype=str, keep_default_na=False, na_filter=False, **kwargs)


def write_table(df: pd.DataFrame, path: Path | str) -> None:
    """Write a CSV file deterministically (creating parent directories)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(p, index=False, lineterminator="\n")
