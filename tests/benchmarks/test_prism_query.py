"""PRISM Caption Querying: length filter, Copeland, extrapolated RBO, perplexity; Image
Querying through a fake engine (no network)."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from d3mkit.benchmarks.prism.query import (ImageHit, agreement, caption_query, copeland, image_query,
                                           is_abstract, length_mask, make_encoder, nearest, rbo_ext)
from d3mkit.cli import main
from d3mkit.core.errors import UsageError


def _rbo_ext_reference(s, t, p):
    """Equation 32 of Webber et al. (2010) written out term by term."""
    if len(s) > len(t):
        s, t = t, s
    sl, ll = len(s), len(t)
    X = lambda d: len(set(s[:d]) & set(t[:d]))  # noqa: E731
    total = sum(X(d) / d * p ** d for d in range(1, ll + 1))
    total += sum(X(sl) * (d - sl) / (sl * d) * p ** d for d in range(sl + 1, ll + 1))
    return (1 - p) / p * total + ((X(ll) - X(sl)) / ll + X(sl) / sl) * p ** ll


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(st.permutations(list(range(10))), st.permutations(list(range(4, 14))),
       st.integers(1, 10), st.integers(1, 10), st.sampled_from([0.5, 0.8, 0.9, 0.98]))
def test_rbo_ext_matches_equation_32(a, b, la, lb, p):
    s, t = a[:la], b[:lb]
    v = rbo_ext(s, t, p)
    assert abs(v - _rbo_ext_reference(s, t, p)) < 1e-9
    assert 0.0 <= v <= 1.0 and abs(v - rbo_ext(t, s, p)) < 1e-12


def test_rbo_ext_known_values():
    assert rbo_ext(list("abcd"), list("abcd")) == 1.0
    assert rbo_ext(list("abcd"), list("wxyz")) == 0.0
    # top-weighted: disagreeing at the top costs more than at the bottom
    assert rbo_ext(list("bacde"), list("abcde")) < rbo_ext(list("abced"), list("abcde"))
    assert agreement([[1, 2, 3]]) is None
    assert agreement([[1, 2, 3], [1, 2, 3], [4, 5, 6]]) == pytest.approx(1 / 3)


def test_copeland_condorcet_winner_and_unranked_candidates():
    # 2 is preferred to every other candidate by a majority although no ranking puts it first twice
    order, scores = copeland([[1, 2, 3], [3, 2, 1], [2, 1, 3]])
    assert order[0] == 2 and scores[0] == 2
    # a candidate one encoder did not rank loses to everything that encoder ranked
    order, _ = copeland([[1, 2], [2, 3]])
    assert order[0] == 2
    order, scores = copeland([[7]])
    assert order == [7] and scores.tolist() == [0]


def test_length_mask_rounds_the_bounds():
    lengths = [2, 4, 4, 4, 5, 5, 7, 9]                  # mean 5, std 2: keep 3..7
    mask = length_mask(["w " * n for n in lengths])
    assert mask.tolist() == [False, True, True, True, True, True, True, False]
    assert length_mask([]).tolist() == []


def test_nearest_is_exact_cosine_and_stable():
    rng = np.random.default_rng(0)
    c = rng.normal(size=(30, 5))
    c /= np.linalg.norm(c, axis=1, keepdims=True)
    q = c[[3, 7]]
    idx, dist = nearest(q, c, 4)
    assert idx[:, 0].tolist() == [3, 7] and np.allclose(dist[:, 0], 0.0)
    assert (np.diff(dist, axis=1) >= -1e-12).all()
    full = 1 - q @ c.T
    assert np.allclose(np.sort(full, axis=1)[:, :4], dist)


def test_caption_query_chooses_matching_caption_with_perplexity_and_agreement():
    caps = [("c1", "A glass of water sits on a wooden table."), ("c2", "A dog runs across a green field."),
            ("c3", "The glass on the table is shattered into pieces."), ("c4", "Heavy rain falls on the city."),
            ("c5", "A cat sleeps on a warm sofa.")]
    prem = [("p1", "The glass is shattered"), ("p2", "It is raining heavily in the city")]
    rows = caption_query(prem, caps, top_k=3, encoders=["tfidf", "tfidf-char", "lsa"], length_filter=False)
    got = {r["premise_id"]: r for r in rows}
    assert got["p1"]["caption_id"] == "c3" and got["p2"]["caption_id"] == "c4"
    for r in rows:
        assert 0.0 <= r["perplexity"] <= 1.0 and 0.0 <= r["agreement"] <= 1.0
        assert set(r["ranks"]) == {"tfidf", "tfidf-char", "lsa"}
    # one encoder: perplexity is that encoder's distance, agreement undefined
    one = caption_query(prem, caps, top_k=2, encoders=["tfidf"], length_filter=False)
    assert one[0]["agreement"] is None and one[0]["ranks"] == {"tfidf": 1}


def test_perplexity_uses_last_distance_when_unranked():
    class Fixed:
        """An encoder with fixed 2-D vectors, to control the rankings."""

        def __init__(self, name, table):
            self.name, self.table = name, table

        def fit(self, corpus):
            return self

        def encode(self, texts):
            v = np.array([self.table[t] for t in texts], dtype=float)
            return v / np.linalg.norm(v, axis=1, keepdims=True)

    caps = [("a", "alpha"), ("b", "beta"), ("c", "gamma")]
    e1 = Fixed("e1", {"q": [1, 0], "alpha": [1, 0], "beta": [1, 1], "gamma": [0, 1]})
    e2 = Fixed("e2", {"q": [1, 0], "alpha": [0, 1], "beta": [1, 0.1], "gamma": [1, 0.5]})
    e3 = Fixed("e3", {"q": [1, 0], "alpha": [1, 0.05], "beta": [1, 0.2], "gamma": [0, 1]})
    rows = caption_query([("p", "q")], caps, top_k=2, encoders=[e1, e2, e3], length_filter=False)
    r = rows[0]
    assert r["caption_id"] == "a" and r["ranks"] == {"e1": 1, "e2": None, "e3": 1}
    cos_last_e2 = np.dot([1, 0], np.array([1, 0.5]) / np.linalg.norm([1, 0.5]))
    cos_e3 = np.dot([1, 0], np.array([1, 0.05]) / np.linalg.norm([1, 0.05]))
    assert r["perplexity"] == pytest.approx((0.0 + (1 - cos_last_e2) + (1 - cos_e3)) / 3)


def test_encoder_names_and_sentence_transformers_absent():
    with pytest.raises(UsageError):
        make_encoder("word2vec")
    if importlib.util.find_spec("sentence_transformers") is None:
        with pytest.raises(UsageError, match="sentence-transformers"):
            make_encoder("st:all-MiniLM-L12-v2").fit(["x"])


def test_image_query_interface_with_fake_engine():
    class FakeEngine:
        def __init__(self):
            self.queries = []

        def search(self, query, k):
            self.queries.append(query)
            return [ImageHit(f"https://example.invalid/{query.replace(' ', '-')}/{i}.jpg") for i in range(k + 5)]

    eng = FakeEngine()
    rows = image_query([("1", "You're in a desert!"), ("2", "The person is responsible."),
                        ("3", "the glass is broken")], eng, k=3, length_filter=False)
    assert eng.queries == ["youre in a desert", "the glass is broken"]
    assert len(rows) == 6 and rows[0]["rank"] == 1 and rows[2]["rank"] == 3
    assert is_abstract("the person will be grateful")


def test_cli_query(tmp_path, capsys):
    prem = tmp_path / "p.jsonl"
    prem.write_text('{"id": "a", "premise": "the glass is shattered"}\n{"id": "b"}\n', encoding="utf-8")
    caps = tmp_path / "c.txt"
    caps.write_text("A glass of water.\nThe glass is shattered on the floor.\nA dog in a park.\n",
                    encoding="utf-8")
    out = tmp_path / "q.jsonl"
    assert main(["prism", "query", "--premises", str(prem), "--captions", str(caps), "--top-k", "2",
                 "--encoders", "tfidf,tfidf-char", "--no-length-filter", "--out", str(out)]) == 0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert rows[0]["caption_id"] == "2" and rows[0]["caption"] == "the glass is shattered on the floor."
    err = capsys.readouterr().err
    assert "records skipped: 1" in err
    assert main(["prism", "query", "--premises", str(prem), "--captions", str(caps), "--encoders", "nope"]) == 2
    assert main(["prism", "query", "--premises", str(prem), "--captions", str(caps), "--top-k", "0"]) == 2


def test_nearest_breaks_ties_by_caption_index():
    c = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.6, 0.8]])
    idx, dist = nearest(np.array([[1.0, 0.0]]), c, 2)
    assert idx.tolist() == [[1, 2]] and np.allclose(dist, 0.0)
    idx, _ = nearest(np.array([[1.0, 0.0]]), c, 10, chunk=1)
    assert idx.tolist() == [[1, 2, 3, 4, 0]]


def test_default_is_several_encoders_and_one_encoder_warns(tmp_path, capsys):
    from d3mkit.benchmarks.prism.query import OFFLINE_ENCODERS, QuerySummary, default_encoders, encoder_specs
    assert default_encoders()[:3] == list(OFFLINE_ENCODERS)
    assert encoder_specs("paper") == [e for e in encoder_specs("paper") if e.startswith("st:sentence-transformers/")]
    assert len(encoder_specs("paper")) == 3
    prem = tmp_path / "p.txt"
    prem.write_text("the glass is shattered\n", encoding="utf-8")
    caps = tmp_path / "c.txt"
    caps.write_text("A glass of water.\nThe glass is shattered on the floor.\nA dog in a park.\n", encoding="utf-8")
    out = tmp_path / "q.jsonl"
    assert main(["prism", "query", "--premises", str(prem), "--captions", str(caps), "--top-k", "2",
                 "--no-length-filter", "--out", str(out)]) == 0
    row = json.loads(out.read_text().splitlines()[0])
    assert set(row["ranks"]) >= set(OFFLINE_ENCODERS) and row["agreement"] is not None
    assert "warning: one encoder" not in capsys.readouterr().err
    assert main(["prism", "query", "--premises", str(prem), "--captions", str(caps), "--top-k", "2",
                 "--encoders", "tfidf", "--no-length-filter", "--out", str(out), "--force"]) == 0
    assert "warning: one encoder: the model agreement is undefined" in capsys.readouterr().err
    s = QuerySummary()
    caption_query([("p", "the glass is shattered")], [("c", "the glass is shattered on the floor")],
                  encoders=["tfidf"], length_filter=False, summary=s)
    assert len(s.warnings) == 1
