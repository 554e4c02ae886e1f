"""problemDoc conversion between problemSchema 3.1.1 and 4.0.0.

The two versions differ in how the task is named: 3.1.1 has ``about.taskType`` and
``about.taskSubType``, 4.0.0 a list ``about.taskKeywords``. The mapping is the one the D3M
reference package uses to read legacy documents (``d3m.metadata.problem``,
``TASK_TYPE_TO_KEYWORDS_MAP`` in d3m 2022.5.5); ``timeSeriesForecasting`` becomes the two
keywords ``timeSeries`` and ``forecasting``. Everything else (key order, unknown fields,
metrics, splits, targets) is kept; ``problemSchemaVersion`` is set to the target version.

A 3.1.1 document converted to 4.0.0 and back is byte-identical (with :func:`dump_json`) when
``taskSubType`` directly follows ``taskType`` and ``problemSchemaVersion`` is present, as
in documents d3mkit writes. Converting 4.0.0 to 3.1.1 drops keywords 3.1.1 cannot express
(``tabular``, ``image``, ...) with a warning (:func:`d3mkit.validation.convert.convert_checked`
also warns about anything else in the result that problemSchema 3.1.1 does not allow); a document whose keywords name no 3.1.1 task type, or
name two, or a metric 3.1.1 does not have, cannot be converted (an error).

>>> doc = {"about": {"problemID": "p", "problemName": "p", "taskType": "timeSeriesForecasting",
...                  "taskSubType": "univariate", "problemVersion": "1.0",
...                  "problemSchemaVersion": "3.1.1"}}
>>> new, issues = convert_problem(doc, "4.0.0")
>>> new["about"]["taskKeywords"], new["about"]["problemSchemaVersion"], issues
(['timeSeries', 'forecasting', 'univariate'], '4.0.0', [])
>>> convert_problem(new, "3.1.1")[0] == doc
True
"""

from __future__ import annotations

import copy
from typing import Any

from d3mkit.core.errors import Issue, error, warning

VERSIONS = ("3.1.1", "4.0.0")

# d3m.metadata.problem.TASK_TYPE_TO_KEYWORDS_MAP (d3m 2022.5.5), restricted to the values
# problemSchema 3.1.1 documents, keywords written as TaskKeyword.unparse() writes them.
TASK_TYPE_KEYWORDS: dict[str, list[str]] = {
    "classification": ["classification"],
    "regression": ["regression"],
    "clustering": ["clustering"],
    "linkPrediction": ["linkPrediction"],
    "vertexNomination": ["vertexNomination"],
    "communityDetection": ["communityDetection"],
    "graphMatching": ["graphMatching"],
    "timeSeriesForecasting": ["timeSeries", "forecasting"],
    "collaborativeFiltering": ["collaborativeFiltering"],
    "objectDetection": ["objectDetection"],
}
TASK_SUBTYPE_KEYWORDS: dict[str, list[str]] = {
    "binary": ["binary"],
    "multiClass": ["multiClass"],
    "multiLabel": ["multiLabel"],
    "univariate": ["univariate"],
    "multivariate": ["multivariate"],
    "overlapping": ["overlapping"],
    "nonOverlapping": ["nonOverlapping"],
}
# Task types of the d3m map that problemSchema 3.1.1 does not have.
NOT_IN_311 = {"vertexClassification", "semiSupervised"}
# Metrics problemSchema 3.1.1 does not list (added in 4.0.0).
METRICS_NOT_IN_311 = {"hammingLoss", "meanReciprocalRank", "hitsAtK"}
# 3.1.1 metrics d3m's PerformanceMetric does not know (its loader rejects them).
METRICS_NOT_IN_D3M = {"rootMeanSquaredErrorAvg", "other"}


def schema_version_of(doc: Any) -> str | None:
    """``"3.1.1"`` for a taskType document, ``"4.0.0"`` for a taskKeywords one, else None.

    >>> schema_version_of({"about": {"taskKeywords": ["regression"]}})
    '4.0.0'
    """
    about = doc.get("about") if isinstance(doc, dict) else None
    if not isinstance(about, dict):
        return None
    if "taskKeywords" in about and "taskType" not in about and "taskSubType" not in about:
        return "4.0.0"
    if "taskKeywords" not in about and "taskType" in about:
        return "3.1.1"
    return None


def _replace_keys(about: dict, old: list[str], new: dict) -> dict:
    """``about`` with the keys ``old`` removed and ``new`` inserted where the first of them was."""
    out: dict = {}
    placed = False
    for k, v in about.items():
        if k in old:
            if not placed:
                out.update(new)
                placed = True
            continue
        out[k] = v
    if not placed:
        out.update(new)
    return out


def _set_version(about: dict, version: str) -> None:
    about["problemSchemaVersion"] = version   # keeps its position when present


def to_400(doc: dict, path: str = "") -> tuple[dict | None, list[Issue]]:
    """A 3.1.1 problemDoc as 4.0.0: taskType/taskSubType -> taskKeywords."""
    about = doc["about"]
    issues: list[Issue] = []
    ttype, sub = about.get("taskType"), about.get("taskSubType")
    keywords: list[str] = []
    for field, value in (("taskType", ttype), ("taskSubType", sub)):
        if value is not None and not isinstance(value, str):
            issues.append(error("convert.task_type", f"about.{field}",
                                f"{field} must be a string, got {type(value).__name__}", path))
    if issues:
        return None, issues
    if ttype not in TASK_TYPE_KEYWORDS:
        issues.append(error("convert.task_type", "about.taskType",
                            f"taskType {ttype!r} has no taskKeywords equivalent in the D3M reference package", path))
    else:
        keywords += TASK_TYPE_KEYWORDS[ttype]
    if sub is not None:
        if sub not in TASK_SUBTYPE_KEYWORDS:
            issues.append(error("convert.task_subtype", "about.taskSubType",
                                f"taskSubType {sub!r} has no taskKeywords equivalent in the D3M reference package", path))
        else:
            keywords += TASK_SUBTYPE_KEYWORDS[sub]
    issues += _metric_issues(doc, METRICS_NOT_IN_D3M, "warning",
                             "is not a metric of the D3M reference package (d3m cannot load it)", path)
    if any(i.is_error for i in issues):
        return None, issues
    out = copy.deepcopy(doc)
    out["about"] = _replace_keys(out["about"], ["taskType", "taskSubType"], {"taskKeywords": keywords})
    _set_version(out["about"], "4.0.0")
    return out, issues


def to_311(doc: dict, path: str = "") -> tuple[dict | None, list[Issue]]:
    """A 4.0.0 problemDoc as 3.1.1: taskKeywords -> taskType/taskSubType."""
    about = doc["about"]
    kws = about.get("taskKeywords")
    loc = "about.taskKeywords"
    if not isinstance(kws, list) or not all(isinstance(k, str) for k in kws):
        return None, [error("convert.task_keywords", loc, "taskKeywords must be a list of strings", path)]
    issues: list[Issue] = []
    rest = list(dict.fromkeys(kws))
    types: list[str] = []
    if "forecasting" in rest:   # timeSeriesForecasting is the pair timeSeries + forecasting
        types.append("timeSeriesForecasting")
        rest = [k for k in rest if k not in ("forecasting", "timeSeries")]
    for ttype, (keyword, *more) in TASK_TYPE_KEYWORDS.items():
        if not more and keyword in rest:
            types.append(ttype)
            rest.remove(keyword)
    subs = [s for s, needed in TASK_SUBTYPE_KEYWORDS.items() if needed[0] in rest]
    rest = [k for k in rest if k not in {TASK_SUBTYPE_KEYWORDS[s][0] for s in subs}]
    if not types:
        hint = " (" + ", ".join(k for k in rest if k in NOT_IN_311) + " cannot be expressed in 3.1.1)" \
            if any(k in NOT_IN_311 for k in rest) else ""
        issues.append(error("convert.task_type", loc,
                            f"no keyword names a 3.1.1 taskType{hint}", path))
    elif len(types) > 1:
        issues.append(error("convert.task_type", loc,
                            f"keywords name more than one taskType: {', '.join(types)}", path))
    if len(subs) > 1:
        issues.append(error("convert.task_subtype", loc,
                            f"keywords name more than one taskSubType: {', '.join(subs)}", path))
    if rest:
        issues.append(warning("convert.dropped_keywords", loc,
                              f"keywords without a 3.1.1 equivalent are dropped: {', '.join(rest)}", path))
    issues += _metric_issues(doc, METRICS_NOT_IN_311, "error", "is not a problemSchema 3.1.1 metric", path)
    if any(i.is_error for i in issues):
        return None, issues
    new = {"taskType": types[0]}
    if subs:
        new["taskSubType"] = subs[0]
    out = copy.deepcopy(doc)
    out["about"] = _replace_keys(out["about"], ["taskKeywords"], new)
    _set_version(out["about"], "3.1.1")
    return out, issues


def _metric_issues(doc: dict, names: set[str], severity: str, what: str, path: str) -> list[Issue]:
    inputs = doc.get("inputs") if isinstance(doc.get("inputs"), dict) else {}
    metrics = inputs.get("performanceMetrics")
    out = []
    for i, m in enumerate(metrics if isinstance(metrics, list) else []):
        name = m.get("metric") if isinstance(m, dict) else None
        if name in names:
            make = error if severity == "error" else warning
            out.append(make("convert.metric", f"inputs.performanceMetrics[{i}].metric",
                            f"metric {name!r} {what}", path))
    return out


def convert_problem(doc: Any, to: str, path: str = "") -> tuple[dict | None, list[Issue]]:
    """Convert a parsed problemDoc to schema version ``to`` (3.1.1 or 4.0.0).

    Returns ``(document, issues)``; the document is None when an error issue says why the
    conversion is impossible. A document already at ``to`` comes back unchanged.
    """
    if to not in VERSIONS:
        raise ValueError(f"unknown target version {to!r}; expected one of {', '.join(VERSIONS)}")
    if isinstance(doc, dict) and "dataResources" in doc:
        return None, [error("convert.not_problem", "",
                            "this is a datasetDoc; d3mkit.documents.convert_dataset converts datasetDocs", path)]
    if not isinstance(doc, dict) or not isinstance(doc.get("about"), dict):
        return None, [error("convert.not_problem", "about",
                            "not a problemDoc: expected an object with an \"about\" object", path)]
    source = schema_version_of(doc)
    if source is None:
        about = doc["about"]
        both = "taskKeywords" in about and ("taskType" in about or "taskSubType" in about)
        msg = ("about has both taskKeywords (4.0.0) and taskType/taskSubType (3.1.1)" if both
               else "about has neither taskType (3.1.1) nor taskKeywords (4.0.0)")
        return None, [error("convert.version", "about", msg, path)]
    if source == to:
        return copy.deepcopy(doc), []
    if to == "4.0.0":
        return to_400(doc, path)
    return to_311(doc, path)
