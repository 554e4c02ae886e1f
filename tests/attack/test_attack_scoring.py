"""Adversarial suite, issue class 1: no silent wrong score. Every attack goes through the
CLI, and every score that comes out is checked against scikit-learn or a hand
computation on the canonical values (d3mkit.validation.coltypes.canonical)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from sklearn import metrics as skm

from _attack_util import class_task, refused, run, scores, truth_rows
from _scoring_util import make_task

SETTINGS = settings(max_examples=12, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def _write(path, df):
    df.to_csv(path, index=False, lineterminator="\n")
    return path


def _score(root, pred, capsys, *extra):
    code, out, err = run(["score", "--problem", root, "--predictions", pred, "--format", "json", *extra], capsys)
    assert code == 0, err
    assert "Warning" not in err, err          # numpy/pandas warnings never leak
    return scores(out), err


# --- spellings of one value score as that value -------------------------------------------
BOOL_TRUTH = ["true", "false", "True", "1", "yes", "no", "0", "FALSE", "t", "f"] * 2
BOOL_SPELLINGS = {
    "python": {True: "True", False: "False"},
    "upper": {True: "TRUE", False: "FALSE"},
    "digits": {True: "1", False: "0"},
    "yesno": {True: "yes", False: "no"},
    "tf": {True: "t", False: "f"},
    "padded": {True: " true ", False: " false"},
    "mixed": None,   # a different spelling on every row
}


def _canon_bool(v):
    return v.strip().lower() in ("true", "t", "yes", "1")


@pytest.mark.parametrize("spelling", list(BOOL_SPELLINGS))
def test_boolean_spellings(tmp_path, capsys, spelling):
    frame = pd.DataFrame({"d3mIndex": range(20), "y": BOOL_TRUTH})
    root = make_task(tmp_path, "b", frame, ["y"], [{"metric": "accuracy"}, {"metric": "f1", "posLabel": "True"}],
                     subtype="binary", col_types={"y": "boolean"})
    truth = truth_rows(root)
    rng = np.random.default_rng(len(spelling))
    want = np.array([_canon_bool(v) for v in truth["y"]])
    guess = np.where(rng.random(len(want)) < 0.7, want, ~want)
    cycle = ["True", "false", "1", "NO", "yes", "0", "t", "F"]
    cells = [BOOL_SPELLINGS[spelling][g] if BOOL_SPELLINGS[spelling] else
             (cycle[i % 8] if _canon_bool(cycle[i % 8]) == g else cycle[(i + 1) % 8]) for i, g in enumerate(guess)]
    assert [_canon_bool(c) for c in cells] == guess.tolist()
    pred = _write(tmp_path / "p.csv", pd.DataFrame({"d3mIndex": truth["d3mIndex"], "y": cells}))
    got, _ = _score(root, pred, capsys)
    assert got["accuracy"] == pytest.approx(skm.accuracy_score(want, guess))
    assert got["f1"] == pytest.approx(skm.f1_score(want, guess, pos_label=True))


@pytest.mark.parametrize("pad", [" {}", "{} ", "\t{}", " {} ", "{}\u00a0"])
def test_categorical_whitespace(tmp_path, capsys, pad):
    root = class_task(tmp_path)
    truth = truth_rows(root)
    guess = np.roll(truth["y"].to_numpy(), 1)
    pred = _write(tmp_path / "p.csv", pd.DataFrame({"d3mIndex": truth["d3mIndex"],
                                                     "y": [pad.format(g) for g in guess]}))
    got, _ = _score(root, pred, capsys)
    assert got["accuracy"] == pytest.approx(skm.accuracy_score(truth["y"], guess))
    assert got["f1Macro"] == pytest.approx(skm.f1_score(truth["y"], guess, average="macro"))


@pytest.mark.parametrize("form", ["{}", "{}.0", "{}e0", " {} ", "+{}", "{}.000"])
def test_integer_label_spellings(tmp_path, capsys, form):
    frame = pd.DataFrame({"d3mIndex": range(20), "y": [str(i % 3) for i in range(20)]})
    root = make_task(tmp_path, "i", frame, ["y"], [{"metric": "accuracy"}, {"metric": "f1Macro"}],
                     col_types={"y": "integer"})
    truth = truth_rows(root)["y"].astype(int).to_numpy()
    guess = (truth + (np.arange(len(truth)) % 4 == 0)) % 3
    pred = _write(tmp_path / "p.csv", pd.DataFrame({"d3mIndex": truth_rows(root)["d3mIndex"],
                                                     "y": [form.format(g) for g in guess]}))
    got, _ = _score(root, pred, capsys)
    assert got["accuracy"] == pytest.approx(skm.accuracy_score(truth, guess))
    assert got["f1Macro"] == pytest.approx(skm.f1_score(truth, guess, average="macro"))


@pytest.mark.parametrize("form", ["%Y-%m-%d", "%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S+00:00"])
def test_datetime_spellings(tmp_path, capsys, form):
    days = pd.date_range("2020-01-01", periods=4, freq="D")
    frame = pd.DataFrame({"d3mIndex": range(20), "y": [days[i % 4].strftime("%Y-%m-%d") for i in range(20)]})
    root = make_task(tmp_path, "d", frame, ["y"], [{"metric": "accuracy"}], col_types={"y": "dateTime"})
    truth = truth_rows(root)
    guess = [days[(i * 7) % 4] for i in range(len(truth))]
    pred = _write(tmp_path / "p.csv", pd.DataFrame({"d3mIndex": truth["d3mIndex"],
                                                     "y": [g.strftime(form) for g in guess]}))
    got, _ = _score(root, pred, capsys)
    want = [g.strftime("%Y-%m-%d") for g in guess]
    assert got["accuracy"] == pytest.approx(skm.accuracy_score(truth["y"], want))


@pytest.mark.parametrize("form", ["{}.0", " {}", "{} ", "+{}", "{}e0"])
def test_index_spellings(tmp_path, capsys, form):
    """d3mIndex is an integer column: "3.0" and " 3" name index 3."""
    root = class_task(tmp_path)
    truth = truth_rows(root)
    guess = np.roll(truth["y"].to_numpy(), 2)
    pred = _write(tmp_path / "p.csv", pd.DataFrame({"d3mIndex": [form.format(i) for i in truth["d3mIndex"]],
                                                     "y": guess}))
    got, _ = _score(root, pred, capsys)
    assert got["accuracy"] == pytest.approx(skm.accuracy_score(truth["y"], guess))


@pytest.mark.parametrize("bad", ["maybe", "2", "truee", ""])
def test_boolean_prediction_that_is_no_boolean(tmp_path, capsys, bad):
    frame = pd.DataFrame({"d3mIndex": range(20), "y": ["true", "false"] * 10})
    root = make_task(tmp_path, "b", frame, ["y"], [{"metric": "accuracy"}], subtype="binary",
                     col_types={"y": "boolean"})
    truth = truth_rows(root)
    cells = ["true"] * len(truth)
    cells[3] = bad
    pred = _write(tmp_path / "p.csv", pd.DataFrame({"d3mIndex": truth["d3mIndex"], "y": cells}))
    refused(["score", "--problem", root, "--predictions", pred], capsys,
            "predictions.missing_value" if bad == "" else "predictions.bad_value", path=pred)


# --- layouts ------------------------------------------------------------------------------
def _probs(n, k, seed):
    p = np.random.default_rng(seed).random((n, k)) + 0.05
    return p / p.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("extra_rows", [1, 2, 5])
def test_mixed_layout_is_an_error(tmp_path, capsys, extra_rows):
    frame = pd.DataFrame({"d3mIndex": range(20), "y": ["a", "b"] * 10})
    root = make_task(tmp_path, "m", frame, ["y"], [{"metric": "rocAuc", "posLabel": "b"}], subtype="binary")
    truth = truth_rows(root)
    conf = np.random.default_rng(1).random(len(truth))
    rows = pd.DataFrame({"d3mIndex": truth["d3mIndex"], "y": ["b"] * len(truth), "confidence": conf})
    extra = rows.iloc[:extra_rows].assign(y="a", confidence=0.5)
    pred = _write(tmp_path / "p.csv", pd.concat([rows, extra], ignore_index=True))
    err = refused(["score", "--problem", root, "--predictions", pred], capsys, "predictions.mixed_layout", path=pred)
    assert f"row {2 + extra_rows}" in err   # the first index listed once


@pytest.mark.parametrize("seed", range(4))
def test_classes_layout_rocauc_vs_sklearn(tmp_path, capsys, seed):
    labels = ["a", "b", "c"]
    frame = pd.DataFrame({"d3mIndex": range(20), "y": [labels[(i * 7 + seed) % 3] for i in range(20)]})
    root = make_task(tmp_path, "c", frame, ["y"], [{"metric": "rocAucMacro"}, {"metric": "accuracy"}])
    truth = truth_rows(root)
    prob = _probs(len(truth), 3, seed)
    long = pd.DataFrame([(i, lab, prob[r, j]) for r, i in enumerate(truth["d3mIndex"])
                         for j, lab in enumerate(labels)], columns=["d3mIndex", "y", "confidence"])
    long = long.sample(frac=1.0, random_state=seed)   # row order must not matter
    got, _ = _score(root, _write(tmp_path / "p.csv", long), capsys)
    assert got["rocAucMacro"] == pytest.approx(skm.roc_auc_score(truth["y"], prob, multi_class="ovr", labels=labels))
    assert got["accuracy"] == pytest.approx(skm.accuracy_score(truth["y"], np.array(labels)[prob.argmax(1)]))


# --- order independence (property-based) ---------------------------------------------------
@pytest.fixture(scope="module")
def od_root(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("od")
    rng = np.random.default_rng(3)
    rows = []
    for i in range(8):
        for _b in range(1 + i % 3):
            x, y = rng.integers(0, 200, 2)
            rows.append((i, f"img{i}.png", f"{x},{y},{x + 40},{y + 30}"))
    frame = pd.DataFrame(rows, columns=["d3mIndex", "image", "box"])
    root = make_task(tmp, "od", frame, ["box"], [{"metric": "objectDetectionAP"}], task_type="objectDetection",
                     subtype="", col_types={"box": "realVector"}, image_col="image",
                     test=list(range(0, 8, 2)))
    return root


def _od_predictions(root, seed):
    truth = truth_rows(root)
    rng = np.random.default_rng(seed)
    out = []
    for _, r in truth.iterrows():
        x0, y0, x1, y1 = map(int, r["box"].split(","))
        for k in range(3):   # near, identical-twin and far detections, all tied
            dx = int(rng.integers(-8, 9)) if k < 2 else 150
            out.append((r["d3mIndex"], r["image"], f"{x0 + dx},{y0},{x1 + dx},{y1}"))
    out.append((truth["d3mIndex"].iloc[0], truth["image"].iloc[0], truth["box"].iloc[0]))   # an exact duplicate
    return pd.DataFrame(out, columns=["d3mIndex", "image", "box"])


@pytest.mark.slow
@given(perm_seed=st.integers(0, 2 ** 32 - 1), seed=st.integers(0, 3))
@SETTINGS
def test_od_without_confidence_is_order_independent(od_root, tmp_path, capsys, perm_seed, seed):
    preds = _od_predictions(od_root, seed)
    base, _ = _score(od_root, _write(tmp_path / "a.csv", preds), capsys)
    shuffled = preds.sample(frac=1.0, random_state=perm_seed % (2 ** 32))
    got, _ = _score(od_root, _write(tmp_path / "b.csv", shuffled), capsys)
    assert got == base


@pytest.mark.slow
@given(perm_seed=st.integers(0, 2 ** 32 - 1))
@SETTINGS
def test_rows_layout_is_order_independent(tmp_path, capsys, perm_seed):
    root = tmp_path / "t"
    if not root.exists():
        class_task(tmp_path, metrics=("accuracy", "f1Macro", "f1Micro", "normalizedMutualInformation"))
    truth = truth_rows(root)
    guess = np.roll(truth["y"].to_numpy(), 3)
    preds = pd.DataFrame({"d3mIndex": truth["d3mIndex"], "y": guess}).sample(frac=1.0, random_state=perm_seed)
    got, _ = _score(root, _write(tmp_path / "p.csv", preds), capsys)
    assert got["accuracy"] == pytest.approx(skm.accuracy_score(truth["y"], guess))
    assert got["f1Micro"] == pytest.approx(skm.f1_score(truth["y"], guess, average="micro"))
    assert got["normalizedMutualInformation"] == pytest.approx(
        skm.normalized_mutual_info_score(truth["y"], guess, average_method="geometric"))


# --- non-finite intermediates ---------------------------------------------------------------
REGRESSION_BOMBS = [1e200, -1e200, 1e300, 1.7e308, -1.7e308, 1e155]


@pytest.mark.parametrize("big", REGRESSION_BOMBS)
def test_huge_regression_prediction(tmp_path, capsys, big):
    frame = pd.DataFrame({"d3mIndex": range(20), "y": [f"{i * 0.5}" for i in range(20)]})
    root = make_task(tmp_path, "r", frame, ["y"], [{"metric": m} for m in
                     ("rootMeanSquaredError", "meanAbsoluteError", "rSquared")],
                     task_type="regression", subtype="univariate", col_types={"y": "real"})
    truth = truth_rows(root)["y"].astype(float).to_numpy()
    pred = truth.copy()
    pred[2] = big
    p = _write(tmp_path / "p.csv", pd.DataFrame({"d3mIndex": truth_rows(root)["d3mIndex"], "y": [str(float(v)) for v in pred]}))
    n = len(truth)
    err = abs(big - truth[2])
    if err >= 1e150:   # 1 - err**2 / ss_tot is not a float: rSquared is an error, the others score
        code, out, stderr = run(["score", "--problem", root, "--predictions", p], capsys)
        assert code == 1 and "[metric.failed]" in stderr and "rSquared" in stderr and "Warning" not in stderr
        root_doc = root / "r_problem" / "problemDoc.json"
        root_doc.write_text(root_doc.read_text().replace('{\n        "metric": "rSquared"\n      }', '{"metric": "meanAbsoluteError"}'))
    got, _ = _score(root, p, capsys)
    assert got["rootMeanSquaredError"] == pytest.approx(err / math.sqrt(n), rel=1e-12)
    assert got["meanAbsoluteError"] == pytest.approx(err / n, rel=1e-12)
    ss_tot = float(np.sum((truth - truth.mean()) ** 2))
    if err < 1e150:
        assert got["rSquared"] == pytest.approx(1.0 - (err / ss_tot ** 0.5) ** 2, rel=1e-9)


@pytest.mark.parametrize("big", [1e200, 1.7e308])
def test_mse_that_overflows_is_an_error(tmp_path, capsys, big):
    frame = pd.DataFrame({"d3mIndex": range(20), "y": [f"{i}" for i in range(20)]})
    root = make_task(tmp_path, "r", frame, ["y"], [{"metric": "meanSquaredError"}], task_type="regression",
                     subtype="univariate", col_types={"y": "real"})
    truth = truth_rows(root)
    vals = [str(big)] + truth["y"].tolist()[1:]
    p = _write(tmp_path / "p.csv", pd.DataFrame({"d3mIndex": truth["d3mIndex"], "y": vals}))
    err = refused(["score", "--problem", root, "--predictions", p], capsys, "metric.failed", path=p)
    assert "larger than the largest float" in err and "Warning" not in err


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "1e999", "Infinity"])
def test_nonfinite_prediction_is_an_error(tmp_path, capsys, value):
    frame = pd.DataFrame({"d3mIndex": range(20), "y": [f"{i}" for i in range(20)]})
    root = make_task(tmp_path, "r", frame, ["y"], [{"metric": "meanAbsoluteError"}], task_type="regression",
                     subtype="univariate", col_types={"y": "real"})
    truth = truth_rows(root)
    vals = [value] + truth["y"].tolist()[1:]
    p = _write(tmp_path / "p.csv", pd.DataFrame({"d3mIndex": truth["d3mIndex"], "y": vals}))
    code, _, err = run(["score", "--problem", root, "--predictions", p], capsys)
    assert code == 1 and str(p) in err and "row 2" in err


# --- dataSplits that cannot be scored ----------------------------------------------------------
def _splits(root):
    return root / "t_problem" / "dataSplits.csv"


def _edit_splits(root, fn):
    p = _splits(root)
    df = pd.read_csv(p, dtype=str, keep_default_na=False)
    fn(df).to_csv(p, index=False, lineterminator="\n")
    return p


SPLIT_ATTACKS = [
    ("test_not_in_learningdata", "splits.unknown_index",
     lambda df: pd.concat([df, pd.DataFrame([{"d3mIndex": "999", "type": "TEST", "repeat": "0", "fold": "0"}])])),
    ("string_index_not_in_learningdata", "splits.unknown_index",
     lambda df: pd.concat([df, pd.DataFrame([{"d3mIndex": "x7", "type": "TEST", "repeat": "0", "fold": "0"}])])),
    ("train_and_test", "splits.overlap",
     lambda df: pd.concat([df, df[df["type"] == "TRAIN"].head(1).assign(type="TEST")])),
    ("test_and_train", "splits.overlap",
     lambda df: pd.concat([df, df[df["type"] == "TEST"].head(2).assign(type="TRAIN")])),
    ("lowercase_type", "splits.type", lambda df: df.assign(type=df["type"].where(df.index != 1, "test"))),
    ("blank_type", "splits.type", lambda df: df.assign(type=df["type"].where(df.index != 1, ""))),
    ("repeat_not_integer", "splits.value", lambda df: df.assign(repeat=df["repeat"].where(df.index != 3, "0.5"))),
    ("fold_word", "splits.value", lambda df: df.assign(fold=df["fold"].where(df.index != 3, "zero"))),
    ("no_test_rows", "splits.no_test", lambda df: df.assign(type="TRAIN")),
    ("no_fold_column", "splits.columns", lambda df: df.drop(columns=["fold"])),
]


@pytest.mark.parametrize("name, code, fn", SPLIT_ATTACKS, ids=[a[0] for a in SPLIT_ATTACKS])
def test_splits_that_cannot_be_scored(tmp_path, capsys, name, code, fn):
    root = class_task(tmp_path)
    truth = truth_rows(root)
    pred = _write(tmp_path / "p.csv", pd.DataFrame({"d3mIndex": truth["d3mIndex"], "y": truth["y"]}))
    p = _edit_splits(root, fn)
    refused(["score", "--problem", root, "--predictions", pred], capsys, code, path=p)


def test_attack_counts():
    """Distinct hostile inputs in this file (reported in the issue note)."""
    n = (len(BOOL_SPELLINGS) + 5 + 6 + 4 + 5 + 4 + 3 + 4 + len(REGRESSION_BOMBS) + 2 + 5 + len(SPLIT_ATTACKS))
    assert n >= 50
