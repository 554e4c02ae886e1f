"""The D3M schema versions d3mkit supports, and which rules each one follows.

This module owns the version facts: the published problemSchema/datasetSchema versions
(the same list the D3M reference package accepts), which family of rules each belongs to
(3.1 for 3.0-3.1.2, 3.2 for 3.2.0-3.3.1, 4.0 for 4.0.0-4.1.1; docs/schemas.md has the
table of what changed), the one
``schema.version`` issue for a document whose declared version is missing or unsupported,
and what the downstream checks need to know about a version (does it name its task with
``taskKeywords``; may a table leave columns undeclared).

>>> declared_version("problem", {"about": {"problemSchemaVersion": "3.2.0"}})
'3.2.0'
>>> family("dataset", "4.1.0"), family("problem", "3.1")
('4.0', '3.1')
>>> version_issue("dataset", {"about": {"datasetSchemaVersion": "5.0"}}, "d.json").message
"datasetSchemaVersion '5.0' is not supported; supported versions: 3.0, 3.1, 3.1.1, 3.1.2, 3.2.0, 3.2.1, 3.3.0, 3.3.1, 4.0.0, 4.1.0, 4.1.1"
>>> version_issue("problem", {"about": {"problemSchemaVersion": "4.0.0"}}) is None
True
"""

from __future__ import annotations

from typing import Any

from d3mkit.core.errors import Issue, error

# Every version published in the D3M data-supply history; the reference package (d3m
# 2022.5.5) loads the same list. Oldest first.
VERSIONS = ("3.0", "3.1", "3.1.1", "3.1.2", "3.2.0", "3.2.1", "3.3.0", "3.3.1", "4.0.0", "4.1.0", "4.1.1")
PROBLEM_VERSIONS = VERSIONS
DATASET_VERSIONS = VERSIONS

# the hand-written schema files; every other version's files are generated from them
BASE_VERSION = {"problem": "3.1.1", "dataset": "3.1.2"}

VERSION_FIELD = {"problem": "problemSchemaVersion", "dataset": "datasetSchemaVersion"}

_FAMILY = {"3.0": "3.1", "3.1": "3.1", "3.1.1": "3.1", "3.1.2": "3.1", "3.2.0": "3.2", "3.2.1": "3.2",
           "3.3.0": "3.2", "3.3.1": "3.2", "4.0.0": "4.0", "4.1.0": "4.0", "4.1.1": "4.0"}


def family(kind: str, version: str) -> str:
    """The rule family ("3.1", "3.2" or "4.0") of a supported ``version``: the versions of
    one family are checked by the same rules (no change list between them was found)."""
    return _FAMILY[version]


def declared_version(kind: str, data: Any) -> Any:
    """The version a parsed document declares (any JSON value), or None when absent."""
    about = data.get("about") if isinstance(data, dict) else None
    return about.get(VERSION_FIELD[kind]) if isinstance(about, dict) else None


def supported_version(kind: str, data: Any) -> str | None:
    """The declared version when it is supported, else None."""
    v = declared_version(kind, data)
    return v if isinstance(v, str) and v in _FAMILY else None


def version_issue(kind: str, data: Any, path: str = "") -> Issue | None:
    """The one ``schema.version`` issue of a document whose version is missing or not
    supported (None when it is supported). A document that is not an object, or has no
    ``about`` object, gets None: the schema check of the base version reports that."""
    if not isinstance(data, dict) or not isinstance(data.get("about"), dict):
        return None
    field = VERSION_FIELD[kind]
    v = declared_version(kind, data)
    supported = ", ".join(VERSIONS)
    if v is None:
        return error("schema.version", f"about.{field}",
                     f"{field} is missing; d3mkit validates a document against the schema of the "
                     f"version it declares (supported versions: {supported})", path)
    if not isinstance(v, str) or v not in _FAMILY:
        return error("schema.version", f"about.{field}",
                     f"{field} {v!r} is not supported; supported versions: {supported}", path)
    return None


def uses_task_keywords(version: str | None) -> bool:
    """4.0.0 and later name the task with ``about.taskKeywords`` (no taskType)."""
    return version is not None and _FAMILY.get(version) == "4.0"


def open_objects(version: str | None) -> bool:
    """4.0.0 and later allow fields the schema does not name, in every object (the
    published 4.0.0 schema files set cerberus' ``allow_unknown`` throughout)."""
    return version is not None and _FAMILY.get(version) == "4.0"


def minimal_metadata(version: str | None) -> bool:
    """4.0.0 and later may declare only some columns of a table; colIndex is then the
    column's position in the CSV file."""
    return version is not None and _FAMILY.get(version) == "4.0"


# taskKeywords -> the legacy taskType the downstream checks reason with (the inverse of the
# reference package's TASK_TYPE_TO_KEYWORDS_MAP; timeSeries+forecasting is timeSeriesForecasting)
_KEYWORD_TASK = ("objectDetection", "linkPrediction", "vertexNomination", "vertexClassification",
                 "communityDetection", "graphMatching", "collaborativeFiltering", "clustering",
                 "classification", "regression")
_KEYWORD_SUBTYPE = ("binary", "multiClass", "multiLabel", "univariate", "multivariate",
                    "overlapping", "nonOverlapping")


def task_of(about: Any) -> tuple[str | None, str | None]:
    """(taskType, taskSubType) of a problemDoc's ``about``, from taskKeywords when it has them.

    >>> task_of({"taskKeywords": ["timeSeries", "forecasting", "univariate"]})
    ('timeSeriesForecasting', 'univariate')
    >>> task_of({"taskType": "classification", "taskSubType": "binary"})
    ('classification', 'binary')
    """
    if not isinstance(about, dict):
        return None, None
    kws = about.get("taskKeywords")
    if isinstance(kws, list) and "taskType" not in about:
        kws = [k for k in kws if isinstance(k, str)]
        task = "timeSeriesForecasting" if "forecasting" in kws else \
            next((k for k in _KEYWORD_TASK if k in kws), None)
        sub = next((k for k in _KEYWORD_SUBTYPE if k in kws), None)
        return task, sub
    task, sub = about.get("taskType"), about.get("taskSubType")
    return (task if isinstance(task, str) else None), (sub if isinstance(sub, str) else None)
