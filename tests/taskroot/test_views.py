"""``d3mkit views``: TRAIN/TEST/SCORE views of small task roots."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from d3mkit.cli import main
from d3mkit.documents import Column, DatasetDoc, ProblemDoc, Resource, Target
from d3mkit.core.errors import D3MKitError, UsageError
from d3mkit.taskroot.writer import TaskRootWriter
from d3mkit.tables import read_table
from d3mkit.taskroot.views import write_views


@pytest.fixture(scope="module")
def wine(tmp_path_factory):
    from d3mkit.benchmarks.tabular import build_task_root
    return build_task_root(tmp_path_factory.mktemp("wine"), "wine", seed=1)


def _ids(path):
    return set(read_table(path)["d3mIndex"])


def test_tabular_views(wine, tmp_path, capsys):
    out = tmp_path / "views"
    assert main(["views", str(wine), "--out", str(out)]) == 0
    printed = capsys.readouterr().out.split()
    assert str(out / "TRAIN" / "dataset_TRAIN") in printed and str(out / "SCORE" / "targets.csv") in printed

    ld = read_table(wine / "wine_dataset" / "tables" / "learningData.csv")
    splits = read_table(wine / "wine_problem" / "dataSplits.csv")
    train_ids = set(splits.loc[splits["type"] == "TRAIN", "d3mIndex"])
    test_ids = set(splits.loc[splits["type"] == "TEST", "d3mIndex"])

    # TRAIN: exactly the TRAIN rows, no TEST row leaks in
    tr = read_table(out / "TRAIN" / "dataset_TRAIN" / "tables" / "learningData.csv")
    assert set(tr["d3mIndex"]) == train_ids and not set(tr["d3mIndex"]) & test_ids
    assert _ids(out / "TRAIN" / "problem_TRAIN" / "dataSplits.csv") == train_ids
    assert set(read_table(out / "TRAIN" / "problem_TRAIN" / "dataSplits.csv")["type"]) == {"TRAIN"}
    # rows are byte-identical to the source rows
    src_lines = (wine / "wine_dataset" / "tables" / "learningData.csv").read_text().splitlines()
    view_lines = (out / "TRAIN" / "dataset_TRAIN" / "tables" / "learningData.csv").read_text().splitlines()
    assert set(view_lines) <= set(src_lines)

    # TEST: TEST rows, no target values, features intact
    te = read_table(out / "TEST" / "dataset_TEST" / "tables" / "learningData.csv")
    assert set(te["d3mIndex"]) == test_ids
    assert (te["class"] == "").all()
    assert (te["alcohol"] != "").all()
    assert set(read_table(out / "TEST" / "problem_TEST" / "dataSplits.csv")["type"]) == {"TEST"}

    # SCORE: TEST rows with targets; targets.csv matches the source
    sc = read_table(out / "SCORE" / "dataset_SCORE" / "tables" / "learningData.csv")
    assert set(sc["d3mIndex"]) == test_ids and (sc["class"] != "").all()
    targets = read_table(out / "SCORE" / "targets.csv")
    assert list(targets.columns) == ["d3mIndex", "class"]
    expected = ld[ld["d3mIndex"].isin(test_ids)][["d3mIndex", "class"]].reset_index(drop=True)
    pd.testing.assert_frame_equal(targets, expected)

    # IDs follow the D3M view convention
    for v in ("TRAIN", "TEST", "SCORE"):
        d = DatasetDoc.load(out / v / f"dataset_{v}")
        p = ProblemDoc.load(out / v / f"problem_{v}")
        assert d.dataset_id == f"wine_dataset_{v}"
        assert p.problem_id == f"wine_problem_{v}" and p.dataset_id == f"wine_dataset_{v}"


def test_views_refuse_overwrite_and_force(wine, tmp_path):
    out = tmp_path / "v"
    write_views(wine, out)
    (out / "marker").write_text("x")
    with pytest.raises(UsageError):
        write_views(wine, out)
    assert (out / "marker").exists()
    write_views(wine, out, force=True)
    assert not (out / "marker").exists() and (out / "SCORE" / "targets.csv").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["v"]            # no temp sibling left


def test_views_failure_leaves_nothing(wine, tmp_path):
    with pytest.raises(D3MKitError) as ei:
        write_views(wine, tmp_path / "v", repeat=3)
    assert ei.value.issues[0].code == "views.no_fold"
    assert list(tmp_path.iterdir()) == []


def _png(path, shade):
    from PIL import Image
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("L", (4, 4), color=shade).save(path)


@pytest.fixture()
def detection(tmp_path):
    """An objectDetection task root with an image collection, several boxes per image."""
    rows = []
    i = 0
    for img in range(8):
        for b in range(1 + img % 3):
            rows.append({"d3mIndex": i, "image": f"img{img}.png", "bounding_box": f"{b},{b},3,3"})
            i += 1
    df = pd.DataFrame(rows)
    cols = [Column(0, "d3mIndex", "integer", ("index",)),
            Column(1, "image", "string", ("index",), {"resID": "0", "resObject": "item"}),
            Column(2, "bounding_box", "realVector", ("suggestedTarget", "boundaryIndicator", "boundingBox"),
                   {"resID": "learningData", "resObject": {"columnName": "image"}})]
    ddoc = DatasetDoc.new("det_dataset", "det", [
        Resource.collection("0", "media/", "image", ["image/png"]),
        Resource.table("learningData", "tables/learningData.csv", cols)])
    pdoc = ProblemDoc.new("det_problem", "det", "objectDetection", None, "det_dataset",
                          [Target(0, "learningData", 2, "bounding_box")], [{"metric": "objectDetectionAP"}],
                          splits={"method": "kFold", "numFolds": 4, "stratified": False, "randomSeed": 2})
    with TaskRootWriter(tmp_path, "det", benchmark="test", seed=0) as w:
        for img in range(8):
            _png(w.media_path(f"media/img{img}.png"), img * 30)
        w.write_table("tables/learningData.csv", df)
        w.write_dataset_doc(ddoc)
        w.write_problem_doc(pdoc)
    return w.root


def test_detection_views_copy_only_referenced_media(detection, tmp_path):
    out = tmp_path / "views"
    write_views(detection, out)
    splits = read_table(detection / "det_problem" / "dataSplits.csv")
    s0 = splits[(splits["repeat"] == "0") & (splits["fold"] == "0")]
    train_imgs = set(s0.loc[s0["type"] == "TRAIN", "image"])
    test_imgs = set(s0.loc[s0["type"] == "TEST", "image"])
    assert train_imgs and test_imgs and not train_imgs & test_imgs
    assert {p.name for p in (out / "TRAIN" / "dataset_TRAIN" / "media").iterdir()} == train_imgs
    assert {p.name for p in (out / "TEST" / "dataset_TEST" / "media").iterdir()} == test_imgs
    assert (out / "TEST" / "dataset_TEST" / "media" / sorted(test_imgs)[0]).read_bytes() == \
        (detection / "det_dataset" / "media" / sorted(test_imgs)[0]).read_bytes()
    te = read_table(out / "TEST" / "dataset_TEST" / "tables" / "learningData.csv")
    assert (te["bounding_box"] == "").all() and set(te["image"]) == test_imgs
    targets = read_table(out / "SCORE" / "targets.csv")
    assert list(targets.columns) == ["d3mIndex", "image", "bounding_box"]
    assert set(targets["image"]) == test_imgs and (targets["bounding_box"] != "").all()
    # the kFold section becomes the single holdOut blind evaluation uses
    p = json.loads((out / "TRAIN" / "problem_TRAIN" / "problemDoc.json").read_text())
    assert p["inputs"]["dataSplits"]["method"] == "holdOut"
    assert p["inputs"]["dataSplits"]["testSize"] == 0.0   # the TRAIN view: every row TRAIN
    assert list(read_table(out / "TRAIN" / "problem_TRAIN" / "dataSplits.csv").columns) == \
        ["d3mIndex", "image", "type", "repeat", "fold"]


def test_views_refuse_paths_escaping_the_dataset(detection, tmp_path):
    doc_path = detection / "det_dataset" / "datasetDoc.json"
    doc = json.loads(doc_path.read_text())
    doc["dataResources"][0]["resPath"] = "../../"
    doc_path.write_text(json.dumps(doc))
    with pytest.raises(D3MKitError) as ei:
        write_views(detection, tmp_path / "v")
    assert ei.value.issues[0].code == "path.escape"
    assert not (tmp_path / "v").exists()


def test_views_refuse_overlapping_splits(wine, tmp_path):
    import shutil
    root = tmp_path / "wine"
    shutil.copytree(wine, root)
    sp = root / "wine_problem" / "dataSplits.csv"
    sp.write_text(sp.read_text() + "0,TEST,0,0\n")
    assert main(["views", str(root), "--out", str(tmp_path / "v")]) == 1
    assert not (tmp_path / "v").exists()


@pytest.mark.parametrize("method", ["holdOut", "kFold"])
def test_views_validate(wine, tmp_path, method):
    """Everything views writes validates, from holdOut and kFold sources (the view's
    problemDoc says holdOut with testSize 0.0 or 1.0, which its splits file holds)."""
    import shutil

    from d3mkit.validation import validate_paths
    src = wine
    if method == "kFold":
        src = tmp_path / "wine"
        shutil.copytree(wine, src)
        p = src / "wine_problem" / "problemDoc.json"
        doc = json.loads(p.read_text())
        doc["inputs"]["dataSplits"] = {"method": "kFold", "numFolds": 3, "stratified": True,
                                       "numRepeats": 0, "randomSeed": 1, "splitsFile": "dataSplits.csv"}
        p.write_text(json.dumps(doc))
        assert main(["split", str(src / "wine_problem"), "--force"]) == 0
    out = tmp_path / "views"
    write_views(src, out, fold=1 if method == "kFold" else 0)
    report = validate_paths([out])
    assert report.valid(strict=True), report.to_text()
    for v, size in (("TRAIN", 0.0), ("TEST", 1.0), ("SCORE", 1.0)):
        ds = ProblemDoc.load(out / v / f"problem_{v}").data["inputs"]["dataSplits"]
        assert ds["method"] == "holdOut" and ds["testSize"] == size and "numFolds" not in ds


@pytest.mark.slow
def test_views_cut_tables_that_refer_to_learning_data(tmp_path):
    """A secondary table keyed by learningData's d3mIndex keeps only the view's rows
    (the ViSudo-PC example's cells.csv), so the views validate."""
    from pathlib import Path

    from d3mkit.validation import validate_paths
    root = Path(__file__).resolve().parents[2] / "problems" / "visudo_basic_digits_d4_n2_o0_s0"
    out = tmp_path / "views"
    write_views(root, out)
    assert validate_paths([out]).valid(strict=True)
    for v in ("TRAIN", "TEST"):
        ids = _ids(out / v / f"dataset_{v}" / "tables" / "learningData.csv")
        cells = read_table(out / v / f"dataset_{v}" / "tables" / "cells.csv")
        assert set(cells["d3mIndex"]) == ids
