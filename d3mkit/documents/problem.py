"""The problemDoc model (problemSchema 3.1.1).

A :class:`ProblemDoc` wraps the JSON object as read, so saving writes back exactly what
was loaded (key order, unknown fields); accessors apply the schema's defaults without
writing them. :meth:`ProblemDoc.new` builds a complete document with every default set.

>>> doc = ProblemDoc.new("wine_problem", "wine", "classification", "multiClass",
...                      "wine_dataset", [Target(0, "learningData", 14, "class")],
...                      [{"metric": "accuracy"}])
>>> doc.problem_id, doc.problem_version, doc.splits_file, doc.predictions_file
('wine_problem', '1.0', 'dataSplits.csv', 'predictions.csv')
>>> doc.targets[0].col_name
'class'
>>> ProblemDoc.from_dict(doc.to_dict()).to_json() == doc.to_json()
True
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from d3mkit.documents.jsonio import JsonDocument

SCHEMA_VERSION = "3.1.1"

SPLIT_DEFAULTS = {"method": "holdOut", "numFolds": 0, "stratified": True,
                  "numRepeats": 0, "splitsFile": "dataSplits.csv"}


@dataclass(frozen=True)
class Target:
    """One entry of ``inputs.data[i].targets``."""

    target_index: int
    res_id: str
    col_index: int
    col_name: str
    num_clusters: int | None = None

    def to_dict(self) -> dict:
        d = {"targetIndex": self.target_index, "resID": self.res_id,
             "colIndex": self.col_index, "colName": self.col_name}
        if self.num_clusters is not None:
            d["numClusters"] = self.num_clusters
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Target":
        return cls(d.get("targetIndex"), d.get("resID"), d.get("colIndex"),
                   d.get("colName"), d.get("numClusters"))


class ProblemDoc(JsonDocument):
    """problemDoc.json as data plus typed accessors. ``path`` is where it was loaded from
    (:class:`~d3mkit.documents.jsonio.JsonDocument`: ``load``, ``from_dict``, ``to_dict``,
    ``to_json``, ``save``)."""

    FILE_NAME = "problemDoc.json"

    @classmethod
    def new(cls, problem_id: str, problem_name: str, task_type: str,
            task_subtype: str | None, dataset_id: str, targets: list[Target],
            metrics: list[dict], *, description: str | None = None,
            splits: dict | None = None) -> "ProblemDoc":
        """A complete 3.1.1 document with the schema's defaults written out."""
        about: dict[str, Any] = {"problemID": problem_id, "problemName": problem_name}
        if description:
            about["problemDescription"] = description
        about["taskType"] = task_type
        if task_subtype:
            about["taskSubType"] = task_subtype
        about["problemVersion"] = "1.0"
        about["problemSchemaVersion"] = SCHEMA_VERSION
        split = dict(SPLIT_DEFAULTS)
        split.update(splits or {})
        if split["method"] == "holdOut":
            split.setdefault("testSize", 0.2)
        data = {
            "about": about,
            "inputs": {
                "data": [{"datasetID": dataset_id, "targets": [t.to_dict() for t in targets]}],
                "dataSplits": split,
                "performanceMetrics": [dict(m) for m in metrics],
            },
            "expectedOutputs": {"predictionsFile": "predictions.csv", "scoresFile": "scores.csv"},
        }
        return cls(data)

    # accessors ------------------------------------------------------------------------
    def _get(self, *keys, default=None):
        node: Any = self.data
        for k in keys:
            if not isinstance(node, dict) or k not in node:
                return default
            node = node[k]
        return node

    @property
    def about(self) -> dict:
        return self._get("about", default={})

    @property
    def problem_id(self) -> str | None:
        return self._get("about", "problemID")

    @property
    def task_type(self) -> str | None:
        """``about.taskType``; for a 4.0.0 document, the task its ``taskKeywords`` name
        (:func:`d3mkit.documents.versions.task_of`)."""
        from d3mkit.documents.versions import task_of
        return task_of(self._get("about", default={}))[0]

    @property
    def task_subtype(self) -> str | None:
        from d3mkit.documents.versions import task_of
        return task_of(self._get("about", default={}))[1]

    @property
    def problem_version(self) -> str:
        return self._get("about", "problemVersion", default="1.0")

    @property
    def schema_version(self) -> str:
        return self._get("about", "problemSchemaVersion", default=SCHEMA_VERSION)

    @property
    def data_entries(self) -> list[dict]:
        d = self._get("inputs", "data", default=[])
        return d if isinstance(d, list) else []

    @property
    def dataset_ids(self) -> list[str]:
        return [e.get("datasetID") for e in self.data_entries if isinstance(e, dict)]

    @property
    def dataset_id(self) -> str | None:
        ids = self.dataset_ids
        return ids[0] if ids else None

    @property
    def targets(self) -> list[Target]:
        """Targets of all data entries, in document order."""
        out = []
        for e in self.data_entries:
            for t in (e.get("targets") or []) if isinstance(e, dict) else []:
                if isinstance(t, dict):
                    out.append(Target.from_dict(t))
        return out

    @property
    def target_names(self) -> list[str]:
        return [t.col_name for t in sorted(self.targets, key=lambda t: (t.target_index is None, t.target_index))]

    @property
    def splits(self) -> dict:
        """``inputs.dataSplits`` with the schema's defaults filled in (not written back)."""
        merged = dict(SPLIT_DEFAULTS)
        merged.update(self._get("inputs", "dataSplits", default={}) or {})
        return merged

    @property
    def splits_file(self) -> str:
        return self.splits.get("splitsFile") or "dataSplits.csv"

    @property
    def metrics(self) -> list[dict]:
        m = self._get("inputs", "performanceMetrics", default=[])
        return [x for x in m if isinstance(x, dict)] if isinstance(m, list) else []

    @property
    def metric_names(self) -> list[str]:
        """Names as scores.csv writes them: ``specifyOther`` for custom metrics."""
        return [m.get("specifyOther") if m.get("metric") == "other" else m.get("metric")
                for m in self.metrics]

    @property
    def predictions_file(self) -> str:
        return self._get("expectedOutputs", "predictionsFile", default="predictions.csv")

    @property
    def scores_file(self) -> str:
        return self._get("expectedOutputs", "scoresFile", default="scores.csv")

    def __repr__(self) -> str:
        return f"ProblemDoc({self.problem_id!r}, {self.task_type}/{self.task_subtype})"
