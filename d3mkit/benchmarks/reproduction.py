"""What one reproduction did (``d3mkit reproduce NAME``), as a record.

What this module owns: :class:`Reproduction`, the value a reproducer's ``run(args)``
returns (:class:`d3mkit.benchmarks.plugins.Reproducer`): the files it wrote, the checks it
made with their result (:class:`Check`), the figures it compared with the paper's
(:class:`Figure`) and its exit code; and its JSON form (:meth:`Reproduction.to_dict`), which
``d3mkit reproduce NAME --format json`` prints. The reproducer's own lines (progress, the
paths it wrote) stay its text form; in JSON mode they go to stderr.

>>> r = Reproduction(written=[Path("r/t1.md")],
...                  figures=[Figure("rotation, n_train 250", "accuracy (%)", 41.0, paper=40.4,
...                                  ours_sd=2.0, paper_sd=8.4, agrees=True)],
...                  checks=[Check("wine/wine_problem/problemDoc.json", True)])
>>> d = r.to_dict()
>>> d["written"], d["figures"][0]["agrees"], d["checks"][0]["passed"], d["exit_code"]
(['r/t1.md'], True, True, 0)
>>> Figure("x", "AuROC", float("nan")).to_dict()["ours"] is None    # NaN is not JSON
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path


def _number(x) -> float | None:
    """A figure as JSON can hold it: a float, or None when missing or not a number."""
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) or math.isinf(x) else x


@dataclass(frozen=True)
class Check:
    """One thing a reproduction checked: ``what`` (a file, a cell), whether it ``passed``,
    and ``detail`` (why not: ``differs``, ``missing``, ``extra``)."""
    what: str
    passed: bool
    detail: str = ""

    def to_dict(self) -> dict:
        return {"what": self.what, "passed": bool(self.passed), "detail": self.detail}


@dataclass(frozen=True)
class Figure:
    """One number of ours (``ours``, with ``ours_sd`` when it is a mean) for ``name`` (the
    cell: a row, a column) and ``metric``, beside the paper's where the paper gives one;
    ``agrees`` says whether it is within the tolerance the report states (None when there is
    nothing to compare with)."""
    name: str
    metric: str
    ours: float | None
    paper: float | None = None
    ours_sd: float | None = None
    paper_sd: float | None = None
    agrees: bool | None = None

    def to_dict(self) -> dict:
        return {"name": self.name, "metric": self.metric, "ours": _number(self.ours),
                "ours_sd": _number(self.ours_sd), "paper": _number(self.paper),
                "paper_sd": _number(self.paper_sd),
                "agrees": None if self.agrees is None else bool(self.agrees)}


@dataclass(frozen=True)
class Reproduction:
    """What a reproducer did: ``written`` (files or task roots, in order), ``checks``,
    ``figures`` compared and the command's ``exit_code``."""
    written: list[Path] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    exit_code: int = 0

    def to_dict(self) -> dict:
        """``{"exit_code", "written": [PATH], "checks": [{"what", "passed", "detail"}],
        "figures": [{"name", "metric", "ours", "ours_sd", "paper", "paper_sd", "agrees"}]}``."""
        return {"exit_code": int(self.exit_code), "written": [str(p) for p in self.written],
                "checks": [c.to_dict() for c in self.checks],
                "figures": [f.to_dict() for f in self.figures]}
