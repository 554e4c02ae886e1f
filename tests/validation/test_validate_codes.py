"""Every issue code: the valid fixture has none; a minimal mutation produces it.

The parametrisation runs over the codes catalogue, so a code added without a mutation
here fails ``test_every_code_has_a_mutation``."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from d3mkit.validation import validate_paths
from d3mkit.validation.codes import CODES

from validate_helpers import Root, build_detection, build_tabular

@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("pristine")
    return {"tab": build_tabular(base), "od": build_detection(base)}


@pytest.fixture
def tab(pristine, tmp_path) -> Root:
    return Root(shutil.copytree(pristine["tab"], tmp_path / "t", symlinks=True))


@pytest.fixture
def od(pristine, tmp_path) -> Root:
    return Root(shutil.copytree(pristine["od"], tmp_path / "od", symlinks=True))


def codes_of(paths, **kw) -> set[str]:
    return {i.code for i in validate_paths(paths, **kw).issues()}


@pytest.mark.slow
def test_valid_fixtures_have_no_issues(pristine):
    for root in pristine.values():
        report = validate_paths([root])
        assert report.issues() == [], "\n".join(i.format() for i in report.issues())
        assert report.valid(strict=True)
        kinds = sorted(d.kind for d in report.documents)
        assert kinds.count("problemDoc") == 1 and "dataSplits" in kinds and "learningData" in kinds


def test_seed_style_detection_is_valid(od):
    """The problemSchema appendix gives every box its own d3mIndex; that is valid too."""
    od.table(od.ld, lambda df: df.assign(d3mIndex=range(len(df))))
    od.table(od.splits, lambda df: df.assign(d3mIndex=range(len(df))))
    assert validate_paths([od.root]).issues() == []


# --------------------------------------------------------------------------- mutations
# each takes (Root, monkeypatch) and may return the paths to validate (default: the root)

def _unreadable(r: Root, mp):
    real = Path.read_bytes

    def deny(self):
        if self.name == "problemDoc.json":
            raise PermissionError(13, "Permission denied")
        return real(self)
    mp.setattr(Path, "read_bytes", deny)


def _too_large(r: Root, mp):
    with open(r.pr_doc, "r+b") as fh:
        fh.truncate(300 * 1024 * 1024)   # sparse: no disk used


def _no_learning_data(r: Root, mp):
    os.rename(r.ld, r.dataset / "tables" / "main.csv")

    def f(d):
        res = r.ld_res(d)
        res["resID"], res["resPath"] = "main", "tables/main.csv"
    r.ds(f)
    r.pr(lambda d: d["inputs"]["data"][0]["targets"][0].update(resID="main"))


def _rename_index(r: Root, mp):
    r.ds(lambda d: r.col(d, "d3mIndex").update(colName="idx"))
    r.table(r.ld, lambda df: df.rename(columns={"d3mIndex": "idx"}))


def _stratification(r: Root, mp):
    from d3mkit.tables import read_table, write_table
    ld = read_table(r.ld)
    sp = read_table(r.splits)
    y = dict(zip(ld["d3mIndex"], ld["y"]))
    a_test = [i for i, (d, t) in enumerate(zip(sp["d3mIndex"], sp["type"])) if y[d] == "a" and t == "TEST"][:2]
    b_train = [i for i, (d, t) in enumerate(zip(sp["d3mIndex"], sp["type"])) if y[d] == "b" and t == "TRAIN"][:2]
    sp.loc[a_test, "type"] = "TRAIN"
    sp.loc[b_train, "type"] = "TEST"
    write_table(sp, r.splits)


def _as_400(d: dict) -> None:
    """The fixture's datasetDoc in the datasetSchema 4.0.0 form (resFormat objects)."""
    d["about"].update(datasetSchemaVersion="4.0.0", datasetVersion=d["about"].get("datasetVersion", "1.0"))
    for res in d["dataResources"]:
        res["resFormat"] = {f: [f.split("/")[-1]] for f in res["resFormat"]}


def _columns_count(r: Root, mp):
    def f(d):
        _as_400(d)
        r.ld_res(d)["columnsCount"] = 99
    r.ds(f)


def _dataset_alone(r: Root, mp):
    shutil.rmtree(r.dataset)
    return [r.pr_doc]


def _unknown_doc(r: Root, mp):
    p = r.root / "notes.json"
    p.write_text('{"hello": 1}')
    return [r.root, p]


def _overlap(r: Root, mp):
    def f(df):
        row = df[df["type"] == "TRAIN"].iloc[[0]].assign(type="TEST")
        return __import__("pandas").concat([df, row], ignore_index=True)
    r.table(r.splits, f)


def _duplicate(r: Root, mp):
    r.table(r.splits, lambda df: __import__("pandas").concat([df, df.iloc[[0]]], ignore_index=True))


def _two_targets_same_index(d):
    d["inputs"]["data"][0]["targets"].append(
        {"targetIndex": 0, "resID": "learningData", "colIndex": 4, "colName": "k"})


def _raw(path: Path, text: str | bytes):
    def f(r: Root, mp):
        p = getattr(r, path) if isinstance(path, str) else path
        if isinstance(text, bytes):
            p.write_bytes(text)
        else:
            p.write_text(text)
    return f


def _ld_text(fn):
    def f(r: Root, mp):
        r.ld.write_text(fn(r.ld.read_text()))
    return f


MUTATIONS = {
    "file.missing": lambda r, mp: r.splits.unlink(),
    "file.unreadable": _unreadable,
    "file.is_directory": lambda r, mp: (r.splits.unlink(), r.splits.mkdir()),
    "file.too_large": _too_large,
    "file.binary": _raw("splits", b"d3mIndex,type\x00\x01\x02\n"),
    "file.encoding": _raw("pr_doc", b'{"about": {"problemID": "caf\xe9"}}'),
    "json.empty": _raw("pr_doc", "  \n"),
    "json.duplicate_key": _raw("pr_doc", '{"about": {"problemID": "x", "problemID": "y"}}'),
    "json.nonfinite": lambda r, mp: r.pr(lambda d: d["inputs"]["dataSplits"].update(testSize=float("nan"))),
    "json.big_number": _raw("pr_doc", '{"about": {"problemID": "x"}, "n": 1' + "0" * 5000 + "}"),
    "json.surrogate": _raw("pr_doc", '{"about": {"problemID": "\\udc00"}}'),
    "file.not_regular": lambda r, mp: (r.splits.unlink(), os.mkfifo(r.splits)),
    "csv.too_wide": lambda r, mp: mp.setenv("D3MKIT_MAX_COLUMNS", "3"),
    "json.syntax": _raw("pr_doc", '{"about": {"problemID": "x",}}'),
    "doc.not_object": _raw("pr_doc", "[1, 2]"),
    "doc.unknown_kind": _unknown_doc,
    "schema.required": lambda r, mp: r.pr(lambda d: d["about"].pop("problemName")),
    "schema.unknown_field": lambda r, mp: r.pr(lambda d: d["about"].update(notAField=1)),
    "schema.type": lambda r, mp: r.pr(lambda d: d["inputs"]["data"][0]["targets"][0].update(colIndex="9")),
    "schema.enum": lambda r, mp: r.pr(lambda d: d["about"].update(taskType="classify")),
    "schema.range": lambda r, mp: r.pr(lambda d: d["inputs"]["dataSplits"].update(testSize=1.5)),
    "schema.empty": lambda r, mp: r.ds(lambda d: d["about"].update(datasetName="")),
    "schema.min_items": lambda r, mp: r.pr(lambda d: d["inputs"]["performanceMetrics"].clear()),
    "schema.dependency": lambda r, mp: r.pr(lambda d: d["inputs"]["performanceMetrics"].append(
        {"metric": "f1Macro", "K": 3})),
    "schema.one_of": lambda r, mp: r.ds(lambda d: r.col(d, "grp")["refersTo"].update(resObject=5)),
    "csv.empty": _raw("splits", ""),
    "csv.parse": _ld_text(lambda t: t + '40,"img1.png,g0\n'),
    "csv.bad_row": _ld_text(lambda t: t + "40,img1.png,g0,0.5,1,true,2020-01-01,1,{},a,EXTRA\n"),
    "csv.duplicate_header": _ld_text(lambda t: t.replace("flag,", "x,", 1)),
    "path.escape": lambda r, mp: r.ds(lambda d: d["dataResources"][1].update(resPath="../../groups.csv")),
    "resource.missing": lambda r, mp: (r.dataset / "tables" / "groups.csv").unlink(),
    "resource.kind": lambda r, mp: r.ds(lambda d: d["dataResources"][0].update(resPath="tables/groups.csv")),
    "resource.duplicate_id": lambda r, mp: r.ds(lambda d: d["dataResources"][1].update(resID="media")),
    "dataset.no_learning_data": _no_learning_data,
    "columns.col_index": lambda r, mp: r.ds(lambda d: r.col(d, "vec").update(colIndex=12)),
    "columns.duplicate_name": lambda r, mp: r.ds(lambda d: r.col(d, "vec").update(colName="when")),
    "table.header": _ld_text(lambda t: t.replace(",vec,", ",vector,", 1)),
    "index.count": lambda r, mp: r.ds(lambda d: r.col(d, "k").update(role=["index"])),
    "index.name": _rename_index,
    "index.empty": lambda r, mp: r.set_cell(r.ld, 5, "d3mIndex", ""),
    "index.duplicate": lambda r, mp: r.set_cell(r.ld, 5, "d3mIndex", "4"),
    "coltype.integer": lambda r, mp: r.set_cell(r.ld, 5, "k", "1.5"),
    "coltype.real": lambda r, mp: r.set_cell(r.ld, 5, "x", "abc"),
    "coltype.boolean": lambda r, mp: r.set_cell(r.ld, 5, "flag", "maybe"),
    "coltype.dateTime": lambda r, mp: r.set_cell(r.ld, 5, "when", "not a date"),
    "coltype.realVector": lambda r, mp: r.set_cell(r.ld, 5, "vec", "1;2"),
    "coltype.categorical": lambda r, mp: r.set_cell(r.ld, 5, "y", " a"),
    "coltype.json": lambda r, mp: r.set_cell(r.ld, 5, "meta", "{oops"),
    "refers.resource_missing": lambda r, mp: r.ds(lambda d: r.col(d, "grp")["refersTo"].update(resID="nope")),
    "refers.kind": lambda r, mp: r.ds(lambda d: r.col(d, "grp")["refersTo"].update(resObject="item")),
    "refers.column_missing": lambda r, mp: r.ds(lambda d: r.col(d, "grp")["refersTo"].update(
        resObject={"columnName": "nope"})),
    "refers.value_missing": lambda r, mp: r.set_cell(r.ld, 5, "grp", "g9"),
    "collection.item_missing": lambda r, mp: (r.dataset / "media" / "img3.png").unlink(),
    "problem.dataset_unchecked": _dataset_alone,
    "schema.version": lambda r, mp: r.pr(lambda d: d["about"].update(problemSchemaVersion="9.9")),
    "table.columns_count": _columns_count,
    "problem.dataset_missing": lambda r, mp: r.pr(lambda d: d["inputs"]["data"][0].update(datasetID="other")),
    "target.resource_missing": lambda r, mp: r.pr(lambda d: d["inputs"]["data"][0]["targets"][0].update(resID="nope")),
    "target.not_table": lambda r, mp: r.pr(lambda d: d["inputs"]["data"][0]["targets"][0].update(resID="media")),
    "target.column_missing": lambda r, mp: r.pr(lambda d: d["inputs"]["data"][0]["targets"][0].update(
        colIndex=99, colName="nope")),
    "target.column_mismatch": lambda r, mp: r.pr(lambda d: d["inputs"]["data"][0]["targets"][0].update(colName="x")),
    "target.index_duplicate": lambda r, mp: r.pr(_two_targets_same_index),
    "target.index_range": lambda r, mp: r.pr(lambda d: d["inputs"]["data"][0]["targets"][0].update(targetIndex=1)),
    "target.num_clusters": lambda r, mp: r.pr(lambda d: d["inputs"]["data"][0]["targets"][0].update(numClusters=3)),
    "task.subtype": lambda r, mp: r.pr(lambda d: d["about"].update(taskSubType="univariate")),
    "metric.not_applicable": lambda r, mp: r.pr(lambda d: d["inputs"]["performanceMetrics"].append({"metric": "rSquared"})),
    "metric.requires_task": lambda r, mp: r.pr(lambda d: d["inputs"]["performanceMetrics"].append(
        {"metric": "objectDetectionAP"})),
    "metric.unregistered": lambda r, mp: r.pr(lambda d: d["inputs"]["performanceMetrics"].append(
        {"metric": "other", "specifyOther": "noSuchMetricAnywhere"})),
    "splits.columns": lambda r, mp: r.table(r.splits, lambda df: df.drop(columns=["fold"])),
    "splits.type": lambda r, mp: r.set_cell(r.splits, 5, "type", "VALID"),
    "splits.value": lambda r, mp: r.set_cell(r.splits, 5, "repeat", "-1"),
    "splits.unknown_index": lambda r, mp: r.set_cell(r.splits, 5, "d3mIndex", "9999"),
    "splits.overlap": _overlap,
    "splits.duplicate": _duplicate,
    "splits.incomplete": lambda r, mp: r.table(r.splits, lambda df: df[df["type"] == "TEST"]),
    "splits.too_many": lambda r, mp: r.pr(lambda d: d["inputs"]["dataSplits"].update(numRepeats=10 ** 9)),
    "splits.repeats": lambda r, mp: r.pr(lambda d: d["inputs"]["dataSplits"].update(numRepeats=2)),
    "splits.folds": lambda r, mp: r.pr(lambda d: d["inputs"]["dataSplits"].update(method="kFold", numFolds=4)),
    "splits.test_size": lambda r, mp: r.pr(lambda d: d["inputs"]["dataSplits"].update(testSize=0.5)),
    "splits.stratification": _stratification,
}


def test_every_code_has_a_mutation():
    assert sorted(set(CODES) - set(MUTATIONS)) == []
    assert sorted(set(MUTATIONS) - set(CODES)) == []


@pytest.mark.parametrize("code", sorted(CODES))
def test_mutation_gives_code(code, tab, monkeypatch):
    paths = MUTATIONS[code](tab, monkeypatch) or [tab.root]
    paths = paths if isinstance(paths, list) else [tab.root]
    report = validate_paths(paths)
    issues = report.issues()
    got = {i.code for i in issues}
    assert code in got, "\n".join(i.format() for i in issues)
    hit = [i for i in issues if i.code == code]
    assert all(i.message and i.path for i in hit)
    assert all(i.severity == CODES[code][0] for i in hit)
    assert not report.valid(strict=True)
    if CODES[code][0] == "error":
        assert not report.valid()


# --------------------------------------------------------------------------- objectDetection
def test_detection_needs_multi_index(od):
    od.ds(lambda d: od.col(d, "image").update(role=["attribute"]))
    assert "index.count" in codes_of([od.root])


def test_detection_one_image_per_index(od):
    od.set_cell(od.ld, 2, "image", "img5.png")   # rows 1 and 2 are the two boxes of d3mIndex 1
    assert "index.duplicate" in codes_of([od.root])


def test_detection_splits_need_image(od):
    od.table(od.splits, lambda df: df.drop(columns=["image"]))
    assert "splits.columns" in codes_of([od.root])


def test_detection_image_on_both_sides(od):
    def f(df):
        df.loc[(df["image"] == "img1.png").to_numpy().nonzero()[0][:1], "type"] = "TEST"
        return df
    od.set_cell(od.ld, 0, "image", "img0.png")   # keep index.duplicate out of it
    od.table(od.splits, f)
    got = codes_of([od.root])
    assert "splits.overlap" in got


def test_detection_pair_not_in_learning_data(od):
    od.set_cell(od.splits, 0, "image", "img9.png")
    assert "splits.unknown_index" in codes_of([od.root])


# --------------------------------------------------------------------------- messages
def test_mismatch_names_both_columns(tab):
    tab.pr(lambda d: d["inputs"]["data"][0]["targets"][0].update(colName="x"))
    (i,) = [i for i in validate_paths([tab.root]).issues() if i.code == "target.column_mismatch"]
    assert "'y'" in i.message and "'x'" in i.message
    assert i.location == "inputs.data[0].targets[0].colName"


def test_json_syntax_points_at_trailing_comma(tab):
    tab.pr_doc.write_text('{\n  "about": {\n    "problemID": "x",\n  }\n}\n')
    (i,) = [i for i in validate_paths([tab.root]).issues() if i.code == "json.syntax"]
    assert i.location == "line 3, column 21" and "trailing comma" in i.message


def test_comment_is_pointed_at(tab):
    tab.pr_doc.write_text('{\n  // a comment\n  "about": {}\n}\n')
    (i,) = [i for i in validate_paths([tab.root]).issues() if i.code == "json.syntax"]
    assert i.location.startswith("line 2") and "comment" in i.message


def test_row_locations_and_bounded_row_issues(tab):
    tab.table(tab.ld, lambda df: df.assign(k="bad"))
    hits = [i for i in validate_paths([tab.root]).issues() if i.code == "coltype.integer"]
    assert hits[0].location == "row 2, column k"
    assert len(hits) == 11 and "30 more" in hits[-1].message


def test_all_issues_not_the_first(tab):
    tab.set_cell(tab.ld, 5, "k", "1.5")
    tab.set_cell(tab.ld, 6, "flag", "maybe")
    tab.pr(lambda d: d["about"].update(taskSubType="univariate"))
    got = codes_of([tab.root])
    assert {"coltype.integer", "coltype.boolean", "task.subtype"} <= got


def test_dataset_found_on_search_path(tab, tmp_path):
    elsewhere = tmp_path / "store"
    elsewhere.mkdir()
    shutil.move(str(tab.dataset), str(elsewhere / "t_dataset"))
    # no dataset beside the problem, no --datasets: the problem's own checks and one warning
    report = validate_paths([tab.problem])
    assert [i.code for i in report.issues()] == ["problem.dataset_unchecked"]
    assert report.valid() and {d.kind for d in report.documents} == {"problemDoc", "dataSplits"}
    assert codes_of([tab.problem], datasets=[elsewhere]) == set()
    assert "problem.dataset_missing" in codes_of([tab.problem], datasets=[tmp_path / "t"])


def test_problem_alone_finds_its_sibling_dataset(tab):
    report = validate_paths([tab.pr_doc])
    assert report.issues() == []
    assert {d.kind for d in report.documents} >= {"problemDoc", "datasetDoc", "dataSplits", "learningData"}
