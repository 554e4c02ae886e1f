"""Split properties: disjointness, sizes, stratification, determinism, coverage, kFold
partitions, objectDetection grouping, and the ``d3mkit split`` command."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from d3mkit.cli import main
from d3mkit.documents import Column, DatasetDoc, ProblemDoc, Resource, Target
from d3mkit.core.errors import D3MKitError
from d3mkit.taskroot.splits.read import folds, read_splits, summary
from d3mkit.taskroot.splits.plan import holdout_test_count, holdout_test_mask, kfold_assignment, make_splits
from d3mkit.taskroot.splits.write import splits_bytes


def _problem(splits: dict, task="classification", sub="multiClass", target="y") -> ProblemDoc:
    return ProblemDoc.new("t_problem", "t", task, sub, "t_dataset",
                          [Target(0, "learningData", 1, target)], [{"metric": "accuracy"}],
                          splits=splits)


def _dataset(target_type="categorical", od=False) -> DatasetDoc:
    cols = [Column(0, "d3mIndex", "integer", ("index",))]
    if od:
        cols.append(Column(1, "image", "string", ("index",), {"resID": "0", "resObject": "item"}))
        cols.append(Column(2, "bbox", "realVector", ("suggestedTarget",)))
    else:
        cols.append(Column(1, "y", target_type, ("suggestedTarget",)))
    return DatasetDoc.new("t_dataset", "t", [Resource.table("learningData", "tables/learningData.csv", cols)])


def _data(labels) -> pd.DataFrame:
    return pd.DataFrame({"d3mIndex": np.arange(len(labels)), "y": list(labels)})


labels_st = st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=2, max_size=120)


# ---------------------------------------------------------------------------------- holdOut
@settings(max_examples=60, deadline=None)
@given(labels=labels_st, test_size=st.floats(0.05, 0.95), seed=st.integers(0, 2**32),
       stratified=st.booleans(), repeats=st.integers(0, 3))
@pytest.mark.slow
def test_holdout_properties(labels, test_size, seed, stratified, repeats):
    doc = _problem({"method": "holdOut", "testSize": test_size, "stratified": stratified,
                    "numRepeats": repeats, "randomSeed": seed})
    df = _data(labels)
    s = make_splits(doc, df, _dataset())
    assert list(s.columns) == ["d3mIndex", "type", "repeat", "fold"]
    assert sorted(set(s["repeat"])) == list(range(max(1, repeats)))
    assert set(s["fold"]) == {0}
    n = len(labels)
    for r in range(max(1, repeats)):
        rows = s[s["repeat"] == r]
        # every row covered exactly once, disjoint TRAIN/TEST
        assert sorted(rows["d3mIndex"]) == list(range(n))
        test = rows.loc[rows["type"] == "TEST", "d3mIndex"].to_numpy()
        train = rows.loc[rows["type"] == "TRAIN", "d3mIndex"].to_numpy()
        assert not set(test) & set(train)
        assert len(test) == holdout_test_count(n, test_size)
        assert 0 < len(test) < n
        classes = Counter(labels)
        assert abs(len(test) - test_size * n) <= max(1, len(classes))
        if stratified:
            in_test = Counter(labels[i] for i in test)
            for c, n_c in classes.items():
                # within one row of its proportional share (clipping aside)
                assert abs(in_test[c] - test_size * n_c) < 1 + 1e-9 or len(test) in (1, n - 1)


def test_stratification_keeps_proportions():
    labels = ["a"] * 100 + ["b"] * 50 + ["c"] * 10
    doc = _problem({"method": "holdOut", "testSize": 0.3, "stratified": True, "randomSeed": 7})
    s = make_splits(doc, _data(labels), _dataset())
    test = s.loc[s["type"] == "TEST", "d3mIndex"]
    got = Counter(labels[i] for i in test)
    assert got == {"a": 30, "b": 15, "c": 3}


def test_not_stratified_for_regression_target():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"d3mIndex": np.arange(50), "y": rng.normal(size=50)})
    doc = _problem({"method": "holdOut", "testSize": 0.2, "randomSeed": 1}, task="regression",
                   sub="univariate")
    s = make_splits(doc, df, _dataset("real"))
    assert (s["type"] == "TEST").sum() == 10


def test_determinism_and_seed_dependence():
    labels = list("aabbbcccccdddddddddd") * 5
    doc = _problem({"method": "holdOut", "testSize": 0.25, "randomSeed": 42, "numRepeats": 2})
    a = splits_bytes(make_splits(doc, _data(labels), _dataset()))
    b = splits_bytes(make_splits(doc, _data(labels), _dataset()))
    assert a == b
    doc2 = _problem({"method": "holdOut", "testSize": 0.25, "randomSeed": 43, "numRepeats": 2})
    assert splits_bytes(make_splits(doc2, _data(labels), _dataset())) != a


def test_string_and_int_frames_split_identically():
    """A builder's in-memory frame and the CSV read back (all strings) give the same bytes."""
    labels = [3, 10, 2, 10, 3, 2, 2, 10] * 4
    doc = _problem({"method": "holdOut", "testSize": 0.25, "randomSeed": 5})
    ints = _data(labels)
    strs = ints.astype(str)
    assert splits_bytes(make_splits(doc, ints, _dataset())) == \
        splits_bytes(make_splits(doc, strs, _dataset()))


# ----------------------------------------------------------------------------------- kFold
@settings(max_examples=50, deadline=None)
@given(labels=labels_st, k=st.integers(2, 6), seed=st.integers(0, 2**32),
       stratified=st.booleans(), repeats=st.integers(0, 2))
@pytest.mark.slow
def test_kfold_partitions(labels, k, seed, stratified, repeats):
    n = len(labels)
    doc = _problem({"method": "kFold", "numFolds": k, "stratified": stratified,
                    "numRepeats": repeats, "randomSeed": seed})
    if k > n:
        with pytest.raises(D3MKitError):
            make_splits(doc, _data(labels), _dataset())
        return
    s = make_splits(doc, _data(labels), _dataset())
    for r in range(max(1, repeats)):
        tests = []
        for f in range(k):
            rows = s[(s["repeat"] == r) & (s["fold"] == f)]
            assert sorted(rows["d3mIndex"]) == list(range(n))        # every row, once
            tests.append(set(rows.loc[rows["type"] == "TEST", "d3mIndex"]))
        # the TEST parts partition the rows
        assert sum(len(t) for t in tests) == n
        assert set().union(*tests) == set(range(n))
        sizes = [len(t) for t in tests]
        assert max(sizes) - min(sizes) <= 1
        if stratified:
            for c in set(labels):
                per_fold = [sum(labels[i] == c for i in t) for t in tests]
                assert max(per_fold) - min(per_fold) <= 1


def test_kfold_needs_two_folds():
    doc = _problem({"method": "kFold", "numFolds": 0})
    with pytest.raises(D3MKitError) as ei:
        make_splits(doc, _data("abab"), _dataset())
    assert ei.value.issues[0].code == "splits.num_folds"
    assert ei.value.issues[0].location == "inputs.dataSplits.numFolds"


@pytest.mark.parametrize("splits, code", [
    ({"method": "bootstrap"}, "splits.method"),
    ({"testSize": 1.5}, "splits.bad_value"),
    ({"numRepeats": -1}, "splits.num_repeats"),
    ({"randomSeed": "x"}, "splits.bad_value"),
    ({"stratified": "yes"}, "splits.bad_value"),
])
def test_bad_sections_are_issues(splits, code):
    with pytest.raises(D3MKitError) as ei:
        make_splits(_problem(splits), _data("abab"), _dataset())
    assert ei.value.issues[0].code == code


def test_missing_target_column_is_an_issue():
    df = pd.DataFrame({"d3mIndex": range(4), "z": list("abab")})
    with pytest.raises(D3MKitError) as ei:
        make_splits(_problem({}), df, _dataset())
    assert ei.value.issues[0].code == "splits.target_missing"


# ------------------------------------------------------------------------- objectDetection
def _od_data(rng, n_images=20):
    rows, i = [], 0
    for img in range(n_images):
        for _ in range(rng.integers(1, 5)):
            rows.append((i, f"img{img:03d}.png", "1,2,3,4"))
            i += 1
    return pd.DataFrame(rows, columns=["d3mIndex", "image", "bbox"])


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), n_images=st.integers(2, 30))
def test_object_detection_groups_by_image(seed, n_images):
    df = _od_data(np.random.default_rng(seed), n_images)
    doc = ProblemDoc.new("t_problem", "t", "objectDetection", None, "t_dataset",
                         [Target(0, "learningData", 2, "bbox")], [{"metric": "objectDetectionAP"}],
                         splits={"method": "holdOut", "testSize": 0.25, "randomSeed": seed})
    s = make_splits(doc, df, _dataset(od=True))
    assert list(s.columns) == ["d3mIndex", "image", "type", "repeat", "fold"]
    assert len(s) == len(df)
    sides = s.groupby("image")["type"].nunique()
    assert (sides == 1).all()                                 # every box of an image on one side
    test_images = s.loc[s["type"] == "TEST", "image"].nunique()
    assert test_images == holdout_test_count(n_images, 0.25)


def test_multilabel_repeated_index_listed_once():
    df = pd.DataFrame({"d3mIndex": [0, 0, 1, 2, 2, 2, 3, 4], "y": list("abaabcab")})
    doc = _problem({"method": "holdOut", "testSize": 0.4, "stratified": False}, sub="multiLabel")
    s = make_splits(doc, df, _dataset())
    assert sorted(s["d3mIndex"].astype(int)) == [0, 1, 2, 3, 4]
    assert (s["type"] == "TEST").sum() == 2


# -------------------------------------------------------------------------------- pure parts
def test_pure_functions_edge_cases():
    rng = np.random.default_rng(0)
    assert holdout_test_mask(0, 0.2, rng).shape == (0,)
    assert holdout_test_mask(5, 0.0, rng).sum() == 0
    assert holdout_test_mask(5, 1.0, rng).sum() == 5
    assert holdout_test_count(2, 0.2) == 1
    f = kfold_assignment(10, 10, rng)
    assert sorted(f.tolist()) == list(range(10))
    assert math.isclose(holdout_test_mask(1000, 0.2, rng).mean(), 0.2)


# ------------------------------------------------------------------------------ files & CLI
@pytest.fixture()
def task_root(tmp_path):
    from d3mkit.benchmarks.tabular import build_task_root
    return build_task_root(tmp_path, "iris", seed=3)


def test_reader_helpers(task_root):
    s = read_splits(task_root / "iris_problem" / "dataSplits.csv")
    assert s["repeat"].dtype == np.int64
    ((r, f, train, test),) = list(folds(s))
    assert (r, f, len(train), len(test)) == (0, 0, 120, 30)
    assert summary(s) == ["repeat 0 fold 0: TRAIN 120, TEST 30"]


def test_reader_rejects_bad_fold(tmp_path):
    p = tmp_path / "dataSplits.csv"
    p.write_text("d3mIndex,type,repeat,fold\n0,TRAIN,0,x\n")
    with pytest.raises(D3MKitError) as ei:
        read_splits(p)
    assert ei.value.issues[0].location == "row 1, column fold"


def test_split_command_rewrites_and_refuses(task_root, capsys):
    pdir = task_root / "iris_problem"
    before = (pdir / "dataSplits.csv").read_bytes()
    assert main(["split", str(pdir)]) == 0
    assert "up to date" in capsys.readouterr().out
    (pdir / "dataSplits.csv").unlink()
    assert main(["split", str(pdir)]) == 0
    out = capsys.readouterr().out
    assert "wrote" in out and "TRAIN 120, TEST 30" in out
    assert (pdir / "dataSplits.csv").read_bytes() == before
    # change the doc: a kFold split now differs, and needs --force
    import json
    doc = json.loads((pdir / "problemDoc.json").read_text())
    doc["inputs"]["dataSplits"].update({"method": "kFold", "numFolds": 5})
    (pdir / "problemDoc.json").write_text(json.dumps(doc))
    assert main(["split", str(pdir)]) == 2
    assert main(["split", str(pdir), "--force"]) == 0
    s = read_splits(pdir / "dataSplits.csv")
    assert len(s) == 5 * 150 and sorted(set(s["fold"])) == [0, 1, 2, 3, 4]
    assert not list(pdir.glob(".*tmp"))                       # no temp file left behind


def test_split_command_bad_inputs(tmp_path, task_root, capsys):
    assert main(["split", str(tmp_path / "nope")]) == 2
    pdir = task_root / "iris_problem"
    (pdir / "problemDoc.json").write_text('{"about": {},}')
    assert main(["split", str(pdir)]) == 1
    assert "trailing comma" in capsys.readouterr().err


def test_split_command_finds_dataset_on_search_path(tmp_path, task_root):
    import shutil
    other = tmp_path / "elsewhere"
    other.mkdir()
    shutil.move(str(task_root / "iris_problem"), other / "iris_problem")
    (other / "iris_problem" / "dataSplits.csv").unlink()
    assert main(["split", str(other / "iris_problem")]) == 1          # dataset not found
    assert main(["split", str(other / "iris_problem"), "--datasets", str(task_root)]) == 0
    assert (other / "iris_problem" / "dataSplits.csv").exists()


def test_splits_file_may_not_escape(task_root):
    import json
    pdir = task_root / "iris_problem"
    doc = json.loads((pdir / "problemDoc.json").read_text())
    doc["inputs"]["dataSplits"]["splitsFile"] = "../../evil.csv"
    (pdir / "problemDoc.json").write_text(json.dumps(doc))
    assert main(["split", str(pdir), "--force"]) == 1
    assert not (task_root.parent / "evil.csv").exists()
