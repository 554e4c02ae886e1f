"""The one seam between a campaign and :mod:`d3mkit.scoring`: everything the campaign
asks of scoring goes through the three functions here, so a change in how scoring
resolves, reads and lines up files touches this module only.

* :func:`fold_keys` — the ``(repeat, fold)`` pairs of a problem's dataSplits, in order;
* :func:`prepare` — the problem's metrics resolved and one fold's TEST truth read
  (:func:`d3mkit.scoring.score.prepare_problem`, as ``d3mkit score --repeat R --fold F``);
* :func:`score_file` — one predictions file scored exactly as ``d3mkit score`` does
  (:func:`~d3mkit.scoring.score.score_prepared_aligned`), plus the exact metric call(s)
  behind every value (:class:`Call`), which the statistics resample.
"""

from __future__ import annotations

import numpy as np


class Call:
    """One metric value of a scored file with the exact call(s) that produced it:
    ``label`` as in scores.csv, the registry metric, the layout, ``pieces`` — the
    ``(y_true, y_pred, inputs)`` of each call (several when the value is their mean) —
    the value, and the key of each resampling unit (:mod:`d3mkit.evaluate.units`).
    ``yt``/``yp``/``kw`` are the first piece's."""

    def __init__(self, label: str, metric, pieces: list, value: float, *, layout: str = "rows",
                 target: str | None = None, index=None):
        from d3mkit.evaluate.units import unit_keys
        self.label, self.metric, self.pieces, self.value = label, metric, pieces, value
        self.layout, self.target = layout, target
        self.yt, self.yp, self.kw = pieces[0]
        self.n_rows = len(self.yt) if layout != "multiLabel" else self.yt.n_rows
        idx = np.arange(self.n_rows) if index is None else index
        self.units = unit_keys(layout, self.yt, self.kw, idx)
        self._groups = None

    @classmethod
    def of(cls, label: str, metric, yt, yp, kw: dict, value: float) -> "Call":
        """A call of the rows layout from its arrays (tests, benchmarks)."""
        return cls(label, metric, [(yt, yp, dict(kw))], value)

    def groups(self):
        """objectDetection: the truth and detection rows of each unit (cached)."""
        if self._groups is None:
            from d3mkit.evaluate.units import object_groups
            self._groups = object_groups(self.yt, self.yp, self.kw, self.units)
        return self._groups


def fold_keys(problem_doc: str) -> tuple[tuple[int, int], ...]:
    """The ``(repeat, fold)`` pairs of the problem's dataSplits in file order; ``((0, 0),)``
    when the file cannot be read (scoring then says why)."""
    from d3mkit.documents import ProblemDoc
    from d3mkit.core.errors import D3MKitError
    from d3mkit.taskroot.splits.read import read_splits, splits_path
    from pathlib import Path
    try:
        problem = ProblemDoc.load(problem_doc)
        sp = read_splits(splits_path(Path(problem_doc).parent, problem.splits_file))
    except (D3MKitError, OSError, ValueError, KeyError):
        return ((0, 0),)
    pairs = dict.fromkeys(zip(sp["repeat"].tolist(), sp["fold"].tolist()))
    return tuple(sorted((int(r), int(f)) for r, f in pairs)) or ((0, 0),)


def prepare(problem_doc: str, dataset: str | None, repeat: int, fold: int):
    """:func:`d3mkit.scoring.score.prepare_problem` for one fold (never raises for
    problem-side issues: they are in ``.issues``)."""
    from d3mkit.scoring.score import prepare_problem
    return prepare_problem(problem_doc, dataset=dataset, repeat=repeat, fold=fold)


def score_file(prepared, path: str, *, calls: bool = True):
    """``(scores, calls)``: the ``[label, metric, value]`` rows ``d3mkit score`` writes
    for ``path``, and the :class:`Call` behind each value (every layout and metric).
    Raises :class:`~d3mkit.core.errors.D3MKitError` with every issue, as ``d3mkit score``."""
    from d3mkit.scoring.score import score_prepared_aligned
    record: list | None = [] if calls else None
    report, aligned = score_prepared_aligned(prepared, path, record)
    rows = [[s.label, s.metric, s.value] for s in report.scores]
    out: list[Call] = []
    for plan, target, pieces, value in record or ():
        label = f"{plan.name}[{target}]" if target else plan.name
        out.append(Call(label, plan.metric, pieces, value, layout=aligned.layout, target=target,
                        index=aligned.index))
    return rows, out


PLAIN_INPUTS = ("target_names", "d3m_index", "codes")


def constant_value(call: Call) -> float:
    """What a constant predictor scores on the call's TEST rows, through the same metric
    function: the most frequent true label (label targets) or the mean truth (numbers).
    NaN for a metric that reads more than the two columns (confidence, ranks, metadata)
    or another layout: a constant has no such inputs."""
    import math

    from d3mkit.scoring.compute import call_metric
    if call.layout != "rows" or len(call.pieces) != 1 or call.metric.metadata_file or \
            any(k not in PLAIN_INPUTS for k in call.metric.inputs):
        return math.nan
    yt = call.yt
    if yt.ndim != 1:
        return math.nan
    if yt.dtype.kind == "f":
        const = np.full(len(yt), float(np.mean(yt)))
    else:
        vals, counts = np.unique(np.asarray(yt, dtype=str), return_counts=True)
        top = vals[np.argmax(counts)]
        pick = yt[np.asarray(yt, dtype=str) == top][0]
        const = np.full(len(yt), pick, dtype=object)
        const.flags.writeable = True
    kw = {k: v for k, v in call.kw.items() if k != "codes"}
    try:
        return call_metric(call.metric, yt, const, kw)
    except (ValueError, ZeroDivisionError, TypeError):
        return math.nan
