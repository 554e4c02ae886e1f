"""Ranks of a campaign (pure functions on numbers).

* Per (problem, metric), :func:`competition_ranks`: 1 is best, the metric's direction
  comes from the registry (``higher_is_better``), equal values share the best of their
  places (1, 2, 2, 4); a NaN value gets no rank. This is the ``rank`` of scores.csv.
* Overall, :func:`mean_ranks` — the **aggregation rule** of the leaderboard: on each
  problem, every system of the campaign is ranked on the problem's *primary metric* (the
  first of its problemDoc's performanceMetrics) with fractional ranks (ties share the
  mean of their places, 1, 2.5, 2.5, 4); systems without a score there (missing, failed,
  NaN) share the last places. A system's overall score is its mean rank over all the
  problems (lower is better); equal mean ranks share a position.
"""

from __future__ import annotations

import math
from typing import Sequence

_EPS = 1e-9


def _order_key(value: float, higher_is_better: bool) -> float:
    return -value if higher_is_better else value


def competition_ranks(values: Sequence[float], higher_is_better: bool) -> list[float]:
    """1-based ranks, ties share the best place, NaN gets NaN.

    >>> competition_ranks([0.5, 0.9, 0.5, float("nan")], True)
    [2.0, 1.0, 2.0, nan]
    >>> competition_ranks([3.0, 1.0, 2.0], False)
    [3.0, 1.0, 2.0]
    """
    keys = [None if v is None or math.isnan(v) else _order_key(v, higher_is_better) for v in values]
    valid = sorted(k for k in keys if k is not None)
    out = []
    for k in keys:
        if k is None:
            out.append(float("nan"))
            continue
        # number of strictly better values + 1
        lo, hi = 0, len(valid)
        while lo < hi:
            mid = (lo + hi) // 2
            if valid[mid] < k - _EPS * max(1.0, abs(k)):
                lo = mid + 1
            else:
                hi = mid
        out.append(float(lo + 1))
    return out


def fractional_ranks(values: Sequence[float], higher_is_better: bool) -> list[float]:
    """1-based ranks of every entry; ties share the mean of their places; NaN (no score)
    entries share the last places.

    >>> fractional_ranks([0.9, 0.5, 0.5, float("nan")], True)
    [1.0, 2.5, 2.5, 4.0]
    >>> fractional_ranks([float("nan"), 1.0, float("nan")], True)
    [2.5, 1.0, 2.5]
    """
    n = len(values)
    keyed = []
    for i, v in enumerate(values):
        missing = v is None or math.isnan(v)
        keyed.append((1 if missing else 0, 0.0 if missing else _order_key(v, higher_is_better), i))
    keyed.sort()
    out = [0.0] * n
    start = 0
    while start < n:
        end = start + 1
        while end < n and keyed[end][0] == keyed[start][0] and \
                abs(keyed[end][1] - keyed[start][1]) <= _EPS * max(1.0, abs(keyed[start][1])):
            end += 1
        place = (start + 1 + end) / 2.0
        for j in range(start, end):
            out[keyed[j][2]] = place
        start = end
    return out


def mean_ranks(table: dict[str, dict[str, float]], systems: Sequence[str],
               direction: dict[str, bool]) -> dict[str, float]:
    """Mean over problems of each system's fractional rank on the primary metric.

    ``table[problem][system]`` is the primary-metric value (absent: no score);
    ``direction[problem]`` is True when higher is better.

    >>> t = {"p1": {"a": 0.9, "b": 0.8}, "p2": {"a": 0.1, "c": 0.7}}
    >>> mean_ranks(t, ["a", "b", "c"], {"p1": True, "p2": True})
    {'a': 1.5, 'b': 2.5, 'c': 2.0}
    """
    if not table:
        return {s: float("nan") for s in systems}
    totals = {s: 0.0 for s in systems}
    for problem, row in table.items():
        ranks = fractional_ranks([row.get(s, float("nan")) for s in systems], direction[problem])
        for s, r in zip(systems, ranks):
            totals[s] += r
    return {s: totals[s] / len(table) for s in systems}


def positions(scores: dict[str, float]) -> dict[str, int]:
    """Leaderboard positions from mean ranks (lower is better); equal scores share one.

    >>> positions({"a": 1.5, "b": 2.25, "c": 2.25, "d": 4.0})
    {'a': 1, 'b': 2, 'c': 2, 'd': 4}
    """
    ranks = competition_ranks(list(scores.values()), higher_is_better=False)
    return {s: int(r) for s, r in zip(scores, ranks)}
