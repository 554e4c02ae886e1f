"""The pieces every predictions layout shares: the :class:`Aligned` bundle a layout
returns, the :class:`Context` detection and alignment look at, one :class:`Call` of a metric,
and the :class:`Layout` strategy interface (``detect``, ``align``, ``supplies``/``calls``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from d3mkit.core.errors import Issue
from d3mkit.scoring.labels import LabelArrays, LabelCodes, from_codes
from d3mkit.scoring.truth import Truth
from d3mkit.tables.columns import ColumnTable
from d3mkit.scoring.values import INDEX, index_issues, index_values, lookup, same_kind


MAX_RANK = 500.0


@dataclass
class Aligned:
    """Truth and predictions lined up row by row (arrays are read-only).

    ``truth``/``pred`` map target name to arrays (floats for numeric colTypes, strings
    otherwise; ``(n, 4)`` boxes for objectDetection); the rows layout gives them as
    :class:`~d3mkit.scoring.labels.LabelArrays`, whose label arrays are made from the codes
    when first read. ``confidence`` is 1-D per row, or
    2-D with ``classes``; ``ranks`` maps target to the rank of the true value. ``codes``
    (text targets of the rows layout) maps target to ``(truth codes, prediction codes,
    labels)`` with ``truth[t] == labels[truth codes]``: the integer form the parse already
    found, which the rows layout supplies to the metrics declaring the ``codes`` input
    (:meth:`label_codes`)."""

    layout: str
    index: np.ndarray
    targets: list[str]
    truth: Mapping[str, np.ndarray]
    pred: Mapping[str, np.ndarray]
    col_types: dict[str, str]
    confidence: np.ndarray | None = None
    classes: np.ndarray | None = None
    ranks: dict[str, np.ndarray] | None = None
    images_true: np.ndarray | None = None
    images_pred: np.ndarray | None = None
    issues: list[Issue] = field(default_factory=list)
    codes: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None

    _sorted: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def n_rows(self) -> int:
        return len(self.index)

    def label_codes(self, target: str) -> LabelCodes | None:
        """The :class:`LabelCodes` of ``target`` (sorted once per bundle), or None."""
        if not self.codes or target not in self.codes:
            return None
        if target not in self._sorted:
            self._sorted[target] = from_codes(*self.codes[target])
        return self._sorted[target]

    def take(self, rows: np.ndarray) -> "Aligned | None":
        """The bundle of the rows picked by the boolean mask ``rows`` (over ``index``), as
        aligning a file holding only those rows against the truth of only those rows gives
        it — the label codes renumbered over the labels those rows hold, so a label-union
        metric (f1Macro) sees the same labels — with no issues; None for a layout whose
        rows are not one per index with per-row arrays (only ``rows`` is)."""
        if self.layout != "rows" or self.ranks is not None or self.classes is not None:
            return None
        rows = np.asarray(rows, dtype=bool)
        if rows.shape != (self.n_rows,):
            raise ValueError(f"a row mask of {rows.shape} for {self.n_rows} rows")

        def pick(a):
            out = a[rows]
            out.flags.writeable = False
            return out
        codes = None
        if self.codes:
            codes = {}
            for t, (tc, pc, labels) in self.codes.items():
                tc, pc, labels = tc[rows], pc[rows], np.asarray(labels)
                present = np.zeros(len(labels), dtype=bool)
                present[tc] = True
                present[pc] = True
                new = np.cumsum(present) - 1
                codes[t] = (new[tc], new[pc], labels[present])
        def arrays(m):
            return m.take(rows) if isinstance(m, LabelArrays) else {t: pick(v) for t, v in m.items()}
        return Aligned(self.layout, pick(self.index), list(self.targets), arrays(self.truth),
                       arrays(self.pred), dict(self.col_types),
                       confidence=None if self.confidence is None else pick(self.confidence),
                       codes=codes)

    def stacked(self) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, targets)`` arrays of truth and predictions (an allTargets metric's input)."""
        if "stacked" not in self._sorted:
            self._sorted["stacked"] = (_stack([self.truth[t] for t in self.targets]),
                                       _stack([self.pred[t] for t in self.targets]))
        return self._sorted["stacked"]


def _stack(arrays: list[np.ndarray]) -> np.ndarray:
    if all(a.dtype.kind == "f" for a in arrays):
        out = np.column_stack(arrays).astype(float)
    else:
        out = np.empty((len(arrays[0]), len(arrays)), dtype=object)
        for j, a in enumerate(arrays):
            out[:, j] = a
    out.flags.writeable = False
    return out


@dataclass(frozen=True)
class Call:
    """One call of a metric function: the scores.csv target (None: the metric's own name),
    the arrays, and the inputs the layout supplies for it (the scorer passes those the
    metric declares)."""
    target: str | None
    y_true: object
    y_pred: object
    inputs: dict


@dataclass
class Context:
    """What detection and alignment look at: the truth, the predictions table (strings),
    its name, the confidence and rank columns found in the header, whether a planned
    metric ranks, and the issues so far."""
    truth: Truth
    df: ColumnTable
    path: str
    conf_col: str | None
    rank_col: str | None
    ranked: bool
    issues: list[Issue]

    @cached_property
    def indices(self) -> tuple[np.ndarray, np.ndarray]:
        """(predictions' d3mIndex, truth's d3mIndex), of one kind (integers or strings)."""
        return same_kind(index_values(self.df[INDEX]), self.truth.index)

    @cached_property
    def order(self) -> tuple[np.ndarray, bool]:
        """(each truth row's prediction row, whether each d3mIndex has one row)."""
        return lookup(*self.indices)

    @property
    def repeated(self) -> bool:
        return not self.order[1]

    @property
    def single_target(self) -> bool:
        return len(self.truth.targets) == 1


class Layout:
    """A predictions layout: :meth:`detect`, :meth:`align`, and the metric inputs it
    supplies (:attr:`supplies`, :meth:`inputs`, :meth:`calls`)."""
    name = ""
    supplies: tuple[str, ...] = ()

    def detect(self, ctx: Context) -> bool:
        raise NotImplementedError   # pragma: no cover - every layout defines it

    def align(self, ctx: Context) -> "Aligned | list[Issue]":
        raise NotImplementedError   # pragma: no cover - every layout defines it

    def inputs(self, aligned: Aligned, target: str, stacked: bool) -> dict:
        """The inputs of one call for ``target`` (``stacked``: the call gets every target)."""
        return {}

    def calls(self, aligned: Aligned, all_targets: bool) -> tuple[list[Call], bool]:
        """How one metric is called on ``aligned``: ``(calls, average)``; with ``average``
        the metric's value is the mean over the calls. An allTargets metric gets the
        ``(rows, targets)`` arrays once; a singleTarget one each target."""
        targets = aligned.targets
        if all_targets:
            yt, yp = aligned.stacked()
            return [Call(None, yt, yp, {**self.inputs(aligned, targets[0], True),
                                        "target_names": tuple(targets), "d3m_index": aligned.index})], False
        multi = len(targets) > 1
        return [Call(t if multi else None, aligned.truth[t], aligned.pred[t],
                     {**self.inputs(aligned, t, False), "target_names": (t,), "d3m_index": aligned.index})
                for t in targets], False


def truth_positions(pred_idx, truth_idx, path, issues):
    tpos = lookup(truth_idx, pred_idx)[0]
    missing_mask, extra_mask = index_issues(pred_idx, truth_idx, path, issues, truth_pos=tpos)
    return tpos, (missing_mask.any() or extra_mask.any())
