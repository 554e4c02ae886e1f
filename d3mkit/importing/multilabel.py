"""Several non-numeric targets as one D3M multiLabel target, for ``d3mkit import``.

What this module owns: the rule that turns a wide table whose targets are several label
columns into the form D3M writes multi-label data in (problemSchema taskSubType
``multiLabel``; d3m's datasets and predictions): **one target column and one row per
(d3mIndex, label)**, the instance's other cells repeated on each of its rows; the
:class:`~d3mkit.importing.table.Prepared` table the rest of the import then writes.

Two shapes of target columns are read (docs/import.md):

* **indicators** — every target column holds only yes/no values (booleans, ``0``/``1``,
  ``true``/``false``, ``yes``/``no``, ``t``/``f``): a row has the label *named by the column*
  where its cell is yes (the MEKA/Mulan and OpenML multi-label layout);
* **label values** — otherwise: a row has the labels *written in* its non-empty target cells
  (``tag1,tag2,tag3`` columns), each once.

A row left with no label (every indicator no, every cell empty) can be neither trained on nor
scored as a label set: it is left out and counted (``import.target_missing``), as a row with
an empty target is for other tasks. The label column is called ``label`` (``label_2``, ...
when the table has one).

>>> df = pd.DataFrame({"d3mIndex": [0, 1, 2], "x": ["p", "q", "r"], "sun": ["1", "0", "1"],
...                    "rain": ["0", "0", "1"]}, dtype=object)
>>> long, label, dropped, mode = long_labels(df, ["sun", "rain"])
>>> long.values.tolist(), label, dropped, mode
([[0, 'p', 'sun'], [2, 'r', 'sun'], [2, 'r', 'rain']], 'label', 1, 'indicators')
"""

from __future__ import annotations

import numpy as np
import pandas as pd

YES = {"1", "true", "t", "yes", "y"}
NO = {"0", "false", "f", "no", "n"}


def label_name(columns: list[str]) -> str:
    """``label``, or ``label_2``, ``label_3``, ... when the table already has that name."""
    name, k = "label", 1
    while name in columns:
        k += 1
        name = f"label_{k}"
    return name


def long_labels(df: pd.DataFrame, targets: list[str]) -> tuple[pd.DataFrame, str, int, str]:
    """``(long table, label column, rows left out, "indicators" or "values")`` of the table
    ``df`` of text cells (d3mIndex first) whose ``targets`` are label columns (module
    docstring). The long table keeps ``df``'s other columns in order, the label column last;
    its rows follow ``df``'s, an instance's labels in the order of the target columns."""
    cells = {t: df[t].to_numpy(dtype=object) for t in targets}
    distinct = set()
    for t in targets:
        distinct.update(str(v).strip().lower() for v in pd.unique(cells[t]) if v != "")
    indicators = bool(distinct) and distinct <= YES | NO
    present = []
    for t in targets:
        v = cells[t]
        if indicators:
            present.append(np.array([str(x).strip().lower() in YES for x in v], dtype=bool))
        else:
            present.append(v != "")
    has = np.stack(present, axis=1)                       # rows x targets
    if not indicators:                                    # a label written twice in a row counts once
        vals = np.stack([cells[t] for t in targets], axis=1)
        for j in range(1, len(targets)):
            for i in range(j):
                has[:, j] &= ~(has[:, i] & (vals[:, i] == vals[:, j]))
    row, col = np.nonzero(has)                            # row-major: rows in order, labels in column order
    others = [c for c in df.columns if c not in targets]
    name = label_name([str(c) for c in df.columns])
    long = df[others].iloc[row].reset_index(drop=True)
    if indicators:
        labels = np.asarray(targets, dtype=object)[col]
    else:
        labels = np.stack([cells[t] for t in targets], axis=1)[row, col]
    long[name] = labels
    dropped = int((~has.any(axis=1)).sum())
    return long, name, dropped, "indicators" if indicators else "values"
