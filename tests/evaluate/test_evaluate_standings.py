"""The campaign's standing over problems (d3mkit/evaluate/overall.py, elo.py,
pairwise.py) against the reference packages on the same tables — bencheval (Elo, win
rate, improvability), scipy (Wilcoxon), baycomp (Bayesian signed-rank, within 0.02),
scikit-posthocs (Wilcoxon–Holm groups), autorank (Nemenyi CD) — and Demšar's (2006)
worked example, with the edge cases: ties, one system, two problems, all equal, a
failing system, partial systems. A reference package that is not installed skips its
test with the reason; the hand computations run everywhere."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from d3mkit.evaluate import elo as E
from d3mkit.evaluate import pairwise as PW
from d3mkit.evaluate.overall import Options, ProblemInfo, make_grid, standings


def _frame(values: np.ndarray, systems=None) -> tuple[pd.DataFrame, list, list]:
    """A long table from ``values[p, f, s]`` (NaN: not scored), metric ``m`` (higher is
    better), one repeat."""
    p_n, f_n, s_n = values.shape
    systems = systems or [f"s{i}" for i in range(s_n)]
    rows = [[systems[s], f"p{p}", 0, f, "m", float(values[p, f, s])]
            for p in range(p_n) for f in range(f_n) for s in range(s_n) if np.isfinite(values[p, f, s])]
    frame = pd.DataFrame(rows, columns=["system", "problemID", "repeat", "fold", "metric", "value"])
    return frame, systems


def _infos(p_n, f_n, constant=0.0, perfect=1.0, higher=True):
    return [ProblemInfo(f"p{p}", "m", higher, tuple((0, f) for f in range(f_n)), constant, perfect)
            for p in range(p_n)]


def _bencheval_frame(values: np.ndarray, perfect=1.0):
    p_n, f_n, s_n = values.shape
    rows = [dict(method=f"s{s}", task=f"p{p}", fold=f, metric_error=abs(perfect - values[p, f, s]))
            for p in range(p_n) for f in range(f_n) for s in range(s_n)]
    return pd.DataFrame(rows)


def _scores(seed=0, p_n=20, f_n=3, s_n=6, decimals=2):
    rng = np.random.default_rng(seed)
    return np.round(0.5 + 0.4 * rng.random((p_n, f_n, s_n)) * (1 + np.arange(s_n)) / s_n, decimals)


# ----------------------------------------------------------------------------------------- Elo
@pytest.mark.slow
@pytest.mark.parametrize("reference", [None, "s3"])
def test_elo_win_rate_improvability_equal_bencheval(reference):
    be = pytest.importorskip("bencheval.evaluator", reason="bencheval not installed (pip install bencheval)")
    vals = _scores()                                     # rounded: many ties
    frame, systems = _frame(vals)
    st = standings(frame, systems, _infos(*vals.shape[:2]), Options(bootstrap=0, reference=reference))
    ev = be.BenchmarkEvaluator(seed_column="fold", columns_to_agg_extra=None)
    rpt = ev.compute_results_per_task(_bencheval_frame(vals), include_seed_col=True)
    ref = ev.compute_elo(rpt, BOOTSTRAP_ROUNDS=1, include_quantiles=False, round_decimals=None,
                         calibration_framework=reference)
    wr = ev.compute_winrate(rpt)
    imp = ev.leaderboard(_bencheval_frame(vals), include_elo=False)["improvability"]
    for s in systems:
        assert st["systems"][s]["elo"] == pytest.approx(ref.loc[s, "elo"], abs=1e-4)
        assert st["systems"][s]["win_rate"] == pytest.approx(wr[s], abs=1e-9)
        assert st["systems"][s]["improvability"] == pytest.approx(imp[s], abs=1e-9)
    if reference:
        assert st["systems"][reference]["elo"] == pytest.approx(1000.0)
    else:
        assert np.mean([st["systems"][s]["elo"] for s in systems]) == pytest.approx(1000.0)


@pytest.mark.slow
def test_elo_of_a_system_that_wins_everything_is_finite_and_equals_bencheval():
    be = pytest.importorskip("bencheval.evaluator", reason="bencheval not installed (pip install bencheval)")
    vals = np.tile(np.array([0.9, 0.8, 0.7]), (4, 2, 1))   # a total order on every fold: separable
    frame, systems = _frame(vals)
    st = standings(frame, systems, _infos(4, 2), Options(bootstrap=0))
    ev = be.BenchmarkEvaluator(seed_column="fold", columns_to_agg_extra=None)
    rpt = ev.compute_results_per_task(_bencheval_frame(vals), include_seed_col=True)
    ref = ev.compute_elo(rpt, BOOTSTRAP_ROUNDS=1, include_quantiles=False, round_decimals=None)
    for s in systems:
        assert math.isfinite(st["systems"][s]["elo"])
        assert st["systems"][s]["elo"] == pytest.approx(ref.loc[s, "elo"], abs=0.05)


def test_elo_hand_computation_two_systems():
    # a beats b on 3 of 4 problems: the MLE odds are 3:1, so the gap is 400 log10(3)
    w = np.zeros((4, 2, 2))
    w[:3, 0, 1] = 1.0
    w[3, 1, 0] = 1.0
    r = E.elo(w)
    # (bencheval's ridge of ~1e-7 on the log-strengths moves it by 2e-5 Elo)
    assert r["elo"][0] - r["elo"][1] == pytest.approx(400 * math.log10(3), abs=1e-3)
    assert r["elo"].mean() == pytest.approx(1000.0)


@pytest.mark.slow
def test_elo_interval_brackets_the_estimate_and_is_seeded():
    vals = _scores(seed=4, p_n=30)
    frame, systems = _frame(vals)
    a = standings(frame, systems, _infos(30, 3), Options(bootstrap=300, seed=1))
    b = standings(frame, systems, _infos(30, 3), Options(bootstrap=300, seed=1))
    assert a["systems"] == b["systems"]
    for s in systems:
        lo, hi = a["systems"][s]["elo_ci"]
        assert lo <= a["systems"][s]["elo"] <= hi
        lo, hi = a["systems"][s]["rank_ci"]
        assert lo <= a["systems"][s]["mean_rank"] <= hi


def test_each_problem_weighs_one_across_its_folds():
    # p0 has 4 folds that s0 all wins; p1 one fold that s1 wins: one problem each
    vals = np.full((2, 4, 2), np.nan)
    vals[0, :, :] = [0.9, 0.1]
    vals[1, 0, :] = [0.1, 0.9]
    frame, systems = _frame(vals)
    infos = [ProblemInfo("p0", "m", True, tuple((0, f) for f in range(4)), 0.0, 1.0),
             ProblemInfo("p1", "m", True, ((0, 0),), 0.0, 1.0)]
    st = standings(frame, systems, infos, Options(bootstrap=0))
    assert st["systems"]["s0"]["elo"] == pytest.approx(st["systems"]["s1"]["elo"])
    assert st["systems"]["s0"]["win_rate"] == pytest.approx(0.5)


# ------------------------------------------------------------------------------ pairwise tests
@pytest.mark.slow
def test_wilcoxon_and_holm_equal_scipy_and_scikit_posthocs():
    from scipy.stats import wilcoxon
    vals = _scores(seed=2, p_n=15, f_n=1, s_n=4, decimals=3)
    frame, systems = _frame(vals)
    st = standings(frame, systems, _infos(15, 1), Options(bootstrap=0))
    means = vals[:, 0, :]
    for row in st["pairwise"]:
        i, j = systems.index(row["a"]), systems.index(row["b"])
        assert row["wilcoxon_p"] == pytest.approx(wilcoxon(means[:, i] - means[:, j]).pvalue, rel=1e-12)
        d = means[:, i] - means[:, j]
        assert (row["wins"], row["losses"], row["ties"]) == (int((d > 0).sum()), int((d < 0).sum()),
                                                             int((d == 0).sum()))
    sp = pytest.importorskip("scikit_posthocs", reason="scikit-posthocs not installed")
    long = pd.DataFrame({"v": means.T.ravel(), "g": np.repeat(systems, 15)})
    ref = sp.posthoc_wilcoxon(long, val_col="v", group_col="g", p_adjust="holm")
    for row in st["pairwise"]:
        assert row["wilcoxon_p_holm"] == pytest.approx(ref.loc[row["a"], row["b"]], rel=1e-9)


@pytest.mark.slow
def test_wilcoxon_holm_groups_follow_scikit_posthocs_verdicts():
    sp = pytest.importorskip("scikit_posthocs", reason="scikit-posthocs not installed")
    rng = np.random.default_rng(8)
    means = rng.normal(size=(25, 5)) * 0.05 + np.array([0.80, 0.79, 0.75, 0.74, 0.70])
    frame, systems = _frame(means[:, None, :])
    st = standings(frame, systems, _infos(25, 1), Options(bootstrap=0))
    long = pd.DataFrame({"v": means.T.ravel(), "g": np.repeat(systems, 25)})
    ref = sp.posthoc_wilcoxon(long, val_col="v", group_col="g", p_adjust="holm")
    order = sorted(systems, key=lambda s: st["mean_ranks"][s])
    expected = PW.cd_groups(order, lambda a, b: ref.loc[a, b] < 0.05)
    assert st["cd"] == {"test": "wilcoxon-holm", "alpha": 0.05, "groups": expected, "cd": None}
    assert expected                                       # not a vacuous comparison


@pytest.mark.slow
def test_bayesian_signed_rank_matches_baycomp_within_0_02():
    baycomp = pytest.importorskip("baycomp", reason="baycomp not installed (pip install baycomp)")
    rng = np.random.default_rng(3)
    for n, shift, rope in [(10, 0.01, 0.01), (30, 0.012, 0.01), (12, 0.0, 0.0), (15, -0.005, 0.01), (40, 0.0, 0.01)]:
        a = rng.random(n)
        b = a + shift + rng.normal(0, 0.02, n)
        ref = baycomp.SignedRankTest.probs(a, b, rope=rope, nsamples=50000, random_state=0)
        got = PW.bayes_signed_rank(a, b, rope, PW.dirichlet_weights(n, PW.BAYES_SAMPLES, np.random.default_rng(1)))
        if rope > 0:
            assert got["p_a"] == pytest.approx(ref[0], abs=0.02)
            assert got["p_rope"] == pytest.approx(ref[1], abs=0.02)
            assert got["p_b"] == pytest.approx(ref[2], abs=0.02)
        else:
            assert (got["p_a"], got["p_b"]) == (pytest.approx(ref[0], abs=0.02), pytest.approx(ref[1], abs=0.02))


def test_bayesian_signed_rank_hand_cases():
    w = PW.dirichlet_weights(6, 5000, np.random.default_rng(0))
    same = PW.bayes_signed_rank(np.full(6, 0.7), np.full(6, 0.7), 0.01, w)
    assert (same["p_a"], same["p_rope"], same["p_b"]) == (0.0, 1.0, 0.0)
    far = PW.bayes_signed_rank(np.full(6, 0.9), np.full(6, 0.5), 0.01, w)
    assert far["p_a"] > 0.95 and far["p_b"] == 0.0


# ------------------------------------------------------------------------------ Demšar (2006)
DEMSAR_RANKS = np.array([
    [4, 3, 2, 1], [1, 2, 3, 4], [4, 1, 2, 3], [4, 1, 3, 2], [4, 2, 3, 1], [1, 2.5, 4, 2.5],
    [3, 2, 4, 1], [2.5, 2.5, 4, 1], [4, 3, 2, 1], [2.5, 2.5, 2.5, 2.5], [4, 2.5, 1, 2.5],
    [3, 2, 4, 1], [4, 1, 2, 3], [3, 1, 4, 2]])
DEMSAR_NAMES = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]


def test_demsar_worked_example_friedman_nemenyi_and_groups():
    # the ranks as lower-is-better scores: the standing's ranks are Demšar's
    frame, systems = _frame(DEMSAR_RANKS[:, None, :].astype(float), DEMSAR_NAMES)
    infos = _infos(14, 1, constant=math.nan, perfect=math.nan, higher=False)
    st = standings(frame, systems, infos, Options(bootstrap=0, cd_test="nemenyi"))
    assert [round(st["mean_ranks"][s], 3) for s in systems] == [3.143, 2.0, 2.893, 1.964]
    assert round(st["friedman"]["statistic"], 2) == 9.28 and round(st["friedman"]["iman_davenport"], 2) == 3.69
    assert round(st["cd"]["cd"], 2) == 1.25
    # Demšar: 3.143 - 1.964 = 1.179 < CD, so Nemenyi separates no pair: one group of all four
    assert st["cd"]["groups"] == [["C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5"]]


@pytest.mark.slow
def test_nemenyi_cd_and_mean_ranks_equal_autorank():
    autorank = pytest.importorskip("autorank", reason="autorank not installed (pip install autorank)")
    rng = np.random.default_rng(5)
    means = rng.random((20, 5)) * 0.1 + np.array([0.9, 0.85, 0.8, 0.78, 0.7])
    frame, systems = _frame(means[:, None, :])
    st = standings(frame, systems, _infos(20, 1), Options(bootstrap=0, cd_test="nemenyi"))
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = autorank.autorank(pd.DataFrame(means, columns=systems), alpha=0.05, force_mode="nonparametric")
    # (autorank's studentized-range quantile agrees with scipy's to about 1e-5)
    assert st["cd"]["cd"] == pytest.approx(res.cd, rel=1e-4)
    for s in systems:
        assert st["mean_ranks"][s] == pytest.approx(res.rankdf.loc[s, "meanrank"], rel=1e-9)


# ---------------------------------------------------------------------------------- edge cases
def test_all_equal_systems_tie_everywhere():
    vals = np.full((5, 2, 3), 0.8)
    frame, systems = _frame(vals)
    st = standings(frame, systems, _infos(5, 2), Options(bootstrap=100))
    for s in systems:
        assert st["systems"][s]["elo"] == pytest.approx(1000.0)
        assert st["systems"][s]["win_rate"] == pytest.approx(0.5)
        assert st["systems"][s]["mean_rank"] == 2.0 and st["systems"][s]["improvability"] == 0.0
    for row in st["pairwise"]:
        assert (row["wins"], row["losses"], row["ties"]) == (0, 0, 5)
        assert row["wilcoxon_p"] is None and row["wilcoxon_p_holm"] is None      # no non-zero difference
        assert row["bayes"]["p_rope"] == 1.0
    assert st["cd"]["groups"] == [sorted(systems)]
    assert st["friedman"]["iman_davenport"] is not None or st["friedman"]["statistic"] == 0


def test_one_system_has_no_pairs_and_no_elo():
    vals = np.full((4, 1, 1), 0.8)
    frame, systems = _frame(vals)
    st = standings(frame, systems, _infos(4, 1), Options(bootstrap=50))
    assert st["pairwise"] == [] and st["cd"]["groups"] == [] and st["friedman"] is None
    assert st["systems"]["s0"]["elo"] is None and st["systems"]["s0"]["mean_rank"] == 1.0


def test_two_problems_give_no_wilcoxon_and_no_infinite_iman_davenport():
    vals = np.array([[[0.9, 0.8, 0.7]], [[0.95, 0.85, 0.6]]])          # both rank the systems alike
    frame, systems = _frame(vals)
    st = standings(frame, systems, _infos(2, 1), Options(bootstrap=0))
    assert all(r["wilcoxon_p"] is None for r in st["pairwise"])
    assert st["friedman"]["iman_davenport"] is None and st["friedman"]["iman_davenport_p_value"] is None
    assert st["cd"]["groups"] == [["s0", "s1", "s2"]]                   # nothing is shown to differ


@pytest.mark.slow
def test_a_failing_system_counts_as_the_constant_predictor():
    vals = _scores(seed=6, p_n=8, f_n=2, s_n=3)
    vals[:, :, 2] = np.nan                                               # s2 failed everywhere
    frame, systems = _frame(vals)
    st = standings(frame, systems, _infos(8, 2, constant=0.4), Options(bootstrap=0))
    s2 = st["systems"]["s2"]
    assert s2["normalised"] == 0.0 and s2["mean_rank"] == 3.0 and s2["win_rate"] == 0.0
    assert s2["elo"] < min(st["systems"][s]["elo"] for s in ("s0", "s1"))
    # the constant predictor's imputed error: 1 - best error / |1 - 0.4|
    grid = make_grid(frame, systems, _infos(8, 2, constant=0.4))
    best = np.nanmin(1 - grid.values[:, :, :2], axis=2)
    assert s2["improvability"] == pytest.approx(float(np.mean(1 - best / 0.6)))
    row = next(r for r in st["pairwise"] if (r["a"], r["b"]) == ("s0", "s2"))
    assert row["wins"] == 8 and row["bayes"]["p_a"] > 0.9


def test_partial_systems_are_ranked_after_complete_ones_unless_mean():
    vals = np.array([[[0.7, 0.6, 0.95], [0.7, 0.6, np.nan]]] * 3)       # s2 best but scored 1 of 2 folds
    frame, systems = _frame(vals)
    last = standings(frame, systems, _infos(3, 2, constant=0.5), Options(bootstrap=0))
    assert last["mean_ranks"] == {"s0": 1.0, "s1": 2.0, "s2": 3.0}
    mean = standings(frame, systems, _infos(3, 2, constant=0.5), Options(bootstrap=0, partial="mean"))
    assert mean["mean_ranks"] == {"s0": 2.0, "s1": 3.0, "s2": 1.0}
    # the missing fold is the constant predictor (0.5) in the head-to-head: s2 wins one fold of two
    assert last["win_rate_matrix"][2][0] == pytest.approx(0.5)


def test_fold_t_interval_against_scipy():
    from scipy import stats
    v = np.array([0.81, 0.84, 0.79, 0.86, 0.80])
    lo, hi = stats.t.interval(0.9, len(v) - 1, loc=v.mean(), scale=stats.sem(v))
    assert PW.t_interval(v, 0.9) == (pytest.approx(lo), pytest.approx(hi))
    assert all(math.isnan(x) for x in PW.t_interval(np.array([0.5]), 0.95))
