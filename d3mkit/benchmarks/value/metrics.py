"""VALUE metrics (paper eqs. 3-7), registered for problemDocs as
``{"metric": "other", "specifyOther": NAME}`` with applicabilityToTarget allTargets.

The target is one column, the FEN piece placement of the board. The registered wrappers
parse the FEN strings (a malformed one is a ``ValueError`` naming the prediction or truth
by its position in d3mIndex order, which the scorer reports as ``metric.failed``) and call
the pure functions below on ``(N, 64)`` code arrays:

* :func:`exact_match` (EM, eq. 3): fraction of boards predicted exactly;
* :func:`board_f1` (F1, eq. 4): ``2/n * sum f1(y, y_hat)`` with
  ``f1 = #{j: y_j = y_hat_j != x} / (|y| + |y_hat|)`` (1/2 when both boards are empty);
* :func:`sane_f1` (sF1, eq. 6): the same sum counting only sane predictions;
* :func:`contradiction_rate` (C, eq. 5): fraction of predictions that are not sane;
* :func:`mean_rule_violations` (muC, eq. 7): mean number of violated (rule, colour) flags.

>>> from d3mkit.benchmarks.value.boards import fens_to_codes
>>> t = fens_to_codes(["8/8/8/8/8/8/8/k6K", "8/8/8/8/8/8/8/k6K"])
>>> p = fens_to_codes(["8/8/8/8/8/8/8/k6K", "8/8/8/8/8/8/8/k6Q"])
>>> exact_match(t, p), board_f1(t, p), sane_f1(t, p), contradiction_rate(p), mean_rule_violations(p)
(0.5, 0.75, 0.5, 0.5, 0.5)
"""

from __future__ import annotations

import numpy as np

from d3mkit.benchmarks.value.boards import EMPTY, BoardError, fens_to_codes
from d3mkit.benchmarks.value.rules import as_codes, check, sane, violation_counts
from d3mkit.scoring.registry import register_metric

NAMES = ("exactMatch", "boardF1", "saneF1", "contradictionRate", "meanRuleViolations")


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


def mean_rule_violations(y_pred) -> float:
    """muC (eq. 7): mean number of violated (rule, colour) flags per predicted board."""
    p = as_codes(y_pred)
    if len(p) == 0:
        raise BoardError("no boards to score")
    return float(violation_counts(check(p)).mean())


# ---------------------------------------------------------------------------------------
# registered wrappers: FEN strings in, as the scorer passes them
# ---------------------------------------------------------------------------------------
def _column(y) -> np.ndarray:
    a = np.asarray(y, dtype=object)
    if a.ndim == 2:
        if a.shape[1] != 1:
            raise BoardError(f"VALUE metrics score one target (the FEN placement), got {a.shape[1]}")
        a = a[:, 0]
    return a


def parse_fens(y, what: str) -> np.ndarray:
    """``(N, 64)`` codes of a column of FEN strings; errors name ``what`` and its position."""
    a = _column(y)
    labels = [f"{what} {i + 1} (in d3mIndex order)" for i in range(len(a))]
    return fens_to_codes([str(v) if v is not None else "" for v in a], labels=labels)


def _codes(y_true, y_pred):
    return parse_fens(y_true, "true board"), parse_fens(y_pred, "predicted board")


_COMMON = dict(task_types=("classification",), applicability="allTargets")


@register_metric(name="exactMatch", higher_is_better=True, best=1.0, worst=0.0, **_COMMON)
def exact_match_metric(y_true, y_pred, **_) -> float:
    """VALUE EM (eq. 3): fraction of boards (FEN placements) predicted exactly."""
    return exact_match(*_codes(y_true, y_pred))


@register_metric(name="boardF1", higher_is_better=True, best=1.0, worst=0.0, **_COMMON)
def board_f1_metric(y_true, y_pred, **_) -> float:
    """VALUE F1 (eq. 4): mean per-board F1 over non-empty squares of FEN placements."""
    return board_f1(*_codes(y_true, y_pred))


@register_metric(name="saneF1", higher_is_better=True, best=1.0, worst=0.0, **_COMMON)
def sane_f1_metric(y_true, y_pred, **_) -> float:
    """VALUE sF1 (eq. 6): board F1 counting only predictions that violate no rule."""
    return sane_f1(*_codes(y_true, y_pred))


@register_metric(name="contradictionRate", higher_is_better=False, best=0.0, worst=1.0, **_COMMON)
def contradiction_rate_metric(y_true, y_pred, **_) -> float:
    """VALUE C (eq. 5): fraction of predicted boards that violate a rule of eq. 2."""
    return contradiction_rate(_codes(y_true, y_pred)[1])


@register_metric(name="meanRuleViolations", higher_is_better=False, best=0.0, worst=15.0, **_COMMON)
def mean_rule_violations_metric(y_true, y_pred, **_) -> float:
    """VALUE muC (eq. 7): mean number of violated (rule, colour) flags per prediction."""
    return mean_rule_violations(_codes(y_true, y_pred)[1])
