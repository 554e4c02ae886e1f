"""``d3mkit export croissant`` (issue 24 item 1): every root under problems/ and a kFold
root export to Croissant 1.1 that mlcroissant loads with no error or warning, and the
records it yields equal ``TaskRoot.frame()`` and dataSplits.csv row for row; bad input is
one line, a code, an exit code and no output file."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from _attack_util import refused, run
from d3mkit.taskroot.model import TaskRoot

from _croissant_util import BUILD_NAMES, PARAMS, ROOTS
from _croissant_util import copy_root as _copy
from _croissant_util import wine_kfold


def _check_records(out: Path, root: Path):
    pytest.importorskip("mlcroissant", reason="the [croissant] extra (mlcroissant) is not installed")
    from _croissant_util import load, records_frame, same_rows
    ds = load(out)
    task = TaskRoot.open(root)
    frame = task.frame()
    same_rows(records_frame(ds, "learningData", frame.columns), frame)
    splits = task.splits()
    got = records_frame(ds, "dataSplits", ["d3mIndex", "type", "repeat", "fold"])
    want = [[int(i) if i.isdigit() else i, t, int(r), int(f)]
            for i, t, r, f in splits[["d3mIndex", "type", "repeat", "fold"]].itertuples(index=False)]
    assert got == want


@pytest.mark.slow
@pytest.mark.parametrize("root", PARAMS)
def test_problems_export_and_load(root, tmp_path, capsys):
    root = _copy(root, tmp_path)
    code, out, err = run(["export", "croissant", root], capsys)
    assert code == 0, err
    path = Path(out.strip())
    assert path == tmp_path / f"{root.name}.croissant.json"
    doc = json.loads(path.read_text())
    assert doc["conformsTo"][0] == "http://mlcommons.org/croissant/1.1"
    assert doc["citeAs"] and doc["license"]
    _check_task_problem(doc, root)
    for k in ("dataCollection", "dataBiases", "dataLimitations", "personalSensitiveInformation", "dataUseCases"):
        assert doc[f"rai:{k}"], k                    # the benchmark's card
    manifest = json.loads(next(root.glob("*_debug/manifest.json")).read_text())
    files = {d["@id"]: d for d in doc["distribution"]}
    ld = files["file/learningData"]
    assert ld["sha256"] == manifest["digests"][ld["contentUrl"].split("/", 1)[1]]["sha256"]
    _check_records(path, root)


def _check_task_problem(doc: dict, root: Path) -> None:
    """The problem is a Croissant Tasks cr:TaskProblem: the targets are the cr:Label fields of
    its output schema, the metrics its evaluation's cr:metric; the rest is d3m:."""
    from d3mkit.taskroot.model import TaskRoot
    task = TaskRoot.open(root)
    tp = doc["d3m:problem"]
    assert tp["@type"] == "cr:TaskProblem" and tp["name"] == task.problem.problem_id
    assert tp["cr:input"] == {"@id": doc["url"]}
    assert tp["cr:output"]["@type"] == "cr:OutputSpec"
    schema = tp["cr:output"]["cr:schema"]
    labels = [f["name"] for f in schema["field"] if "cr:Label" in f["dataType"]]
    assert labels == task.targets and schema["field"][0]["name"] == "d3mIndex"
    assert tp["cr:evaluation"] == {"@type": "cr:EvaluationSpec", "@id": f"{tp['@id']}/evaluation",
                                   "cr:expectedMetric": [{"@value": n} for n in task.problem.metric_names]}
    assert tp["d3m:taskType"] == task.problem.task_type
    assert json.loads(tp["d3m:performanceMetrics"]) == task.problem.metrics
    assert not {"d3m:targets", "d3m:taskType", "d3m:performanceMetrics"} & set(doc)   # no second owner


def _typed_root(tmp: Path) -> Path:
    from _scoring_util import make_task
    frame = pd.DataFrame({"d3mIndex": range(6), "n": ["1", "", "3", "-4", "5", "6"],
                          "r": ["1.5", "2", "", "1e3", "-0.25", "7"],
                          "b": ["true", "false", "", "true", "false", "true"],
                          "when": ["2020-01-02", "2021-03-04T05:06:07", "", "1999-12-31", "2000-01-01", "2001-02-03"],
                          "s": ["a b", "", "c,d", "é", "x", "y"],
                          "y": ["p", "q", "p", "q", "p", "q"]})
    return make_task(tmp, "typed", frame, ["y"], [{"metric": "accuracy"}], test=[0, 1],
                     col_types={"n": "integer", "r": "real", "b": "boolean", "when": "dateTime", "s": "string"})


@pytest.mark.slow
def test_types_and_missing_values(tmp_path, capsys):
    root = _typed_root(tmp_path)
    code, out, err = run(["export", "croissant", root], capsys)
    assert code == 0, err
    doc = json.loads(Path(out.strip()).read_text())
    types = {f["name"]: f["dataType"] for f in doc["recordSet"][0]["field"]}
    assert types == {"d3mIndex": "sc:Integer", "n": "sc:Integer", "r": "sc:Float", "b": "sc:Boolean",
                     "when": "sc:Date", "s": "sc:Text", "y": ["sc:Text", "cr:Label"]}
    enum = next(r for r in doc["recordSet"] if r["@id"] == "enumerations/y")
    assert enum["dataType"] == "sc:Enumeration" and [d["enumerations/y/value"] for d in enum["data"]] == ["p", "q"]
    # no digests recorded (not written by d3mkit): hashed here
    import hashlib
    ld = root / "typed_dataset" / "tables" / "learningData.csv"
    assert doc["distribution"][0]["sha256"] == hashlib.sha256(ld.read_bytes()).hexdigest()
    # the RAI fields are nowhere: one warning each, still written
    assert err.count("[croissant.rai_missing]") == 5
    pytest.importorskip("mlcroissant", reason="the [croissant] extra (mlcroissant) is not installed")
    from _croissant_util import load
    ds = load(Path(out.strip()))
    recs = list(ds.records("learningData"))
    assert [r["learningData/n"] for r in recs][:3] == [1, None, 3] or pd.isna(recs[1]["learningData/n"])


@pytest.mark.slow
def test_kfold_repeats_are_rows_of_datasplits(tmp_path, capsys):
    root = wine_kfold(tmp_path, capsys)
    code, out, err = run(["export", "croissant", root, "--rai", _rai(tmp_path)], capsys)
    assert code == 0 and "rai_missing" not in err, err
    doc = json.loads(Path(out.strip()).read_text())
    assert json.loads(doc["d3m:problem"]["d3m:dataSplits"])["method"] == "kFold"
    _check_records(Path(out.strip()), root)


def _rai(tmp: Path, value=None) -> Path:
    p = tmp / "rai.json"
    p.write_text(json.dumps(value if value is not None else {
        "dataCollection": "c", "rai:dataBiases": "b", "dataLimitations": "l",
        "personalSensitiveInformation": "none", "dataUseCases": ["u1", "u2"]}))
    return p


def test_rai_file_wins(tmp_path, capsys):
    root = _copy(ROOTS[-1], tmp_path)
    code, out, err = run(["export", "croissant", root, "--rai", _rai(tmp_path)], capsys)
    doc = json.loads(Path(out.strip()).read_text())
    assert doc["rai:dataBiases"] == "b" and doc["rai:dataUseCases"] == ["u1", "u2"]


# ------------------------------------------------------------------------------ bad input
def _no_output(tmp: Path):
    assert not list(tmp.glob("*.croissant.json")) and not list(tmp.glob(".*tmp*")), list(tmp.iterdir())


@pytest.mark.slow
def test_invalid_root_refused_unless_force(tmp_path, capsys):
    root = _copy(ROOTS[-1], tmp_path)
    ld = root / "wine_dataset" / "tables" / "learningData.csv"
    rows = ld.read_text().splitlines(keepends=True)
    rows[2] = "0" + rows[2][rows[2].index(","):]           # d3mIndex 0 twice: an error
    ld.write_text("".join(rows))
    refused(["export", "croissant", root], capsys, "index.duplicate", 1, path=ld)
    _no_output(tmp_path)
    code, out, err = run(["export", "croissant", root, "--force"], capsys)
    assert code == 0 and "[export.invalid_root]" in err, err
    doc = json.loads(Path(out.strip()).read_text())
    assert any("index.duplicate" in i for i in doc["d3m:validationIssues"])
    assert "does not validate" in doc["description"]


@pytest.mark.slow
def test_output_inside_root_or_existing(tmp_path, capsys):
    root = _copy(ROOTS[-1], tmp_path)
    refused(["export", "croissant", root, "--out", root / "c.json"], capsys, "usage", 2)
    refused(["export", "croissant", root, "--out", root / "wine_dataset" / "c.json"], capsys, "usage", 2)
    assert not (root / "c.json").exists()
    elsewhere = tmp_path / "sub" / "c.json"
    (tmp_path / "sub").mkdir()
    refused(["export", "croissant", root, "--out", elsewhere], capsys, "usage", 2)
    assert run(["export", "croissant", root], capsys)[0] == 0
    refused(["export", "croissant", root], capsys, "usage", 2)            # exists, no --force


@pytest.mark.parametrize("content, code", [("{not json", "json.syntax"), ("[1]", "croissant.rai"),
                                           ('{"dataBiases": 3}', "croissant.rai")])
def test_bad_rai_file(tmp_path, capsys, content, code):
    root = _copy(ROOTS[-1], tmp_path)
    rai = tmp_path / "rai.json"
    rai.write_text(content)
    refused(["export", "croissant", root, "--rai", rai], capsys, code, 1)
    _no_output(tmp_path)


@pytest.mark.slow
def test_media_leaving_the_root_refused_even_with_force(tmp_path, capsys):
    root = _copy([r for r in ROOTS if r.name == "value"][0], tmp_path)
    media = root / "value_dataset" / "media"
    outside = tmp_path / "elsewhere"
    shutil.move(media, outside)
    os.symlink(outside, media)
    for extra in ([], ["--force"]):
        refused(["export", "croissant", root, *extra], capsys, "path.escape", 1)
        _no_output(tmp_path)


def test_url_and_missing_root(tmp_path, capsys):
    refused(["export", "croissant", "https://example.org/root"], capsys, "usage.path", 2)
    refused(["export", "croissant", tmp_path / "nope"], capsys, "usage.path", 2)


# ------------------------------------------------------------------- builds of the other benchmarks
@pytest.mark.slow
@pytest.mark.parametrize("bench", sorted(BUILD_NAMES))
def test_benchmark_builds_export_and_load(bench, tmp_path, capsys):
    """A small build of each benchmark (abstraction, visudo, value, value-detection, PRISM PVLI
    and PVLr, tabular)."""
    from _croissant_util import BUILDS
    code, out, err = run(BUILDS[bench](tmp_path), capsys)
    assert code == 0, err
    for root in [Path(p) for p in out.split()]:
        code, out2, err = run(["export", "croissant", root], capsys)
        assert code == 0 and "rai_missing" not in err, err
        _check_records(Path(out2.strip()), root)


def test_a_broken_datasetdoc_is_reported_once(tmp_path, capsys):
    """A consequence of an error already reported is not reported again: the problem's
    dataset is 'missing' only because its datasetDoc does not load (issue 32)."""
    root = _copy(next(r for r in ROOTS if r.name == "wine"), tmp_path)
    (root / "wine_dataset" / "datasetDoc.json").write_text("{broken")
    for fmt in (["croissant"], ["hf", "--out", tmp_path / "hf"]):
        code, out, err = run(["export", fmt[0], root, *fmt[1:]], capsys)
        assert code in (1, 3) and "[json.syntax]" in err, err
        assert "problem.dataset_missing" not in err and len(err.strip().splitlines()) == 1, err


def test_unloadable_file_is_an_error_and_not_kept(tmp_path):
    pytest.importorskip("mlcroissant", reason="the [croissant] extra (mlcroissant) is not installed")
    from d3mkit.interop.croissant import loads_back
    bad = tmp_path / "x.json"
    bad.write_text(json.dumps({"@context": {}, "@type": "sc:Dataset", "name": "x",
                               "recordSet": [{"@type": "cr:RecordSet", "@id": "a b"}]}))
    issues = loads_back(bad, tmp_path / "named.json")
    assert issues and all(i.code == "croissant.unloadable" and i.path == str(tmp_path / "named.json")
                          for i in issues)
