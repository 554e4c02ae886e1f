"""Head-to-head statistics of a campaign over its problems, as pure functions of arrays:
the pairwise win matrices, the Bradley–Terry Elo with its bootstrap interval over
problems, the win rate and TabArena's improvability.

Every function takes *oriented* fold values, ``x[p, f, s]`` — problem ``p``, fold ``f``,
system ``s`` — where higher is better (a lower-is-better metric is negated first), failed
and missing runs already imputed (:mod:`d3mkit.evaluate.overall` does that), and
``fold_ok[p, f]`` saying which folds the problem has (problems have different numbers of
folds; the padding is ignored). Each problem weighs 1 across its folds.

* :func:`win_matrices` — ``(P, K, K)``: on problem ``p``, the share of its folds on which
  system ``i`` beats ``j`` (a tie counts half).
* :func:`bradley_terry` — the maximum-likelihood Bradley–Terry log-strengths of many win
  matrices at once (damped Newton; the same tiny ridge as bencheval's fit, which keeps a
  rating finite when one system beats another on every problem).
* :func:`elo` — Elo ratings (scale 400, base 10, centred on 1000 or with a reference
  system pinned at 1000) and their percentile interval from a bootstrap over problems.
* :func:`win_rates` — the pairwise win-rate matrix and each system's mean win rate.
* :func:`improvability` — mean over problems of the mean over folds of
  ``1 - best_error / error`` (TabArena), 0 for the best system.
"""

from __future__ import annotations

import math

import numpy as np

SCALE = 400.0
BASE_RATING = 1000.0
RIDGE = 0.5 / (1e6 * math.log(10) ** 2)   # bencheval's BT ridge: sklearn's C=1e6 on t / ln 10


def win_matrices(x: np.ndarray, fold_ok: np.ndarray) -> np.ndarray:
    """``(P, K, K)`` weighted wins: ``w[p, i, j]`` is the share of problem ``p``'s folds on
    which ``i`` scores higher than ``j``, plus half the share on which they are equal.

    >>> x = np.array([[[0.9, 0.5], [0.5, 0.5]]])            # 1 problem, 2 folds, 2 systems
    >>> win_matrices(x, np.array([[True, True]]))[0].tolist()
    [[0.0, 0.75], [0.25, 0.0]]
    """
    x = np.asarray(x, dtype=float)
    ok = np.asarray(fold_ok, dtype=bool)
    a, b = x[:, :, :, None], x[:, :, None, :]
    with np.errstate(invalid="ignore"):
        score = (a > b).astype(float) + 0.5 * (a == b)
    k = x.shape[2]
    score[:, :, np.arange(k), np.arange(k)] = 0.0
    weight = ok / np.maximum(ok.sum(axis=1, keepdims=True), 1)
    return np.einsum("pf,pfij->pij", weight, score)


def _objective(t: np.ndarray, w: np.ndarray, n: np.ndarray, ridge: float) -> np.ndarray:
    d = t[:, :, None] - t[:, None, :]
    # -sum_{i != j} w_ij log sigma(t_i - t_j) + ridge |t|^2 ; log sigma(d) = -logaddexp(0, -d)
    return (w * np.logaddexp(0.0, -d)).sum(axis=(1, 2)) + ridge * (t * t).sum(axis=1)


def bradley_terry(wins: np.ndarray, *, ridge: float = RIDGE, max_iter: int = 200,
                  tol: float = 1e-10) -> np.ndarray:
    """Log-strengths ``t`` (natural log, mean 0) maximising the Bradley–Terry likelihood
    ``prod sigma(t_i - t_j)^(w_ij)`` minus ``ridge * |t|^2``, for each of a stack of
    ``(B, K, K)`` win matrices (or one ``(K, K)``).

    >>> t = bradley_terry(np.array([[0.0, 3.0], [1.0, 0.0]]))
    >>> round(float(t[0] - t[1]), 6) == round(math.log(3), 6)
    True
    """
    w = np.asarray(wins, dtype=float)
    one = w.ndim == 2
    if one:
        w = w[None]
    bsz, k, _ = w.shape
    n = w + w.transpose(0, 2, 1)
    t = np.zeros((bsz, k))
    eye = np.eye(k)
    f = _objective(t, w, n, ridge)
    active = np.ones(bsz, dtype=bool)
    for _ in range(max_iter):
        idx = np.flatnonzero(active)
        if not len(idx):
            break
        ta, wa, na = t[idx], w[idx], n[idx]
        d = ta[:, :, None] - ta[:, None, :]
        p = 1.0 / (1.0 + np.exp(-d))                       # P(i beats j)
        grad = -(wa.sum(axis=2) - (na * p).sum(axis=2)) + 2 * ridge * ta
        c = na * p * (1.0 - p)
        hess = -c + eye * (c.sum(axis=2)[:, :, None] + 2 * ridge)
        step = np.linalg.solve(hess, grad[:, :, None])[:, :, 0]
        alpha = np.ones(len(idx))
        fa = f[idx]
        new = ta - step
        fn = _objective(new, wa, na, ridge)
        bad = ~(fn <= fa + 1e-12 * np.abs(fa))
        for _h in range(40):                              # backtracking where the step overshoots
            if not bad.any():
                break
            alpha[bad] /= 2
            new[bad] = ta[bad] - alpha[bad, None] * step[bad]
            fn[bad] = _objective(new[bad], wa[bad], na[bad], ridge)
            bad = ~(fn <= fa + 1e-12 * np.abs(fa))
        t[idx], f[idx] = new, fn
        done = np.abs(alpha[:, None] * step).max(axis=1) < tol
        active[idx[done]] = False
    t = t - t.mean(axis=1, keepdims=True)
    return t[0] if one else t


def to_elo(t: np.ndarray) -> np.ndarray:
    """Log-strengths to Elo: ``400 * t / ln 10 + 1000`` (a 400-point gap is 10:1 odds)."""
    return SCALE * np.asarray(t) / math.log(10) + BASE_RATING


def bootstrap_counts(n: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """``(resamples, n)`` how often each of ``n`` problems is drawn in each resample."""
    idx = rng.integers(0, n, size=(resamples, n))
    out = np.zeros((resamples, n))
    np.add.at(out, (np.arange(resamples)[:, None], idx), 1.0)
    return out


def elo(wins: np.ndarray, *, counts: np.ndarray | None = None, confidence: float = 0.95,
        reference: int | None = None) -> dict:
    """Elo ratings from per-problem win matrices ``(P, K, K)``: ``{"elo": (K,), "low": (K,),
    "high": (K,)}``. The point estimate fits the sum over problems; the interval is the
    ``confidence`` percentile interval of the fits of the problem resamples ``counts``
    (``(B, P)`` multiplicities; none: no interval, NaN). With ``reference`` (a system's
    position) every rating is shifted so that system is at 1000; the interval is shifted
    by the same amount (it is computed without the pin, as bencheval's post-calibration).

    >>> w = np.array([[[0.0, 1.0], [0.0, 0.0]], [[0.0, 0.5], [0.5, 0.0]]])
    >>> r = elo(w)
    >>> [round(float(v), 1) for v in r["elo"]]
    [1095.4, 904.6]
    """
    w = np.asarray(wins, dtype=float)
    k = w.shape[1]
    point = to_elo(bradley_terry(w.sum(axis=0)))
    low = high = np.full(k, math.nan)
    if counts is not None and len(counts) and k > 1:
        stack = np.tensordot(counts, w, axes=(1, 0))     # (B, K, K)
        boot = to_elo(bradley_terry(stack))
        a = (1.0 - confidence) / 2.0
        low, high = np.quantile(boot, [a, 1.0 - a], axis=0)
    shift = BASE_RATING - point[reference] if reference is not None else 0.0
    return {"elo": point + shift, "low": low + shift, "high": high + shift}


def win_rates(wins: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(matrix, rate)``: ``matrix[i, j]`` the share of the problems ``i`` wins against
    ``j`` (ties half, each problem weighing 1; NaN on the diagonal) and ``rate[i]`` its
    mean over the opponents (NaN with one system).

    >>> m, r = win_rates(np.array([[[0.0, 1.0], [0.0, 0.0]], [[0.0, 0.5], [0.5, 0.0]]]))
    >>> m.tolist(), r.tolist()
    ([[nan, 0.75], [0.25, nan]], [0.75, 0.25])
    """
    w = np.asarray(wins, dtype=float)
    k = w.shape[1]
    total = w.sum(axis=0)
    met = total + total.T
    with np.errstate(invalid="ignore", divide="ignore"):
        m = np.where(met > 0, total / np.where(met > 0, met, 1.0), math.nan)
    m[np.arange(k), np.arange(k)] = math.nan
    if k < 2:
        return m, np.full(k, math.nan)
    with np.errstate(invalid="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            rate = np.nanmean(m, axis=1)
    return m, rate


def improvability(err: np.ndarray, fold_ok: np.ndarray) -> np.ndarray:
    """TabArena's improvability per problem, ``(P, K)``: on each fold ``1 - best / error``
    (``error`` ≥ 0 the distance from the metric's perfect value, ``best`` the smallest
    error of the fold; 0 when both are 0), averaged over the problem's folds. How much of
    its error a system would lose by matching the best one; 0 is the best.

    >>> improvability(np.array([[[0.1, 0.2, 0.0]]]), np.array([[True]])).tolist()
    [[1.0, 1.0, 0.0]]
    >>> improvability(np.array([[[0.1, 0.2]]]), np.array([[True]])).round(12).tolist()
    [[0.0, 0.5]]
    """
    e = np.asarray(err, dtype=float)
    ok = np.asarray(fold_ok, dtype=bool)
    with np.errstate(invalid="ignore", divide="ignore"):
        best = np.nanmin(np.where(ok[:, :, None], e, np.inf), axis=2, keepdims=True)
        v = 1.0 - best / e
    v = np.where(np.isnan(v), 0.0, v)                     # 0 / 0: both perfect
    v = np.where(np.isinf(e) & np.isfinite(best), 1.0, v)
    v = np.where(ok[:, :, None], v, 0.0)
    n = ok.sum(axis=1)
    return v.sum(axis=1) / np.maximum(n, 1)[:, None]
