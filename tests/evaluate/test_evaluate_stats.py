"""The statistics of a campaign: Friedman/Nemenyi on Demšar's (2006) worked example,
McNemar against a hand computation, Holm, the bootstrap's coverage on simulated data, the
resampled metric forms against the registry's metric functions, and per-fold scoring."""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest

from d3mkit.cli import main
from d3mkit.evaluate import stats
from d3mkit.evaluate.resampled import Resampler
from d3mkit.evaluate.scorer import Call
from d3mkit.evaluate.synthetic import make_campaign
from d3mkit.core.registry import get_metric

# Demšar 2006, Table 6: ranks of C4.5, C4.5+m, C4.5+cf and C4.5+m+cf (AUC) on 14 data sets;
# section 3.2.2 gives mean ranks 3.143, 2.000, 2.893, 1.964, chi2_F = 9.28, F_F = 3.69 and,
# for the Nemenyi test with q_0.05 = 2.569, CD = 1.25.
DEMSAR_RANKS = np.array([
    [4, 3, 2, 1], [1, 2, 3, 4], [4, 1, 2, 3], [4, 1, 3, 2], [4, 2, 3, 1], [1, 2.5, 4, 2.5],
    [3, 2, 4, 1], [2.5, 2.5, 4, 1], [4, 3, 2, 1], [2.5, 2.5, 2.5, 2.5], [4, 2.5, 1, 2.5],
    [3, 2, 4, 1], [4, 1, 2, 3], [3, 1, 4, 2]])


def test_friedman_and_nemenyi_reproduce_demsar_2006():
    r = stats.friedman(DEMSAR_RANKS)
    assert [round(x, 3) for x in r["mean_ranks"]] == [3.143, 2.0, 2.893, 1.964]
    assert round(r["statistic"], 2) == 9.28
    assert round(r["iman_davenport"], 2) == 3.69
    assert r["p_value"] == pytest.approx(0.0258, abs=5e-4)
    assert round(stats.nemenyi_q(4, 0.05), 3) == 2.569
    assert round(stats.nemenyi_cd(4, 14, 0.05), 2) == 1.25
    assert round(stats.nemenyi_q(2, 0.05), 3) == 1.96      # two systems: the normal quantile


def test_ranks_from_scores_match_the_published_ranks():
    # lower rank = better; feeding the ranks as "lower is better" scores gives them back
    got = stats.rank_rows(DEMSAR_RANKS, False)
    assert np.array_equal(got, DEMSAR_RANKS)


def _friedman_case():
    rng = np.random.default_rng(3)
    scores = rng.normal(size=(12, 5)) + np.arange(5) * 0.4
    return scores, stats.rank_rows(scores, True)


def test_friedman_against_scipy():
    from scipy.stats import friedmanchisquare
    scores, ranks = _friedman_case()
    ours = stats.friedman(ranks)
    ref = friedmanchisquare(*scores.T)
    assert ours["statistic"] == pytest.approx(ref.statistic, rel=1e-9)
    assert ours["p_value"] == pytest.approx(ref.pvalue, rel=1e-9)


@pytest.mark.slow     # importing scikit-posthocs takes over a second (statsmodels, pandas plotting)
def test_nemenyi_cd_against_scikit_posthocs():
    sp = pytest.importorskip("scikit_posthocs", reason="scikit-posthocs not installed (optional)")
    scores, ranks = _friedman_case()
    p = sp.posthoc_nemenyi_friedman(scores)
    # two systems differ at alpha = 0.05 under the CD exactly when scikit-posthocs' p < 0.05
    mean = ranks.mean(axis=0)
    cd = stats.nemenyi_cd(5, 12)
    for i in range(5):
        for j in range(i + 1, 5):
            assert (abs(mean[i] - mean[j]) > cd) == (p.iloc[i, j] < 0.05)


def test_mcnemar_exact_against_a_hand_computation():
    # b = 2 rows right only for A, c = 8 right only for B: p = 2 * P(X <= 2), X ~ Bin(10, 1/2)
    hand = 2 * (math.comb(10, 0) + math.comb(10, 1) + math.comb(10, 2)) / 2 ** 10
    assert stats.mcnemar_exact(2, 8) == pytest.approx(hand, rel=1e-12)
    assert stats.mcnemar_exact(8, 2) == pytest.approx(hand, rel=1e-12)
    assert stats.mcnemar_exact(5, 5) == 1.0 and stats.mcnemar_exact(0, 0) == 1.0


def test_holm():
    assert stats.holm([0.01, 0.04, 0.03]) == [0.03, 0.06, 0.06]
    assert stats.holm([0.5, float("nan")])[0] == 0.5


@pytest.mark.slow
def test_bootstrap_interval_covers_the_truth_93_to_97_percent():
    """1,000 seeded repeats: a sample of 400 rows from a classifier with accuracy 0.8; the
    95% percentile interval of 1,000 resamples covers 0.8 in 93-97% of them. Vectorised:
    ten weight matrices, each resampling 100 data sets in one matrix product."""
    rng = np.random.default_rng(2025)
    n, reps, b = 400, 1000, 1000
    correct = (rng.random((reps, n)) < 0.8).astype(np.float32)
    vals = np.vstack([correct[k:k + 100] @ stats.resample_weights(n, b, rng).T / n
                      for k in range(0, reps, 100)])                       # (reps, b)
    lo, hi = np.quantile(vals, [0.025, 0.975], axis=1)
    assert lo[0] == stats.percentile_interval(vals[0], 0.95)[0]
    hits = int(np.count_nonzero((lo <= 0.8) & (0.8 <= hi)))
    assert 930 <= hits <= 970, hits


@pytest.mark.parametrize("name,kind", [("accuracy", "labels"), ("f1Macro", "labels"), ("f1Micro", "labels"),
                                       ("f1", "binary"), ("precision", "binary"), ("recall", "binary"),
                                       ("jaccardSimilarityScore", "binary"),
                                       ("meanSquaredError", "numbers"), ("rootMeanSquaredError", "numbers"),
                                       ("meanAbsoluteError", "numbers"), ("rSquared", "numbers")])
def test_resampled_forms_equal_the_metric_function_on_each_resample(name, kind):
    rng = np.random.default_rng(7)
    n = 300
    if kind == "numbers":
        yt = rng.normal(size=n)
        yp = yt + rng.normal(scale=0.5, size=n)
        kw = {}
    else:
        labels = np.array(["a", "b", "c", "d"] if kind == "labels" else ["0", "1"], dtype=object)
        yt = labels[rng.integers(0, len(labels), n)]
        yp = np.where(rng.random(n) < 0.7, yt, labels[rng.integers(0, len(labels), n)])
        kw = {"posLabel": "1"} if kind == "binary" else {}
    m = get_metric(name)
    call = Call.of(name, m, yt, yp, kw, float(m(yt, yp, **kw)))
    r = Resampler(call)
    assert r.form == "sums"
    idx = next(stats.resample_blocks(n, 50, rng))
    slow = r.by_function([(call, row)] for row in idx)
    fast = r.from_sums(stats.block_weights(idx, n) @ r.all_columns())
    assert np.allclose(fast, slow, rtol=1e-4, atol=1e-6)


def test_resampled_falls_back_to_the_function_when_no_form_fits():
    m = get_metric("normalizedMutualInformation")
    yt = np.array(list("aabbccab"), dtype=object)
    yp = np.array(list("aabbcbab"), dtype=object)
    call = Call.of("nmi", m, yt, yp, {}, float(m(yt, yp)))
    r = Resampler(call)
    assert r.form == "function"
    idx = next(stats.resample_blocks(8, 5, np.random.default_rng(0)))
    got = r.by_function([(call, row)] for row in idx)
    assert len(got) == 5 and got[0] == pytest.approx(float(m(yt[idx[0]], yp[idx[0]])))


def _read(path):
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


@pytest.mark.slow
def test_every_fold_is_scored_as_d3mkit_score_does(tmp_path, capsys):
    p, s = make_campaign(tmp_path, systems=2, problems=2, rows=40, seed=11, malformed=0, folds=3)
    out = tmp_path / "out"
    assert main(["evaluate", "--problems", str(p), "--submissions", str(s), "--out", str(out), "--quiet",
                 "--workers", "1", "--bootstrap", "100"]) == 0
    rows = _read(out / "scores.csv")
    assert {(r["repeat"], r["fold"]) for r in rows} == {("0", "0"), ("0", "1"), ("0", "2")}
    capsys.readouterr()
    for r in rows[:8]:
        problem = p / r["problemID"].removesuffix("_problem") / r["problemID"]
        pred = s / r["system"] / r["problemID"] / f"repeat_{r['repeat']}" / f"fold_{r['fold']}" / "predictions.csv"
        assert main(["score", "--problem", str(problem), "--predictions", str(pred), "--repeat", r["repeat"],
                     "--fold", r["fold"], "--format", "json"]) == 0
        report = json.loads(capsys.readouterr().out)
        value = next(x["value"] for x in report["scores"] if x["metric"] == r["metric"])
        assert float(r["value"]) == value
        assert float(r["ci_low"]) <= value <= float(r["ci_high"])
    aggs = _read(out / "aggregates.csv")
    assert list(aggs[0]) == ["system", "problemID", "metric", "mean", "sd", "folds", "rank", "fold_ci_low",
                             "fold_ci_high"]
    from scipy import stats as sst
    for a in aggs:
        vals = [float(r["value"]) for r in rows if (r["system"], r["problemID"], r["metric"]) ==
                (a["system"], a["problemID"], a["metric"])]
        assert a["folds"] == "3" and float(a["mean"]) == pytest.approx(np.mean(vals))
        assert float(a["sd"]) == pytest.approx(np.std(vals, ddof=1))
        # Student's t interval over the folds (scipy's t.interval on the same three values)
        lo, hi = sst.t.interval(0.95, 2, loc=np.mean(vals), scale=sst.sem(vals))
        assert (float(a["fold_ci_low"]), float(a["fold_ci_high"])) == (pytest.approx(lo), pytest.approx(hi))
    comps = _read(out / "comparisons.csv")
    assert list(comps[0]) == ["problemID", "metric", "system_a", "system_b", "difference", "p_value",
                              "p_holm", "test"]
    tests = {(c["metric"], c["test"]) for c in comps}
    assert ("accuracy", "mcnemar_exact") in tests and ("f1Macro", "paired_bootstrap") in tests
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["mean_ranks"]) == {"system_00", "system_01"}
    assert summary["friedman"]["k"] == 2 and summary["critical_difference"] > 0


@pytest.mark.slow
def test_a_missing_fold_is_a_failure_row(tmp_path):
    p, s = make_campaign(tmp_path, systems=2, problems=1, rows=30, seed=12, malformed=0, folds=3)
    import shutil
    shutil.rmtree(s / "system_01" / "synth_000_problem" / "repeat_0" / "fold_2")
    out = tmp_path / "out"
    assert main(["evaluate", "--problems", str(p), "--submissions", str(s), "--out", str(out), "--quiet",
                 "--workers", "1", "--bootstrap", "50"]) == 0
    fails = _read(out / "failures.csv")
    assert [(f["system"], f["code"]) for f in fails] == [("system_01", "submission.missing_fold")]
    assert "repeat 0, fold 2" in fails[0]["message"]
    aggs = {(a["system"], a["metric"]): a["folds"] for a in _read(out / "aggregates.csv")}
    assert aggs[("system_01", "accuracy")] == "2" and aggs[("system_00", "accuracy")] == "3"
    assert main(["evaluate", "--problems", str(p), "--submissions", str(s), "--out", str(out), "--quiet",
                 "--workers", "1", "--bootstrap", "50", "--fail-on", "missing"]) == 1


@pytest.mark.slow
def test_same_seed_same_intervals_other_seed_other_intervals(tmp_path):
    p, s = make_campaign(tmp_path, systems=2, problems=1, rows=40, seed=13, malformed=0)
    outs = []
    for k, seed in enumerate(("1", "1", "2")):
        out = tmp_path / f"o{k}"
        assert main(["evaluate", "--problems", str(p), "--submissions", str(s), "--out", str(out), "--quiet",
                     "--workers", "1", "--bootstrap", "200", "--seed", seed]) == 0
        outs.append((out / "scores.csv").read_text())
    assert outs[0] == outs[1] != outs[2]


def test_bootstrap_zero_turns_the_statistics_off(tmp_path):
    p, s = make_campaign(tmp_path, systems=2, problems=2, rows=20, seed=14, malformed=0)
    out = tmp_path / "out"
    assert main(["evaluate", "--problems", str(p), "--submissions", str(s), "--out", str(out), "--quiet",
                 "--workers", "1", "--bootstrap", "0"]) == 0
    assert all(r["ci_low"] == "" for r in _read(out / "scores.csv"))
    assert _read(out / "comparisons.csv") == []
