"""The result of scoring: :class:`Score` (one metric's value, per target when the metric
is singleTarget on several targets), :class:`ScoreReport` (the scores and the warnings),
and ``scores.csv`` (:func:`write_scores`, exactly the D3M columns
``index,problemID,metric,value``, written atomically)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from d3mkit.atomic import write_text
from d3mkit.errors import Issue

SCORE_COLUMNS = ["index", "problemID", "metric", "value"]


@dataclass(frozen=True)
class Score:
    metric: str
    target: str | None
    value: float

    @property
    def label(self) -> str:
        """The ``metric`` cell of scores.csv."""
        return self.metric if self.target is None else f"{self.metric}[{self.target}]"


@dataclass
class ScoreReport:
    problem_id: str | None
    scores: list[Score] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"index": list(range(len(self.scores))),
                             "problemID": [self.problem_id] * len(self.scores),
                             "metric": [s.label for s in self.scores],
                             "value": [s.value for s in self.scores]}, columns=SCORE_COLUMNS)

    def to_dict(self) -> dict:
        def num(v):
            return v if isinstance(v, float) and math.isfinite(v) else None
        return {"problemID": self.problem_id,
                "scores": [{"metric": s.metric, "target": s.target, "value": num(s.value)}
                           for s in self.scores],
                "issues": [i.to_dict() for i in self.issues]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2) + "\n"

    def value(self, metric: str, target: str | None = None) -> float:
        for s in self.scores:
            if s.metric == metric and s.target == target:
                return s.value
        raise KeyError((metric, target))


def write_scores(report: ScoreReport, path: Path | str) -> Path:
    """Write ``scores.csv`` atomically (temporary sibling, then rename)."""
    text = report.to_frame().to_csv(index=False, lineterminator="\n")
    write_text(path, text)
    return Path(path)
