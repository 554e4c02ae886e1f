"""Multi-label tables for ``d3mkit import``: label columns made D3M's long form, and a table
already in that form checked.

What this module owns: the rule that turns a wide table whose targets are several label
columns into the form D3M writes multi-label data in (problemSchema taskSubType
``multiLabel``; d3m's datasets and predictions): **one target column and one row per
(d3mIndex, label)**, the instance's other cells repeated on each of its rows
(:func:`long_labels`); and the checks on a table that arrives in that form, its index
repeated (:func:`check_long_form`: an index's rows differ only in the label, and list a label
once).

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

from d3mkit.core.errors import EXIT_USAGE, D3MKitError, Issue, error, warning
from d3mkit.importing import infer
from d3mkit.importing.checks import fail
from d3mkit.importing.options import ImportOptions
from d3mkit.importing.prepared import Prepared

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


def check_long_form(df: pd.DataFrame, target: str, source: str) -> None:
    """Refuse a table in the long multiLabel form (text cells, ``d3mIndex`` first, row ``i`` of
    ``df`` on line ``i + 2`` of ``source``) whose rows of one index differ in a cell other than
    the ``target`` (``import.long_form``, naming the index, the column, both values and rows),
    or list one label twice. Empty target cells are not labels (the caller leaves those rows
    out).

    >>> df = pd.DataFrame({"d3mIndex": [0, 0, 1], "x": ["p", "q", "r"], "y": ["a", "b", "a"]})
    >>> check_long_form(df, "y", "t.csv")
    Traceback (most recent call last):
    ...
    d3mkit.core.errors.D3MKitError: t.csv: row 3, column x: error [import.long_form] index 0 repeats with another value in column 'x' ('p' on row 2, 'q' here): the rows of one index may differ only in the target 'y'
    """
    index = df["d3mIndex"].to_numpy()
    codes, _ = pd.factorize(index)
    _, first = np.unique(codes, return_index=True)      # codes are 0..k-1: first[c] is c's first row
    ref = first[codes]
    for c in df.columns:
        if c in ("d3mIndex", target):
            continue
        v = df[c].to_numpy(dtype=object)
        bad = np.flatnonzero(v != v[ref])
        if len(bad):
            r = int(bad[0])
            raise D3MKitError(error("import.long_form", "",
                                    f"index {index[r]} repeats with another value in column {c!r} "
                                    f"({v[ref[r]]!r} on row {int(ref[r]) + 2}, {v[r]!r} here): the rows of one "
                                    f"index may differ only in the target {target!r}", source, row=r + 2, column=c))
    labels = df[target].to_numpy(dtype=object)
    pairs = pd.DataFrame({"i": codes, "label": labels})
    twice = np.flatnonzero(pairs.duplicated().to_numpy() & (labels != ""))
    if len(twice):
        r = int(twice[0])
        earlier = int(np.flatnonzero((codes == codes[r]) & (labels == labels[r]))[0])
        raise D3MKitError(error("import.long_form", "",
                                f"index {index[r]} lists the label {labels[r]!r} twice (rows {earlier + 2} "
                                f"and {r + 2})", source, row=r + 2, column=target))


def as_multilabel(prep: Prepared, targets: list[str], types: dict[str, str], opts: ImportOptions, source: str,
                   notes: list[Issue], kept_cols: list[str]):
    """``prep`` with its label columns ``targets`` made one multiLabel target
    (:func:`d3mkit.importing.multilabel.long_labels`): the new Prepared, colTypes, label count
    and what was done (for the manifest and the label column's description)."""
    from d3mkit.importing.multilabel import long_labels
    from d3mkit.tables import write_table
    if opts.subtype not in (None, "multiLabel"):
        fail(source, "import.task", "", f"several label targets ({', '.join(targets)}) make a multiLabel "
              f"task, not {opts.subtype!r}", EXIT_USAGE)
    if prep.frame is None:
        raise RuntimeError("a multiLabel import needs the whole table (prepare_frame)")
    long, label, dropped, mode = long_labels(prep.frame, targets)
    if len(long) == 0:
        fail(source, "import.target_empty", dict(column=', '.join(targets)), "no row has a label")
    n_labels = int(long[label].nunique())
    if n_labels < 2:
        fail(source, "import.target_constant", dict(column=', '.join(targets)), f"every row has the one label "
              f"{long[label].iloc[0]!r} and no other: nothing to learn or score")
    if dropped:
        notes.append(warning("import.target_missing", "", f"{dropped:,} row(s) with no label were left out",
                             source, column=", ".join(targets)))
    evidence = {c: e for c, e in prep.evidence.items() if c not in targets}
    evidence[label] = infer.Evidence().add(*infer.levels_of(long[label]))
    others = [c for c in kept_cols if c not in targets]
    new = Prepared(list(long.columns), len(long), evidence, {c: g for c, g in prep.given.items() if c not in targets},
                   long[["d3mIndex", label, *others]], lambda path: write_table(long, path),
                   prep.dropped + dropped, frame=long)
    new_types = {c: t for c, t in types.items() if c not in targets}
    new_types[label] = "categorical"
    how = "a label per column whose cell is yes" if mode == "indicators" else "the labels written in the cells"
    origin = {"label": label, "columns": targets, "mode": mode,
              "description": {label: f"multiLabel target: one row per (d3mIndex, label); from the columns "
                                     f"{', '.join(targets)} ({how})"}}
    return new, new_types, {label: n_labels}, origin


def long_form_target(target: str, first: str, types: dict[str, str], counts: dict[str, int],
                      opts: ImportOptions, source: str) -> dict:
    """The label column of a table already in the long multiLabel form: its colType made
    categorical (unless ``types`` gives it categorical or boolean), at least two labels; what
    was done (for the manifest and the label column's description)."""
    if counts[target] < 2:
        fail(source, "import.target_constant", dict(column=target), f"every row of the label column {target!r} "
              f"holds the one label {first!r}: nothing to learn or score")
    if opts.types.get(target) not in infer.DISCRETE:
        types[target] = "categorical"
    return {"label": target, "columns": [target], "mode": "long",
            "description": {target: "multiLabel target: one row per (d3mIndex, label)"}}

