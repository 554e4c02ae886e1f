"""The predictions check: a predictions file validated exactly as ``d3mkit score`` reads it.

What this module owns: :data:`PREDICTIONS`, the :class:`~d3mkit.validation.checks.Check`
that pyproject.toml registers in the ``d3mkit.checks`` group for documents of kind
``predictions`` (``d3mkit validate PREDICTIONS --problem P``, and a CSV inside a problem
directory that is not its splits file). It runs the scoring I/O layer
(:func:`d3mkit.scoring.score.check_prepared`): every issue at once, no scores. It lives in
scoring because it is scoring's reading; validation finds it through the registry and
never imports it.

The truth comes from the targets table or the problem's dataset (beside the problem, else
in the search directories), resolved as for ``score`` (:mod:`d3mkit.scoring.resolve`). A
problem-side error (an unknown metric, a truth that cannot be read) is reported once on the
problemDoc; the file's own issues on the predictions file.
"""

from __future__ import annotations

from typing import Iterator

from d3mkit.core.errors import Issue
from d3mkit.validation.checks import Check, Document, Session


def _prepared(doc: Document, s: Session):
    """The problem prepared for scoring, once per (problem, targets, repeat, fold) in a
    run; its problem-side issues are recorded on the problemDoc when it is prepared."""
    from d3mkit.documents.locate import find_problem_doc
    from d3mkit.scoring.resolve import resolve
    from d3mkit.scoring.score import prepare_problem

    o = doc.options
    key = ("predictions", str(doc.problem), str(o.get("targets")), o.get("repeat", 0), o.get("fold", 0))
    if key not in s.memo:
        pdoc = find_problem_doc(doc.problem)
        resolved = resolve(pdoc, targets=o.get("targets"), search=s.search)
        prepared = prepare_problem(resolved, repeat=o.get("repeat", 0), fold=o.get("fold", 0))
        if prepared.issues:
            s.report.add(str(pdoc), "problemDoc", list(prepared.issues))
        s.memo[key] = prepared
    return s.memo[key]


def _check(doc: Document, s: Session) -> Iterator[Issue]:
    from d3mkit.scoring.score import check_prepared
    prepared = _prepared(doc, s)
    problem_side = {id(i) for i in prepared.issues}
    yield from (i for i in check_prepared(prepared, doc.path) if id(i) not in problem_side)


PREDICTIONS = Check("predictions", "predictions", _check,
                    "a predictions file against its problem, as d3mkit score reads it")
