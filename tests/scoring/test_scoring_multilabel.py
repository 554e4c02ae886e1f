"""multiLabel scoring: label sets from one row per (d3mIndex, label), the metrics on their
indicator matrices (against scikit-learn and hand-computed values), alignment, errors."""

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

from _scoring_util import make_task, write_csv
from d3mkit.cli import main
from d3mkit.documents import ProblemDoc, Target
from d3mkit.core.errors import D3MKitError
from d3mkit.scoring import multilabel as ML
from d3mkit.scoring.metrics import binary_auc
from d3mkit.scoring.score import score_predictions, score_task_root

ALL = ["accuracy", "f1Micro", "f1Macro", "jaccardSimilarityScore", "rocAucMicro", "rocAucMacro",
       "hammingLoss"]


def _entries(names):
    return [{"metric": "other", "specifyOther": n} if n == "hammingLoss" else {"metric": n}
            for n in names]


def _problem(names=ALL, subtype="multiLabel", task="classification", targets=("label",)):
    return ProblemDoc.new("ml_problem", "ml", task, subtype, "ml_dataset",
                          [Target(k, "learningData", k + 1, t) for k, t in enumerate(targets)],
                          _entries(names))


def _score(tmp_path, truth_text, pred_text, names=ALL, **kw):
    t = write_csv(tmp_path / "targets.csv", truth_text)
    p = write_csv(tmp_path / "predictions.csv", pred_text)
    return score_predictions(_problem(names, **kw), p, targets=t)


def _errors(tmp_path, truth_text, pred_text, names=ALL, **kw):
    with pytest.raises(D3MKitError) as exc:
        _score(tmp_path, truth_text, pred_text, names, **kw)
    return [i for i in exc.value.issues if i.is_error]


TRUTH = "d3mIndex,label\n0,a\n0,b\n1,c\n2,a\n2,c\n"
PRED = "d3mIndex,label,confidence\n2,c,0.4\n0,a,0.9\n1,c,0.8\n0,b,0.3\n2,b,0.6\n"


# ------------------------------------------------------------------------------- pure math
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matrix_metrics_equal_sklearn(seed):
    rng = np.random.default_rng(seed)
    t = rng.random((60, 6)) < 0.35
    p = np.where(rng.random((60, 6)) < 0.8, t, ~t)
    t[:, 0] |= ~t.any(axis=1)          # every row has a true label
    s = np.clip(t * 0.3 + rng.random((60, 6)) * 0.7, 0, 1)
    assert ML.subset_accuracy(t, p) == pytest.approx(skm.accuracy_score(t, p), abs=1e-12)
    assert ML.f1_micro(t, p) == pytest.approx(skm.f1_score(t, p, average="micro"), abs=1e-12)
    assert ML.f1_macro(t, p) == pytest.approx(
        skm.f1_score(t, p, average="macro", zero_division=0), abs=1e-12)
    assert ML.hamming_loss(t, p) == pytest.approx(skm.hamming_loss(t, p), abs=1e-12)
    assert ML.jaccard_samples(t, p) == pytest.approx(
        skm.jaccard_score(t, p, average="samples", zero_division=1), abs=1e-12)
    assert ML.roc_auc_micro(t, s, binary_auc) == pytest.approx(
        skm.roc_auc_score(t, s, average="micro"), abs=1e-12)
    assert ML.roc_auc_macro(t, s, binary_auc) == pytest.approx(
        skm.roc_auc_score(t, s, average="macro"), abs=1e-12)


def test_macro_auc_leaves_out_constant_labels():
    t = np.array([[1, 1], [0, 1], [1, 1]], bool)     # label 1 is in every index
    s = np.array([[0.9, 0.5], [0.2, 0.5], [0.7, 0.5]])
    assert ML.roc_auc_macro(t, s, binary_auc) == 1.0
    with pytest.raises(ValueError, match="undefined"):
        ML.roc_auc_macro(t[:, 1:], s[:, 1:], binary_auc)


def test_jaccard_of_empty_sets_is_one():
    assert ML.jaccard_samples(np.zeros((2, 3), bool), np.zeros((2, 3), bool)) == 1.0


# --------------------------------------------------------------------------- end to end
def test_hand_computed_values(tmp_path):
    # truth {a,b} {c} {a,c}; predictions {a,b} {c} {b,c}
    r = _score(tmp_path, TRUTH, PRED)
    assert r.value("accuracy") == pytest.approx(2 / 3)
    assert r.value("hammingLoss") == pytest.approx(2 / 9)
    assert r.value("f1Micro") == pytest.approx(2 * 4 / (2 * 4 + 1 + 1))
    # per label F1: a 2/3, b 2/3, c 1
    assert r.value("f1Macro") == pytest.approx((2 / 3 + 2 / 3 + 1) / 3)
    assert r.value("jaccardSimilarityScore") == pytest.approx((1 + 1 + 1 / 3) / 3)
    t = np.array([[1, 1, 0], [0, 0, 1], [1, 0, 1]], bool)
    s = np.array([[0.9, 0.3, 0], [0, 0, 0.8], [0, 0.6, 0.4]])
    assert r.value("rocAucMicro") == pytest.approx(skm.roc_auc_score(t, s, average="micro"))
    assert r.value("rocAucMacro") == pytest.approx(skm.roc_auc_score(t, s, average="macro"))
    assert not [i for i in r.issues if i.is_error]


def test_row_order_does_not_matter(tmp_path):
    rng = np.random.default_rng(5)
    labels = list("pqrstu")
    truth = [(i, lab) for i in range(30) for lab in rng.choice(labels, rng.integers(1, 4), replace=False)]
    pred = [(i, lab, float(np.round(rng.random(), 3)))
            for i in range(30) for lab in rng.choice(labels, rng.integers(1, 5), replace=False)]
    cols = ["d3mIndex", "label", "confidence"]
    t_text = pd.DataFrame(truth, columns=cols[:2]).to_csv(index=False)
    base = _score(tmp_path / "a", t_text, pd.DataFrame(pred, columns=cols).to_csv(index=False))
    shuffled = [pred[i] for i in rng.permutation(len(pred))]
    t_shuf = [truth[i] for i in rng.permutation(len(truth))]
    other = _score(tmp_path / "b", pd.DataFrame(t_shuf, columns=cols[:2]).to_csv(index=False),
                   pd.DataFrame(shuffled, columns=cols).to_csv(index=False))
    assert [s.value for s in base.scores] == [s.value for s in other.scores]


def test_duplicate_pair_is_a_warning_and_counts_once(tmp_path):
    dup = PRED + "0,a,0.95\n"
    r = _score(tmp_path / "a", TRUTH, dup)
    w = [i for i in r.issues if i.code == "predictions.duplicate_label"]
    assert len(w) == 1 and w[0].location == "row 7, column label" and "largest confidence" in w[0].message
    base = _score(tmp_path / "b", TRUTH, PRED)
    for name in ("accuracy", "f1Macro", "hammingLoss"):
        assert r.value(name) == base.value(name)


def test_multiclass_truth_with_repeated_index_is_scored_as_multilabel(tmp_path):
    r = _score(tmp_path, TRUTH, PRED, names=["accuracy"], subtype="multiClass")
    assert r.value("accuracy") == pytest.approx(2 / 3)
    assert any(i.code == "truth.multilabel" for i in r.issues)


def test_repeated_truth_index_outside_classification_is_an_error(tmp_path):
    t = write_csv(tmp_path / "targets.csv", "d3mIndex,y\n0,1.5\n0,2.5\n")
    p = write_csv(tmp_path / "predictions.csv", "d3mIndex,y\n0,1.0\n")
    doc = ProblemDoc.new("r", "r", "regression", "univariate", "d",
                         [Target(0, "learningData", 1, "y")], [{"metric": "meanSquaredError"}])
    with pytest.raises(D3MKitError) as exc:
        score_predictions(doc, p, targets=t)
    assert exc.value.issues[0].code == "truth.duplicate_index"


# -------------------------------------------------------------------------------- errors
def test_missing_and_extra_indices(tmp_path):
    errs = _errors(tmp_path, TRUTH, "d3mIndex,label\n0,a\n2,c\n7,a\n7,b\n", names=["accuracy"])
    assert [e.code for e in errs] == ["predictions.index_set"]
    assert "1 TEST index(es) missing (1)" in errs[0].message
    assert "1 not in the TEST set (7)" in errs[0].message
    assert errs[0].location == "row 4, column d3mIndex"


def test_blank_label_is_an_error(tmp_path):
    errs = _errors(tmp_path, TRUTH, "d3mIndex,label\n0,a\n1,\n2,c\n", names=["accuracy"])
    assert errs[0].code == "predictions.missing_value" and errs[0].location == "row 3, column label"


def test_bad_confidence(tmp_path):
    errs = _errors(tmp_path, TRUTH, PRED.replace("0.8", "1.8"), names=["rocAucMicro"])
    assert errs[0].code == "predictions.confidence_range"
    errs = _errors(tmp_path, TRUTH, "d3mIndex,label\n0,a\n1,c\n2,a\n", names=["rocAucMacro"])
    assert errs[0].code == "predictions.no_confidence"


def test_integer_labels_must_parse(tmp_path):
    truth = "d3mIndex,label\n0,1\n0,2\n1,3\n"
    t = write_csv(tmp_path / "targets.csv", truth)
    p = write_csv(tmp_path / "predictions.csv", "d3mIndex,label\n0,1\n1,x\n")
    from d3mkit.scoring.layouts import align
    from d3mkit.scoring.predictions import read_predictions
    from d3mkit.scoring.truth import load_truth
    doc = _problem(["accuracy"])
    tr = load_truth(doc, targets=t)
    tr.col_types["label"] = "integer"
    out = align(tr, read_predictions(p)[0], str(p))
    assert isinstance(out, list) and out[0].code == "predictions.not_numeric"
    assert out[0].location == "row 3, column label"


@pytest.mark.parametrize("name", ["f1", "precision", "recall", "rocAuc", "normalizedMutualInformation"])
def test_metrics_that_cannot_score_label_sets_are_refused(tmp_path, name):
    entry = [{"metric": name, "posLabel": "a"}] if name in ("f1", "precision", "recall") else [{"metric": name}]
    doc = ProblemDoc.new("ml_problem", "ml", "classification", "multiLabel", "d",
                         [Target(0, "learningData", 1, "label")], entry)
    t = write_csv(tmp_path / "targets.csv", TRUTH)
    p = write_csv(tmp_path / "predictions.csv", PRED)
    with pytest.raises(D3MKitError) as exc:
        score_predictions(doc, p, targets=t)
    codes = [i.code for i in exc.value.issues if i.is_error]
    assert "metric.multilabel" in codes
    bad = next(i for i in exc.value.issues if i.code == "metric.multilabel")
    assert bad.location == "inputs.performanceMetrics[0]" and "hammingLoss" in bad.message


def test_two_targets_skip_blank_cells(tmp_path):
    truth = "d3mIndex,genre,mood\n0,a,\n0,b,happy\n1,c,sad\n"
    pred = "d3mIndex,genre,mood\n0,a,happy\n0,b,\n1,c,\n1,,happy\n"
    r = _score(tmp_path, truth, pred, names=["accuracy", "hammingLoss"], targets=("genre", "mood"))
    assert r.value("accuracy", "genre") == 1.0
    assert r.value("accuracy", "mood") == 0.5
    assert r.value("hammingLoss", "mood") == pytest.approx(2 / 4)
    errs = _errors(tmp_path, truth, pred + "1,,\n", names=["accuracy"], targets=("genre", "mood"))
    assert errs[0].code == "predictions.missing_value" and errs[0].location == "row 6"


# ------------------------------------------------------------- task root: learningData truth
LD = pd.DataFrame({"d3mIndex": [0, 0, 1, 2, 2, 2, 3, 4, 4],
                   "x": range(9), "label": list("abcabcaab")})


def test_task_root_truth_and_cli(tmp_path):
    root = make_task(tmp_path, "m", LD, ["label"], _entries(["accuracy", "f1Micro", "hammingLoss"]),
                     subtype="multiLabel", test=[2, 4])
    # TEST: 2 -> {a,b,c}, 4 -> {a,b}
    pred = write_csv(tmp_path / "p.csv", "d3mIndex,label\n4,b\n2,a\n4,a\n2,b\n")
    r = score_task_root(root, pred)
    assert r.value("accuracy") == 0.5
    assert r.value("f1Micro") == pytest.approx(8 / 9)
    assert r.value("hammingLoss") == pytest.approx(1 / 6)
    out = tmp_path / "scores.csv"
    assert main(["score", "--problem", str(root), "--predictions", str(pred), "--out", str(out)]) == 0
    assert pd.read_csv(out)["metric"].tolist() == ["accuracy", "f1Micro", "hammingLoss"]
    bad = write_csv(tmp_path / "bad.csv", "d3mIndex,label\n4,b\n1,a\n")
    out2 = tmp_path / "scores2.csv"
    assert main(["score", "--problem", str(root), "--predictions", str(bad), "--out", str(out2)]) == 1
    assert not out2.exists()


def test_truth_messages_name_the_learning_data_line(tmp_path):
    ld = pd.DataFrame({"d3mIndex": [0, 1, 1, 2, 2, 2], "x": range(6), "label": list("abbabc")})
    root = make_task(tmp_path, "m", ld, ["label"], [{"metric": "accuracy"}], subtype="multiLabel",
                     test=[1, 2])
    pred = write_csv(tmp_path / "p.csv", "d3mIndex,label\n1,b\n2,a\n")
    r = score_task_root(root, pred)
    w = [i for i in r.issues if i.code == "truth.duplicate_label"]
    # index 1's second "b" is data row 2 of learningData.csv, file line 4
    assert len(w) == 1 and w[0].location == "row 4, column label"
    assert w[0].path.endswith("learningData.csv")
    assert r.value("accuracy") == 0.5


def test_listing_every_label_is_warned_about(tmp_path):
    pred = "".join(f"{i},{lab},0.5\n" for i in range(3) for lab in "abc")
    r = _score(tmp_path, TRUTH, "d3mIndex,label,confidence\n" + pred, names=["accuracy", "rocAucMicro"])
    assert any(i.code == "predictions.all_labels" for i in r.issues)
    assert r.value("accuracy") == 0.0


def test_all_targets_is_the_mean_over_targets(tmp_path):
    truth = "d3mIndex,genre,mood\n0,a,happy\n0,b,\n1,c,sad\n"
    pred = "d3mIndex,genre,mood\n0,a,happy\n1,c,happy\n"
    t = write_csv(tmp_path / "targets.csv", truth)
    p = write_csv(tmp_path / "predictions.csv", pred)
    doc = ProblemDoc.new("ml_problem", "ml", "classification", "multiLabel", "d",
                         [Target(0, "learningData", 1, "genre"), Target(1, "learningData", 2, "mood")],
                         [{"metric": "accuracy", "applicabilityToTarget": "allTargets"},
                          {"metric": "f1Macro"}])
    r = score_predictions(doc, p, targets=t)
    assert r.value("accuracy") == pytest.approx((0.5 + 0.5) / 2)
    assert r.value("f1Macro", "genre") == pytest.approx((1 + 0 + 1) / 3)
    assert r.value("f1Macro", "mood") == pytest.approx((2 / 3 + 0) / 2)
