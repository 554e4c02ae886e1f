"""``d3mkit import croissant`` (issue 24 item 2): a CSV record set of a local Croissant file
becomes a task root through the table import; export -> import -> export gives the same
record set and values; what cannot map is refused with a named issue, nothing written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from _attack_util import refused, run
from d3mkit.importing.croissant import read_record_set
from d3mkit.taskroot import TaskRoot

REPO = Path(__file__).resolve().parent.parent


def _exported(tmp: Path, capsys, name: str = "wine") -> Path:
    shutil.copytree(REPO / "problems" / name, tmp / name)
    assert run(["export", "croissant", tmp / name], capsys)[0] == 0
    return tmp / f"{name}.croissant.json"


def _fields(doc: dict, rs: str) -> list[tuple]:
    r = next(x for x in doc["recordSet"] if x["@id"] == rs)
    return [(f["name"], json.dumps(f["dataType"])) for f in r["field"]]


def test_round_trip(tmp_path, capsys):
    first = _exported(tmp_path, capsys)
    out = tmp_path / "imported"
    code, stdout, err = run(["import", "croissant", first, "--record-set", "learningData", "--target", "class",
                             "--out", out], capsys)
    assert code == 0, err
    root = Path(stdout.strip().splitlines()[-1])
    assert root == out / "wine"
    task = TaskRoot.open(root)
    assert task.targets == ["class"] and task.problem.task_type == "classification"
    code, stdout, err = run(["export", "croissant", root], capsys)
    assert code == 0, err
    second = Path(stdout.strip())
    d1, d2 = json.loads(first.read_text()), json.loads(second.read_text())
    assert _fields(d1, "learningData") == _fields(d2, "learningData")
    assert _fields(d1, "enumerations/class") == _fields(d2, "enumerations/class")
    a, b = read_record_set(first, "learningData").frame, read_record_set(second, "learningData").frame
    pd.testing.assert_frame_equal(a, b)


def test_text_stays_text(tmp_path, capsys):
    """Cells are read by d3mkit's reader: '007' and 'NA' stay as written."""
    from _scoring_util import make_task
    frame = pd.DataFrame({"d3mIndex": range(6), "code": ["007", "NA", "1.50", "x", "", "y"],
                          "y": list("ababab")})
    root = make_task(tmp_path, "codes", frame, ["y"], [{"metric": "accuracy"}], col_types={"code": "string"},
                     test=[0, 1])
    assert run(["export", "croissant", root], capsys)[0] == 0
    code, stdout, err = run(["import", "croissant", tmp_path / "codes.croissant.json", "--record-set",
                             "learningData", "--target", "y", "--out", tmp_path / "in", "--name", "back"], capsys)
    assert code == 0, err
    back = TaskRoot.open(tmp_path / "in" / "back").learning_data()
    assert back["code"].tolist() == ["007", "NA", "1.50", "x", "", "y"]


def _variant(tmp: Path, capsys, change) -> Path:
    src = _exported(tmp, capsys)
    doc = json.loads(src.read_text())
    change(doc)
    p = tmp / "variant.json"
    p.write_text(json.dumps(doc))
    return p


def _ld(doc):
    return next(r for r in doc["recordSet"] if r["@id"] == "learningData")


CASES = {
    "url": (lambda d: d["distribution"][0].update(contentUrl="https://example.org/learningData.csv"),
            "croissant.url"),
    "dotdot": (lambda d: d["distribution"][0].update(contentUrl="../../etc/passwd"), "path.escape"),
    "absolute": (lambda d: d["distribution"][0].update(contentUrl="/etc/passwd"), "path.escape"),
    "context": (lambda d: d["@context"].update(cr="http://example.org/other/"), "croissant.context"),
    "version": (lambda d: d.update(conformsTo="http://mlcommons.org/croissant/9.9"), "croissant.context"),
    "nested": (lambda d: _ld(d)["field"][1].update(subField=[{"@id": "x"}]), "croissant.nested"),
    "parquet": (lambda d: d["distribution"][0].update(encodingFormat="application/x-parquet"),
                "croissant.unsupported"),
    "archive": (lambda d: d["distribution"][0].update(containedIn={"@id": "zip"}), "croissant.unsupported"),
    "transform": (lambda d: _ld(d)["field"][1]["source"].update(transform={"regex": "x"}),
                  "croissant.unsupported"),
    "fileproperty": (lambda d: _ld(d)["field"][1]["source"].update(extract={"fileProperty": "filename"}),
                     "croissant.unsupported"),
    "column": (lambda d: _ld(d)["field"][1]["source"].update(extract={"column": "nope"}), "croissant.column"),
    "digest": (lambda d: d["distribution"][0].update(sha256="0" * 64), "croissant.digest"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_refused(tmp_path, capsys, case):
    change, code = CASES[case]
    p = _variant(tmp_path, capsys, change)
    out = tmp_path / "out"
    refused(["import", "croissant", p, "--record-set", "learningData", "--target", "class", "--out", out],
            capsys, code, 1, path=p if code not in ("croissant.digest",) else None)
    assert not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize("content, code", [("{not json", "json.syntax"), ("[1, 2]", "croissant.context"),
                                           ('{"@context": "https://schema.org/"}', "croissant.context")])
def test_corrupt_or_unknown(tmp_path, capsys, content, code):
    p = tmp_path / "c.json"
    p.write_text(content)
    refused(["import", "croissant", p, "--record-set", "x", "--target", "y", "--out", tmp_path / "o"], capsys, code, 1)
    assert not (tmp_path / "o").exists()


def test_missing_record_set_and_url_file(tmp_path, capsys):
    p = _exported(tmp_path, capsys)
    text = refused(["import", "croissant", p, "--record-set", "nope", "--target", "class", "--out", tmp_path / "o"],
                   capsys, "croissant.record_set", 1)
    assert "learningData" in text                        # names the record sets there are
    refused(["import", "croissant", "https://example.org/c.json", "--record-set", "x", "--target", "y",
             "--out", tmp_path / "o"], capsys, "croissant.url", 1)
