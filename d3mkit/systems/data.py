"""A view read as a system sees it, and the predictions file a system writes.

What this module owns: :func:`load_train` (a TRAIN view's dataset and problem directories ->
:class:`Train`) and :func:`load_test` (a TEST view's dataset -> :class:`Test`), the choice of
feature columns and their colTypes, and :func:`write_predictions`.

Features are the learningData columns that are neither the index nor a target nor of
another role (an ``attribute``, or a column the datasetDoc does not declare, as the
``_MIN_METADATA`` datasets leave them); a column that refers to a media collection is left
out. Each is typed as its colType means (:func:`d3mkit.validation.coltypes.coerce`); an
undeclared column is ``real`` when every non-empty cell is a number, else ``categorical``
(or ``text`` when its cells are long and mostly distinct). A multiLabel TRAIN view (one row
per (d3mIndex, label)) gives one row per d3mIndex and :attr:`Train.labels`, each row's
label list. TRAIN rows whose target is empty are left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.documents import DatasetDoc, ProblemDoc
from d3mkit.tables import read_table

KEEP_ROLES = {"attribute", "timeIndicator", "locationIndicator", "suggestedGroupingKey"}


@dataclass
class Test:
    X: pd.DataFrame                 # one row per d3mIndex, the features typed
    index: np.ndarray               # d3mIndex of each row (text, as written)
    coltypes: dict[str, str] = field(default_factory=dict)


@dataclass
class Train(Test):
    y: pd.DataFrame | None = None   # the targets, typed (None for multiLabel)
    labels: list[list[str]] | None = None   # multiLabel: each row's labels
    targets: list[str] = field(default_factory=list)
    target_types: dict[str, str] = field(default_factory=dict)
    task_type: str | None = None
    subtype: str | None = None
    metric: dict | None = None      # the problem's first performanceMetric
    problem_id: str | None = None

    @property
    def classification(self) -> bool:
        return self.task_type == "classification"

    @property
    def multilabel(self) -> bool:
        return self.subtype == "multiLabel"


def _infer(values: pd.Series) -> str:
    filled = values[values.astype(str).str.len() > 0].astype(str)
    if filled.empty:
        return "categorical"
    if pd.to_numeric(filled, errors="coerce").notna().all():
        return "real"
    words = filled.str.count(" ").mean()
    if words >= 3 and filled.nunique() > 0.5 * len(filled):
        return "text"
    return "categorical"


def _typed(df: pd.DataFrame, cols: list[str], types: dict[str, str]) -> pd.DataFrame:
    from d3mkit.validation.coltypes import coerce
    out = {}
    for c in cols:
        s, bad = coerce(df[c], types[c])
        if len(bad):   # cells the colType cannot read: the column as text categories
            s, _ = coerce(df[c], "categorical")
            types[c] = "categorical"
        out[c] = s.reset_index(drop=True)
    return pd.DataFrame(out, index=range(len(df)))


def _table(dataset_dir: Path):
    doc = DatasetDoc.load(Path(dataset_dir) / "datasetDoc.json")
    res = doc.learning_data
    if res is None:
        raise ValueError(f"{dataset_dir}: the dataset has no learningData table")
    return doc, res, read_table(doc.resource_path(res))


def _columns(res, df: pd.DataFrame, exclude: set[str]) -> dict[str, str]:
    """feature column -> colType."""
    declared = {c.col_name: c for c in (res.columns or ())}
    out = {}
    for name in df.columns:
        if name in exclude or name == "d3mIndex":
            continue
        col = declared.get(name)
        if col is None:
            out[name] = _infer(df[name])
            continue
        roles = set(col.role or ())
        if "index" in roles or "multiIndex" in roles or not roles & KEEP_ROLES:
            continue
        ref = col.refers_to if isinstance(col.refers_to, dict) else None
        if ref is not None and ref.get("resObject") == "item":
            continue        # a media file name: not a feature of its own
        ct = col.col_type if isinstance(col.col_type, str) else "unknown"
        if ct == "unknown":
            ct = _infer(df[name])
        elif ct == "string":
            ct = "text" if _infer(df[name]) == "text" else "categorical"
        out[name] = ct
    return out


def _first_rows(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop_duplicates("d3mIndex", keep="first").reset_index(drop=True)


def load_train(dataset_dir: Path | str, problem_dir: Path | str) -> Train:
    """The TRAIN view (its ``dataset_TRAIN`` and ``problem_TRAIN`` directories) as a :class:`Train`."""
    problem = ProblemDoc.load(Path(problem_dir) / "problemDoc.json")
    doc, res, df = _table(Path(dataset_dir))
    targets = list(problem.target_names)
    missing = [t for t in targets if t not in df.columns]
    if missing:
        raise ValueError(f"{dataset_dir}: learningData has no target column {', '.join(missing)}")
    declared = {c.col_name: c for c in (res.columns or ())}
    ttypes = {t: (declared[t].col_type if t in declared else _infer(df[t])) for t in targets}
    if problem.task_type == "classification":
        ttypes = {t: "categorical" for t in targets}
    elif problem.task_type == "regression":
        ttypes = {t: "real" for t in targets}
    types = _columns(res, df, set(targets))
    multilabel = problem.task_subtype == "multiLabel"
    rows = _first_rows(df) if multilabel or df["d3mIndex"].duplicated().any() else df.reset_index(drop=True)
    labels = None
    y = None
    if multilabel:
        t = targets[0]
        grouped = df.groupby("d3mIndex", sort=False)[t].agg(lambda s: [v for v in s.astype(str) if v])
        labels = [grouped[i] for i in rows["d3mIndex"]]
    else:
        y = _typed(rows, targets, dict(ttypes))
        known = y.notna().all(axis=1).to_numpy()
        if not known.all():    # a TRAIN row without its target teaches nothing: left out
            rows, y = rows[known].reset_index(drop=True), y[known].reset_index(drop=True)
    metrics = problem.metrics
    return Train(X=_typed(rows, list(types), types), index=rows["d3mIndex"].to_numpy(), coltypes=types,
                 y=y, labels=labels, targets=targets, target_types=ttypes, task_type=problem.task_type,
                 subtype=problem.task_subtype, metric=metrics[0] if metrics else None,
                 problem_id=problem.problem_id)


def load_test(dataset_dir: Path | str, train: Train) -> Test:
    """The TEST view's rows (one per d3mIndex), typed with the TRAIN view's feature colTypes."""
    _, _, df = _table(Path(dataset_dir))
    rows = _first_rows(df)
    types = dict(train.coltypes)
    for c in types:
        if c not in rows.columns:
            rows[c] = ""
    X = _typed(rows, list(types), types)
    return Test(X=X, index=rows["d3mIndex"].to_numpy(), coltypes=types)


def predictions_frame(test: Test, train: Train, values) -> pd.DataFrame:
    """The predictions layout for ``values``: a 2-D array (rows, targets), or for multiLabel
    a list of label lists (one row per label, at least one label per d3mIndex)."""
    if train.multilabel:
        idx, lab = [], []
        for i, ls in zip(test.index, values):
            for label in ls:
                idx.append(i)
                lab.append(label)
        return pd.DataFrame({"d3mIndex": idx, train.targets[0]: lab})
    arr = np.asarray(values, dtype=object)
    arr = arr.reshape(len(test.index), -1)
    out = pd.DataFrame({"d3mIndex": test.index})
    for k, t in enumerate(train.targets):
        out[t] = arr[:, k]
    return out


def write_predictions(df: pd.DataFrame, path: Path | str) -> None:
    """``df`` as predictions.csv (plain CSV, UTF-8, no pandas index)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(path, index=False)
