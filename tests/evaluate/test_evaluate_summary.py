"""summary.json as the contract (issue 34), the long results table, and the numbers
that used to lie at the edges: a normalised score dividing by a rounding difference,
a partial system ranked ahead of complete ones and counted as scored, an infinite
Iman–Davenport F stored as "inf" and shown as "p = 0", and a paired bootstrap on four
TEST rows whose resampled differences do not vary."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import shutil

import numpy as np
import pytest

from d3mkit.cli import main
from d3mkit.evaluate import stats
from d3mkit.evaluate.synthetic import make_campaign

SYSTEM_KEYS = {"elo", "elo_ci", "mean_rank", "rank_ci", "win_rate", "improvability", "normalised"}
PAIR_KEYS = {"a", "b", "wins", "losses", "ties", "wilcoxon_p", "wilcoxon_p_holm", "bayes"}


def _evaluate(p, s, out, *extra):
    return main(["evaluate", "--problems", str(p), "--submissions", str(s), "--out", str(out), "--quiet",
                 "--workers", "1", "--bootstrap", "100", *extra])


def _numbers_and_nulls(x, where="summary"):
    """Every leaf that is not a name or a sentence is a finite number, a bool or null."""
    if isinstance(x, dict):
        for k, v in x.items():
            _numbers_and_nulls(v, f"{where}.{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            _numbers_and_nulls(v, f"{where}[{i}]")
    elif isinstance(x, float):
        assert math.isfinite(x), where
    elif isinstance(x, str):
        assert x.lower() not in ("inf", "-inf", "nan", "infinity"), where


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("summary")
    p, s = make_campaign(tmp, systems=4, problems=4, rows=60, seed=31, malformed=0.0, folds=3,
                         broken=("system_03",))
    shutil.rmtree(s / "system_02" / "synth_001_problem" / "repeat_0" / "fold_2")     # a partial submission
    out = tmp / "out"
    assert _evaluate(p, s, out) == 0
    return out


@pytest.mark.slow
def test_summary_json_is_the_contract(campaign):
    text = (campaign / "summary.json").read_text()
    assert "Infinity" not in text and "NaN" not in text and '"inf"' not in text
    summary = json.loads(text)
    _numbers_and_nulls(summary)
    assert set(summary["systems"]) == {"system_00", "system_01", "system_02", "system_03"}
    for name, row in summary["systems"].items():
        assert set(row) == SYSTEM_KEYS, name
        assert len(row["elo_ci"]) == 2 and len(row["rank_ci"]) == 2
    assert len(summary["pairwise"]) == 6
    for row in summary["pairwise"]:
        assert set(row) == PAIR_KEYS
        assert set(row["bayes"]) == {"p_a", "p_rope", "p_b", "rope"} and row["bayes"]["rope"] == 0.01
        assert row["wins"] + row["losses"] + row["ties"] == 4
        if row["wilcoxon_p"] is not None:
            assert row["wilcoxon_p"] <= row["wilcoxon_p_holm"] <= 1
        b = row["bayes"]
        assert b["p_a"] + b["p_rope"] + b["p_b"] == pytest.approx(1.0)
    assert set(summary["cd"]) == {"test", "alpha", "groups", "cd"} and summary["cd"]["test"] == "wilcoxon-holm"
    # the failing system: constant predictor everywhere, last everywhere
    broken = summary["systems"]["system_03"]
    assert broken["normalised"] == 0.0 and broken["mean_rank"] == 4.0
    assert broken["elo"] == min(r["elo"] for r in summary["systems"].values())


@pytest.mark.slow
def test_submissions_and_folds_are_counted_apart(campaign):
    c = json.loads((campaign / "summary.json").read_text())["counts"]
    assert (c["submissions"], c["complete"], c["partial"], c["failed"], c["missing"]) == (16, 11, 1, 4, 0)
    assert c["scored"] == c["complete"] + c["partial"]
    assert c["folds"] == {"expected": 48, "scored": 35, "failed": 12, "missing": 1}


def test_a_partial_system_is_ranked_after_the_complete_ones(campaign, tmp_path):
    html = (campaign / "leaderboard.html").read_text()
    table = html.split('title="synth_001_problem">synth_001_problem</h3>', 1)[1].split("</table>", 1)[0]
    order = re.findall(r'<tr class="[^"]*"><td><span title="([^"]+)">', table)
    status = dict(re.findall(r'<span title="([^"]+)">[^<]*</span></td><td>(\w+)</td>', table))
    assert status["system_02"] == "partial"
    complete = [s for s in order if status[s] == "scored"]
    assert order.index("system_02") > max(order.index(s) for s in complete)
    assert "Failure policy (partial and failed runs)" in html


def test_results_table_csv_and_parquet(campaign):
    rows = list(csv.DictReader(io.StringIO((campaign / "results.csv").read_text())))
    assert list(rows[0]) == ["system", "problemID", "repeat", "fold", "metric", "value"]
    scores = list(csv.DictReader(io.StringIO((campaign / "scores.csv").read_text())))
    assert len(rows) == len(scores)
    key = {(r["system"], r["problemID"], r["repeat"], r["fold"], r["metric"]): float(r["value"]) for r in scores}
    assert all(key[(r["system"], r["problemID"], r["repeat"], r["fold"], r["metric"])] == float(r["value"])
               for r in rows)
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow not installed: no results.parquet")
    table = pq.read_table(campaign / "results.parquet").to_pandas()
    assert list(table.columns) == list(rows[0]) and len(table) == len(rows)
    assert table["value"].tolist() == [float(r["value"]) for r in rows]


@pytest.mark.slow
def test_the_page_never_says_p_0_or_inf(campaign, tmp_path):
    p, s = make_campaign(tmp_path, systems=2, problems=2, rows=200, seed=3, malformed=0)
    out = tmp_path / "out"
    assert _evaluate(p, s, out) == 0
    summary = json.loads((out / "summary.json").read_text())
    f = summary["friedman"]
    assert f["statistic"] == f["N"] * (f["k"] - 1)                  # both problems rank the systems alike
    assert f["iman_davenport"] is None and f["iman_davenport_p_value"] is None
    html = (out / "leaderboard.html").read_text()
    assert "F undefined" in html
    for page in (html, (campaign / "leaderboard.html").read_text()):
        assert not re.search(r"p = 0(?![.\d])", page) and ">inf<" not in page


@pytest.mark.slow
def test_options_reach_the_summary(campaign, tmp_path):
    p = campaign.parent / "problems"
    s = campaign.parent / "submissions"
    out = tmp_path / "o"
    assert _evaluate(p, s, out, "--elo-reference", "system_01", "--rope", "0.05", "--cd-test", "nemenyi",
                     "--partial", "mean") == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["systems"]["system_01"]["elo"] == pytest.approx(1000.0)
    assert summary["pairwise"][0]["bayes"]["rope"] == 0.05
    assert summary["cd"]["test"] == "nemenyi" and summary["cd"]["cd"] == summary["critical_difference"]
    assert summary["parameters"]["partial"] == "mean"
    assert main(["evaluate", "--problems", str(p), "--submissions", str(s), "--out", str(out), "--quiet",
                 "--rope", "-1"]) == 2


def test_normalised_score_is_undefined_when_the_best_is_the_constant_within_1e_9():
    # credit-g: the best system scores the majority-class rate 0.7, computed another way
    best = 0.1 * 7                                    # 0.7000000000000001
    got = stats.normalised_scores(np.array([best, 0.65]), 0.7, True)
    assert np.isnan(got).all()
    ok = stats.normalised_scores(np.array([0.8, 0.75]), 0.7, True)
    assert ok.tolist() == pytest.approx([1.0, 0.5])


def test_four_test_rows_use_the_exact_permutation_test():
    from d3mkit.evaluate.bootstrap import problem_statistics
    from d3mkit.evaluate.scorer import Call
    from d3mkit.core.registry import get_metric
    yt = np.array(list("abab"), dtype=object)
    calls = {}
    for i, yp in enumerate((yt.copy(), np.array(list("baba"), dtype=object))):
        calls[(i, 0, 0)] = [Call.of(n, get_metric(n), yt, yp, {}, float(get_metric(n)(yt, yp)))
                            for n in ("accuracy", "f1Macro")]
    _, comps = problem_statistics("p", [(0, 0)], calls, resamples=1000, confidence=0.95, seed=0)
    got = {c[0]: (c[4], c[6]) for c in comps}
    # right on all 4 rows against wrong on all 4: 2 of the 16 swaps are as extreme (McNemar: 0.125 too)
    assert got["f1Macro"] == (0.125, "exact_permutation")
    assert got["accuracy"] == (pytest.approx(0.125), "mcnemar_exact")


def test_zero_variance_resampled_differences_give_no_p_value():
    from d3mkit.evaluate.bootstrap import problem_statistics
    from d3mkit.evaluate.scorer import Call
    from d3mkit.core.registry import get_metric
    m = get_metric("meanAbsoluteError")
    yt = np.arange(20.0)
    calls = {(0, 0, 0): [Call.of("mae", m, yt, yt + 1.0, {}, 1.0)],      # off by exactly 1 and 2 on every row:
             (1, 0, 0): [Call.of("mae", m, yt, yt + 2.0, {}, 2.0)]}      # every resample differs by exactly 1
    _, comps = problem_statistics("p", [(0, 0)], calls, resamples=200, confidence=0.95, seed=0)
    assert comps[0][6] == "none" and math.isnan(comps[0][4])
