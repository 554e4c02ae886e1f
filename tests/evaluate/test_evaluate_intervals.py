"""Every metric gets a bootstrap interval (issue 25 item 2) and the paired comparisons use
every repeat (item 3): the vectorised AUC and ranked forms against the metric functions on
each resample; the resampling unit of each layout (a row, a multiLabel d3mIndex, an
objectDetection image) against hand-built resamples; campaigns on binary-with-confidence,
multiLabel, ranked and objectDetection problems with an interval on every row and a test
on every metric; two repeats of kFold tested together."""

from __future__ import annotations

import csv
import io
import math

import numpy as np
import pandas as pd
import pytest

from _scoring_util import make_task
from d3mkit.cli import main
from d3mkit.evaluate import stats
from d3mkit.evaluate.bootstrap import problem_statistics
from d3mkit.evaluate.resampled import Resampler
from d3mkit.evaluate.scorer import Call
from d3mkit.evaluate.units import assemble
from d3mkit.core.registry import get_metric
from d3mkit.scoring.multilabel import LabelSets


def _both(call, n, form, seed=3):
    r = Resampler(call)
    assert r.form == form
    idx = next(stats.resample_blocks(n, 40, np.random.default_rng(seed)))
    w = stats.block_weights(idx, n)
    fast = r.from_sums(w @ r.all_columns()) if form == "sums" else r.auc_values(w)
    slow = r.by_function([(call, row)] for row in idx)
    assert np.isfinite(slow).sum() >= 35
    assert np.allclose(fast, slow, rtol=1e-6, atol=1e-9, equal_nan=True)


def test_binary_roc_auc_of_one_confidence_per_row_is_vectorised():
    rng = np.random.default_rng(0)
    n = 120
    yt = np.where(rng.random(n) < 0.4, "1", "0").astype(object)
    conf = np.round(np.clip(0.5 + (yt == "1") * 0.2 + rng.normal(0, 0.25, n), 0, 1), 1)  # ties
    yp = np.where(conf > 0.5, "1", "0").astype(object)
    m = get_metric("rocAuc")
    kw = {"confidence": conf, "posLabel": "1"}
    _both(Call("rocAuc", m, [(yt, yp, kw)], float(m(yt, yp, **kw))), n, "auc")


@pytest.mark.parametrize("name", ["rocAuc", "rocAucMacro", "rocAucMicro"])
def test_roc_aucs_of_a_confidence_matrix_are_vectorised(name):
    rng = np.random.default_rng(1)
    n = 90
    classes = np.array(["x", "y"] if name == "rocAuc" else ["x", "y", "z"], dtype=object)
    yt = classes[rng.integers(0, len(classes), n)]
    mat = np.round(rng.random((n, len(classes))), 2)
    mat[np.arange(n), pd.Index(classes).get_indexer(yt)] += 0.3
    yp = classes[np.argmax(mat, axis=1)]
    m = get_metric(name)
    kw = {"confidence": mat, "classes": classes}
    if name == "rocAuc":
        kw["posLabel"] = "y"
    _both(Call(name, m, [(yt, yp, kw)], float(m(yt, yp, **kw)), layout="classes"), n, "auc")


@pytest.mark.parametrize("name,k", [("meanReciprocalRank", None), ("hitsAtK", 3)])
def test_ranked_metrics_are_sums(name, k):
    rng = np.random.default_rng(2)
    n = 80
    ranks = rng.integers(1, 8, n).astype(float)
    ranks[::9] = 500.0
    yt = np.array(["v"] * n, dtype=object)
    m = get_metric(name)
    kw = {"ranks": ranks} | ({"K": k} if k else {})
    _both(Call(name, m, [(yt, yt, kw)], float(m(yt, yt, **kw)), layout="ranked"), n, "sums")


def test_a_metadata_metric_resamples_its_metadata_rows_with_the_rows():
    rng = np.random.default_rng(4)
    n = 60
    yt = rng.integers(0, 10, n).astype(str).astype(object)
    yp = np.where(rng.random(n) < 0.6, yt, "0").astype(object)
    meta = pd.DataFrame({"d3mIndex": np.arange(n).astype(str),
                         "trainedTransformed": np.where(rng.random(n) < 0.5, "true", "false")})
    m = get_metric("heldOutShapeAccuracy")
    call = Call("held", m, [(yt, yp, {"metadata": meta})], float(m(yt, yp, metadata=meta)))
    assert Resampler(call).form == "function"
    draw = np.array([3, 3, 7, 10, 11, 59, 0, 0, 0])
    got = Resampler(call).by_function([[(call, draw)]])[0]
    assert got == pytest.approx(float(m(yt[draw], yp[draw], metadata=meta.iloc[draw].reset_index(drop=True))))


def test_a_multilabel_unit_is_a_whole_label_set():
    sets = LabelSets.from_lists([["a", "b"], ["c"], ["a"], []], [["a"], ["c", "b"], ["a"], ["b"]],
                                [{"a": .9}, {"c": .8, "b": .3}, {"a": .7}, {"b": .4}])
    for name in ("accuracy", "f1Macro", "hammingLoss", "rocAucMicro", "jaccardSimilarityScore"):
        m = get_metric(name)
        call = Call(name, m, [(sets, sets, {})], float(m(sets, sets)),
                    layout="multiLabel", index=np.array(["10", "11", "12", "13"], dtype=object))
        assert list(call.units) == ["10", "11", "12", "13"]
        draw = np.array([1, 1, 3, 0])
        want = LabelSets.from_lists([["c"], ["c"], [], ["a", "b"]], [["c", "b"], ["c", "b"], ["b"], ["a"]],
                                    [{"c": .8, "b": .3}, {"c": .8, "b": .3}, {"b": .4}, {"a": .9}])
        got = Resampler(call).by_function([[(call, draw)]])[0]
        assert got == pytest.approx(float(m(want, want))), name


def test_an_object_detection_unit_is_an_image_and_a_copy_counts_again():
    m = get_metric("objectDetectionAP")
    tb = np.array([[0, 0, 4, 4], [5, 5, 9, 9], [0, 0, 3, 3]], dtype=float)
    ti = np.array(["p.png", "p.png", "q.png"], dtype=object)
    pb = np.array([[0, 0, 4, 4], [0, 0, 3, 3], [6, 6, 9, 9]], dtype=float)
    pi = np.array(["p.png", "q.png", "q.png"], dtype=object)
    conf = np.array([0.9, 0.8, 0.7])
    kw = {"confidence": conf, "images_true": ti, "images_pred": pi}
    call = Call("ap", m, [(tb, pb, kw)], float(m(tb, pb, **kw)), layout="objectDetection")
    assert list(call.units) == ["p.png", "q.png"]
    yt, yp, got_kw = assemble([(call, np.array([1, 1]))])          # q drawn twice: two images
    assert yt.tolist() == [[0, 0, 3, 3], [0, 0, 3, 3]]
    assert got_kw["images_true"].tolist() == [0, 1] and sorted(got_kw["images_pred"].tolist()) == [0, 0, 1, 1]
    twice = float(m(np.vstack([tb[2:], tb[2:]]), np.vstack([pb[1:], pb[1:]]), confidence=np.r_[conf[1:], conf[1:]],
                    images_true=np.array(["a", "b"], dtype=object),
                    images_pred=np.array(["a", "a", "b", "b"], dtype=object)))
    assert Resampler(call).by_function([[(call, np.array([1, 1]))]])[0] == pytest.approx(twice)


# ------------------------------------------------------------------------ campaigns
def _read(path):
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def _write(path, frame: pd.DataFrame):
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False)


def _campaign(tmp_path, roots: dict, boot="100"):
    """``roots``: problemID -> {system: predictions frame}; returns scores, comparisons."""
    s = tmp_path / "subs"
    for pid, by_system in roots.items():
        for system, frame in by_system.items():
            _write(s / system / pid / "predictions.csv", frame)
    out = tmp_path / "out"
    assert main(["evaluate", "--problems", str(tmp_path / "p"), "--submissions", str(s), "--out", str(out),
                 "--quiet", "--workers", "1", "--bootstrap", boot]) == 0
    assert _read(out / "failures.csv") == []
    return _read(out / "scores.csv"), _read(out / "comparisons.csv")


def _assert_every_row_has_an_interval(scores, comps):
    assert scores
    for r in scores:
        lo, hi, v = float(r["ci_low"]), float(r["ci_high"]), float(r["value"])
        assert math.isfinite(lo) and math.isfinite(hi) and lo <= hi, r
        assert lo - 1e-9 <= v <= hi + 1e-9 or r["metric"] in ("hammingLoss",), r
    assert {(r["problemID"], r["metric"]) for r in scores} == {(c["problemID"], c["metric"]) for c in comps}


@pytest.mark.slow
def test_confidence_multilabel_and_ranked_problems_get_intervals_and_tests(tmp_path):
    rng = np.random.default_rng(5)
    p = tmp_path / "p"
    n = 60
    # binary classification, one confidence per row
    y = np.where(rng.random(n) < 0.5, "1", "0")
    make_task(p, "bin", pd.DataFrame({"d3mIndex": np.arange(n), "x": rng.random(n), "y": y}), ["y"],
              [{"metric": "rocAuc"}, {"metric": "f1", "posLabel": "1"}, {"metric": "accuracy"}],
              subtype="binary")
    test = np.arange(1, n, 2)
    preds = {}
    for k, noise in (("good", 0.2), ("poor", 0.6)):
        conf = np.clip((y[test] == "1") * 0.6 + rng.normal(0.2, noise, len(test)), 0, 1)
        preds[k] = pd.DataFrame({"d3mIndex": test, "y": np.where(conf > 0.5, "1", "0"), "confidence": conf.round(3)})
    # multiLabel: several rows per d3mIndex
    labels = np.array(list("abcd"))
    rows = [(i, lab) for i in range(n) for lab in labels[rng.random(4) < 0.4]] + [(i, "a") for i in range(n)]
    ml = pd.DataFrame(rows, columns=["d3mIndex", "tag"]).drop_duplicates().sort_values(["d3mIndex", "tag"])
    ml.insert(1, "x", 1.0)
    make_task(p, "ml", ml, ["tag"], [{"metric": m} for m in ("accuracy", "f1Macro", "f1Micro", "rocAucMicro",
                                                             "rocAucMacro", "jaccardSimilarityScore")],
              subtype="multiLabel", test=range(1, n, 2))
    mtest = ml[ml["d3mIndex"] % 2 == 1]
    mpreds = {}
    for k, keep in (("good", 0.9), ("poor", 0.5)):
        pr = mtest[rng.random(len(mtest)) < keep][["d3mIndex", "tag"]].copy()
        pr["confidence"] = rng.random(len(pr)).round(3)
        extra = pd.DataFrame({"d3mIndex": mtest["d3mIndex"].unique(), "tag": "d", "confidence": 0.1})
        mpreds[k] = pd.concat([pr, extra]).drop_duplicates(["d3mIndex", "tag"])
    # ranked: linkPrediction with a rank column
    v = rng.integers(0, 5, n).astype(str)
    make_task(p, "rank", pd.DataFrame({"d3mIndex": np.arange(n), "x": 1.0, "v": v}), ["v"],
              [{"metric": "meanReciprocalRank"}, {"metric": "hitsAtK", "K": 2}], task_type="linkPrediction",
              subtype=None)
    rpreds = {}
    for k, hit in (("good", 0.8), ("poor", 0.3)):
        out = []
        for i in test:
            first = v[i] if rng.random() < hit else str((int(v[i]) + 1) % 5)
            others = [str(c) for c in range(5) if str(c) != first]
            out += [(i, first, 1)] + [(i, c, r + 2) for r, c in enumerate(others[:2])]
        rpreds[k] = pd.DataFrame(out, columns=["d3mIndex", "v", "rank"])
    scores, comps = _campaign(tmp_path, {"bin_problem": preds, "ml_problem": mpreds, "rank_problem": rpreds})
    assert {r["problemID"] for r in scores} == {"bin_problem", "ml_problem", "rank_problem"}
    _assert_every_row_has_an_interval(scores, comps)
    assert {c["test"] for c in comps if c["metric"] == "accuracy" and c["problemID"] == "bin_problem"} == \
        {"mcnemar_exact"}


@pytest.mark.slow
def test_object_detection_problem_gets_intervals_and_tests(tmp_path):
    from taskroot_helpers import detection_root
    rng = np.random.default_rng(6)
    rows = []
    for img in range(16):
        for b in range(int(rng.integers(1, 3))):
            rows.append({"d3mIndex": img, "image": f"img{img}.png",
                         "bounding_box": f"{b},{b + 1},{b + 7},{b + 9}"})
    root = detection_root(tmp_path / "p", rows, 16, split_seed=3)
    from d3mkit.tables import read_table
    sp = read_table(root / "det_problem" / "dataSplits.csv")
    test = set(sp.loc[sp["type"] == "TEST", "d3mIndex"].astype(int))
    truth = pd.DataFrame(rows)
    truth = truth[truth["d3mIndex"].isin(test)]
    preds = {}
    for k, shift in (("good", 0), ("poor", 3)):
        pr = truth.copy()
        moved = rng.random(len(pr)) < (0.2 if shift == 0 else 0.7)
        pr.loc[moved, "bounding_box"] = [",".join(str(int(x) + 3) for x in b.split(",")) for b in pr.loc[moved, "bounding_box"]]
        pr["confidence"] = rng.random(len(pr)).round(3)
        preds[k] = pr[["d3mIndex", "bounding_box", "confidence"]]
    scores, comps = _campaign(tmp_path, {"det_problem": preds})
    assert {r["metric"] for r in scores} == {"objectDetectionAP"}
    _assert_every_row_has_an_interval(scores, comps)


# ------------------------------------------------------------------------ every repeat
def _two_repeat_root(tmp_path, n=80):
    from d3mkit.tables import write_table
    rng = np.random.default_rng(8)
    y = np.array(list("abc"))[rng.integers(0, 3, n)]
    root = make_task(tmp_path / "p", "rep", pd.DataFrame({"d3mIndex": np.arange(n), "x": 1.0, "y": y}), ["y"],
                     [{"metric": "accuracy"}, {"metric": "f1Macro"}])
    folds = []
    for r in range(2):
        assign = rng.permutation(n) % 2
        for f in range(2):
            for i in range(n):
                folds.append((i, "TEST" if assign[i] == f else "TRAIN", r, f))
    write_table(pd.DataFrame(folds, columns=["d3mIndex", "type", "repeat", "fold"]),
                root / "rep_problem" / "dataSplits.csv")
    return y, folds


def test_paired_comparisons_use_every_repeat(tmp_path):
    y, folds = _two_repeat_root(tmp_path)
    rng = np.random.default_rng(9)
    s = tmp_path / "subs"
    for system, err in (("a", 0.1), ("b", 0.3)):
        for r in range(2):
            for f in range(2):
                idx = np.array([i for i, t, rr, ff in folds if (rr, ff) == (r, f) and t == "TEST"])
                pred = np.where(rng.random(len(idx)) < err, "c", y[idx])
                _write(s / system / "rep_problem" / f"repeat_{r}" / f"fold_{f}" / "predictions.csv",
                       pd.DataFrame({"d3mIndex": idx, "y": pred}))
    out = tmp_path / "out"
    assert main(["evaluate", "--problems", str(tmp_path / "p"), "--submissions", str(s), "--out", str(out),
                 "--quiet", "--workers", "1", "--bootstrap", "300"]) == 0
    scores = _read(out / "scores.csv")
    assert {(r["repeat"], r["fold"]) for r in scores} == {("0", "0"), ("0", "1"), ("1", "0"), ("1", "1")}
    assert all(r["ci_low"] for r in scores)
    comps = {c["metric"]: c for c in _read(out / "comparisons.csv")}
    assert set(comps) == {"accuracy", "f1Macro"}
    # two repeats: no McNemar (its pairs would repeat the same rows); the difference is the
    # mean over the repeats of the pooled difference
    assert {c["test"] for c in comps.values()} == {"paired_bootstrap"}
    acc = {}
    for r in scores:
        if r["metric"] == "accuracy":
            acc.setdefault((r["system"], r["repeat"]), []).append(float(r["value"]))
    pooled = {k: np.mean(v) for k, v in acc.items()}            # equal fold sizes: mean of folds
    want = np.mean([pooled[("a", str(r))] - pooled[("b", str(r))] for r in range(2)])
    assert float(comps["accuracy"]["difference"]) == pytest.approx(want)
    assert float(comps["accuracy"]["p_value"]) < 0.05


def test_the_pooled_draw_is_shared_by_the_repeats_not_redrawn():
    """Two repeats whose predictions are identical: the per-repeat differences are equal on
    every resample (one draw of the rows applied to both), so averaging them does not
    shrink the spread as R independent draws would."""
    rng = np.random.default_rng(10)
    n = 40
    m = get_metric("f1Macro")
    yt = np.array(list("ab"))[rng.integers(0, 2, n)].astype(object)
    ya = np.where(rng.random(n) < 0.2, "b", yt).astype(object)
    yb = np.where(rng.random(n) < 0.4, "a", yt).astype(object)
    keys = np.arange(n).astype(str)
    calls = {}
    for r in range(2):
        perm = rng.permutation(n)                         # each repeat: its own 2 folds
        for f in range(2):
            rows = np.sort(perm[f::2])
            for i, yp in enumerate((ya, yb)):
                c = Call("f1Macro", m, [(yt[rows], yp[rows], {})], float(m(yt[rows], yp[rows])), index=keys[rows])
                calls[(i, r, f)] = [c]
    one = {k: v for k, v in calls.items() if k[1] == 0}
    _, both = problem_statistics("x", [(r, f) for r in range(2) for f in range(2)], calls, resamples=400,
                                 confidence=0.95, seed=0)
    _, first = problem_statistics("x", [(0, 0), (0, 1)], one, resamples=400, confidence=0.95, seed=0)
    assert both[0][3] == pytest.approx(first[0][3])           # same data twice: same difference
    assert both[0][4] == pytest.approx(first[0][4], abs=0.02)  # and about the same p-value


def test_counted_and_weighted_resamples_give_the_same_intervals():
    """One file's label metrics alone are counted per resample (a bincount of confusion
    cells); beside another system they go through the shared weight matrix: same draws,
    same intervals."""
    rng = np.random.default_rng(11)
    n = 200
    yt = np.array(list("abc"), dtype=object)[rng.integers(0, 3, n)]
    calls = {}
    for i, err in enumerate((0.2, 0.5)):
        yp = np.where(rng.random(n) < err, "a", yt).astype(object)
        calls[(i, 0, 0)] = [Call.of(name, get_metric(name), yt, yp, {}, float(get_metric(name)(yt, yp)))
                            for name in ("accuracy", "f1Macro")]
    alone, _ = problem_statistics("x", [(0, 0)], {(0, 0, 0): calls[(0, 0, 0)]}, resamples=300, confidence=0.9, seed=4)
    both, comps = problem_statistics("x", [(0, 0)], calls, resamples=300, confidence=0.9, seed=4)
    for key, (lo, hi) in alone.items():
        assert both[key] == pytest.approx((lo, hi))
    assert [c[0] for c in comps] == ["accuracy", "f1Macro"]


@pytest.mark.slow
def test_all_targets_metrics_get_intervals(tmp_path):
    """An allTargets metric: a mean over the targets' calls (multiLabel, two targets) is
    resampled as the mean of its pieces on one draw; a regression metric of the stacked
    (rows, targets) arrays takes whole rows."""
    from d3mkit.documents import ProblemDoc, Target
    from d3mkit.evaluate.scorer import score_file
    from d3mkit.scoring.score import prepare_problem
    t = tmp_path / "targets.csv"
    t.write_text("d3mIndex,genre,mood\n" + "".join(f"{i},{'ab'[i % 2]},{'xy'[i % 3 % 2]}\n" for i in range(30)))
    doc = ProblemDoc.new("ml_problem", "ml", "classification", "multiLabel", "d",
                         [Target(0, "learningData", 1, "genre"), Target(1, "learningData", 2, "mood")],
                         [{"metric": "accuracy", "applicabilityToTarget": "allTargets"}])
    prepared = prepare_problem(doc, targets=t)
    calls = {}
    rng = np.random.default_rng(12)
    for i, err in enumerate((0.1, 0.5)):
        p = tmp_path / f"p{i}.csv"
        p.write_text("d3mIndex,genre,mood\n" + "".join(
            f"{k},{'ab'[(k + (rng.random() < err)) % 2]},{'xy'[k % 3 % 2]}\n" for k in range(30)))
        rows, cs = score_file(prepared, str(p))
        assert len(cs) == 1 and len(cs[0].pieces) == 2 and cs[0].value == rows[0][2]
        calls[(i, 0, 0)] = cs
    intervals, comps = problem_statistics("ml", [(0, 0)], calls, resamples=200, confidence=0.95, seed=0)
    for i in range(2):
        lo, hi = intervals[(i, 0, 0, "accuracy")]
        assert lo <= calls[(i, 0, 0)][0].value <= hi
    assert len(comps) == 1 and comps[0][6] == "paired_bootstrap"
    # stacked regression targets
    n = 50
    y = rng.normal(size=(n, 2))
    for i, noise in enumerate((0.1, 0.8)):
        yp = y + rng.normal(scale=noise, size=(n, 2))
        m = get_metric("meanSquaredError")
        calls[(i, 0, 0)] = [Call("mse", m, [(y, yp, {})], float(m(y, yp)))]
    r = Resampler(calls[(0, 0, 0)][0])
    assert r.form == "function"
    draw = np.array([0, 0, 5, 9])
    assert r.by_function([[(calls[(0, 0, 0)][0], draw)]])[0] == pytest.approx(
        float(get_metric("meanSquaredError")(y[draw], calls[(0, 0, 0)][0].yp[draw])))
    intervals, comps = problem_statistics("reg", [(0, 0)], calls, resamples=200, confidence=0.95, seed=0)
    assert set(intervals) == {(0, 0, 0, "mse"), (1, 0, 0, "mse")} and comps[0][4] < 0.05
