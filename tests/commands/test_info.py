"""``d3mkit info``: what a task root, a dataset or a problem holds, as text and JSON, for roots
whose contents the test knows; bad paths get one line and exit 2."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import d3mkit
from _attack_util import refused, run


def _root(tmp_path):
    df = pd.DataFrame({"x": [i * 0.5 for i in range(20)], "n": list(range(20)),
                       "y": ["a"] * 12 + ["b"] * 6 + [""] * 2, "z": [i * 1.5 for i in range(20)]})
    return d3mkit.import_table(df, target="y", out=tmp_path / "o", name="toy", split="kFold", folds=3,
                               repeats=2)


def test_info_json_of_a_task_root(tmp_path, capsys):
    root = _root(tmp_path)
    code, out, err = run(["info", root, "--format", "json"], capsys)
    assert code == 0 and err == ""
    d = json.loads(out)
    assert d["kind"] == "taskRoot" and d["rows"] == 18
    assert d["columns"] == {"index": {"integer": 1}, "attribute": {"real": 2, "integer": 1},
                            "suggestedTarget": {"categorical": 1}}
    assert d["targets"] == [{"name": "y", "colType": "categorical", "missing": 0, "classes": {"a": 12, "b": 6}}]
    assert d["problem"]["taskType"] == "classification" and d["metrics"] == ["accuracy", "f1Macro"]
    assert [(f["repeat"], f["fold"]) for f in d["splits"]["folds"]] == [(r, f) for r in (0, 1) for f in (0, 1, 2)]
    assert all(f["train"] + f["test"] == 18 and f["test"] == 6 for f in d["splits"]["folds"])
    assert d["dataset"]["datasetSchemaVersion"] == "3.1.2" and d["problem"]["problemSchemaVersion"] == "3.1.1"
    assert d["media"] == []


@pytest.mark.slow
def test_info_text_regression_and_media(tmp_path, capsys):
    from PIL import Image
    root = _root(tmp_path)
    code, out, _ = run(["info", root], capsys)
    assert code == 0
    assert "target     y (categorical): 2 classes: a 12, b 6" in out
    assert "repeat 1 fold 2: TRAIN 12, TEST 6" in out
    r = d3mkit.import_table(pd.DataFrame({"x": range(10), "v": [i * 1.25 for i in range(10)]}), target="v",
                            out=tmp_path / "o", name="reg")
    d = d3mkit.info(r)
    assert d["targets"][0]["range"] == {"min": 0.0, "max": 11.25, "mean": 5.625}
    pics = tmp_path / "pics"
    for k, c in enumerate(("p", "q")):
        (pics / c).mkdir(parents=True)
        for i in range(3):
            Image.new("L", (4, 4), 10 * k + i).save(pics / c / f"{i}.png")
    img = d3mkit.import_images(pics, out=tmp_path / "o")
    m = d3mkit.info(img)["media"]
    sizes = sum(p.stat().st_size for p in pics.rglob("*.png"))
    assert m == [{"resID": "media", "resType": "image", "files": 6, "bytes": sizes}]
    code, out, _ = run(["info", img], capsys)
    assert "media      media (image): 6 files" in out


def test_info_of_single_documents(tmp_path, capsys):
    root = _root(tmp_path)
    d = d3mkit.info(root / "toy_dataset" / "datasetDoc.json")
    assert d["kind"] == "dataset" and d["rows"] == 18 and "problem" not in d
    d = d3mkit.info(root / "toy_problem")
    assert d["kind"] == "problem" and len(d["splits"]["folds"]) == 6


def test_info_refuses_what_is_not_d3m(tmp_path, capsys):
    f = tmp_path / "data.csv"
    f.write_text("a,b\n1,2\n")
    refused(["info", f], capsys, "info.path", 2, path=f)
    refused(["info", tmp_path / "nope"], capsys, "usage.path", 2)
    j = tmp_path / "x.json"
    j.write_text('{"about": {"datasetID": "x"')
    refused(["info", j], capsys, "json.syntax", 1, path=j)


@pytest.mark.slow
def test_info_counts_instances_of_a_multilabel_root(tmp_path, capsys):
    """A multiLabel root (one row per (d3mIndex, label)): instances and label rows apart, the
    class balance counted over instances, TRAIN/TEST in instances with their rows beside."""
    rows = [(i, i * 0.5, lab) for i in range(24) for lab in (["a"] + (["b"] if i % 2 else []) + (["c"] if i % 3 == 0 else []))]
    src = tmp_path / "ml.csv"
    pd.DataFrame(rows, columns=["d3mIndex", "x", "y"]).to_csv(src, index=False)
    root = d3mkit.import_table(src, target="y", out=tmp_path / "o", split="kFold", folds=4)
    d = d3mkit.info(root)
    assert d["rows"] == len(rows) == 24 + 12 + 8 and d["instances"] == 24
    t = d["targets"][0]
    assert (t["labelRows"], t["instances"], t["classes"]) == (44, 24, {"a": 24, "b": 12, "c": 8})
    assert t["labelsPerInstance"] == {"min": 1.0, "max": 3.0, "mean": 44 / 24}
    folds = d["splits"]["folds"]
    assert d["splits"]["unit"] == "instance" and all((f["train"], f["test"]) == (18, 6) for f in folds)
    assert sum(f["testRows"] for f in folds) == 44 and all(f["trainRows"] + f["testRows"] == 44 for f in folds)
    code, out, _ = run(["info", root], capsys)
    assert code == 0
    assert "rows       44 (24 instances: distinct d3mIndex)" in out
    assert "3 labels on 24 instances (44 label rows; 1-3 labels per instance" in out
    assert "instances per label: a 24, b 12, c 8" in out
    assert f"repeat 0 fold 0: TRAIN 18, TEST 6 instances (rows: TRAIN {folds[0]['trainRows']}, TEST " in out
    _check_counts(root)


def test_info_of_object_detection_counts_boxes_and_images(tmp_path, capsys):
    """objectDetection: the target is boxes on images (not classes of box strings), the folds
    count images, whether d3mIndex names an image or each box."""
    from validate_helpers import build_detection
    root = build_detection(tmp_path / "a")
    d = d3mkit.info(root)
    assert (d["rows"], d["instances"]) == (19, 10)
    t = d["targets"][0]
    assert (t["boxes"], t["images"], "classes" in t) == (19, 10, False)
    assert t["boxesPerImage"] == {"min": 1.0, "max": 3.0, "mean": 1.9}
    assert d["splits"]["unit"] == "image" and d["splits"]["folds"][0] | {} == {"repeat": 0, "fold": 0, "train": 8,
                                                                              "test": 2}
    # each box its own d3mIndex: the images are still what the folds count
    ld = root / "od_dataset" / "tables" / "learningData.csv"
    s = root / "od_problem" / "dataSplits.csv"
    boxes = pd.read_csv(ld)
    split = pd.read_csv(s)
    split["d3mIndex"] = range(len(split))
    boxes["d3mIndex"] = range(len(boxes))
    boxes.to_csv(ld, index=False)
    split.to_csv(s, index=False)
    d = d3mkit.info(root)
    assert (d["rows"], d["instances"]) == (19, 19)
    assert d["splits"]["folds"][0]["train"] == 8 and d["splits"]["folds"][0]["test"] == 2
    code, out, _ = run(["info", root], capsys)
    assert "19 boxes on 10 images (1-3 per image, mean 1.9)" in out and "TRAIN 8, TEST 2 images" in out


def test_info_summarises_a_target_by_what_it_holds(tmp_path):
    """An integer target of a classification task is a class balance, a free-text target a
    count of distinct values, one class is 'class'."""
    df = pd.DataFrame({"x": [i * 0.5 for i in range(12)], "y": [0, 1, 1] * 4})
    root = d3mkit.import_table(df, target="y", out=tmp_path / "o", name="b")
    doc = root / "b_dataset" / "datasetDoc.json"          # as published roots declare a 0/1 label
    data = json.loads(doc.read_text())
    data["dataResources"][0]["columns"][2]["colType"] = "integer"
    doc.write_text(json.dumps(data))
    d = d3mkit.info(root)
    assert d["targets"][0]["colType"] == "integer" and d["targets"][0]["classes"] == {"1": 8, "0": 4}
    from d3mkit.importing.info import format_text, target_kind
    assert target_kind("integer", "regression", pd.Series(["1", "2"])) == "range"
    assert target_kind(None, "classification", pd.Series(["1.5", "2"])) == "classes"
    assert target_kind(None, None, pd.Series(["1.5", "2"])) == "range"
    assert target_kind("string", "classification", pd.Series(["a b", "c d"])) == "distinct"
    assert target_kind("string", "classification", pd.Series(["a", "a", "b", "b"])) == "classes"
    one = {"kind": "problem", "path": "p", "targets": [{"name": "y", "colType": None, "classes": {"a": 3}}]}
    assert "target     y (colType not declared): 1 class: a 3" in format_text(one)


def _realworld_roots():
    import os
    from pathlib import Path
    base = os.environ.get("D3MKIT_REALWORLD")
    return sorted(p for p in (Path(base) / "roots").iterdir() if p.is_dir()) if base else []


def _check_counts(root):
    """info's counts of ``root`` against pandas' count of its files: rows and instances of
    learningData, class balances that add up to the rows (over instances for multiLabel), a
    range for regression targets and classes for classification ones, TRAIN + TEST per fold
    the instances (images for objectDetection) the splits file lists."""
    from d3mkit.taskroot.model import TaskRoot
    d = d3mkit.info(root)
    task = TaskRoot.open(root)
    ld = pd.read_csv(task.dataset.resource_path(task.dataset.learning_data), dtype=str, keep_default_na=False)
    assert d["rows"] == len(ld), root.name
    assert d["instances"] == ld["d3mIndex"].nunique(), root.name
    task_type, subtype = d["problem"]["taskType"], d["problem"]["taskSubType"]
    for t in d["targets"]:
        assert "colType" in t and ("classes" in t or "range" in t or "distinct" in t or "boxes" in t), (root.name, t)
        if "classes" in t and "otherClasses" not in t:
            # multiLabel: instances per label, one per distinct (d3mIndex, label) row
            whole = len(ld[["d3mIndex", t["name"]]].drop_duplicates()) if subtype == "multiLabel" \
                else len(ld) - t["missing"]
            assert sum(t["classes"].values()) == whole, (root.name, t["name"])
        if task_type in ("regression", "timeSeriesForecasting"):
            assert "range" in t, (root.name, t)
        if task_type == "classification" and t["colType"] != "string":
            assert "classes" in t, (root.name, t)
    s = task.splits() if d["splits"]["folds"] else None
    for f in d["splits"]["folds"] or []:
        listed = s[(s["repeat"].astype(int) == f["repeat"]) & (s["fold"].astype(int) == f["fold"])]
        unit = "image" if d["splits"]["unit"] == "image" else "d3mIndex"
        assert f["train"] + f["test"] == listed[unit].nunique(), root.name


@pytest.mark.slow
def test_info_counts_of_the_bundled_problems():
    from pathlib import Path
    problems = sorted(p for p in (Path(__file__).parents[2] / "problems").iterdir() if p.is_dir())
    assert len(problems) >= 4
    for root in problems:
        _check_counts(root)


@pytest.mark.slow
@pytest.mark.skipif(not _realworld_roots(), reason="D3MKIT_REALWORLD is not set (the shared corpus of published "
                    "task roots; .ci/run sets it)")
def test_info_counts_of_the_published_roots():
    """Every published root of the shared corpus (:func:`_check_counts`)."""
    for root in _realworld_roots():
        _check_counts(root)
