"""Validation end to end: discover documents, pair problems with datasets, run every
check, return a :class:`~d3mkit.validation.report.Report`. Nothing is ever written.

The driver is a generator of steps (:func:`_steps`: discovery, each step of each dataset,
each problem), so the same code gives the whole report (:func:`validate_paths`) and a lazy
stream of issues (:func:`stream_issues`, which yields each step's issues as soon as the
step is done and does no more work than its consumer asks for).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from d3mkit.tables.held import NOTHING, Held
from d3mkit.documents.jsonio import load_json_issues
from d3mkit.core.errors import Issue, UsageError
from d3mkit.validation.codes import make
from d3mkit.validation.common import as_dict, as_list, as_str
from d3mkit.validation.crossdoc import check_problem_dataset
from d3mkit.validation.discover import DatasetIndex, Found, check_readable, discover
from d3mkit.validation import files
from d3mkit.validation.report import Report
from d3mkit.validation.splitcheck import check_splits
from d3mkit.documents.published import view_dataset_ids, view_of
from d3mkit.documents.versions import task_of


def _problem_schema(data: dict, path: str) -> list[Issue]:
    try:
        from d3mkit.validation.schema import check_problem_schema
    except ImportError:
        return []
    return list(check_problem_schema(data, path))


def _splits_file(data: dict, pp: Path) -> Path:
    rel = as_dict(as_dict(data.get("inputs")).get("dataSplits")).get("splitsFile", "dataSplits.csv")
    return pp.parent / rel if isinstance(rel, str) else pp.parent / "dataSplits.csv"


def validate_paths(paths: list[Path | str], datasets: list[Path | str] = (), held: Held = NOTHING) -> Report:
    """Validate everything under ``paths``; a missing/unreadable PATH raises UsageError,
    and so does a PATH holding no D3M document. ``held``: what the caller holds of the
    tables (:class:`d3mkit.tables.held.Held`; a task root's writer)."""
    report = Report()
    for _ in _steps(paths, datasets, report, held=held):
        pass
    return report


def stream_issues(paths: list[Path | str], datasets: list[Path | str] = ()) -> Iterator[Issue]:
    """The issues of :func:`validate_paths`, yielded as the validator goes (each step's as
    soon as it is done; stopping the iteration stops the validation). A missing or
    unreadable PATH raises UsageError; a readable PATH that holds no D3M document is an
    error issue naming it (the question "is this valid?" has an answer: no)."""
    report = Report()
    report.sink = []
    for _ in _steps(paths, datasets, report, lenient=True):
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
           lenient: bool = False, held: Held = NOTHING) -> Iterator[None]:
    """Validate into ``report``, yielding after discovery, after each step of each dataset
    (:func:`d3mkit.validation.files.dataset_steps`: per table read, header and index,
    column) and after each problem (the points where :func:`stream_issues` hands issues out)."""
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
    problems = []
    od_datasets: set[Path] = set()
    ml_datasets: set[Path] = set()   # datasets of multiLabel problems (a d3mIndex repeats)
    targets: dict[Path, set[str]] = {}   # columns the problems name as targets, per dataset
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
                        od_datasets.add(d)
                    if ml:
                        ml_datasets.add(d)
                    targets.setdefault(d, set()).update(
                        t["colName"] for t in as_list(as_dict(entry).get("targets"))
                        if isinstance(t, dict) and isinstance(t.get("colName"), str))
        problems.append((pp, data, issues, pairs, missing, alone if not issues and isinstance(data, dict) else False))
        if issues:    # an unreadable problemDoc is reported at once (is_valid can stop here)
            report.add(str(pp), "problemDoc", issues)
            yield

    # predictions files are the scoring layer's to check (d3mkit.scoring.check.validate_all)
    report.found_predictions = list(found.predictions)

    contexts: dict[Path, files.DatasetContext] = {}
    for d in wanted:
        contexts[d] = yield from files.dataset_steps(d, report, object_detection=d in od_datasets,
                                                    multi_label=d in ml_datasets,
                                                    keep=frozenset(targets.get(d, ())), held=held)
        yield

    for pp, data, issues, pairs, missing, alone in problems:
        p = str(pp)
        yield from _problem_steps(pp, data, issues, pairs, missing, alone, contexts, report, held)
        yield


def _problem_steps(pp: Path, data, issues: list[Issue], pairs: dict, missing: list[Issue], alone: bool,
                   contexts: dict, report: Report, held: Held = NOTHING) -> Iterator[None]:
    """A problem's checks, yielding after its schema and after the problem <-> dataset
    checks, before the splits file is read."""
    p = str(pp)
    if issues:
        return    # reported when it was parsed
    if not isinstance(data, dict):
        report.add(p, "problemDoc", [make("doc.not_object", "",
                                          f"a problemDoc is a JSON object, not {type(data).__name__}", p)])
        return
    report.add(p, "problemDoc", _problem_schema(data, p) + missing)
    yield
    ctxs = {i: contexts.get(d) if d is not None else None for i, d in pairs.items()}
    report.add(p, "problemDoc", check_problem_dataset(data, ctxs, p))
    yield
    if alone and not _splits_file(data, pp).is_file():
        return   # nothing to check: no phantom dataSplits document
    check_splits(data, pp, ctxs.get(0), report, view=view_of(pp), held=held)


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
