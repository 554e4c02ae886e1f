"""The result of scoring: :class:`Score` (one metric's value, per target when the metric
is singleTarget on several targets), :class:`ScoreReport` (the scores and the warnings),
and ``scores.csv`` (:func:`write_scores`, exactly the D3M columns
``index,problemID,metric,value``, written atomically)."""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path


from d3mkit.core.lazy import pandas as pd   # imported by the branches that use it
from d3mkit.core.errors import Issue

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


def _cell(v) -> str:
    """A value as ``DataFrame.to_csv`` writes its column (the scores' values are floats:
    shortest round-trip text, a missing value empty)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return str(v)


def scores_csv(report: ScoreReport) -> str:
    """The text of ``scores.csv``: what ``report.to_frame().to_csv(index=False,
    lineterminator="\\n")`` gives, written with :mod:`csv` (as pandas does) without pandas.

    >>> print(scores_csv(ScoreReport("p", [Score("accuracy", None, 0.5), Score("f1", "y", float("nan"))])), end="")
    index,problemID,metric,value
    0,p,accuracy,0.5
    1,p,f1[y],
    """
    values = [s.value for s in report.scores]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        values = [None if v is None else float(v) for v in values]    # one float column
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(SCORE_COLUMNS)
    for i, (s, v) in enumerate(zip(report.scores, values)):
        w.writerow([i, _cell(report.problem_id), s.label, _cell(v)])
    return out.getvalue()


def write_scores(report: ScoreReport, path: Path | str) -> Path:
    """Write ``scores.csv`` atomically (temporary sibling, then rename; the writer is
    imported here, after the scores: scoring never holds its modules, about 4 MB)."""
    from d3mkit.io.atomic import write_text
    write_text(path, scores_csv(report))
    return Path(path)
