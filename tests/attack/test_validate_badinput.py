"""Bad input: wrong types, huge lines, escaping paths, odd CSVs. Each is a structured
Issue and a non-zero exit, never a traceback."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from d3mkit.cli import main
from d3mkit.validation import validate_paths

from validate_helpers import Root, build_tabular


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    return build_tabular(tmp_path_factory.mktemp("bad"))


@pytest.fixture
def tab(pristine, tmp_path) -> Root:
    return Root(shutil.copytree(pristine, tmp_path / "t"))


def issues(root, code=None):
    got = validate_paths([root]).issues()
    return [i for i in got if code is None or i.code == code]


def exit_code(root, capsys) -> int:
    code = main(["validate", str(root)])
    out = capsys.readouterr()
    assert "Traceback" not in out.err and "internal error" not in out.err
    return code


def test_symlinked_resource_escaping_root(tab, tmp_path, capsys):
    outside = tmp_path / "secret.csv"
    outside.write_text("gid,label\ng0,zero\n")
    groups = tab.dataset / "tables" / "groups.csv"
    groups.unlink()
    groups.symlink_to(outside)
    (i,) = issues(tab.root, "path.escape")
    assert i.location == "dataResources[1].resPath" and "symlink" in i.message
    assert exit_code(tab.root, capsys) == 1


def test_absolute_res_path(tab, capsys):
    tab.ds(lambda d: d["dataResources"][1].update(resPath=str((tab.dataset / "tables/groups.csv").resolve())))
    (i,) = issues(tab.root, "path.escape")
    assert "absolute" in i.message


def test_collection_item_escaping(tab, tmp_path):
    (tmp_path / "outside.png").write_bytes(b"x")
    (tab.dataset / "media" / "link.png").symlink_to(tmp_path / "outside.png")
    tab.set_cell(tab.ld, 1, "image", "link.png")
    tab.set_cell(tab.ld, 2, "image", "../../t_problem/problemDoc.json")
    got = issues(tab.root, "path.escape")
    assert {i.location for i in got} == {"row 3, column image", "row 4, column image"}


def test_splits_file_escaping(tab):
    tab.pr(lambda d: d["inputs"]["dataSplits"].update(splitsFile="../../elsewhere.csv"))
    (i,) = issues(tab.root, "path.escape")
    assert i.location == "inputs.dataSplits.splitsFile"


@pytest.mark.parametrize("mutate", [
    lambda d: d.update(inputs="nope"),
    lambda d: d["inputs"].update(data={"datasetID": 3}),
    lambda d: d["inputs"]["data"][0].update(targets="y"),
    lambda d: d["inputs"]["data"][0]["targets"][0].update(colIndex=True, targetIndex=None),
    lambda d: d["inputs"].update(dataSplits=[1, 2]),
    lambda d: d["inputs"]["dataSplits"].update(numRepeats="2", numFolds=-1, testSize="x", splitsFile=5),
    lambda d: d["inputs"].update(performanceMetrics=[None, 3, {"metric": ["f1"]}]),
    lambda d: d.update(about=None),
])
def test_wrong_types_in_problem(tab, capsys, mutate):
    tab.pr(mutate)
    got = issues(tab.root)
    assert got and all(i.code.startswith("schema.") for i in got if i.path.endswith("problemDoc.json"))
    assert exit_code(tab.root, capsys) == 1


@pytest.mark.parametrize("mutate", [
    lambda d: d.update(dataResources={"resID": "x"}),
    lambda d: d["dataResources"][2].update(columns="d3mIndex"),
    lambda d: d["dataResources"][2]["columns"][0].update(colIndex="0", role="index"),
    lambda d: d["dataResources"][2].update(resPath=None, isCollection="no"),
    lambda d: d["dataResources"][2]["columns"][2].update(refersTo=[1]),
    lambda d: d["dataResources"].append(7),
])
def test_wrong_types_in_dataset(tab, capsys, mutate):
    tab.ds(mutate)
    assert issues(tab.root)
    assert exit_code(tab.root, capsys) == 1


@pytest.mark.slow
def test_huge_line_in_learning_data(tab, capsys):
    tab.set_cell(tab.ld, 0, "meta", '"' + "x" * 5_000_000 + '"')
    got = issues(tab.root)
    assert [i.code for i in got] == []      # a long JSON string is a valid json value
    tab.set_cell(tab.ld, 0, "meta", "y" * 5_000_000)
    (i,) = issues(tab.root, "coltype.json")
    assert len(i.message) < 200


def test_huge_single_line_json(tab, capsys):
    tab.pr_doc.write_text('{"about": {"problemDescription": "' + "z" * 3_000_000 + '"}, ' + '"x": [' * 5 + "]")
    (i,) = issues(tab.root, "json.syntax")
    assert i.location.startswith("line 1, column ")
    assert exit_code(tab.root, capsys) == 1


def test_deeply_nested_json(tab, capsys):
    tab.pr_doc.write_text("[" * 100_000 + "]" * 100_000)
    assert issues(tab.root, "json.syntax") or issues(tab.root, "doc.not_object")
    assert exit_code(tab.root, capsys) == 1


def test_header_only_and_blank_learning_data(tab):
    tab.ld.write_text(tab.ld.read_text().splitlines()[0] + "\n")
    got = {i.code for i in issues(tab.root)}
    assert "splits.unknown_index" in got
    tab.ld.write_text("\n\n")
    assert issues(tab.root, "csv.empty")


def test_crlf_and_bom_are_fine(tab):
    text = tab.ld.read_text()
    tab.ld.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    assert issues(tab.root) == []


def test_not_utf8_csv(tab):
    tab.ld.write_bytes(tab.ld.read_bytes().replace(b"img1.png", b"img\xe9.png"))
    assert issues(tab.root, "file.encoding")


def test_document_replaced_by_directory_of_garbage(tab, capsys):
    os.remove(tab.ds_doc)
    tab.ds_doc.write_bytes(os.urandom(2000).replace(b"\x00", b"\x01"))
    assert exit_code(tab.root, capsys) == 1


def test_two_task_roots_report_separately(tab, tmp_path):
    other = Root(build_tabular(tmp_path / "more", "u"))
    other.set_cell(other.ld, 5, "k", "1.5")
    report = validate_paths([tab.root, other.root])
    bad = [d for d in report.documents if not d.valid(strict=True)]
    assert [d.path for d in bad] == [str(other.ld)]


def test_json_report_is_plain_json(tab):
    tab.set_cell(tab.ld, 5, "k", "\u00e9\u00e9")
    doc = json.loads(validate_paths([tab.root]).to_json(strict=True))
    assert doc["valid"] is False
