"""Step 0 of scoring, the metric plan: a problem's ``performanceMetrics`` resolved in the
metric registry (:mod:`d3mkit.core.registry`) with their parameters and applicability.

Unknown names, metrics that do not fit the task type, parameters a metric does not take
and (for multiLabel problems) metrics that cannot score label sets are errors on the
problemDoc. The plan also says what the predictions must hold: a confidence column
(:func:`needs_confidence`) or ranked rows (:func:`needs_ranked`).
"""

from __future__ import annotations

from dataclasses import dataclass

from d3mkit.documents import ProblemDoc
from d3mkit.core.errors import D3MKitError, Issue, error
from d3mkit.core.registry import Metric, get_metric, registry

POS_LABEL_METRICS = ("precision", "recall", "jaccardSimilarityScore", "rocAuc")
_ENTRY_KEYS = ("metric", "specifyOther", "applicabilityToTarget")


@dataclass
class Planned:
    name: str                  # as written in scores.csv
    metric: Metric
    params: dict
    applicability: str
    position: int = -1         # its place in inputs.performanceMetrics


def plan_metrics(problem: ProblemDoc) -> tuple[list[Planned], list[Issue]]:
    """The problem's metrics resolved in the registry with their parameters; unknown
    names and metrics that do not fit the task type are errors."""
    issues: list[Issue] = []
    planned: list[Planned] = []
    path = str(problem.path or "")
    entries = problem.metrics
    if not entries:
        issues.append(error("problem.no_metrics", "inputs.performanceMetrics",
                            "the problemDoc lists no performanceMetrics", path))
    f1_pos = next((m.get("posLabel") for m in entries
                   if m.get("metric") == "f1" and m.get("posLabel") is not None), None)
    for i, entry in enumerate(entries):
        loc = f"inputs.performanceMetrics[{i}]"
        name = entry.get("specifyOther") if entry.get("metric") == "other" else entry.get("metric")
        if not name:
            issues.append(error("metric.missing", loc, "metric entry names no metric "
                                "(\"other\" needs specifyOther)", path))
            continue
        try:
            metric = get_metric(str(name))
        except D3MKitError as exc:
            issues.append(error("metric.unknown", loc, exc.issues[0].message, path))
            continue
        if not metric.applies_to(problem.task_type):
            issues.append(error("metric.task_type", loc,
                                f"metric {name!r} does not fit taskType {problem.task_type!r} "
                                f"(it applies to {', '.join(metric.task_types)})", path))
            continue
        params = {k: v for k, v in entry.items() if k not in _ENTRY_KEYS}
        if metric.name in POS_LABEL_METRICS and "posLabel" not in params and f1_pos is not None:
            params["posLabel"] = f1_pos
        unknown = [k for k in params if k not in metric.params]
        if unknown and not (metric.name in POS_LABEL_METRICS and unknown == ["posLabel"]):
            issues.append(error("metric.params", loc, f"metric {name!r} takes no parameter(s) "
                                f"{', '.join(unknown)} (it takes: "
                                f"{', '.join(metric.params) or 'none'})", path))
            continue
        appl = entry.get("applicabilityToTarget") or metric.applicability
        planned.append(Planned(str(name), metric, params, appl, i))
    if problem.task_subtype == "multiLabel":
        issues += multilabel_issues(planned, path)
    return planned, issues


def multilabel_issues(planned: list[Planned], path: str) -> list[Issue]:
    """Errors for the planned metrics that cannot score multiLabel label sets."""
    out = []
    for plan in planned:
        if not plan.metric.multilabel:
            ok = sorted(n for n, m in registry().items() if m.multilabel)
            out.append(error("metric.multilabel", f"inputs.performanceMetrics[{plan.position}]",
                             f"metric {plan.name!r} does not score multiLabel label sets "
                             f"(one row per (d3mIndex, label)); metrics that do: "
                             f"{', '.join(ok)}", path))
    return out


def needs_confidence(planned: list[Planned]) -> bool:
    """Whether a planned metric needs the predictions' confidence column."""
    return any(p.metric.needs_confidence for p in planned)


def needs_ranked(planned: list[Planned]) -> bool:
    """Whether a planned metric scores ranked rows (d3mIndex, value, rank)."""
    return any(p.metric.layout == "ranked" for p in planned)
