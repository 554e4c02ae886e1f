"""``d3mkit info``: what a task root, a dataset or a problem holds, as text and JSON, for roots
whose contents the test knows; bad paths get one line and exit 2."""

from __future__ import annotations

import json

import pandas as pd

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
    for c in ("p", "q"):
        (pics / c).mkdir(parents=True)
        for i in range(3):
            Image.new("L", (4, 4), i).save(pics / c / f"{i}.png")
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
