"""Step 5 of scoring, compute: call each planned metric on the aligned arrays.

How a metric is called is its layout's business (:meth:`d3mkit.scoring.layouts.Layout.calls`:
per target or all targets at once, averaged or not); which keywords it gets is the metric's
(``Metric.inputs``, checked against its function's signature when it is registered): of the
inputs the layout supplies, and ``metadata`` (the rows of ``metadata_file`` in the
metadata directory, in d3mIndex order), exactly those it declares, plus the problemDoc
parameters it takes. A metric that raises ``ValueError`` (or any error, for a plugin
metric) is a ``metric.failed`` issue; a value that is not a finite number too.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np

from d3mkit.core.lazy import pandas as pd   # imported by the branches that use it
from d3mkit.core.errors import D3MKitError, error
from d3mkit.core.registry import Metric
from d3mkit.scoring.layouts import BY_NAME, Aligned
from d3mkit.scoring.metrics import DEFAULT_POS_LABEL
from d3mkit.scoring.plan import Planned
from d3mkit.scoring.report import Score, ScoreReport
from d3mkit.scoring.values import INDEX, index_values, rows_text, same_kind
from d3mkit.validation import coltypes


def _metadata(metric: Metric, metadata_dir: Path | None, index: np.ndarray) -> pd.DataFrame:
    where = f"{metadata_dir}/{metric.metadata_file}" if metadata_dir else str(metric.metadata_file)
    if metadata_dir is None or not (metadata_dir / metric.metadata_file).is_file():
        raise D3MKitError(error("metric.metadata", "", f"metric {metric.name!r} needs "
                                f"{metric.metadata_file} from the task root's _debug directory, "
                                f"which is not there", where))
    from d3mkit.io.paths import require_inside
    from d3mkit.tables import read_table
    meta = read_table(require_inside(metadata_dir.parent, metadata_dir / metric.metadata_file,
                                     what=f"{metadata_dir.name}/{metric.metadata_file}",
                                     root_name="the task root"))
    if INDEX not in meta.columns:
        raise D3MKitError(error("metric.metadata", "", f"no {INDEX} column", where, row=1))
    mi, idx = same_kind(index_values(meta[INDEX]), index)
    mindex = pd.Index(mi)
    if mindex.has_duplicates:
        raise D3MKitError(error("metric.metadata", "", "d3mIndex values repeat", where))
    pos = mindex.get_indexer(idx)
    if (pos < 0).any():
        miss = idx[pos < 0]
        raise D3MKitError(error("metric.metadata", "", f"{len(miss)} scored d3mIndex value(s) "
                                f"have no metadata row ({rows_text(miss)})", where))
    return meta.iloc[pos].reset_index(drop=True)


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


def call_metric(m: Metric, yt, yp, kw: dict) -> float:
    """One metric call: numpy warnings never reach stderr, and a value that is not a
    finite number is an error (ValueError), never a score."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = float(m(yt, yp, **kw))
    if not math.isfinite(value):
        raise ValueError(f"the value is {value}, not a finite number")
    return value


def compute_scores(planned: list[Planned], aligned: Aligned, problem_id: str | None,
                   *, metadata_dir: Path | None = None, path: str = "",
                   record: list | None = None) -> ScoreReport:
    """Call each planned metric on ``aligned``; a metric that cannot be computed is an
    error in the report (the caller raises). ``record``, when given, receives one
    ``(plan, target, [(y_true, y_pred, inputs), ...], value)`` per score: the exact
    call(s) that produced it (several when the value is their mean), for ``d3mkit
    evaluate`` to resample."""
    report = ScoreReport(problem_id, issues=list(aligned.issues))
    layout = BY_NAME[aligned.layout]
    for plan in planned:
        m = plan.metric
        calls, average = layout.calls(aligned, plan.applicability == "allTargets")
        meta = _metadata(m, metadata_dir, aligned.index) if m.metadata_file else None
        values, pieces = [], []
        for call in calls:
            kw = dict(plan.params)
            kw.update({k: v for k, v in call.inputs.items() if k in m.inputs})
            if "metadata" in m.inputs:
                kw["metadata"] = meta
            if "posLabel" in m.params and aligned.layout != "multiLabel":
                ctype = aligned.col_types.get(call.target or aligned.targets[0], "categorical")
                kw["posLabel"] = canonical_label(kw.get("posLabel"), ctype)
            try:
                value = call_metric(m, call.y_true, call.y_pred, kw)
            except D3MKitError:
                raise
            except Exception as exc:  # noqa: BLE001 - a metric that cannot score is an input issue
                if m.standard and not isinstance(exc, (ValueError, ZeroDivisionError)):
                    raise
                what = f"{plan.name}[{call.target}]" if call.target else plan.name
                report.issues.append(error("metric.failed", "",
                                           f"{what} could not be computed: {exc}", path))
                if average:
                    break
                continue
            if average:
                values.append(value)
                pieces.append((call.y_true, call.y_pred, kw))
            else:
                report.scores.append(Score(plan.name, call.target, value))
                if record is not None:
                    record.append((plan, call.target, [(call.y_true, call.y_pred, kw)], value))
        if average and len(values) == len(calls):
            report.scores.append(Score(plan.name, None, float(np.mean(values))))
            if record is not None:
                record.append((plan, None, pieces, float(np.mean(values))))
    return report
