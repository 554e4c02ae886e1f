"""Pairwise comparisons of systems over problems, as pure functions of arrays: each
problem's score of the two systems (mean over folds, oriented so higher is better) is
one paired observation.

* :func:`wins_losses_ties` — how many problems each system of a pair wins;
* :func:`wilcoxon_p` — the two-sided Wilcoxon signed-rank p-value (scipy.stats), or
  None where no test is defined (fewer than :data:`MIN_PROBLEMS` problems, or every
  difference zero);
* :func:`bayes_signed_rank` — Benavoli et al.'s (2014) Bayesian signed-rank test with a
  region of practical equivalence: the probabilities that A is better, that the two are
  equivalent and that B is better, from Monte Carlo draws of the Dirichlet process
  posterior (the prior's pseudo-observation at 0 with weight 0.5, as baycomp). Computed
  in numpy without a loop over draws: each draw's probabilities are quadratic forms of
  its weights, so all draws are one matrix product;
* :func:`cd_groups` — the groups of a critical-difference diagram: runs of systems,
  in mean-rank order, no two of which differ significantly;
* :func:`t_interval` — Student's t interval of a mean over folds.
"""

from __future__ import annotations

import math

import numpy as np

MIN_PROBLEMS = 3
BAYES_SAMPLES = 10_000
PRIOR = 0.5


def wins_losses_ties(a: np.ndarray, b: np.ndarray) -> tuple[int, int, int]:
    """Problems where ``a`` is higher, lower, equal (NaN pairs are skipped).

    >>> wins_losses_ties(np.array([1.0, 0.5, 0.2]), np.array([0.5, 0.5, 0.3]))
    (1, 1, 1)
    """
    ok = np.isfinite(a) & np.isfinite(b)
    a, b = a[ok], b[ok]
    return int(np.sum(a > b)), int(np.sum(a < b)), int(np.sum(a == b))


def wilcoxon_p(d: np.ndarray) -> float | None:
    """Two-sided Wilcoxon signed-rank p-value of the paired differences ``d``
    (:func:`scipy.stats.wilcoxon`, zero differences dropped), None when undefined.

    >>> wilcoxon_p(np.array([0.1, 0.2])) is None, wilcoxon_p(np.zeros(5)) is None
    (True, True)
    >>> round(wilcoxon_p(np.array([0.1, 0.2, 0.3, 0.4, 0.5, -0.05])), 4)
    0.0625
    """
    d = np.asarray(d, dtype=float)
    d = d[np.isfinite(d)]
    if len(d) < MIN_PROBLEMS or not np.any(d != 0):
        return None
    import warnings

    from scipy.stats import wilcoxon
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = float(wilcoxon(d).pvalue)
    return p if math.isfinite(p) else None


def dirichlet_weights(n: int, samples: int, rng: np.random.Generator, prior: float = PRIOR) -> np.ndarray:
    """``(samples, n + 1)`` float32 Dirichlet draws, one per row: column 0 the prior's
    pseudo-observation (weight ``prior``), then one column per problem (weight 1). Shared
    by every pair of systems compared over the same problems."""
    alpha = np.ones(n + 1)
    alpha[0] = prior
    g = rng.standard_gamma(alpha, size=(samples, n + 1))
    return (g / g.sum(axis=1, keepdims=True)).astype(np.float32)


def _heaviside(a: np.ndarray, thresh: float) -> np.ndarray:
    return (a > thresh).astype(np.float32) + np.float32(0.5) * (a == thresh)


def bayes_signed_rank(a: np.ndarray, b: np.ndarray, rope: float, weights: np.ndarray) -> dict | None:
    """``{"p_a", "p_rope", "p_b", "rope"}``: the share of posterior draws (``weights``, from
    :func:`dirichlet_weights` over these problems) in which "A better by more than the
    rope", "within the rope" or "B better" is the most probable of the three — baycomp's
    ``SignedRankTest`` on ``x = a``, ``y = b``: with ``z = [0, b - a]`` and a draw ``w``,
    P(B better) is ``sum_ij w_i w_j H(z_i + z_j - 2 rope)`` (H the step, 1/2 at 0), a
    quadratic form; all draws at once are one float32 matrix product. None with no problem.

    >>> w = dirichlet_weights(5, 4000, np.random.default_rng(0))
    >>> r = bayes_signed_rank(np.array([.9, .8, .85, .7, .9]), np.array([.5, .5, .6, .4, .5]), 0.01, w)
    >>> r["p_a"] > 0.95, r["p_b"]
    (True, 0.0)
    """
    ok = np.isfinite(a) & np.isfinite(b)
    if not ok.any():
        return None
    d = np.asarray(b, dtype=float)[ok] - np.asarray(a, dtype=float)[ok]
    if weights.shape[1] != len(d) + 1:
        raise ValueError("weights are not over these problems")
    z = np.concatenate([[0.0], d])
    sums = z[:, None] + z[None, :]
    n1 = len(z)
    q = weights @ np.hstack([_heaviside(-sums, 2 * rope), _heaviside(sums, 2 * rope)])
    q[:, :n1] *= weights
    q[:, n1:] *= weights
    below = q[:, :n1].sum(axis=1, dtype=np.float64)
    above = q[:, n1:].sum(axis=1, dtype=np.float64)
    if rope > 0:
        samples = np.stack([below, 1.0 - below - above, above], axis=1)
    else:
        samples = np.stack([1.0 - above, np.zeros_like(above), above], axis=1)
    winners = np.bincount(np.argmax(samples, axis=1), minlength=3) / len(samples)
    return {"p_a": float(winners[0]), "p_rope": float(winners[1]), "p_b": float(winners[2]),
            "rope": float(rope)}


def cd_groups(order: list[str], different) -> list[list[str]]:
    """Maximal runs of consecutive systems of ``order`` (best mean rank first) in which no
    two differ (``different(a, b)`` False for every pair); runs of one are left out.

    >>> cd_groups(["a", "b", "c", "d"], lambda x, y: {x, y} in ({"a", "c"}, {"a", "d"}, {"b", "d"}))
    [['a', 'b'], ['b', 'c'], ['c', 'd']]
    """
    k = len(order)
    runs = []
    for i in range(k):
        j = i
        while j + 1 < k and not any(different(order[m], order[j + 1]) for m in range(i, j + 1)):
            j += 1
        if j > i and not any(a <= i and j <= b for a, b in runs):
            runs.append((i, j))
    return [order[i:j + 1] for i, j in runs]


def t_interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """Student's t interval of the mean of ``values`` (NaN with fewer than two, or a
    zero sd gives a zero-width interval).

    >>> [round(v, 4) for v in t_interval(np.array([0.8, 0.9, 0.85]), 0.95)]
    [0.7258, 0.9742]
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if len(v) < 2:
        return math.nan, math.nan
    from scipy.special import stdtrit
    half = float(stdtrit(len(v) - 1, 0.5 + confidence / 2) * v.std(ddof=1) / math.sqrt(len(v)))
    m = float(v.mean())
    return m - half, m + half
