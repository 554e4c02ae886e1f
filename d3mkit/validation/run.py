"""Validation end to end: the driver that runs documents x checks.

What this module owns: from the PATHs to a :class:`~d3mkit.validation.report.Report`:
discover the documents, parse each problem and pair it with its datasets, then hand every
document to the checks of its kind (:func:`d3mkit.validation.checks.run_checks`; the checks
come from the registry, :func:`d3mkit.validation.checks.load_checks`, unless the caller
passes its own :class:`~d3mkit.validation.checks.Checklist`). Nothing is ever written.

The driver is a generator of steps (:func:`_steps`), so the same code gives the whole
report (:func:`validate_paths`) and a lazy stream of issues (:func:`stream_issues`, which
yields each step's issues as soon as the step is done and does no more work than its
consumer asks for).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from d3mkit.core.errors import Issue, UsageError
from d3mkit.documents.jsonio import load_json_issues
from d3mkit.documents.published import view_dataset_ids, view_of
from d3mkit.documents.versions import task_of
from d3mkit.tables.held import NOTHING, Held
from d3mkit.validation.checks import Checklist, Document, ProblemEntry, Session, run_checks
from d3mkit.validation.plugins import load_checks
from d3mkit.validation.codes import make
from d3mkit.validation.common import as_dict, as_list, as_str
from d3mkit.validation.discover import DatasetIndex, Found, check_readable, discover
from d3mkit.validation.report import Report


def validate_paths(paths: list[Path | str], datasets: list[Path | str] = (), held: Held = NOTHING,
                   checks: Checklist | None = None) -> Report:
    """Validate everything under ``paths``; a missing/unreadable PATH raises UsageError,
    and so does a PATH holding no D3M document. ``held``: what the caller holds of the
    tables (:class:`d3mkit.tables.held.Held`; a task root's writer); ``checks``: the
    checks to run (default: every registered one)."""
    report = Report()
    for _ in _steps(paths, datasets, report, held=held, checks=checks):
        pass
    return report


def validate_predictions(paths: list[Path | str], problem: Path | str, *, datasets=(),
                         targets: Path | str | None = None, repeat: int = 0, fold: int = 0,
                         checks: Checklist | None = None) -> Report:
    """Check each predictions file in ``paths`` against ``problem`` (a problem directory,
    problemDoc.json or task root) with the checks registered for predictions (the scoring
    layer's: every issue ``d3mkit score`` would find, no scores); a missing path or dataset
    is a :class:`UsageError`. The problemDoc is reported too (its problem-side issues)."""
    from d3mkit.documents.locate import find_problem_doc
    for p in paths:
        p = Path(p)
        if not p.is_file():
            raise UsageError("path does not exist" if not p.exists() else "a predictions file is a CSV "
                             "file, not a directory", str(p), code="usage.path")
    pdoc = find_problem_doc(problem)
    report = Report()
    report.doc(str(pdoc), "problemDoc")
    options = {"targets": targets, "repeat": repeat, "fold": fold}
    docs = [Document("predictions", Path(p), problem=Path(problem), options=options) for p in paths]
    for _ in run_checks(docs, checks if checks is not None else load_checks(), Session(report, search=tuple(datasets))):
        pass
    return report


def stream_issues(paths: list[Path | str], datasets: list[Path | str] = (),
                  checks: Checklist | None = None) -> Iterator[Issue]:
    """The issues of :func:`validate_paths`, yielded as the validator goes (each step's as
    soon as it is done; stopping the iteration stops the validation). A missing or
    unreadable PATH raises UsageError; a readable PATH that holds no D3M document is an
    error issue naming it (the question "is this valid?" has an answer: no)."""
    report = Report()
    report.sink = []
    for _ in _steps(paths, datasets, report, lenient=True, checks=checks):
        if report.sink:
            ready, report.sink = report.sink, []
            yield from ready


def _discover(paths: list[Path | str], report: Report, lenient: bool) -> Found:
    """:func:`discover` of ``paths``; with ``lenient``, a readable PATH without a document
    becomes an error in ``report`` instead of raising (the others are still read)."""
    if not lenient:
        return discover(paths)
    found = Found()
    for p in paths:
        try:
            one = discover([p])
        except UsageError as exc:
            check_readable(Path(p))       # missing or unreadable: still raises
            report.add(str(p), "directory" if Path(p).is_dir() else "file", exc.issues)
            continue
        for kind, docs in (("problem", one.problems), ("dataset", one.datasets), ("unknown", one.unknown)):
            for d in docs:
                found.add(kind, d)
        found.predictions += [x for x in one.predictions if x not in found.predictions]
        found.escaping += [x for x in one.escaping if x not in found.escaping]
    found.problems.sort()
    found.datasets.sort()
    return found


def _steps(paths: list[Path | str], datasets: list[Path | str], report: Report,
           lenient: bool = False, held: Held = NOTHING, checks: Checklist | None = None) -> Iterator[None]:
    """Validate into ``report``, yielding after discovery, after each unreadable problemDoc,
    and after each step of each check and each document (the points where
    :func:`stream_issues` hands issues out)."""
    found = _discover(paths, report, lenient)
    index = DatasetIndex(found.datasets, datasets)
    for p, why in found.escaping:
        kind = "problemDoc" if p.name == "problemDoc.json" or p.name.endswith("_problem") else "datasetDoc"
        report.add(str(p), kind, [make("path.escape", "", f"not read: {why} (documents must lie inside "
                                       "the directory given on the command line)", str(p))])
    for u in found.unknown:
        report.add(str(u), "problemDoc", [make("doc.unknown_kind", "", "neither a problemDoc (no 'inputs') "
                                                 "nor a datasetDoc (no 'dataResources')", str(u))])
    yield

    # parse problems and pair each data entry with its dataset
    session = Session(report, held, tuple(datasets))
    wanted: list[Path] = list(found.datasets)
    for pp in found.problems:
        data, issues = load_json_issues(pp)
        pairs: dict[int, Path | None] = {}
        missing: list[Issue] = []
        if not issues and isinstance(data, dict):
            od = task_of(data.get("about"))[0] == "objectDetection"
            ml = task_of(data.get("about"))[1] == "multiLabel"
            alone = not datasets and not found.datasets and not index.has_siblings(pp)
            view = view_of(pp)
            for i, entry in enumerate(as_list(as_dict(data.get("inputs")).get("data"))):
                did = as_str(as_dict(entry).get("datasetID"))
                if did is None:
                    continue
                # a 4.0.0 view keeps the full problemDoc; its datasetViewMaps names the view's dataset
                d = next((x for x in (index.find(m, pp) for m in view_dataset_ids(data, did, view)) if x), None) \
                    or index.find(did, pp)
                if d is None and (blind := index.unreadable_beside(pp)) is not None:
                    # the dataset may be in there: never "unchecked" or "missing" unseen
                    raise UsageError(f"directory cannot be listed ({blind[1]}): dataset {did!r} of "
                                     f"{pp} may be in it and cannot be validated", str(blind[0]),
                                     code="usage.path")
                pairs[i] = d
                if d is None and alone:
                    # a problemDoc on its own: one warning instead of errors about the absent data
                    missing.append(make("problem.dataset_unchecked", f"inputs.data[{i}].datasetID",
                                        f"dataset {did!r} is not beside the problem and no --datasets was "
                                        f"given: the problem's own checks ran; the targets, metrics and "
                                        f"dataSplits could not be checked against the dataset", str(pp)))
                elif d is None and index.escaped_beside(pp):
                    out = index.escaped_beside(pp)
                    missing.append(make("path.escape", f"inputs.data[{i}].datasetID",
                                        f"dataset {did!r} not found inside the task root; "
                                        f"{out[0][0].parent} was not read: {out[0][1]}", str(pp)))
                elif d is None:
                    missing.append(make("problem.dataset_missing", f"inputs.data[{i}].datasetID",
                                        f"dataset {did!r} is neither beside the problem nor on the "
                                        f"--datasets search path", str(pp)))
                else:
                    if d not in wanted:
                        wanted.append(d)
                    if od:
                        session.object_detection.add(d)
                    if ml:     # a multiLabel problem's dataset: a d3mIndex repeats
                        session.multi_label.add(d)
                    session.targets.setdefault(d, set()).update(
                        t["colName"] for t in as_list(as_dict(entry).get("targets"))
                        if isinstance(t, dict) and isinstance(t.get("colName"), str))
        session.problems[pp] = ProblemEntry(data, issues, pairs, missing,
                                            alone if not issues and isinstance(data, dict) else False)
        if issues:    # an unreadable problemDoc is reported at once (is_valid can stop here)
            report.add(str(pp), "problemDoc", issues)
            yield

    documents = ([Document("datasetDoc", d) for d in wanted] + [Document("problemDoc", pp) for pp in found.problems]
                 + [Document("predictions", csv, problem=pdoc) for csv, pdoc in found.predictions])
    yield from run_checks(documents, checks if checks is not None else load_checks(), session)


def warm() -> None:
    """Do now what the first :func:`validate_task_root` would do before it looks at a file:
    import the validation's modules and build the JSON Schema validators of the base
    versions (about 0.1 s). For a caller with time to spare before it validates (``d3mkit
    import`` while the first chunk of its table is parsed in another thread)."""
    from d3mkit.documents.versions import BASE_VERSION
    from d3mkit.validation.schema import json_validator
    for kind, version in BASE_VERSION.items():
        json_validator(kind, version)


def validate_task_root(root: Path, datasets: tuple[Path, ...] = (), *,
                       cells_checked: tuple[Path, ...] = (), in_memory: dict | None = None) -> list[Issue]:
    """All issues of the task root (or any tree) at ``root``: problem, dataset, splits, files.
    ``cells_checked`` are tables whose writer checked every cell against its colType: only
    their index, target and refersTo columns are read. ``in_memory`` maps tables the caller
    has just written to the frames it wrote them from (columns by header name): the checks
    take those columns from the frames instead of parsing the files; every check still runs
    (both passed down as a :class:`d3mkit.tables.held.Held`)."""
    return validate_paths([root], list(datasets), Held.of(in_memory, cells_checked)).issues()
