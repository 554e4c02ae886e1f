"""The fast paths of alignment give what the general ones give: values.lookup (direct
table / contiguous keys / pandas index) and the label codes align hands to the metrics."""

import collections

import numpy as np
import pandas as pd
import pytest

from d3mkit.scoring import metrics as M
from d3mkit.scoring import values as V
from d3mkit.scoring.labels import encode
from d3mkit.scoring.values import lookup


@pytest.mark.slow
@pytest.mark.parametrize("block", [None, 3])
def test_lookup_agrees_with_a_pandas_index(monkeypatch, block):
    if block:   # every pass in blocks of 3 rows: blocks end mid-way through keys and values
        monkeypatch.setattr(V, "_BLOCK", block)
    rng = np.random.default_rng(0)
    for _ in range(400):
        keys = rng.integers(-5, 30, rng.integers(1, 20))
        if rng.random() < 0.3:
            keys = np.arange(rng.integers(-3, 3), rng.integers(3, 12))
        if rng.random() < 0.2:
            keys = keys * 10**12                       # too sparse for a table
        values = np.concatenate([keys[rng.integers(0, len(keys), 5)], rng.integers(-10, 40, 5)])
        for k, v in ((keys, values), (keys.astype(str).astype(object), values.astype(str).astype(object))):
            pos, unique = lookup(k, v)
            assert unique == pd.Index(k).is_unique
            assert ((pos >= 0) == np.isin(v, k)).all()
            if unique:
                assert (pos == pd.Index(k).get_indexer(v)).all()
    big = np.array([2**63 - 1, -2**63], dtype=np.int64)
    assert lookup(np.arange(3), big)[0].tolist() == [-1, -1]


def test_aligned_codes_are_the_labels_and_metrics_agree(tmp_path):
    from d3mkit.documents import ProblemDoc, Target
    from d3mkit.scoring import predictions as P
    from d3mkit.scoring.layouts import align
    from d3mkit.scoring.score import prepare_problem, score_prepared
    rng = np.random.default_rng(1)
    n = 500
    labels = np.array(["b", " a", "a", "c "], dtype=object)   # " a" and "a" are one label
    truth = labels[rng.integers(0, 3, n)]
    pred = labels[rng.integers(0, 4, n)]
    order = rng.permutation(n)
    pd.DataFrame({"d3mIndex": np.arange(n) + 7, "y": truth}).to_csv(tmp_path / "t.csv", index=False)
    pd.DataFrame({"d3mIndex": order + 7, "y": pred[order]}).to_csv(tmp_path / "p.csv", index=False)
    doc = ProblemDoc.new("p", "p", "classification", "multiClass", "d", [Target(0, "learningData", 1, "y")],
                         [{"metric": "f1Macro"}, {"metric": "accuracy"}])
    doc.save(tmp_path / "problemDoc.json")
    prep = prepare_problem(tmp_path / "problemDoc.json", targets=tmp_path / "t.csv")
    df, _ = P.read_predictions(tmp_path / "p.csv", prep.truth)
    al = align(prep.truth, df, "p.csv")
    assert not al.truth.made("y") and not al.pred.made("y")   # labels as codes until read
    tc, pc, lab = al.codes["y"]
    assert (lab[tc] == al.truth["y"]).all() and (lab[pc] == al.pred["y"]).all()
    codes = al.label_codes("y")
    assert (codes.labels[codes.truth] == al.truth["y"]).all() and list(codes.labels) == sorted(codes.labels)
    fast = {s.metric: s.value for s in score_prepared(prep, tmp_path / "p.csv").scores}
    slow = {"f1Macro": M.f1_macro(list(al.truth["y"]), list(al.pred["y"])),
            "accuracy": M.accuracy(list(al.truth["y"]), list(al.pred["y"]))}
    assert fast == slow


@pytest.mark.parametrize("k", [3, 12, 200])
def test_confusion_in_blocks_of_small_codes(monkeypatch, k):
    # 12 labels: int8 codes, where truth * k + pred would overflow without the widening;
    # blocks of 64 rows end mid-way through the rows
    monkeypatch.setattr(M, "_BLOCK", 64)
    rng = np.random.default_rng(k)
    names = np.array([f"c{j:03d}" for j in range(k)], dtype=object)
    t, p = names[rng.integers(0, k, 1000)], names[rng.integers(0, k, 1000)]
    codes = encode(t, p)
    assert codes.truth.dtype == (np.int8 if k <= 128 else np.int16)
    cm, classes = M._confusion(t, p)
    pairs = collections.Counter(zip(t.tolist(), p.tolist()))
    assert cm.tolist() == [[pairs[(a, b)] for b in classes] for a in classes]


def test_duplicated_and_encode_agree_with_pandas():
    # the pandas-free forms the layouts use: duplicated (keep first / all), unique_in_order,
    # lookup of text, encode of text and of numbers, factorize of a large object array
    from d3mkit.validation import coltypes
    rng = np.random.default_rng(3)
    for _ in range(50):
        ints = rng.integers(-3, 8, rng.integers(0, 30))
        for a in (ints, ints.astype(str).astype(object)):
            for keep in ("first", False):
                assert (V.duplicated(a, keep=keep) == pd.Index(a).duplicated(keep=keep)).all()
            assert V.unique_in_order(a).tolist() == pd.unique(a).tolist()
        if not len(ints):
            continue
        t, p = ints[: len(ints) // 2 + 1], ints[len(ints) // 2:]
        for tt, pp in ((t, p), (t.astype(float), p), (t.astype(str).astype(object), p.astype(str).astype(object))):
            c = encode(tt, pp)
            assert (c.labels[c.truth] == tt).all() and (c.labels[c.pred] == pp).all()
            assert c.labels.tolist() == sorted(set(tt.tolist()) | set(pp.tolist()))
    big = np.array([f"x{i % 97}" for i in range(3000)] + [None, float("nan"), "x3"], dtype=object)
    codes, uniq = coltypes.factorize(big)       # the dict path (under SMALL values)
    pcodes, puniq = pd.factorize(big)
    assert codes.tolist() == pcodes.tolist() and uniq.tolist() == puniq.tolist()


def test_ranked_alignment_agrees_with_pandas_merge_and_sort(tmp_path):
    # the ranked layout without pandas: the rank of each true value (a left merge on
    # (index, value), 500 when not listed) and the hard label (the smallest rank, ties by
    # the value's text, then file order), against the pandas form it replaced
    from d3mkit.documents import ProblemDoc, Target
    from d3mkit.scoring import predictions as P
    from d3mkit.scoring.layouts import align
    from d3mkit.scoring.score import prepare_problem
    rng = np.random.default_rng(5)
    words = np.array(["père", "b", "a", "ab", "Z", "é"], dtype=object)
    n = 60
    truth = words[rng.integers(0, len(words), n)]
    rows = [(i, w, int(r)) for i in range(n) for w, r in zip(rng.permutation(words)[: rng.integers(1, 5)],
                                                           rng.integers(1, 4, 5))]
    rows = [rows[j] for j in rng.permutation(len(rows))]
    pd.DataFrame({"d3mIndex": np.arange(n), "rel": truth}).to_csv(tmp_path / "t.csv", index=False)
    pd.DataFrame(rows, columns=["d3mIndex", "rel", "rank"]).to_csv(tmp_path / "p.csv", index=False)
    doc = ProblemDoc.new("p", "p", "linkPrediction", None, "d", [Target(0, "learningData", 1, "rel")],
                         [{"metric": "meanReciprocalRank"}])
    doc.save(tmp_path / "problemDoc.json")
    prep = prepare_problem(tmp_path / "problemDoc.json", targets=tmp_path / "t.csv")
    df, _ = P.read_predictions(tmp_path / "p.csv", prep.truth)
    al = align(prep.truth, df, "p.csv", ranked=True)
    pf = pd.DataFrame({"pos": [r[0] for r in rows], "value": [r[1] for r in rows],
                       "rank": [float(r[2]) for r in rows]})
    merged = pd.DataFrame({"pos": np.arange(n), "value": truth}).merge(pf, on=["pos", "value"], how="left")
    assert al.ranks["rel"].tolist() == merged["rank"].fillna(500.0).tolist()
    best = pf.sort_values(["pos", "rank", "value"], kind="stable").drop_duplicates("pos")
    assert al.pred["rel"].tolist() == best.sort_values("pos")["value"].tolist()
