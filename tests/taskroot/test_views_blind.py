"""The TEST view leaks nothing about the targets (issue 10 §7): no target value in any file
of TEST/, one row per split unit (whatever the number of boxes or labels), rows in key
order (not in an order that follows the target), media only of the TEST units."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from d3mkit.documents import Column, DatasetDoc, ProblemDoc, Resource, Target
from d3mkit.taskroot.writer import TaskRootWriter
from d3mkit.tables import read_table
from d3mkit.taskroot.views import write_views
from taskroot_helpers import detection_root


def _detection(tmp_path, per_image_index: bool, seed: int):
    """objectDetection task root: 12 images with 1-4 boxes each; d3mIndex per image (the
    D3M multi-index) or per box."""
    rng = np.random.default_rng(seed)
    rows, i = [], 0
    for img in range(12):
        for b in range(int(rng.integers(1, 5))):
            rows.append({"d3mIndex": img if per_image_index else i, "image": f"img{img}.png",
                         "bounding_box": f"{b},{b + 1},{b + 7},{b + 9}"})
            i += 1
    return detection_root(tmp_path, rows, 12, split_seed=seed), pd.DataFrame(rows)


def _all_text(d):
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in d.rglob("*") if p.is_file())


@pytest.mark.slow
@pytest.mark.parametrize("per_image_index", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_detection_test_view_has_one_row_per_image(tmp_path, per_image_index, seed):
    root, rows = _detection(tmp_path, per_image_index, seed)
    v = tmp_path / "v"
    write_views(root, v)
    score = read_table(v / "SCORE" / "targets.csv")
    test_images = sorted(set(score["image"]), key=lambda s: int(s[3:-4]))
    assert len(score) == int(rows["image"].isin(test_images).sum())      # SCORE keeps every box
    te = read_table(v / "TEST/dataset_TEST/tables/learningData.csv")
    assert sorted(te["image"]) == sorted(test_images) and te["image"].is_unique
    assert (te["bounding_box"] == "").all()
    assert te["d3mIndex"].astype(int).is_monotonic_increasing
    sp = read_table(v / "TEST/problem_TEST/dataSplits.csv")
    assert sorted(sp["image"]) == sorted(test_images) and sp["image"].is_unique
    assert {p.name for p in (v / "TEST/dataset_TEST/media").iterdir()} == set(test_images)
    boxes = set(rows["bounding_box"])
    assert not any(b in _all_text(v / "TEST") for b in boxes)            # no box anywhere in TEST/


def test_multilabel_test_view_has_one_row_per_index(tmp_path):
    rng = np.random.default_rng(4)
    rows = [(i, f"feature{i}", lab) for i in range(30)
            for lab in rng.choice(list("abcde"), int(rng.integers(1, 5)), replace=False)]
    df = pd.DataFrame(rows, columns=["d3mIndex", "x", "y"])
    cols = [Column(0, "d3mIndex", "integer", ("index",)), Column(1, "x", "string", ("attribute",)),
            Column(2, "y", "categorical", ("suggestedTarget",))]
    ddoc = DatasetDoc.new("m_dataset", "m", [Resource.table("learningData", "tables/learningData.csv", cols)])
    pdoc = ProblemDoc.new("m_problem", "m", "classification", "multiLabel", "m_dataset",
                          [Target(0, "learningData", 2, "y")], [{"metric": "accuracy"}],
                          splits={"method": "holdOut", "testSize": 0.4, "randomSeed": 1})
    # validate=False: a dataset alone cannot tell that its repeated d3mIndex is multiLabel
    with TaskRootWriter(tmp_path / "t", "m", benchmark="test", seed=0, validate=False) as w:
        w.write_table("tables/learningData.csv", df)
        w.write_dataset_doc(ddoc)
        w.write_problem_doc(pdoc)
    write_views(w.root, tmp_path / "v")
    te = read_table(tmp_path / "v/TEST/dataset_TEST/tables/learningData.csv")
    score = read_table(tmp_path / "v/SCORE/targets.csv")
    assert te["d3mIndex"].is_unique and set(te["d3mIndex"]) == set(score["d3mIndex"])
    assert len(score) > len(te) and (te["y"] == "").all()
    assert te["d3mIndex"].astype(int).is_monotonic_increasing


def test_test_rows_do_not_follow_the_target_order(tmp_path):
    """learningData sorted by class with shuffled d3mIndex: the TEST view lists rows by
    d3mIndex, so their order says nothing about the class."""
    rng = np.random.default_rng(5)
    n = 60
    y = np.repeat(["a", "b", "c"], n // 3)
    df = pd.DataFrame({"d3mIndex": rng.permutation(n), "x": rng.normal(size=n).round(3), "y": y})
    cols = [Column(0, "d3mIndex", "integer", ("index",)), Column(1, "x", "real", ("attribute",)),
            Column(2, "y", "categorical", ("suggestedTarget",))]
    ddoc = DatasetDoc.new("c_dataset", "c", [Resource.table("learningData", "tables/learningData.csv", cols)])
    pdoc = ProblemDoc.new("c_problem", "c", "classification", "multiClass", "c_dataset",
                          [Target(0, "learningData", 2, "y")], [{"metric": "accuracy"}],
                          splits={"method": "holdOut", "testSize": 0.5, "randomSeed": 2})
    with TaskRootWriter(tmp_path / "t", "c", benchmark="test", seed=0) as w:
        w.write_table("tables/learningData.csv", df)
        w.write_dataset_doc(ddoc)
        w.write_problem_doc(pdoc)
    write_views(w.root, tmp_path / "v")
    te = read_table(tmp_path / "v/TEST/dataset_TEST/tables/learningData.csv")
    assert te["d3mIndex"].astype(int).is_monotonic_increasing and (te["y"] == "").all()
    sp = read_table(tmp_path / "v/TEST/problem_TEST/dataSplits.csv")
    assert sp["d3mIndex"].astype(int).is_monotonic_increasing
