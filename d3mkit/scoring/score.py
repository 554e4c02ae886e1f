"""Scoring as one pipeline: the steps, in order, and the entry points that run them.

::

    resolve   d3mkit.scoring.resolve    problem -> dataset -> targets -> metadata directory
    plan      d3mkit.scoring.plan       performanceMetrics -> registered Metric records
    truth     d3mkit.scoring.truth      learningData TEST rows (or a targets table)
    read      d3mkit.scoring.predictions  a file or a DataFrame -> one string table
    layout    d3mkit.scoring.layouts    detect the layout, align rows, supply metric inputs
    compute   d3mkit.scoring.compute    call each metric with the inputs it declares
    report    d3mkit.scoring.report     ScoreReport, scores.csv

:func:`prepare_problem` runs resolve, plan and truth once (``d3mkit evaluate`` does it
once per problem); :func:`check_prepared` runs read and layout for one predictions source
(``d3mkit validate PREDICTIONS --problem``: every issue, no score); :func:`score_prepared`
runs read, layout and compute. :func:`score_predictions` is both in one call (the API's
:func:`d3mkit.api.score` and ``d3mkit score``); :func:`score_task_root` is what the
baselines use. Each raises :class:`~d3mkit.core.errors.D3MKitError` carrying every issue when
the predictions (or the problem's metrics) have errors, so no scores are written for a bad
submission; warnings stay in ``report.issues``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from d3mkit.documents import ProblemDoc
from d3mkit.core.errors import D3MKitError, Issue, error, has_errors, require_type
from d3mkit.core.registry import plugin_issues
from d3mkit.scoring.compute import compute_scores
from d3mkit.scoring.layouts import align
from d3mkit.scoring.plan import Planned, multilabel_issues, needs_confidence, needs_ranked, plan_metrics
from d3mkit.scoring.predictions import check_source, read_predictions, source_name
from d3mkit.scoring.report import Score, ScoreReport, write_scores  # noqa: F401 - the public names
from d3mkit.scoring.resolve import Resolved, resolve
from d3mkit.scoring.truth import Truth, load_truth

__all__ = ["PreparedProblem", "Score", "ScoreReport", "check_prepared", "plan_metrics",
           "prepare_problem", "score_predictions", "score_prepared", "score_task_root",
           "write_scores"]


@dataclass
class PreparedProblem:
    """A problem made ready to score many predictions: its metrics resolved and its truth
    read once (see :func:`prepare_problem`). ``issues`` holds the problem-side issues
    (metrics, plugins, truth); any error among them fails every submission."""
    problem: ProblemDoc
    planned: list[Planned]
    truth: Truth
    issues: list[Issue]
    metadata_dir: Path | None

    @property
    def ok(self) -> bool:
        return not has_errors(self.issues)


def prepare_problem(problem, *, dataset=None, targets=None, repeat: int = 0, fold: int = 0,
                    metadata_dir=None, splits_path=None) -> PreparedProblem:
    """Resolve ``problem`` (a :class:`Resolved` record, or what :func:`resolve` takes:
    with ``dataset``/``targets``/``metadata_dir``), plan its metrics and read its truth
    once; :func:`score_prepared` then scores predictions against it. Never raises for
    problem-side issues: they are in ``.issues``."""
    require_type("repeat", repeat, int, "an int")
    require_type("fold", fold, int, "an int")
    for _ in range(_TRIES):
        # one version of the tree: a task root replaced while it was read (build --force, views
        # --force: a directory exchange) is read again, so documents, splits and truth agree
        before = _identity(problem, dataset)
        res = problem if isinstance(problem, Resolved) else \
            resolve(problem, dataset=dataset, targets=targets, metadata_dir=metadata_dir)
        planned, issues = plan_metrics(res.problem)
        issues = plugin_issues() + issues
        truth = load_truth(res.problem, dataset=res.dataset, targets=res.targets,
                           splits_path=splits_path, repeat=repeat, fold=fold)
        if _identity(problem, dataset) == before:
            return PreparedProblem(res.problem, planned, truth, issues + truth.issues, res.metadata_dir)
    raise D3MKitError(error("task_root.changed", "", f"the task root was replaced {_TRIES} times while it "
                            "was read; score it once it stops changing", str(_where(problem))))


_TRIES = 5


def _where(problem) -> Path | None:
    if isinstance(problem, Resolved):
        return problem.problem.path
    return Path(problem) if isinstance(problem, (str, os.PathLike)) else None


def _identity(problem, dataset) -> tuple:
    """(device, inode) of the directories a scoring reads from, up to the task root: a
    directory replaced by another (an exchange of two trees) changes its inode."""
    out = []
    for start in (_where(problem), dataset if isinstance(dataset, (str, os.PathLike)) else None):
        if start is None:
            continue
        p = Path(start)
        for d in (p, p.parent, p.parent.parent):
            try:
                st = os.stat(d)
            except (OSError, ValueError):
                out.append(None)
                continue
            out.append((st.st_dev, st.st_ino))
    return tuple(out)


def _align_prepared(prepared: PreparedProblem, predictions):
    """Read ``predictions`` (a path or a DataFrame) and align it with the prepared truth,
    as scoring does: ``(aligned or None, every issue so far)``; None when an error stops
    scoring."""
    check_source(predictions, "predictions")
    problem, planned = prepared.problem, prepared.planned
    issues = list(prepared.issues)
    df, read_issues = read_predictions(predictions, prepared.truth)
    issues += read_issues
    if df is None or has_errors(issues):
        return None, issues
    aligned = align(prepared.truth, df, source_name(predictions, "predictions"),
                    needs_confidence=needs_confidence(planned), ranked=needs_ranked(planned))
    if isinstance(aligned, list):
        return None, issues + aligned
    aligned.issues = issues + aligned.issues
    if aligned.layout == "multiLabel" and problem.task_subtype != "multiLabel":
        ml = multilabel_issues(planned, str(problem.path or ""))
        if ml:
            return None, aligned.issues + ml
    return aligned, aligned.issues


def check_prepared(prepared: PreparedProblem, predictions) -> list[Issue]:
    """Every issue :func:`score_prepared` would raise or report for ``predictions`` (the
    problem's, the file's, the alignment's), without computing a score; what ``d3mkit
    validate PREDICTIONS --problem P`` reports."""
    return _align_prepared(prepared, predictions)[1]


def score_prepared(prepared: PreparedProblem, predictions) -> ScoreReport:
    """Score ``predictions`` (a path or a DataFrame) against a :class:`PreparedProblem`.
    Raises :class:`D3MKitError` with every issue (the problem's and the predictions')
    when anything is wrong; warnings stay in ``report.issues``."""
    return score_prepared_aligned(prepared, predictions)[0]


def score_prepared_aligned(prepared: PreparedProblem, predictions, record: list | None = None):
    """:func:`score_prepared` and the aligned arrays it scored; ``record`` receives each
    score's metric call(s) (:func:`~d3mkit.scoring.compute.compute_scores`: ``d3mkit
    evaluate`` resamples them for its statistics)."""
    aligned, issues = _align_prepared(prepared, predictions)
    if aligned is None:
        raise D3MKitError(issues)
    report = compute_scores(prepared.planned, aligned, prepared.problem.problem_id,
                            metadata_dir=prepared.metadata_dir,
                            path=source_name(predictions, "predictions"), record=record)
    if has_errors(report.issues):
        raise D3MKitError(report.issues)
    return report, aligned


def score_predictions(problem, predictions, *, dataset=None, targets=None, repeat: int = 0,
                      fold: int = 0, metadata_dir=None, splits_path=None) -> ScoreReport:
    """Score ``predictions`` (a predictions.csv path or a DataFrame) for ``problem`` (a
    task root, problem directory, problemDoc.json, :class:`ProblemDoc` or
    :class:`Resolved`) against ``targets`` (a path or a DataFrame: every row) or the TEST
    rows of ``dataset`` (default: the problem's, found by datasetID). The same as
    :func:`prepare_problem` then :func:`score_prepared`."""
    prepared = prepare_problem(problem, dataset=dataset, targets=targets, repeat=repeat,
                               fold=fold, metadata_dir=metadata_dir, splits_path=splits_path)
    return score_prepared(prepared, predictions)


def score_task_root(task, predictions, *, repeat: int = 0, fold: int = 0,
                    targets=None) -> ScoreReport:
    """Score ``predictions`` against the task root's own dataset and dataSplits (or
    ``targets``); per-row metadata comes from ``<name>_debug/``."""
    from d3mkit.taskroot.model import TaskRoot
    task = task if isinstance(task, TaskRoot) else TaskRoot.open(task)
    dataset = task.dataset if (task.dataset_dir / "datasetDoc.json").exists() else None
    res = resolve(task.problem, dataset=dataset, targets=targets, metadata_dir=task.debug_dir)
    return score_predictions(res, predictions, repeat=repeat, fold=fold)
