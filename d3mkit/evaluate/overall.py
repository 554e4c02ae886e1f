"""The campaign's standing over its problems, derived from the one long results table
(system, problemID, repeat, fold, metric, value): per-problem ranks under the partial-run
policy, mean ranks with a bootstrap interval over problems, Friedman / Iman–Davenport,
the Bradley–Terry Elo with its interval, win rates, improvability, normalised scores,
every pair's wins/losses/ties, Wilcoxon–Holm and Bayesian signed-rank test, and the
critical-difference groups (:func:`standings`). Pure: the caller passes the table and
what it knows of each problem (:class:`ProblemInfo`).

**Policy.** Each problem is scored on its primary metric. A *(repeat, fold)* is one fold.
A system is *complete* on a problem when every fold is scored, *partial* when some are,
*failed* when none is. Ranking: partial systems are ranked after the complete ones (by
their mean over the scored folds) unless ``partial="mean"``, and failed or missing ones
share the last places. Elo, win rates, improvability, the normalised score and the
pairwise tests count a failed or missing fold as the constant predictor (AMLB's
imputation); where a problem has no constant predictor (a metric reading confidences,
ranks or metadata) such a fold loses to every scored one. With ``partial="mean"`` the
pairwise tests use a partial system's mean over its scored folds instead.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

import numpy as np

PARTIAL_POLICIES = ("last", "mean")
CD_TESTS = ("wilcoxon", "nemenyi")
TIE_EPS = 1e-9


@dataclass(frozen=True)
class ProblemInfo:
    """What the statistics need to know of a problem besides its rows: the label of its
    primary metric in the table, its direction, its folds, the constant predictor's
    value (NaN: none) and the metric's perfect value (NaN: unknown)."""
    problem_id: str
    label: str | None
    higher: bool
    folds: tuple
    constant: float = math.nan
    perfect: float = math.nan


@dataclass(frozen=True)
class Options:
    """``bootstrap`` resamples of the problems for the Elo and rank intervals (0: none),
    their ``confidence``, the ``seed``, ``alpha`` of the tests and groups, the Elo
    ``reference`` system, the ``rope`` of the Bayesian test, the ``cd_test`` whose
    verdicts group the CD diagram, and the ``partial`` policy."""
    bootstrap: int = 1000
    confidence: float = 0.95
    seed: int = 0
    alpha: float = 0.05
    reference: str | None = None
    rope: float = 0.01
    cd_test: str = "wilcoxon"
    partial: str = "last"
    bayes_samples: int = 10_000


@dataclass
class Grid:
    """The primary metric of every problem, fold and system: ``values[p, f, s]`` (NaN
    not scored), ``fold_ok[p, f]`` (the problem has that fold; the rest is padding) and
    the problems' directions, constants and perfect values."""
    systems: list
    problems: list            # ProblemInfo
    values: np.ndarray
    fold_ok: np.ndarray

    @property
    def orient(self) -> np.ndarray:
        return np.array([1.0 if p.higher else -1.0 for p in self.problems])

    @property
    def constants(self) -> np.ndarray:
        return np.array([p.constant for p in self.problems], dtype=float)

    def scored(self) -> np.ndarray:
        """``(P, K)`` how many folds each system has scored."""
        return (np.isfinite(self.values) & self.fold_ok[:, :, None]).sum(axis=1)

    def status(self) -> np.ndarray:
        """``(P, K)``: 0 complete, 1 partial, 2 failed or missing."""
        n = self.scored()
        folds = self.fold_ok.sum(axis=1)[:, None]
        return np.where(n == 0, 2, np.where(n < folds, 1, 0))

    def oriented(self) -> np.ndarray:
        return self.values * self.orient[:, None, None]

    def imputed(self) -> np.ndarray:
        """Oriented fold values with a failed or missing fold counted as the constant
        predictor (``-inf``, a loss to every score, where there is none)."""
        x = self.oriented()
        fill = np.where(np.isfinite(self.constants), self.constants * self.orient, -np.inf)
        hole = self.fold_ok[:, :, None] & ~np.isfinite(x)
        return np.where(hole, fill[:, None, None], x)


def make_grid(table, systems: list, problems: list) -> Grid:
    """The :class:`Grid` of the long table (a DataFrame with the columns system, problemID,
    repeat, fold, metric, value) for ``systems`` and ``problems`` (:class:`ProblemInfo`)."""
    width = max([len(p.folds) for p in problems] + [1])
    vals = np.full((len(problems), width, len(systems)), math.nan)
    ok = np.zeros((len(problems), width), dtype=bool)
    sidx = {s: i for i, s in enumerate(systems)}
    for j, p in enumerate(problems):
        ok[j, :len(p.folds)] = True
    if len(table):
        pidx = {p.problem_id: j for j, p in enumerate(problems)}
        fidx = {(p.problem_id, r, f): k for p in problems for k, (r, f) in enumerate(p.folds)}
        labels = {p.problem_id: p.label for p in problems}
        for s, pid, r, f, label, v in table[["system", "problemID", "repeat", "fold", "metric",
                                             "value"]].itertuples(index=False, name=None):
            if labels.get(pid) != label or s not in sidx:
                continue
            k = fidx.get((pid, int(r), int(f)))
            if k is not None:
                vals[pidx[pid], k, sidx[s]] = float(v)
    return Grid(list(systems), list(problems), vals, ok)


def problem_means(grid: Grid, partial: str = "last") -> tuple[np.ndarray, np.ndarray]:
    """``(scored, tested)``, both oriented ``(P, K)``: the mean over the scored folds (NaN
    when none), and the value the pairwise tests use — the mean with failed folds imputed
    (:meth:`Grid.imputed`), or, with ``partial="mean"``, a partial system's scored mean."""
    x = grid.oriented()
    ok = grid.fold_ok[:, :, None]
    fin = np.isfinite(x) & ok
    n = fin.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        scored = np.where(n > 0, np.where(fin, x, 0.0).sum(axis=1) / np.maximum(n, 1), math.nan)
        xi = grid.imputed()
        imputed = np.where(ok, xi, 0.0).sum(axis=1) / np.maximum(grid.fold_ok.sum(axis=1), 1)[:, None]
    tested = imputed
    if partial == "mean":
        tested = np.where(grid.status() == 1, scored, imputed)
    return scored, tested


def policy_ranks(scored: np.ndarray, status: np.ndarray, partial: str = "last") -> np.ndarray:
    """``(P, K)`` fractional ranks (1 best; ties share the mean of their places): complete
    systems first, then partial ones (unless ``partial="mean"``), each by its scored mean
    (oriented, higher first), then failed and missing ones sharing the last places.

    >>> policy_ranks(np.array([[0.9, 0.95, 0.5, np.nan]]), np.array([[0, 1, 0, 2]])).tolist()
    [[1.0, 3.0, 2.0, 4.0]]
    >>> policy_ranks(np.array([[0.9, 0.95, 0.5, np.nan]]), np.array([[0, 1, 0, 2]]), "mean").tolist()
    [[2.0, 1.0, 3.0, 4.0]]
    """
    cls = np.where(status == 1, 0 if partial == "mean" else 1, status)
    out = np.zeros(scored.shape)
    for j in range(scored.shape[0]):
        keys = sorted((int(cls[j, s]), 0.0 if cls[j, s] == 2 else -float(scored[j, s]), s)
                      for s in range(scored.shape[1]))
        start = 0
        while start < len(keys):
            end = start + 1
            while end < len(keys) and keys[end][0] == keys[start][0] and \
                    abs(keys[end][1] - keys[start][1]) <= TIE_EPS * max(1.0, abs(keys[start][1])):
                end += 1
            for m in range(start, end):
                out[j, keys[m][2]] = (start + 1 + end) / 2.0
            start = end
    return out


def friedman_section(ranks: np.ndarray, alpha: float) -> tuple[dict | None, float | None, float | None]:
    """``(friedman, q_alpha, nemenyi_cd)`` with JSON-ready numbers: the Iman–Davenport F and
    its p-value are None where F is not finite (the problems rank the systems alike)."""
    from d3mkit.evaluate.stats import friedman, nemenyi_cd, nemenyi_q
    n, k = ranks.shape
    if k < 2 or n < 2:
        return None, None, None
    f = friedman(ranks)
    ff = f["iman_davenport"]
    fin = math.isfinite(ff)
    out = {"statistic": f["statistic"], "p_value": f["p_value"],
           "iman_davenport": ff if fin else None,
           "iman_davenport_p_value": f["iman_davenport_p_value"] if fin else None, "k": k, "N": n}
    return out, nemenyi_q(k, alpha), nemenyi_cd(k, n, alpha)


def _holm(ps: list) -> list:
    from d3mkit.evaluate.stats import holm
    vals = [math.nan if p is None else p for p in ps]
    return [None if p is None else float(h) for p, h in zip(ps, holm(vals))] if vals else []


def _rng(seed: int, what: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(what.encode())])


def normalised(grid: Grid, tested_raw: np.ndarray) -> np.ndarray:
    """``(P, K)`` normalised scores of the per-problem values (raw scale; NaN counts as
    the constant predictor); NaN where the problem has none or the best equals it."""
    from d3mkit.evaluate.stats import normalised_scores
    out = np.full(tested_raw.shape, math.nan)
    for j, p in enumerate(grid.problems):
        out[j] = normalised_scores(tested_raw[j], p.constant, p.higher)
    return out


def standings(table, systems: list, problems: list, opts: Options | None = None) -> dict:
    """Everything the summary and the page say about the systems over the problems:
    ``{"systems": {NAME: {elo, elo_ci, mean_rank, rank_ci, win_rate, improvability,
    normalised}}, "pairwise": [...], "cd": {test, alpha, groups, cd}, "friedman",
    "q_alpha", "nemenyi_cd", "mean_ranks", "win_rate_matrix", "per_problem"}``
    (see docs/evaluate.md for each)."""
    opts = opts or Options()
    problems = [p for p in problems if p.label is not None]
    grid = make_grid(table, systems, problems)
    k, n = len(systems), len(problems)
    out: dict = {"systems": {s: {"elo": None, "elo_ci": [None, None], "mean_rank": None,
                                 "rank_ci": [None, None], "win_rate": None, "improvability": None,
                                 "normalised": None} for s in systems},
                 "pairwise": [], "cd": {"test": opts.cd_test, "alpha": opts.alpha, "groups": [], "cd": None},
                 "friedman": None, "q_alpha": None, "nemenyi_cd": None, "mean_ranks": {},
                 "win_rate_matrix": None}
    if not k or not n:
        return out
    status = grid.status()
    scored, tested = problem_means(grid, opts.partial)
    ranks = policy_ranks(scored, status, opts.partial)
    mean_rank = ranks.mean(axis=0)
    counts = None
    if opts.bootstrap > 0 and n > 1:
        from d3mkit.evaluate.elo import bootstrap_counts
        counts = bootstrap_counts(n, opts.bootstrap, _rng(opts.seed, "problems"))
    a = (1.0 - opts.confidence) / 2.0
    if counts is not None:
        boot_ranks = counts @ ranks / n
        rank_lo, rank_hi = np.quantile(boot_ranks, [a, 1.0 - a], axis=0)
    else:
        rank_lo = rank_hi = np.full(k, math.nan)
    out["friedman"], out["q_alpha"], out["nemenyi_cd"] = friedman_section(ranks, opts.alpha)
    out["mean_ranks"] = {s: float(r) for s, r in zip(systems, mean_rank)}
    # head to head, fold by fold, failures imputed
    from d3mkit.evaluate.elo import elo, improvability, win_matrices, win_rates
    xi = grid.imputed()
    wins = win_matrices(xi, grid.fold_ok)
    if k > 1:
        ref = systems.index(opts.reference) if opts.reference in systems else None
        rating = elo(wins, counts=counts, confidence=opts.confidence, reference=ref)
        matrix, rate = win_rates(wins)
        out["win_rate_matrix"] = [[None if not math.isfinite(v) else float(v) for v in row] for row in matrix]
    else:
        rating = {"elo": np.full(k, math.nan), "low": np.full(k, math.nan), "high": np.full(k, math.nan)}
        rate = np.full(k, math.nan)
    perfect = np.array([p.perfect for p in problems], dtype=float)
    has = np.isfinite(perfect)
    imp = np.full(k, math.nan)
    if has.any():
        raw = xi * grid.orient[:, None, None]                        # back to the metric's scale
        err = np.abs(perfect[:, None, None] - raw)
        err = np.where(np.isfinite(raw), err, np.inf)
        imp = improvability(err[has], grid.fold_ok[has]).mean(axis=0)
    norm = normalised(grid, np.where(np.isfinite(tested), tested * grid.orient[:, None], math.nan))
    for i, s in enumerate(systems):
        col = norm[:, i]
        col = col[np.isfinite(col)]
        out["systems"][s] = {
            "elo": _num(rating["elo"][i]), "elo_ci": [_num(rating["low"][i]), _num(rating["high"][i])],
            "mean_rank": _num(mean_rank[i]), "rank_ci": [_num(rank_lo[i]), _num(rank_hi[i])],
            "win_rate": _num(rate[i]), "improvability": _num(imp[i]),
            "normalised": float(col.mean()) if len(col) else None}
    out["pairwise"] = pairwise_section(tested, systems, opts)
    out["cd"] = cd_section(out, systems, mean_rank, opts)
    out["per_problem"] = {"ranks": ranks, "normalised": norm, "status": status, "scored": scored}
    return out


def pairwise_section(tested: np.ndarray, systems: list, opts: Options) -> list[dict]:
    """Every pair ``a < b`` (campaign order): wins/losses/ties over the problems, the
    Wilcoxon p-value and its Holm correction over the pairs, and the Bayesian test."""
    from d3mkit.evaluate.pairwise import bayes_signed_rank, dirichlet_weights, wilcoxon_p, wins_losses_ties
    rows, ps = [], []
    weights: dict = {}
    rng = _rng(opts.seed, "bayes")
    for i in range(len(systems)):
        for j in range(i + 1, len(systems)):
            x, y = tested[:, i], tested[:, j]
            ok = np.isfinite(x) & np.isfinite(y)
            w, lo, t = wins_losses_ties(x, y)
            p = wilcoxon_p(x[ok] - y[ok])
            bayes = None
            if ok.any() and opts.bayes_samples > 0:
                m = int(ok.sum())
                if m not in weights:
                    weights[m] = dirichlet_weights(m, opts.bayes_samples, rng)
                bayes = bayes_signed_rank(x[ok], y[ok], opts.rope, weights[m])
            rows.append({"a": systems[i], "b": systems[j], "wins": w, "losses": lo, "ties": t,
                         "wilcoxon_p": p, "wilcoxon_p_holm": None,
                         "bayes": bayes or {"p_a": None, "p_rope": None, "p_b": None, "rope": opts.rope}})
            ps.append(p)
    for row, h in zip(rows, _holm(ps)):
        row["wilcoxon_p_holm"] = h
    return rows


def cd_section(out: dict, systems: list, mean_rank: np.ndarray, opts: Options) -> dict:
    """The groups of the CD diagram: by Wilcoxon–Holm (two systems differ when their
    Holm-corrected p-value is below alpha; an undefined test is no difference), or by
    Nemenyi's critical difference of mean ranks."""
    from d3mkit.evaluate.pairwise import cd_groups
    order = [s for _r, s in sorted(zip(mean_rank.tolist(), systems))]
    if opts.cd_test == "nemenyi":
        cd = out.get("nemenyi_cd")
        mr = dict(zip(systems, mean_rank.tolist()))

        def different(a, b):
            return cd is None or abs(mr[a] - mr[b]) > cd
        groups = cd_groups(order, different) if cd is not None else []
        return {"test": "nemenyi", "alpha": opts.alpha, "groups": groups, "cd": cd}
    holm = {frozenset((r["a"], r["b"])): r["wilcoxon_p_holm"] for r in out["pairwise"]}

    def differ(a, b):
        p = holm.get(frozenset((a, b)))
        return p is not None and p < opts.alpha
    return {"test": "wilcoxon-holm", "alpha": opts.alpha, "groups": cd_groups(order, differ), "cd": None}


def _num(v) -> float | None:
    v = float(v)
    return v if math.isfinite(v) else None
