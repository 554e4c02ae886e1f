"""Scoring a predictions file: resolve the problem's metrics, read and align through
:mod:`d3mkit.scoring.predictions`, call the metric functions, report.

:func:`prepare_problem` resolves a problem's metrics and reads its truth once and
:func:`score_prepared` scores one predictions file against it (``d3mkit evaluate`` uses
the pair); :func:`score_task_root` is what baselines use (via
:func:`d3mkit.baselines.common.write_solution`); :func:`score_predictions` is the
lower-level entry taking a problem document, a predictions path and either a dataset or a
``targets.csv``. Both raise :class:`~d3mkit.errors.D3MKitError` carrying every issue
when the predictions (or the problem's metrics) have errors, so no scores are written for
a bad submission. :func:`write_scores` writes ``scores.csv`` atomically with exactly the
columns ``index,problemID,metric,value``.

Multiple targets: a singleTarget metric scores each target and is written as
``NAME[target]`` when the problem has more than one target; an allTargets metric gets
``(rows, targets)`` arrays once (columns in the problemDoc's target order), and also
``target_names=`` (that order) and ``d3m_index=`` (the rows' d3mIndex values) when it was
registered with ``extra={"targetNames": True}``.

multiLabel (several truth rows per d3mIndex): every metric gets each target's
:class:`~d3mkit.scoring.multilabel.LabelSets`; an allTargets metric is the mean over
targets. Metrics not registered with ``multilabel=True`` are errors for such problems. The applicability is the problemDoc entry's
``applicabilityToTarget``, else the metric's default.
"""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.docs import DatasetDoc, ProblemDoc
from d3mkit.atomic import write_text
from d3mkit.errors import D3MKitError, Issue, error, has_errors
from d3mkit.scoring import predictions as P
from d3mkit.registry import Metric, get_metric, plugin_issues, registry
from d3mkit.scoring.metrics import DEFAULT_POS_LABEL, remember_codes
from d3mkit.tables import read_table
from d3mkit.validation import coltypes

SCORE_COLUMNS = ["index", "problemID", "metric", "value"]
POS_LABEL_METRICS = ("precision", "recall", "jaccardSimilarityScore", "rocAuc")
_ENTRY_KEYS = ("metric", "specifyOther", "applicabilityToTarget")


@dataclass(frozen=True)
class Score:
    metric: str
    target: str | None
    value: float

    @property
    def label(self) -> str:
        """The ``metric`` cell of scores.csv."""
        return self.metric if self.target is None else f"{self.metric}[{self.target}]"


@dataclass
class ScoreReport:
    problem_id: str | None
    scores: list[Score] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"index": list(range(len(self.scores))),
                             "problemID": [self.problem_id] * len(self.scores),
                             "metric": [s.label for s in self.scores],
                             "value": [s.value for s in self.scores]}, columns=SCORE_COLUMNS)

    def to_dict(self) -> dict:
        def num(v):
            return v if isinstance(v, float) and math.isfinite(v) else None
        return {"problemID": self.problem_id,
                "scores": [{"metric": s.metric, "target": s.target, "value": num(s.value)}
                           for s in self.scores],
                "issues": [i.to_dict() for i in self.issues]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2) + "\n"

    def value(self, metric: str, target: str | None = None) -> float:
        for s in self.scores:
            if s.metric == metric and s.target == target:
                return s.value
        raise KeyError((metric, target))


def write_scores(report: ScoreReport, path: Path | str) -> Path:
    """Write ``scores.csv`` atomically (temporary sibling, then rename)."""
    text = report.to_frame().to_csv(index=False, lineterminator="\n")
    write_text(path, text)
    return Path(path)


# ---------------------------------------------------------------------------------------
# metric resolution
# ---------------------------------------------------------------------------------------
@dataclass
class _Planned:
    name: str                  # as written in scores.csv
    metric: Metric
    params: dict
    applicability: str
    position: int = -1         # its place in inputs.performanceMetrics


def plan_metrics(problem: ProblemDoc) -> tuple[list[_Planned], list[Issue]]:
    """The problem's metrics resolved in the registry with their parameters; unknown
    names and metrics that do not fit the task type are errors."""
    issues: list[Issue] = []
    planned: list[_Planned] = []
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
        planned.append(_Planned(str(name), metric, params, appl, i))
    if problem.task_subtype == "multiLabel":
        issues += multilabel_issues(planned, path)
    return planned, issues


def multilabel_issues(planned: list[_Planned], path: str) -> list[Issue]:
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


# ---------------------------------------------------------------------------------------
# scoring
# ---------------------------------------------------------------------------------------
def _metadata(metric: Metric, metadata_dir: Path | None, index: np.ndarray) -> pd.DataFrame:
    where = f"{metadata_dir}/{metric.metadata_file}" if metadata_dir else str(metric.metadata_file)
    if metadata_dir is None or not (metadata_dir / metric.metadata_file).is_file():
        raise D3MKitError(error("metric.metadata", "", f"metric {metric.name!r} needs "
                                f"{metric.metadata_file} from the task root's _debug directory, "
                                f"which is not there", where))
    from d3mkit.paths import require_inside
    meta = read_table(require_inside(metadata_dir.parent, metadata_dir / metric.metadata_file,
                                     what=f"{metadata_dir.name}/{metric.metadata_file}",
                                     root_name="the task root"))
    if P.INDEX not in meta.columns:
        raise D3MKitError(error("metric.metadata", "row 1", f"no {P.INDEX} column", where))
    mi, idx = P._same_kind(P._index_values(meta[P.INDEX]), index)
    mindex = pd.Index(mi)
    if mindex.has_duplicates:
        raise D3MKitError(error("metric.metadata", "", "d3mIndex values repeat", where))
    pos = mindex.get_indexer(idx)
    if (pos < 0).any():
        miss = idx[pos < 0]
        raise D3MKitError(error("metric.metadata", "", f"{len(miss)} scored d3mIndex value(s) "
                                f"have no metadata row ({P._rows_text(miss)})", where))
    return meta.iloc[pos].reset_index(drop=True)


def _stack(arrays: list[np.ndarray]) -> np.ndarray:
    if all(a.dtype.kind == "f" for a in arrays):
        out = np.column_stack(arrays).astype(float)
    else:
        out = np.empty((len(arrays[0]), len(arrays)), dtype=object)
        for j, a in enumerate(arrays):
            out[:, j] = a
    out.flags.writeable = False
    return out


def canonical_label(value, col_type: str):
    """A metric's ``posLabel`` in the canonical form of the target's colType (``True``
    for a boolean target is ``"true"``; ``1`` for an integer target is ``1.0``), so it
    names the label the truth and predictions are compared in. None means ``"1"``.

    >>> canonical_label("True", "boolean"), canonical_label(1, "integer"), canonical_label(None, "categorical")
    ('true', 1.0, '1')
    """
    raw = DEFAULT_POS_LABEL if value is None else value
    vals, bad = coltypes.canonical([str(raw)], col_type)
    return raw if bad[0] else vals[0].item() if hasattr(vals[0], "item") else vals[0]


def _call(m: Metric, yt, yp, kw: dict) -> float:
    """One metric call: numpy warnings never reach stderr, and a value that is not a
    finite number is an error (ValueError), never a score."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = float(m(yt, yp, **kw))
    if not math.isfinite(value):
        raise ValueError(f"the value is {value}, not a finite number")
    return value


def compute_scores(planned: list[_Planned], aligned: P.Aligned, problem_id: str | None,
                   *, metadata_dir: Path | None = None, path: str = "") -> ScoreReport:
    """Call each planned metric on the aligned arrays."""
    report = ScoreReport(problem_id, issues=list(aligned.issues))
    targets = aligned.targets
    multi = len(targets) > 1
    stacked = None
    for plan in planned:
        m = plan.metric
        base = dict(plan.params)
        if aligned.confidence is not None:
            base["confidence"] = aligned.confidence
            if aligned.classes is not None:
                base["classes"] = aligned.classes
        if m.metadata_file:
            base["metadata"] = _metadata(m, metadata_dir, aligned.index)
        if aligned.layout == "objectDetection":
            base["images_true"] = aligned.images_true
            base["images_pred"] = aligned.images_pred
        calls = []
        if aligned.layout == "multiLabel":
            # label sets per target; allTargets averages the targets (as d3m.metrics does)
            calls = [(t if multi and plan.applicability != "allTargets" else None,
                      aligned.truth[t], aligned.pred[t], dict(base)) for t in targets]
            if plan.applicability == "allTargets" and multi:
                try:
                    value = float(np.mean([_call(m, yt, yp, kw) for _t, yt, yp, kw in calls]))
                except D3MKitError:   # a ValueError too: an input problem already stated
                    raise
                except (ValueError, ZeroDivisionError) as exc:
                    report.issues.append(error("metric.failed", "", f"{plan.name} could not be "
                                               f"computed: {exc}", path))
                    continue
                report.scores.append(Score(plan.name, None, value))
                continue
        elif plan.applicability == "allTargets" and aligned.layout != "objectDetection":
            if stacked is None:
                stacked = (_stack([aligned.truth[t] for t in targets]),
                           _stack([aligned.pred[t] for t in targets]))
            kw = dict(base)
            if aligned.ranks is not None:
                kw["ranks"] = aligned.ranks[targets[0]]
            if m.extra.get("targetNames"):      # the metric reads columns by target name
                kw["target_names"] = tuple(targets)
                kw["d3m_index"] = aligned.index   # and names a bad row by its d3mIndex
            calls.append((None, stacked[0], stacked[1], kw))
        else:
            for t in targets:
                kw = dict(base)
                if aligned.ranks is not None:
                    kw["ranks"] = aligned.ranks[t]
                calls.append((t if multi else None, aligned.truth[t], aligned.pred[t], kw))
        for target, yt, yp, kw in calls:
            t_name = target or targets[0]
            if aligned.codes and t_name in aligned.codes and yt is aligned.truth[t_name] \
                    and yp is aligned.pred[t_name]:
                remember_codes(yt, yp, *aligned.codes[t_name])
            if "posLabel" in m.params and aligned.layout != "multiLabel":
                ctype = aligned.col_types.get(target or targets[0], "categorical")
                kw["posLabel"] = canonical_label(kw.get("posLabel"), ctype)
            try:
                value = _call(m, yt, yp, kw)
            except D3MKitError:
                raise
            except Exception as exc:  # noqa: BLE001 - a metric that cannot score is an input issue
                if m.standard and not isinstance(exc, (ValueError, ZeroDivisionError)):
                    raise
                what = f"{plan.name}[{target}]" if target else plan.name
                report.issues.append(error("metric.failed", "",
                                           f"{what} could not be computed: {exc}", path))
                continue
            report.scores.append(Score(plan.name, target, value))
    return report


def _as_problem(problem) -> ProblemDoc:
    return problem if isinstance(problem, ProblemDoc) else ProblemDoc.load(problem)


def _as_dataset(dataset) -> DatasetDoc | None:
    if dataset is None or isinstance(dataset, DatasetDoc):
        return dataset
    return DatasetDoc.load(dataset)


def default_metadata_dir(problem: ProblemDoc) -> Path | None:
    """``<name>_debug`` next to a ``<name>_problem`` directory, if the problem has one."""
    if problem.path is None:
        return None
    pdir = Path(problem.path).parent
    if pdir.name.endswith("_problem"):
        return pdir.parent / (pdir.name[:-len("_problem")] + "_debug")
    return None


@dataclass
class PreparedProblem:
    """A problem made ready to score many predictions files: its metrics resolved and
    its truth read once (see :func:`prepare_problem`). ``issues`` holds the problem-side
    issues (metrics, plugins, truth); any error among them fails every submission."""
    problem: ProblemDoc
    planned: list
    truth: object
    issues: list[Issue]
    metadata_dir: Path | None

    @property
    def ok(self) -> bool:
        return not has_errors(self.issues)


def prepare_problem(problem, *, dataset=None, targets_path=None, repeat: int = 0, fold: int = 0,
                    metadata_dir=None, splits_path=None) -> PreparedProblem:
    """Resolve ``problem``'s metrics and read its truth (``targets_path`` or the TEST rows
    of ``dataset``) once; :func:`score_prepared` then scores predictions files against it.
    Never raises for problem-side issues: they are in ``.issues``."""
    problem = _as_problem(problem)
    dataset = _as_dataset(dataset)
    planned, issues = plan_metrics(problem)
    issues = plugin_issues() + issues
    truth = P.load_truth(problem, dataset=dataset, targets_path=targets_path,
                         splits_path=splits_path, repeat=repeat, fold=fold)
    issues += truth.issues
    mdir = Path(metadata_dir) if metadata_dir is not None else default_metadata_dir(problem)
    return PreparedProblem(problem, planned, truth, issues, mdir)


def _align_prepared(prepared: PreparedProblem, predictions_path):
    """Read ``predictions_path`` and align it with the prepared truth, as scoring does:
    ``(aligned or None, every issue so far)``; None when an error stops scoring."""
    problem, planned = prepared.problem, prepared.planned
    ppath = str(predictions_path)
    issues = list(prepared.issues)
    df, read_issues = P.read_predictions(predictions_path, prepared.truth)
    issues += read_issues
    if df is None or has_errors(issues):
        return None, issues
    needs_conf = any(p.metric.needs_confidence for p in planned)
    ranked = any(p.metric.extra.get("layout") == "ranked" for p in planned)
    aligned = P.align(prepared.truth, df, ppath, task_type=problem.task_type,
                      needs_confidence=needs_conf, ranked=ranked)
    if isinstance(aligned, list):
        return None, issues + aligned
    aligned.issues = issues + aligned.issues
    if aligned.layout == "multiLabel" and problem.task_subtype != "multiLabel":
        ml = multilabel_issues(planned, str(problem.path or ""))
        if ml:
            return None, aligned.issues + ml
    return aligned, aligned.issues


def check_prepared(prepared: PreparedProblem, predictions_path) -> list[Issue]:
    """Every issue :func:`score_prepared` would raise or report for ``predictions_path``
    (the problem's, the file's, the alignment's), without computing a score; what
    ``d3mkit validate PREDICTIONS --problem P`` reports."""
    return _align_prepared(prepared, predictions_path)[1]


def score_prepared(prepared: PreparedProblem, predictions_path) -> ScoreReport:
    """Score one predictions file against a :class:`PreparedProblem`. Raises
    :class:`D3MKitError` with every issue (the problem's and the file's) when anything
    is wrong; warnings stay in ``report.issues``."""
    aligned, issues = _align_prepared(prepared, predictions_path)
    if aligned is None:
        raise D3MKitError(issues)
    report = compute_scores(prepared.planned, aligned, prepared.problem.problem_id,
                            metadata_dir=prepared.metadata_dir, path=str(predictions_path))
    if has_errors(report.issues):
        raise D3MKitError(report.issues)
    return report


def score_predictions(problem, predictions_path, *, dataset=None, targets_path=None,
                      repeat: int = 0, fold: int = 0, metadata_dir=None,
                      splits_path=None) -> ScoreReport:
    """Score ``predictions_path`` for ``problem`` (a :class:`ProblemDoc` or its path)
    against ``targets_path`` or the TEST rows of ``dataset`` (a :class:`DatasetDoc`, a
    dataset directory or a datasetDoc.json). Raises :class:`D3MKitError` with every
    issue when anything is wrong; warnings stay in ``report.issues``. The same as
    :func:`prepare_problem` then :func:`score_prepared` (what ``d3mkit evaluate`` does
    to read each problem's truth once for all its submissions)."""
    prepared = prepare_problem(problem, dataset=dataset, targets_path=targets_path, repeat=repeat,
                               fold=fold, metadata_dir=metadata_dir, splits_path=splits_path)
    return score_prepared(prepared, predictions_path)


def score_task_root(task, predictions_path, *, repeat: int = 0, fold: int = 0,
                    targets_path=None) -> ScoreReport:
    """Score ``predictions_path`` against the task root's own dataset and dataSplits
    (or ``targets_path``); per-row metadata comes from ``<name>_debug/``."""
    from d3mkit.taskroot import TaskRoot
    task = task if isinstance(task, TaskRoot) else TaskRoot.open(task)
    dataset = task.dataset if (task.dataset_dir / "datasetDoc.json").exists() else None
    return score_predictions(task.problem, predictions_path, dataset=dataset,
                             targets_path=targets_path, repeat=repeat, fold=fold,
                             metadata_dir=task.debug_dir)
