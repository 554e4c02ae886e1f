"""PRISM rationale metrics: values, properties, registration."""

from __future__ import annotations

import pytest

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from d3mkit.benchmarks.prism.metrics import (lcs_length, normalize_tokens, rationale_rouge_l,
                                             rationale_token_f1, rouge_l_f, token_f1)
from d3mkit.scoring.registry import get_metric


def _lcs_reference(a, b):
    dp = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            dp[i][j] = dp[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1] else max(dp[i - 1][j], dp[i][j - 1])
    return dp[-1][-1]


words = st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=12)


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(words, words)
def test_lcs_matches_the_quadratic_reference(a, b):
    assert lcs_length(a, b) == _lcs_reference(a, b)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(words, words)
def test_scores_are_symmetric_bounded_and_exact_on_identity(a, b):
    for f in (token_f1, rouge_l_f):
        v = f(a, b)
        assert 0.0 <= v <= 1.0
        assert abs(v - f(b, a)) < 1e-12
        assert f(a, a) == 1.0


def test_known_values():
    # SQuAD normalization: articles and punctuation dropped
    assert normalize_tokens("A glass, the CUP!") == ["glass", "cup"]
    assert rationale_token_f1(["The glass is shattered."], ["glass shattered"]) == 0.8
    # ROUGE-L: LCS 3 of 4 reference / 4 prediction tokens
    assert abs(rouge_l_f("police killed the gunman".split(), "police kill the gunman".split()) - 0.75) < 1e-12
    # order matters for ROUGE-L, not for token F1
    assert rationale_token_f1(["x y z"], ["z y x"]) == 1.0
    assert abs(rationale_rouge_l(["x y z"], ["z y x"]) - 1 / 3) < 1e-12
    # empty and missing values
    assert rationale_token_f1([""], [""]) == 1.0
    assert rationale_token_f1(["x"], [float("nan")]) == 0.0


def test_two_dimensional_input_scores_the_last_column():
    t = np.array([["allow", "it has a collar"], ["prevent", "glass is broken"]], dtype=object)
    p = np.array([["prevent", "it has a collar"], ["prevent", "broken"]], dtype=object)
    assert rationale_token_f1(t, p) == rationale_token_f1(t[:, 1], p[:, 1])
    assert abs(rationale_token_f1(t, p) - (1 + 0.5) / 2) < 1e-12


def test_registered_as_all_targets_custom_metrics():
    for name in ("rationaleTokenF1", "rationaleRougeL", "rationaleRougeLStandard"):
        m = get_metric(name)
        assert m.applicability == "allTargets" and m.higher_is_better and not m.standard
        assert m(["a b"], ["a b"]) == 1.0


def test_rouge_l_normalized_differs_from_standard_where_articles_matter():
    from d3mkit.benchmarks.prism.metrics import rationale_rouge_l, rationale_rouge_l_standard
    same = (["glass broken on floor"], ["glass broken on floor"])
    assert rationale_rouge_l(*same) == rationale_rouge_l_standard(*same) == 1.0
    # articles: normalized 'glass broken' vs 'glass broken' = 1.0; standard counts 'the' and 'a'
    t, p = ["the glass is broken"], ["a glass is broken"]
    assert rationale_rouge_l(t, p) == 1.0 and rationale_rouge_l_standard(t, p) == 0.75
    assert "not standard ROUGE-L" in get_metric("rationaleRougeL").description
