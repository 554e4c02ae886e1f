"""datasetDoc and whole-task-root conversion between datasetSchema 3.1.2 and 4.0.0
(d3mkit.documents.convert_dataset, ``d3mkit convert TREE --to V --out DIR``)."""

import json

import pytest

from d3mkit.cli import main
from d3mkit.documents.convert_dataset import box_to_polygon, convert_dataset, polygon_to_box
from d3mkit.validation import validate_paths

from validate_helpers import build_detection, build_tabular


@pytest.mark.parametrize("box", ["0,0,10,12", "1.5,2,30.25,40", "-3,4,5,6e1"])
def test_box_polygon_round_trip(box):
    poly = box_to_polygon(box)
    assert len(poly.split(",")) == 8
    assert polygon_to_box(poly) == (box, True)


def test_non_rectangle_polygon_is_lossy():
    assert polygon_to_box("0,0,10,0,5,8") == ("0,0,10,8", False)
    with pytest.raises(ValueError):
        box_to_polygon("1,2,3")


def test_tabular_dataset_round_trip(tmp_path):
    root = build_tabular(tmp_path)
    doc = json.loads((root / f"{root.name}_dataset" / "datasetDoc.json").read_text())
    new, issues, rewrites = convert_dataset(doc, "4.0.0")
    assert issues == [] and rewrites == []
    assert all(isinstance(r["resFormat"], dict) for r in new["dataResources"])
    back, issues, _ = convert_dataset(new, "3.1.2")
    assert back == doc and issues == []


def test_partial_400_table_cannot_become_312():
    doc = {"about": {"datasetID": "d", "datasetSchemaVersion": "4.0.0"}, "dataResources": [
        {"resID": "learningData", "resPath": "t.csv", "resType": "table", "resFormat": {"text/csv": ["csv"]},
         "columnsCount": 3, "columns": [{"colIndex": 0, "colName": "d3mIndex", "colType": "integer",
                                          "role": ["index"]}]}]}
    new, issues, _ = convert_dataset(doc, "3.1.2")
    assert new is None and [i.code for i in issues if i.is_error] == ["convert.partial_columns"]


@pytest.mark.slow
def test_detection_task_root_to_400_and_back(tmp_path):
    root = build_detection(tmp_path / "src")
    ld = root / "od_dataset" / "tables" / "learningData.csv"
    assert main(["convert", str(root), "--to", "4.0.0", "--out", str(tmp_path / "v4")]) == 0
    v4 = tmp_path / "v4"
    doc = json.loads((v4 / "od_dataset" / "datasetDoc.json").read_text())
    col = doc["dataResources"][1]["columns"][2]
    assert "boundingPolygon" in col["role"] and "boundingBox" not in col["role"]
    assert json.loads((v4 / "od_problem" / "problemDoc.json").read_text())["about"]["taskKeywords"] == ["objectDetection"]
    text = (v4 / "od_dataset" / "tables" / "learningData.csv").read_text()
    assert '"0,0,0,12,10,12,10,0"' in text
    assert validate_paths([v4]).valid(strict=True), validate_paths([v4]).to_text()
    # and back: the same table bytes as the source
    assert main(["convert", str(v4), "--to", "3.1.1", "--out", str(tmp_path / "v3")]) == 0
    assert (tmp_path / "v3" / "od_dataset" / "tables" / "learningData.csv").read_bytes() == ld.read_bytes()
    assert validate_paths([tmp_path / "v3"]).valid(strict=True)


def test_convert_usage(tmp_path, capsys):
    root = build_detection(tmp_path / "src")
    assert main(["convert", str(root), "--to", "4.0.0"]) == 2            # a tree needs --out
    assert main(["convert", str(root), "--to", "4.0.0", "--out", str(root / "x")]) == 2   # inside the root
    (tmp_path / "taken").mkdir()
    assert main(["convert", str(root), "--to", "4.0.0", "--out", str(tmp_path / "taken")]) == 2
    # a datasetDoc with boxes alone: its table changes too
    assert main(["convert", str(root / "od_dataset"), "--to", "4.0.0"]) == 1
    assert "convert the task root" in capsys.readouterr().err


def test_detection_predictions_in_the_d3m_layout(tmp_path):
    """The D3M objectDetection predictions (d3mIndex, boxes[, confidence]) without the image
    column score as with it when each truth d3mIndex names one image (as d3m writes them)."""
    from d3mkit.scoring.score import score_predictions
    from d3mkit.tables import read_table, write_table
    root = build_detection(tmp_path / "src")
    ld = read_table(root / "od_dataset" / "tables" / "learningData.csv")
    test = ld[ld["d3mIndex"].isin({"2", "7"})]
    with_image = tmp_path / "a.csv"
    write_table(test[["d3mIndex", "image", "bounding_box"]], with_image)
    without = tmp_path / "b.csv"
    write_table(test[["d3mIndex", "bounding_box"]], without)
    problem = root / "od_problem" / "problemDoc.json"
    a = score_predictions(problem, with_image, dataset=root / "od_dataset")
    b = score_predictions(problem, without, dataset=root / "od_dataset")
    assert a.scores == b.scores and a.scores[0].value == 1.0
    bad = tmp_path / "c.csv"
    write_table(test[["d3mIndex", "bounding_box"]].assign(d3mIndex="99"), bad)
    from d3mkit.core.errors import D3MKitError
    with pytest.raises(D3MKitError) as exc:
        score_predictions(problem, bad, dataset=root / "od_dataset")
    assert "predictions.image_set" in {i.code for i in exc.value.issues}
