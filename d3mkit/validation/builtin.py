"""Validation's own checks, as :class:`~d3mkit.validation.checks.Check` units.

What this module owns: which of validation's checks run on which kind of document, and in
what order: a dataset (its datasetDoc, resources and tables: :mod:`.files`), then per
problem its schema, its agreement with its dataset (:mod:`.crossdoc`) and its dataSplits
(:mod:`.splitcheck`). pyproject.toml registers each in the ``d3mkit.checks`` group;
:data:`BUILTIN` is the same list for a d3mkit whose metadata predates the group.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from d3mkit.core.errors import Issue
from d3mkit.documents.published import view_of
from d3mkit.validation import files
from d3mkit.validation.checks import Check, Document, Session
from d3mkit.validation.codes import make
from d3mkit.validation.common import as_dict
from d3mkit.validation.crossdoc import check_problem_dataset
from d3mkit.validation.splitcheck import check_splits


def _dataset(doc: Document, s: Session) -> Iterator[None]:
    d = doc.path
    s.datasets[d] = yield from files.dataset_steps(
        d, s.report, object_detection=d in s.object_detection, multi_label=d in s.multi_label,
        keep=frozenset(s.targets.get(d, ())), held=s.held)


def _problem_schema(data: dict, path: str) -> list[Issue]:
    try:
        from d3mkit.validation.schema import check_problem_schema
    except ImportError:
        return []
    return list(check_problem_schema(data, path))


def _schema(doc: Document, s: Session) -> Iterator[Issue | None]:
    """A problemDoc's top level and schema, and the datasets it names that were not found."""
    entry = s.problems[doc.path]
    p = str(doc.path)
    if entry.issues:
        return    # reported when it was parsed
    if not isinstance(entry.data, dict):
        yield make("doc.not_object", "", f"a problemDoc is a JSON object, not {type(entry.data).__name__}", p)
        return
    yield from _problem_schema(entry.data, p) + entry.missing


def _contexts(entry, s: Session) -> dict:
    return {i: s.datasets.get(d) if d is not None else None for i, d in entry.pairs.items()}


def _with_dataset(doc: Document, s: Session) -> Iterator[Issue | None]:
    """A problemDoc against the datasets it names (:mod:`.crossdoc`)."""
    entry = s.problems[doc.path]
    if entry.issues or not isinstance(entry.data, dict):
        return
    yield from check_problem_dataset(entry.data, _contexts(entry, s), str(doc.path))


def splits_file(data: dict, pp: Path) -> Path:
    """The dataSplits file a problemDoc names (default ``dataSplits.csv`` beside it)."""
    rel = as_dict(as_dict(data.get("inputs")).get("dataSplits")).get("splitsFile", "dataSplits.csv")
    return pp.parent / rel if isinstance(rel, str) else pp.parent / "dataSplits.csv"


def _splits(doc: Document, s: Session) -> Iterator[None]:
    """A problem's dataSplits file (:mod:`.splitcheck`); none is looked for when the problem
    was validated alone and names no file that exists (no phantom document)."""
    entry = s.problems[doc.path]
    if entry.issues or not isinstance(entry.data, dict):
        return
    if entry.alone and not splits_file(entry.data, doc.path).is_file():
        return
    check_splits(entry.data, doc.path, _contexts(entry, s).get(0), s.report, view=view_of(doc.path), held=s.held)
    yield


DATASET = Check("dataset", "datasetDoc", _dataset,
                "the datasetDoc, its resources on disk and every table they hold")
PROBLEM_SCHEMA = Check("problem.schema", "problemDoc", _schema,
                       "the problemDoc's schema and the datasets it names")
PROBLEM_DATASET = Check("problem.dataset", "problemDoc", _with_dataset,
                        "the problemDoc against its dataset: targets, metrics, task")
PROBLEM_SPLITS = Check("problem.splits", "problemDoc", _splits, "the problem's dataSplits file")

BUILTIN = (DATASET, PROBLEM_SCHEMA, PROBLEM_DATASET, PROBLEM_SPLITS)
