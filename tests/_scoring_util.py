"""Small task roots and predictions files for the scoring tests (no network, no fixtures
shared with other areas)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from d3mkit.documents import Column, DatasetDoc, ProblemDoc, Resource, Target
from d3mkit.tables import write_table


def make_task(tmp: Path, name: str, frame: pd.DataFrame, targets: list[str], metrics: list[dict],
              *, task_type="classification", subtype="multiClass", col_types=None,
              test=None, image_col=None) -> Path:
    """A task root ``tmp/name`` with learningData ``frame`` (d3mIndex first) and a holdOut
    split whose TEST rows are ``test`` (d3mIndex values; default: every other row)."""
    root = tmp / name
    col_types = col_types or {}
    cols = []
    for i, c in enumerate(frame.columns):
        if c == "d3mIndex":
            cols.append(Column(i, c, "integer", ("index",)))
        elif c == image_col:
            cols.append(Column(i, c, "string", ("index",)))
        else:
            role = ("suggestedTarget",) if c in targets else ("attribute",)
            cols.append(Column(i, c, col_types.get(c, "categorical"), role))
    ds = DatasetDoc.new(f"{name}_dataset", name, [Resource.table("learningData", "tables/learningData.csv", cols)])
    (root / f"{name}_dataset").mkdir(parents=True)
    ds.save(root / f"{name}_dataset" / "datasetDoc.json")
    write_table(frame, root / f"{name}_dataset" / "tables" / "learningData.csv")
    tl = [Target(k, "learningData", list(frame.columns).index(t), t) for k, t in enumerate(targets)]
    pd_ = ProblemDoc.new(f"{name}_problem", name, task_type, subtype, f"{name}_dataset", tl, metrics)
    (root / f"{name}_problem").mkdir(parents=True)
    pd_.save(root / f"{name}_problem" / "problemDoc.json")
    idx = frame["d3mIndex"].astype(str).tolist()
    test = set(map(str, test)) if test is not None else set(idx[1::2])
    splits = pd.DataFrame({"d3mIndex": idx, "type": ["TEST" if i in test else "TRAIN" for i in idx],
                           "repeat": 0, "fold": 0}).drop_duplicates("d3mIndex")
    write_table(splits, root / f"{name}_problem" / "dataSplits.csv")
    return root


def write_csv(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path
