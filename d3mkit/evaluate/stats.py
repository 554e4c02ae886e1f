"""The statistics of a campaign, as pure functions of arrays (no files, no campaign types).

* :func:`resample_blocks` — the bootstrap: seeded ``(B, n)`` index matrices, one block of
  resamples at a time; every system of a problem and fold gets the same blocks, so their
  resamples are paired. :func:`block_counts` counts a per-row code in each resample (one
  gather, one ``bincount``); :func:`block_weights` turns a block into a ``(B, n)`` matrix
  of how often each row is drawn (for metrics that are ``W @ X``).
* :func:`percentile_interval` — the percentile confidence interval of resampled values.
* :func:`paired_bootstrap_p` — the two-sided p-value of a paired bootstrap test of "no
  difference" (the resampled differences shifted to mean zero).
* :func:`mcnemar_exact` — McNemar's exact test on the discordant pairs (binomial, p=1/2).
* :func:`holm` — Holm's step-down correction of a family of p-values.
* :func:`friedman` — the Friedman test on a blocks x treatments matrix of ranks (with the
  Iman-Davenport F form) and :func:`nemenyi_cd`, the Nemenyi critical difference of mean
  ranks (Demšar 2006, q from the studentized range distribution).
* :func:`normalised_scores` — the AMLB-style score, 0 for the constant predictor and 1
  for the best system.

scipy.stats supplies the distributions (chi-square, F, binomial, studentized range).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

WEIGHT_BLOCK = 1 << 23     # at most this many (resample, row) cells are materialised at once
NORMALISED_TOL = 1e-9      # best and constant this close: the normalised score is undefined


def resample_blocks(n: int, resamples: int, rng: np.random.Generator):
    """Yield ``(B_i, n)`` int32 index matrices whose rows are bootstrap resamples of ``n``
    rows (together ``resamples`` rows), drawn block by block so that at most
    :data:`WEIGHT_BLOCK` cells are held at once.

    >>> [b.shape for b in resample_blocks(5, 3, np.random.default_rng(0))]
    [(3, 5)]
    """
    step = max(1, WEIGHT_BLOCK // max(1, n))
    for start in range(0, resamples, step):
        b = min(step, resamples - start)
        yield rng.integers(0, n, size=(b, n), dtype=np.int32)


def block_counts(codes: np.ndarray, idx: np.ndarray, categories: int) -> np.ndarray:
    """``(B, categories)`` counts of ``codes`` (one small integer per row) in each resample
    of ``idx``: one gather and one ``bincount``.

    >>> block_counts(np.array([0, 1, 1]), np.array([[0, 0, 2], [1, 2, 1]]), 2).tolist()
    [[2, 1], [0, 3]]
    """
    b = idx.shape[0]
    wide = np.int32 if b * categories < 2 ** 31 else np.int64
    flat = codes.astype(wide, copy=False)[idx]
    flat += (np.arange(b, dtype=wide) * categories)[:, None]
    return np.bincount(flat.ravel(), minlength=b * categories).reshape(b, categories)


def block_weights(idx: np.ndarray, n: int) -> np.ndarray:
    """``(B, n)`` float32 counts of how often each row is drawn in each resample of ``idx``
    (one ``bincount``), for metrics computed as ``W @ X``.

    >>> block_weights(np.array([[0, 0, 2]]), 3).tolist()
    [[2.0, 0.0, 1.0]]
    """
    b = idx.shape[0]
    flat = idx.astype(np.int64)
    flat += (np.arange(b, dtype=np.int64) * n)[:, None]
    return np.bincount(flat.ravel(), minlength=b * n).reshape(b, n).astype(np.float32)


def resample_weights(n: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """All of :func:`resample_blocks` as one ``(resamples, n)`` weight matrix.

    >>> w = resample_weights(5, 3, np.random.default_rng(0))
    >>> w.shape, w.sum(axis=1).tolist()
    ((3, 5), [5.0, 5.0, 5.0])
    """
    blocks = [block_weights(i, n) for i in resample_blocks(n, resamples, rng)]
    return np.vstack(blocks) if blocks else np.zeros((0, n), np.float32)


def percentile_interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """The ``confidence`` percentile interval of resampled values (NaNs ignored).

    >>> [round(x, 9) for x in percentile_interval(np.arange(101.0), 0.9)]
    [5.0, 95.0]
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if not len(v):
        return math.nan, math.nan
    a = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(v, [a, 1.0 - a])
    return float(lo), float(hi)


def paired_bootstrap_p(observed: float, resampled: np.ndarray) -> float:
    """Two-sided p-value of "the two systems are equally good" from the resampled
    differences of a paired bootstrap: the share of differences, shifted to mean zero
    (the null), at least as far from zero as ``observed``; ``(1 + count) / (1 + B)`` so
    it is never 0.

    >>> paired_bootstrap_p(0.0, np.array([-1.0, 1.0]))
    1.0
    >>> round(paired_bootstrap_p(5.0, np.random.default_rng(0).normal(5, 1, 999)), 3)
    0.001
    """
    d = np.asarray(resampled, dtype=float)
    d = d[np.isfinite(d)]
    if not len(d):
        return math.nan
    null = d - d.mean()
    count = int(np.count_nonzero(np.abs(null) >= abs(observed) - 1e-12))
    return min(1.0, (1 + count) / (1 + len(d)))


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """McNemar's exact two-sided p-value: ``a_only`` rows right for A only, ``b_only``
    right for B only; under the null each discordant row is A's with probability 1/2.

    >>> mcnemar_exact(0, 0), round(mcnemar_exact(1, 9), 6)
    (1.0, 0.021484)
    """
    from scipy.special import bdtr      # the binomial CDF (scipy.stats costs ~1 s to import)
    n = a_only + b_only
    if n == 0:
        return 1.0
    return float(min(1.0, 2.0 * bdtr(min(a_only, b_only), n, 0.5)))


def holm(p_values) -> list[float]:
    """Holm's step-down adjusted p-values (monotone, capped at 1; NaN stays NaN).

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=float)
    out = np.full(len(p), math.nan)
    ok = np.flatnonzero(np.isfinite(p))
    m = len(ok)
    order = ok[np.argsort(p[ok], kind="stable")]
    running = 0.0
    for i, j in enumerate(order):
        running = max(running, min(1.0, (m - i) * p[j]))
        out[j] = running
    return [round(float(x), 15) for x in out]


def rank_rows(scores: np.ndarray, higher_is_better) -> np.ndarray:
    """Fractional ranks (1 best, ties share the mean place) within each row of a
    ``(blocks, treatments)`` matrix; NaN (no score) shares the last places.

    >>> rank_rows(np.array([[0.9, 0.5, 0.5, np.nan]]), True).tolist()
    [[1.0, 2.5, 2.5, 4.0]]
    """
    from scipy.stats import rankdata
    s = np.asarray(scores, dtype=float)
    hib = np.broadcast_to(np.asarray(higher_is_better, dtype=bool), (s.shape[0],))
    key = np.where(hib[:, None], -s, s)
    key = np.where(np.isnan(key), np.inf, key)
    return rankdata(key, axis=1, method="average")


def friedman(ranks: np.ndarray) -> dict:
    """Friedman's test on a ``(N blocks, k treatments)`` matrix of within-block ranks:
    ``{"statistic": chi2_F, "p_value", "iman_davenport", "iman_davenport_p_value", "k", "N",
    "mean_ranks"}`` (Demšar 2006, section 3.2.2).

    >>> r = friedman(np.array([[1, 2, 3], [1, 2, 3], [1, 3, 2], [1, 2, 3]]))
    >>> round(r["statistic"], 3), r["mean_ranks"]
    (6.5, [1.0, 2.25, 2.75])
    """
    from scipy.stats import chi2, f
    r = np.asarray(ranks, dtype=float)
    n, k = r.shape
    mean = r.mean(axis=0)
    stat = 12.0 * n / (k * (k + 1)) * (np.sum(mean ** 2) - k * (k + 1) ** 2 / 4.0)
    p = float(chi2.sf(stat, k - 1)) if k > 1 else math.nan
    den = n * (k - 1) - stat
    ff = (n - 1) * stat / den if den > 0 else math.inf
    pf = float(f.sf(ff, k - 1, (k - 1) * (n - 1))) if k > 1 and n > 1 and math.isfinite(ff) else \
        (0.0 if math.isinf(ff) else math.nan)
    return {"statistic": float(stat), "p_value": p, "iman_davenport": float(ff),
            "iman_davenport_p_value": pf, "k": int(k), "N": int(n),
            "mean_ranks": [float(x) for x in mean]}


@lru_cache(maxsize=None)
def nemenyi_q(k: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical value q_alpha for ``k`` treatments: the studentized range
    quantile (infinite degrees of freedom) divided by sqrt(2).

    >>> round(nemenyi_q(4), 3), round(nemenyi_q(2), 3)
    (2.569, 1.96)
    """
    from scipy.stats import studentized_range
    return float(studentized_range.ppf(1.0 - alpha, k, np.inf) / math.sqrt(2.0))


def nemenyi_cd(k: int, n: int, alpha: float = 0.05) -> float:
    """The critical difference of mean ranks, q_alpha * sqrt(k (k + 1) / (6 N)).

    >>> round(nemenyi_cd(4, 14), 2)
    1.25
    """
    return nemenyi_q(k, alpha) * math.sqrt(k * (k + 1) / (6.0 * n))


def normalised_scores(values: np.ndarray, constant: float, higher_is_better: bool) -> np.ndarray:
    """AMLB-style scores: ``(v - constant) / (best - constant)`` with ``best`` the best
    finite value; 0 is the constant predictor, 1 the best system. A NaN value (failed,
    missing) counts as the constant predictor (0); NaN (undefined) when the best equals the
    constant within :data:`NORMALISED_TOL` (relative, or absolute below 1) — a rounding
    difference must not become a division by 1e-16.

    >>> normalised_scores(np.array([0.9, 0.7, np.nan]), 0.5, True).round(12).tolist()
    [1.0, 0.5, 0.0]
    >>> normalised_scores(np.array([0.7 + 1e-16, 0.6]), 0.7, True).tolist()
    [nan, nan]
    """
    v = np.asarray(values, dtype=float)
    fin = v[np.isfinite(v)]
    if not len(fin) or not math.isfinite(constant):
        return np.full(len(v), math.nan)
    best = fin.max() if higher_is_better else fin.min()
    if abs(best - constant) <= NORMALISED_TOL * max(1.0, abs(constant)):
        return np.full(len(v), math.nan)
    out = (v - constant) / (best - constant)
    return np.where(np.isfinite(out), out, 0.0)
