"""The one seam between a campaign and :mod:`d3mkit.scoring`: everything the campaign
asks of scoring goes through the three functions here, so a change in how scoring
resolves, reads and lines up files touches this module only.

* :func:`fold_keys` — the ``(repeat, fold)`` pairs of a problem's dataSplits, in order;
* :func:`prepare` — the problem's metrics resolved and one fold's TEST truth read
  (:func:`d3mkit.scoring.score.prepare_problem`, as ``d3mkit score --repeat R --fold F``);
* :func:`score_file` — one predictions file scored exactly as ``d3mkit score`` does
  (:func:`~d3mkit.scoring.score.score_prepared_aligned`), plus the aligned arrays of
  every metric call the statistics can resample (:class:`Call`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Call:
    """One metric value of a scored file with what produced it: ``label`` as in
    scores.csv, the registry metric, the aligned truth and predictions (TEST rows in
    the truth's order) and the keyword arguments of the call."""
    label: str
    metric: object
    yt: np.ndarray
    yp: np.ndarray
    kw: dict
    value: float


def fold_keys(problem_doc: str) -> tuple[tuple[int, int], ...]:
    """The ``(repeat, fold)`` pairs of the problem's dataSplits in file order; ``((0, 0),)``
    when the file cannot be read (scoring then says why)."""
    from d3mkit.docs import ProblemDoc
    from d3mkit.errors import D3MKitError
    from d3mkit.splits import read_splits, splits_path
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
    for ``path``, and the :class:`Call` of each single-target value on the rows layout
    whose metric needs nothing but the two columns (no confidence, ranks or metadata).
    Raises :class:`~d3mkit.errors.D3MKitError` with every issue, as ``d3mkit score``."""
    from d3mkit.scoring.compute import canonical_label
    from d3mkit.scoring.score import score_prepared_aligned
    report, aligned = score_prepared_aligned(prepared, path)
    rows = [[s.label, s.metric, s.value] for s in report.scores]
    out: list[Call] = []
    if not calls or aligned.layout != "rows" or aligned.confidence is not None or aligned.ranks is not None:
        return rows, out
    multi = len(aligned.targets) > 1
    by_label = {s.label: s.value for s in report.scores}
    for plan in prepared.planned:
        m = plan.metric
        if m.metadata_file or m.needs_confidence or (multi and plan.applicability == "allTargets"):
            continue
        for t in aligned.targets:
            label = f"{plan.name}[{t}]" if multi else plan.name
            if label not in by_label:
                continue
            kw = dict(plan.params)
            if "posLabel" in m.params:
                kw["posLabel"] = canonical_label(kw.get("posLabel"), aligned.col_types.get(t, "categorical"))
            out.append(Call(label, m, aligned.truth[t], aligned.pred[t], kw, by_label[label]))
    return rows, out


def constant_value(call: Call) -> float:
    """What a constant predictor scores on the call's TEST rows, through the same metric
    function: the most frequent true label (label targets) or the mean truth (numbers)."""
    import math
    import warnings
    yt = call.yt
    if yt.dtype.kind == "f":
        const = np.full(len(yt), float(np.mean(yt)))
    else:
        vals, counts = np.unique(np.asarray(yt, dtype=str), return_counts=True)
        top = vals[np.argmax(counts)]
        pick = yt[np.asarray(yt, dtype=str) == top][0]
        const = np.full(len(yt), pick, dtype=object)
        const.flags.writeable = True
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            v = float(call.metric(yt, const, **call.kw))
    except (ValueError, ZeroDivisionError, TypeError):
        return math.nan
    return v if math.isfinite(v) else math.nan
