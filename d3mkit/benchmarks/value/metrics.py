"""VALUE metrics (paper eqs. 3-7), registered for problemDocs as
``{"metric": "other", "specifyOther": NAME, "applicabilityToTarget": "allTargets"}``.

A board is read from a row's targets (:mod:`.layout`): the 64 square targets ``a8 ... h1``
(any order; the scorer passes the target names) or one target holding the FEN piece
placement. The registered wrappers parse them (a bad value is a ``ValueError`` naming the
board by its position in d3mIndex order and the square, which the scorer reports as
``metric.failed``) and call the pure functions below on ``(N, 64)`` code arrays:

* :func:`exact_match` (EM, eq. 3): fraction of boards predicted exactly;
* :func:`board_f1` (F1, eq. 4): ``2/n * sum f1(y, y_hat)`` with
  ``f1 = #{j: y_j = y_hat_j != x} / (|y| + |y_hat|)`` (1/2 when both boards are empty);
* :func:`sane_f1` (sF1, eq. 6): the same sum counting only sane predictions;
* :func:`contradiction_rate` (C, eq. 5): fraction (0-1) of predictions that are not sane;
  the paper prints it in percent (x 100);
* :func:`mean_violation_severity` (muC of eq. 7 as the authors' released analysis counts
  it, :func:`~.rules.severity`; the count that fits Table 1) and
  :func:`mean_violated_flags` (muC counted as violated yes/no (rule, colour) flags).

>>> from d3mkit.benchmarks.value.boards import fens_to_codes
>>> t = fens_to_codes(["8/8/8/8/8/8/8/k6K", "8/8/8/8/8/8/8/k6K"])
>>> p = fens_to_codes(["8/8/8/8/8/8/8/k6K", "8/8/8/8/8/8/8/k6Q"])
>>> exact_match(t, p), board_f1(t, p), sane_f1(t, p), contradiction_rate(p)
(0.5, 0.75, 0.5, 0.5)
>>> mean_violated_flags(p), mean_violation_severity(p)
(0.5, 0.5)
"""

from __future__ import annotations

import numpy as np

from d3mkit.benchmarks.value.boards import EMPTY, BoardError
from d3mkit.benchmarks.value.layout import table_to_codes
from d3mkit.benchmarks.value.rules import as_codes, check, sane, severity, violation_counts
from d3mkit.core.registry import register_metric

NAMES = ("exactMatch", "boardF1", "saneF1", "contradictionRate", "meanViolationSeverity",
         "meanViolatedFlags")


def _pair(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    t, p = as_codes(y_true), as_codes(y_pred)
    if t.shape != p.shape:
        raise BoardError(f"{len(t)} true boards but {len(p)} predicted boards")
    if len(t) == 0:
        raise BoardError("no boards to score")
    return t, p


def f1_per_board(y_true, y_pred) -> np.ndarray:
    """``(N,)`` f1 of eq. 4: matching non-empty squares over ``|y| + |y_hat|`` (0.5 when
    both boards are empty, so that ``2 * f1`` is 1 for a perfect empty prediction).

    >>> from d3mkit.benchmarks.value.boards import fens_to_codes
    >>> f1_per_board(fens_to_codes(["8/8/8/8/8/8/8/8", "8/8/8/8/8/8/8/kK6"]),
    ...              fens_to_codes(["8/8/8/8/8/8/8/8", "8/8/8/8/8/8/8/k7"])).tolist()
    [0.5, 0.3333333333333333]
    """
    t, p = _pair(y_true, y_pred)
    hit = ((t == p) & (t != EMPTY)).sum(axis=1)
    denom = (t != EMPTY).sum(axis=1) + (p != EMPTY).sum(axis=1)
    return np.where(denom == 0, 0.5, hit / np.maximum(denom, 1))


def exact_match(y_true, y_pred) -> float:
    """EM (eq. 3): fraction of boards whose 64 squares all match.

    >>> exact_match(np.zeros((4, 64), int), np.eye(4, 64, dtype=int))
    0.0
    """
    t, p = _pair(y_true, y_pred)
    return float((t == p).all(axis=1).mean())


def board_f1(y_true, y_pred) -> float:
    """F1 (eq. 4) = ``2/n * sum f1``; 1.0 for a perfect prediction.

    >>> from d3mkit.benchmarks.value.boards import fens_to_codes, START_FEN
    >>> board_f1(fens_to_codes([START_FEN]), fens_to_codes([START_FEN]))
    1.0
    """
    return float(2.0 * f1_per_board(y_true, y_pred).mean())


def sane_f1(y_true, y_pred) -> float:
    """sF1 (eq. 6) = ``2/n * sum 1[y_hat sane] * f1``: insane predictions score 0.

    >>> from d3mkit.benchmarks.value.boards import fens_to_codes
    >>> t = fens_to_codes(["8/8/8/8/8/8/8/8"])
    >>> board_f1(t, t), sane_f1(t, t)     # the empty board has no kings: not sane
    (1.0, 0.0)
    """
    t, p = _pair(y_true, y_pred)
    return float(2.0 * (f1_per_board(t, p) * sane(check(p))).mean())


def contradiction_rate(y_pred) -> float:
    """C (eq. 5): fraction of predicted boards violating at least one rule."""
    p = as_codes(y_pred)
    if len(p) == 0:
        raise BoardError("no boards to score")
    return float((~sane(check(p))).mean())


def mean_violated_flags(y_pred) -> float:
    """muC (eq. 7) counted as flags: mean number of violated (rule, colour) yes/no flags
    per predicted board (0-15)."""
    p = as_codes(y_pred)
    if len(p) == 0:
        raise BoardError("no boards to score")
    return float(violation_counts(check(p)).mean())


def mean_violation_severity(y_pred) -> float:
    """muC (eq. 7) as the authors' released analysis counts it: mean over predicted boards
    of the summed per-rule severity of :func:`~.rules.severity` (each missing or extra
    king, adjacent king pair, piece over 16, pawn over 8, pawn on a back rank, unexplained
    promoted piece adds one). The paper-comparable count (Table 1's muC column).

    >>> from d3mkit.benchmarks.value.boards import fens_to_codes
    >>> mean_violation_severity(fens_to_codes(["8/8/8/8/8/8/8/8", "PPPPPPPP/8/8/8/8/8/8/k6K"]))
    5.0
    """
    p = as_codes(y_pred)
    if len(p) == 0:
        raise BoardError("no boards to score")
    return float(severity(p).sum(axis=1).mean())


# ---------------------------------------------------------------------------------------
# registered wrappers: a row's targets in (64 squares or one FEN), as the scorer passes them
# ---------------------------------------------------------------------------------------
def parse_boards(y, what: str, target_names=None, d3m_index=None) -> np.ndarray:
    """``(N, 64)`` codes of the scorer's ``(N, targets)`` array (64 squares or one FEN);
    errors name ``what`` and its d3mIndex (when given, else its position)."""
    a = np.asarray(y, dtype=object)
    n = len(a)
    if d3m_index is not None and len(d3m_index) == n:
        labels = [f"{what} d3mIndex {v}" for v in d3m_index]
    else:
        labels = [f"{what} {i + 1} (in d3mIndex order)" for i in range(n)]
    return table_to_codes(a, target_names, labels=labels, what=what)


def _codes(y_true, y_pred, target_names=None, d3m_index=None):
    return (parse_boards(y_true, "true board", target_names, d3m_index),
            parse_boards(y_pred, "predicted board", target_names, d3m_index))


_COMMON = dict(task_types=("classification",), applicability="allTargets",
               inputs=("target_names", "d3m_index"))
_READS = (" A board is a row's 64 square targets (a8 ... h1) or its one FEN-placement target.")


@register_metric(name="exactMatch", higher_is_better=True, best=1.0, worst=0.0,
                 description="VALUE EM (eq. 3): fraction of boards predicted exactly (all 64 squares)."
                 + _READS, **_COMMON)
def exact_match_metric(y_true, y_pred, target_names=None, d3m_index=None) -> float:
    return exact_match(*_codes(y_true, y_pred, target_names, d3m_index))


@register_metric(name="boardF1", higher_is_better=True, best=1.0, worst=0.0,
                 description="VALUE F1 (eq. 4): mean per-board F1 over non-empty squares." + _READS,
                 **_COMMON)
def board_f1_metric(y_true, y_pred, target_names=None, d3m_index=None) -> float:
    return board_f1(*_codes(y_true, y_pred, target_names, d3m_index))


@register_metric(name="saneF1", higher_is_better=True, best=1.0, worst=0.0,
                 description="VALUE sF1 (eq. 6): board F1 counting only predictions that violate "
                             "no rule of eq. 2." + _READS, **_COMMON)
def sane_f1_metric(y_true, y_pred, target_names=None, d3m_index=None) -> float:
    return sane_f1(*_codes(y_true, y_pred, target_names, d3m_index))


@register_metric(name="contradictionRate", higher_is_better=False, best=0.0, worst=1.0,
                 description="VALUE C (eq. 5) as a fraction 0-1 of predicted boards that violate a "
                             "rule of eq. 2 (the paper prints C in percent: multiply by 100)." + _READS,
                 **_COMMON)
def contradiction_rate_metric(y_true, y_pred, target_names=None, d3m_index=None) -> float:
    return contradiction_rate(_codes(y_true, y_pred, target_names, d3m_index)[1])


@register_metric(name="meanViolationSeverity", higher_is_better=False, best=0.0, worst=float("inf"),
                 description="VALUE muC (eq. 7), paper-comparable: mean number of rule violations per "
                             "prediction counted by severity as the authors' released analysis does "
                             "(each extra/missing king, adjacent king pair, surplus piece or pawn, back-"
                             "rank pawn, unexplained promotion adds one); reproduces Table 1's muC."
                             + _READS, **_COMMON)
def mean_violation_severity_metric(y_true, y_pred, target_names=None, d3m_index=None) -> float:
    return mean_violation_severity(_codes(y_true, y_pred, target_names, d3m_index)[1])


@register_metric(name="meanViolatedFlags", higher_is_better=False, best=0.0, worst=15.0,
                 description="VALUE muC (eq. 7) counted as yes/no flags: mean number of the 15 "
                             "(rule, colour) flags a prediction violates (d3mkit's reading; smaller "
                             "than the paper's severity count, see meanViolationSeverity)." + _READS,
                 **_COMMON)
def mean_violated_flags_metric(y_true, y_pred, target_names=None, d3m_index=None) -> float:
    return mean_violated_flags(_codes(y_true, y_pred, target_names, d3m_index)[1])
