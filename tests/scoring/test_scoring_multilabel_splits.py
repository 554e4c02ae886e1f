"""dataSplits for multiLabel learningData (several rows per d3mIndex): every index is one
split unit, listed once per (repeat, fold), and scoring picks up all rows of the TEST
indices as label sets."""

import numpy as np
import pandas as pd
import pytest

from _scoring_util import make_task, write_csv
from d3mkit.documents import Column, DatasetDoc, ProblemDoc, Resource, Target
from d3mkit.scoring.score import score_task_root
from d3mkit.taskroot.splits.plan import holdout_test_count, make_splits
from d3mkit.taskroot.splits.write import write_splits


def _ml_frame(seed: int, n: int = 40) -> pd.DataFrame:
    """learningData with 1-3 rows per d3mIndex, the rows of one index not adjacent."""
    rng = np.random.default_rng(seed)
    rows = [(i, lab) for i in range(n) for lab in rng.choice(list("abcde"), rng.integers(1, 4), replace=False)]
    rows = [rows[k] for k in rng.permutation(len(rows))]
    return pd.DataFrame({"d3mIndex": [r[0] for r in rows], "y": [r[1] for r in rows]})


def _docs(splits: dict):
    cols = [Column(0, "d3mIndex", "integer", ("index",)), Column(1, "y", "categorical", ("suggestedTarget",))]
    ds = DatasetDoc.new("t_dataset", "t", [Resource.table("learningData", "tables/learningData.csv", cols)])
    doc = ProblemDoc.new("t_problem", "t", "classification", "multiLabel", "t_dataset",
                         [Target(0, "learningData", 1, "y")], [{"metric": "accuracy"}], splits=splits)
    return doc, ds


@pytest.mark.parametrize("spec", [
    {"method": "holdOut", "testSize": 0.25},
    {"method": "holdOut", "testSize": 0.3, "stratified": False, "numRepeats": 2},
    {"method": "kFold", "numFolds": 4},
])
def test_each_index_is_one_unit(spec):
    df = _ml_frame(1)
    doc, ds = _docs({**spec, "randomSeed": 7})
    s = make_splits(doc, df, ds)
    n = df["d3mIndex"].nunique()
    groups = s.groupby(["repeat", "fold"])
    for (_r, _f), g in groups:
        assert sorted(g["d3mIndex"].astype(int)) == list(range(n))     # listed once each
    if spec["method"] == "holdOut":
        for _key, g in groups:
            assert (g["type"] == "TEST").sum() == holdout_test_count(n, spec["testSize"])
    else:   # every index is TEST in exactly one fold
        test = s[s["type"] == "TEST"]
        assert test["d3mIndex"].astype(int).value_counts().eq(1).all()
        assert test["d3mIndex"].nunique() == n
    again = make_splits(doc, df, ds)
    assert again.equals(s)


def test_scoring_uses_every_row_of_the_test_indices(tmp_path):
    df = _ml_frame(2, n=12)
    df.insert(1, "x", range(len(df)))
    root = make_task(tmp_path, "m", df, ["y"], [{"metric": "accuracy"}, {"metric": "other", "specifyOther": "hammingLoss"}],
                     subtype="multiLabel")
    doc, ds = _docs({"method": "holdOut", "testSize": 0.5, "randomSeed": 3})
    s = make_splits(doc, df, ds)
    write_splits(s, root / "m_problem" / "dataSplits.csv")
    test = s.loc[s["type"] == "TEST", "d3mIndex"].astype(int).tolist()
    truth = df[df["d3mIndex"].isin(test)]
    # perfect label sets, written in a shuffled order
    pred = truth[["d3mIndex", "y"]].sample(frac=1.0, random_state=0)
    p = write_csv(tmp_path / "p.csv", pred.to_csv(index=False))
    r = score_task_root(root, p)
    assert r.value("accuracy") == 1.0 and r.value("hammingLoss") == 0.0
    # drop one row of an index with several labels: exactly that index is wrong
    multi = truth["d3mIndex"].value_counts()
    k = int(multi[multi > 1].index[0])
    drop = pred[pred["d3mIndex"] == k].index[0]
    p2 = write_csv(tmp_path / "p2.csv", pred.drop(index=drop).to_csv(index=False))
    r2 = score_task_root(root, p2)
    assert r2.value("accuracy") == pytest.approx(1 - 1 / len(test))
    n_labels = truth["y"].nunique()
    assert r2.value("hammingLoss") == pytest.approx(1 / (len(test) * n_labels))


def test_stratified_multilabel_splits_on_label_sets():
    """A stratified multiLabel holdOut keeps each label set's TEST share within one index of
    testSize (the stratum of an index is its set of labels)."""
    rng = np.random.default_rng(4)
    sets = [("a",), ("a", "b"), ("c",), ("b", "c", "d")]
    pick = rng.integers(0, len(sets), 60)
    rows = [(i, lab) for i in range(60) for lab in sets[pick[i]]]
    df = pd.DataFrame({"d3mIndex": [r[0] for r in rows], "y": [r[1] for r in rows]})
    doc, ds = _docs({"method": "holdOut", "testSize": 0.25, "stratified": True, "randomSeed": 1})
    s = make_splits(doc, df, ds)
    test = set(s.loc[s["type"] == "TEST", "d3mIndex"].astype(int))
    for k in range(len(sets)):
        members = np.flatnonzero(pick == k)
        assert abs(sum(int(i) in test for i in members) - 0.25 * len(members)) < 1 + 1e-9
