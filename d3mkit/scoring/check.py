"""Predictions files as documents: ``d3mkit validate PREDICTIONS --problem P`` checks a
predictions.csv against its problem exactly as ``d3mkit score`` reads it (the scoring I/O
layer, :func:`d3mkit.scoring.score.check_prepared`): every issue at once, no scores.
:func:`validate_all` is ``d3mkit validate PATH...``: the documents
(:func:`d3mkit.validation.validate_paths`) and the predictions files it found in problem
directories (a CSV there that is not the splits file).

The truth comes from the targets table or the problem's dataset (beside the problem, else
in the search directories), resolved as for ``score`` (:mod:`d3mkit.scoring.resolve`). A problem-side error (an unknown metric, a truth that
cannot be read) is reported on the problemDoc; the file's issues on the predictions file.
"""

from __future__ import annotations

from pathlib import Path

from d3mkit.core.errors import UsageError
from d3mkit.validation.report import Report


def validate_all(paths: list[Path | str], datasets=()) -> Report:
    """:func:`d3mkit.validation.validate_paths`, plus every predictions file it found (a CSV
    named inside a problem directory that is not its splits file) checked against that
    problem."""
    from d3mkit.validation import validate_paths
    report = validate_paths(paths, datasets)
    for csv, problem_doc in report.found_predictions:
        sub = validate_predictions([csv], problem_doc, datasets=datasets)
        for d in sub.documents:
            if d.kind == "predictions" or d.issues:
                report.add(d.path, d.kind, d.issues)
    return report


def validate_predictions(paths: list[Path | str], problem: Path | str, *, datasets=(),
                         targets: Path | str | None = None, repeat: int = 0, fold: int = 0) -> Report:
    """Check each predictions file in ``paths`` against ``problem`` (a problem directory,
    problemDoc.json or task root); a missing path or dataset is a :class:`UsageError`."""
    from d3mkit.documents.locate import find_problem_doc
    from d3mkit.scoring.resolve import resolve
    from d3mkit.scoring.score import check_prepared, prepare_problem

    for p in paths:
        p = Path(p)
        if not p.is_file():
            raise UsageError("path does not exist" if not p.exists() else "a predictions file is a CSV "
                             "file, not a directory", str(p), code="usage.path")
    pdoc = find_problem_doc(problem)
    resolved = resolve(pdoc, targets=targets, search=datasets)
    prepared = prepare_problem(resolved, repeat=repeat, fold=fold)
    report = Report()
    problem_side = {id(i) for i in prepared.issues}
    report.add(str(pdoc), "problemDoc", list(prepared.issues))
    for p in paths:
        issues = [i for i in check_prepared(prepared, p) if id(i) not in problem_side]
        report.add(str(p), "predictions", issues)
    return report
