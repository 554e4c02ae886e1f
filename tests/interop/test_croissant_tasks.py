"""Croissant Tasks (issue 36): ``export croissant ROOT --tasks`` writes a TaskProblem that pull
request 1017's shapes accept (pyshacl, ontology, RDFS inference) beside a Croissant file
mlcroissant still loads with records equal to learningData and dataSplits; ``import croissant
TASK.json`` gives the task root back (D3M -> Tasks -> D3M), takes a TaskProblem written in the
official examples' spelling, and refuses one whose input is only a URL."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from _attack_util import refused, run
from _croissant_util import PARAMS, load, same_rows, value
from _tasks_util import check_shapes, shapes_dir, same_root, tabular_roots
from d3mkit.taskroot.model import TaskRoot

KINDS = ["binary", "multiclass", "multilabel", "regression", "multivariate"]


def records_frame(ds, record_set: str, columns) -> list[list]:
    """The records of ``record_set`` in ``columns`` order (field ids escape spaces, id_part)."""
    from d3mkit.importing.croissant import id_part
    return [[value(r[f"{record_set}/{id_part(c)}"]) for c in columns] for r in ds.records(record_set)]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """Every tabular root exported with --tasks: {kind: (root, croissant file, task file)}."""
    from d3mkit.cli import main
    tmp = tmp_path_factory.mktemp("tasks")
    out = {}
    for kind, root in tabular_roots(tmp).items():
        assert main(["export", "croissant", str(root), "--tasks"]) == 0
        out[kind] = (root, root.parent / f"{root.name}.croissant.json", root.parent / f"{root.name}_task.json")
    return out


@pytest.mark.parametrize("kind", [k if k == "binary" else pytest.param(k, marks=pytest.mark.slow) for k in KINDS])
def test_task_problem_conforms_and_dataset_loads(exported, kind):
    root, cfile, tfile = exported[kind]
    check_shapes(tfile)
    check_shapes(cfile)                      # the embedded d3m:problem too (expectedMetric, issue 36)
    task = TaskRoot.open(root)
    ds = load(cfile)
    frame = task.frame()
    same_rows(records_frame(ds, "learningData", list(frame.columns)), frame)
    splits = pd.read_csv(root / f"{root.name}_problem" / "dataSplits.csv", dtype=str, keep_default_na=False)
    got = records_frame(ds, "dataSplits", ["d3mIndex", "type", "repeat", "fold"])
    assert [[str(v) for v in r] for r in got] == splits.values.tolist()


@pytest.mark.parametrize("kind", KINDS)
def test_task_problem_says_what_the_problem_doc_says(exported, kind):
    root, cfile, tfile = exported[kind]
    doc = json.loads(tfile.read_text())
    pdoc = TaskRoot.open(root).problem
    assert doc["@type"] == "cr:TaskProblem" and doc["cr:input"]["@id"] == cfile.name
    fields = doc["cr:output"]["cr:schema"]["field"]
    assert [f["name"] for f in fields] == ["d3mIndex", *pdoc.target_names]
    from d3mkit.importing.croissant import id_part
    assert all(f["references"]["field"]["@id"] == f"learningData/{id_part(f['name'])}" for f in fields)
    ld_ids = {f["@id"] for f in next(r for r in json.loads(cfile.read_text())["recordSet"]
                                     if r["@id"] == "learningData")["field"]}
    assert {f["references"]["field"]["@id"] for f in fields} <= ld_ids
    assert [("cr:Label" in f["dataType"]) for f in fields] == [False] + [True] * len(pdoc.target_names)
    assert [m["@value"] for m in doc["cr:evaluation"]["cr:expectedMetric"]] == pdoc.metric_names
    assert doc["d3m:taskType"] == pdoc.task_type and doc["d3m:taskSubType"] == pdoc.task_subtype
    assert json.loads(doc["d3m:performanceMetrics"]) == pdoc.metrics
    assert json.loads(doc["d3m:dataSplits"]) == pdoc.splits
    splits = pd.read_csv(root / f"{root.name}_problem" / "dataSplits.csv")
    pairs = sorted(set(zip(splits["repeat"], splits["fold"])))
    assert [(s["d3m:repeat"], s["d3m:fold"]) for s in doc["cr:subTask"]] == pairs
    if kind == "multiclass":
        assert len(pairs) == 6                 # 3 folds x 2 repeats
    if kind == "multilabel":                   # a custom metric under its specifyOther name
        assert {"metric": "other", "specifyOther": "hammingLoss"} in pdoc.metrics
        assert "hammingLoss" in [m["@value"] for m in doc["cr:evaluation"]["cr:expectedMetric"]]


@pytest.mark.slow
def test_shapes_reject_what_the_issue_names(exported):
    """The check is real: a plain metric string (language-tagged under the Croissant context)
    and cr:metric on the EvaluationSpec are rejected, as is a field with no dataType."""
    from d3mkit.interop.shacl import conforms
    doc = json.loads(exported["binary"][2].read_text())
    base = exported["binary"][2].resolve().as_uri()
    plain = copy.deepcopy(doc)
    plain["cr:evaluation"]["cr:expectedMetric"] = ["f1"]
    assert not conforms(plain, shapes_dir(), base)[0]
    old = copy.deepcopy(doc)
    old["cr:evaluation"]["cr:metric"] = old["cr:evaluation"].pop("cr:expectedMetric")
    assert not conforms(old, shapes_dir(), base)[0]
    untyped = copy.deepcopy(doc)
    del untyped["cr:output"]["cr:schema"]["field"][1]["dataType"]
    assert not conforms(untyped, shapes_dir(), base)[0]


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_d3m_tasks_d3m_is_the_identity(exported, kind, tmp_path, capsys):
    root, _, tfile = exported[kind]
    code, out, err = run(["import", "croissant", tfile, "--out", tmp_path / "back"], capsys)
    assert code == 0, err
    back = Path(out.strip())
    assert back.name == root.name
    if kind == "multilabel":
        # the import's note of which wide columns made the label set is not carried
        from _tasks_util import documents
        ddoc = documents(root)[0]
        col = next(c for c in ddoc["dataResources"][0]["columns"] if c["colName"] == "label")
        assert col["colDescription"].startswith("multiLabel target: one row per (d3mIndex, label)")
        (root / f"{root.name}_dataset" / "datasetDoc.json").write_text(json.dumps(ddoc))
        bdoc = documents(back)[0]
        next(c for c in bdoc["dataResources"][0]["columns"] if c["colName"] == "label")["colDescription"] = \
            col["colDescription"]
        (back / f"{back.name}_dataset" / "datasetDoc.json").write_text(json.dumps(bdoc))
    same_root(root, back)
    # and Tasks -> D3M -> Tasks: the TaskProblem written again is the same document
    code, out, err = run(["export", "croissant", back, "--tasks"], capsys)
    assert code == 0, err
    assert json.loads(Path(out.split()[1]).read_text()) == json.loads(tfile.read_text())


def _official(tmp: Path, exported, input_node: dict) -> Path:
    """A TaskProblem in the official examples' spelling (croissant:/schema: prefixes, no d3m:
    terms, field names instead of references) posed on the binary root's Croissant file."""
    root, cfile, _ = exported["binary"]
    d = tmp / "hand"
    d.mkdir()
    shutil.copytree(root, d / root.name)
    shutil.copy(cfile, d / cfile.name)
    doc = {
        "@context": {"croissant": "http://mlcommons.org/croissant/", "schema": "https://schema.org/",
                     "xsd": "http://www.w3.org/2001/XMLSchema#"},
        "@type": "croissant:TaskProblem",
        "@id": "http://example.org/ziel_problem",
        "schema:name": "Predict Ziel",
        "schema:description": "Say ja or nein.",
        "croissant:input": input_node,
        "croissant:output": {
            "@type": "croissant:OutputSpec", "@id": "http://example.org/ziel#outputSpec",
            "croissant:schema": {"@type": "croissant:RecordSet", "croissant:field": [
                {"@type": "croissant:Field", "schema:name": "d3mIndex", "croissant:dataType": "xsd:integer"},
                {"@type": "croissant:Field", "schema:name": "ziel ü", "croissant:dataType": "xsd:string"}]}},
        "croissant:evaluation": {"@type": "croissant:EvaluationSpec", "@id": "http://example.org/ziel#evaluationSpec",
                                 "croissant:expectedMetric": ["Accuracy", "F1 Macro"]},
    }
    p = d / "ziel_problem.jsonld"
    p.write_text(json.dumps(doc, ensure_ascii=False))
    return p


@pytest.mark.slow
def test_official_spelling_imports(exported, tmp_path, capsys):
    p = _official(tmp_path, exported, {"@type": "schema:Dataset", "@id": "binary.croissant.json",
                                       "schema:name": "binary"})
    check_shapes(p)
    code, out, err = run(["import", "croissant", p, "--out", tmp_path / "out"], capsys)
    assert code == 0, err
    task = TaskRoot.open(Path(out.strip()))
    assert task.problem.target_names == ["ziel ü"]
    assert task.problem.metric_names == ["accuracy", "f1Macro"]
    assert (task.problem.task_type, task.problem.task_subtype) == ("classification", "binary")   # inferred
    assert task.problem.about["problemDescription"] == "Say ja or nein."
    root = exported["binary"][0]
    orig = TaskRoot.open(root)
    pd.testing.assert_frame_equal(task.frame().reset_index(drop=True), orig.frame().reset_index(drop=True))
    a = pd.read_csv(root / "binary_problem" / "dataSplits.csv", dtype=str)
    b = pd.read_csv(task.problem_dir / "dataSplits.csv", dtype=str)
    pd.testing.assert_frame_equal(a, b)


def test_input_only_a_url_is_refused(exported, tmp_path, capsys):
    p = _official(tmp_path, exported, {"@type": "schema:Dataset", "@id": "https://huggingface.co/datasets/x/y"})
    out = tmp_path / "out"
    text = refused(["import", "croissant", p, "--out", out], capsys, "croissant.url", 1, p)
    assert len(text.strip().splitlines()) == 1
    assert not out.exists()


def test_input_spec_only_and_unknown_metric_refused(exported, tmp_path, capsys):
    p = _official(tmp_path, exported, {"@type": "croissant:InputSpec", "@id": "http://example.org/in"})
    refused(["import", "croissant", p, "--out", tmp_path / "o1"], capsys, "croissant.problem", 1, p)
    doc = json.loads(p.read_text())
    doc["croissant:input"] = {"@id": "binary.croissant.json"}
    doc["croissant:evaluation"]["croissant:expectedMetric"] = ["Calibration Error"]
    p.write_text(json.dumps(doc))
    refused(["import", "croissant", p, "--out", tmp_path / "o2"], capsys, "metric.unknown", 1, p)
    doc["@context"] = "https://example.org/context.jsonld"
    p.write_text(json.dumps(doc))
    refused(["import", "croissant", p, "--out", tmp_path / "o3"], capsys, "croissant.context", 1, p)
    assert not any((tmp_path / o).exists() for o in ("o1", "o2", "o3"))


def test_croissant_dataset_file_still_needs_record_set(exported, tmp_path, capsys):
    cfile = exported["binary"][1]
    refused(["import", "croissant", cfile, "--out", tmp_path / "o"], capsys, "usage", 2)


def test_official_examples_are_refused_in_one_line(tmp_path, capsys):
    """The official MMLU problem poses its task on a Hugging Face URL: refused, nothing written."""
    d = shapes_dir() / "examples" / "mmlu" / "mmlu_problem.jsonld"
    p = tmp_path / d.name
    shutil.copy(d, p)
    text = refused(["import", "croissant", p, "--out", tmp_path / "o"], capsys, "croissant.url", 1, p)
    assert len(text.strip().splitlines()) == 1 and not (tmp_path / "o").exists()


@pytest.mark.slow
def test_min_metadata_exports_every_column(tmp_path, capsys):
    """A MIN_METADATA root (4.0.0 datasetDoc declaring d3mIndex alone): every column is a field,
    the target a cr:Label, typed as the import infers; mlcroissant yields the CSV's rows; the
    TaskProblem conforms and imports back to the same table and splits (issue 36)."""
    import os
    src = Path(os.environ.get("D3MKIT_REALWORLD", "/nonexistent")) / "roots" / "196_autoMpg_MIN_METADATA"
    if not src.is_dir():
        pytest.skip("D3MKIT_REALWORLD/roots/196_autoMpg_MIN_METADATA is not available")
    root = tmp_path / src.name
    shutil.copytree(src, root, ignore=shutil.ignore_patterns("TRAIN", "TEST", "SCORE"))
    code, out, err = run(["export", "croissant", root, "--tasks"], capsys)
    assert code == 0, err
    cfile, tfile = (Path(p) for p in out.split())
    doc = json.loads(cfile.read_text())
    fields = doc["recordSet"][0]["field"]
    table = pd.read_csv(root / f"{root.name}_dataset" / "tables" / "learningData.csv", dtype=str,
                        keep_default_na=False)
    assert [f["name"] for f in fields] == list(table.columns)
    target = TaskRoot.open(root).problem.target_names[0]
    assert next(f for f in fields if f["name"] == target)["dataType"] == ["sc:Float", "cr:Label"]
    check_shapes(cfile)
    check_shapes(tfile)
    ds = load(cfile)
    got = records_frame(ds, "learningData", list(table.columns))
    want = [[None if v == "" else float(v) for v in row] for row in table.itertuples(index=False)]
    assert [[None if v is None else float(v) for v in row] for row in got] == want
    code, out, err = run(["import", "croissant", tfile, "--out", tmp_path / "back"], capsys)
    assert code == 0, err
    back = TaskRoot.open(Path(out.strip()))
    assert back.problem.target_names == [target] and back.problem.task_type == "regression"
    pd.testing.assert_frame_equal(pd.read_csv(back.dataset.resource_path(back.dataset.learning_data), dtype=str,
                                              keep_default_na=False), table)
    pd.testing.assert_frame_equal(pd.read_csv(back.problem_dir / "dataSplits.csv", dtype=str),
                                  pd.read_csv(root / f"{root.name}_problem" / "dataSplits.csv", dtype=str))


@pytest.mark.slow      # two subprocesses
def test_without_rdflib_exit_3(exported, tmp_path):
    """The Tasks import needs the [tasks] extra: without rdflib, one line naming it, exit 3;
    the Tasks export (plain JSON) works without it."""
    from _without import run_without
    root, _, tfile = exported["regression"]
    r = run_without(["rdflib", "pyshacl"], ["import", "croissant", tfile, "--out", tmp_path / "o"])
    assert r.returncode == 3, r.stderr
    assert 'pip install "d3mkit[tasks]"' in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()
    shutil.copytree(root, tmp_path / root.name)
    r = run_without(["rdflib", "pyshacl"], ["export", "croissant", tmp_path / root.name, "--tasks",
                                            "--format", "json"])
    assert r.returncode == 0, r.stderr
    assert Path(json.loads(r.stdout)["tasks"]).is_file()


def test_tasks_and_results_together_refused(exported, capsys):
    refused(["export", "croissant", exported["binary"][0], "--tasks", "--results"], capsys, "usage", 2)


@pytest.mark.slow
def test_import_long_multilabel_croissant_and_custom_metric(exported, tmp_path, capsys):
    """Issue 36's defects: import croissant takes the long multiLabel form (a repeated index),
    and the custom metric import --metric hammingLoss wrote is other + specifyOther, valid."""
    root, cfile, _ = exported["multilabel"]
    pdoc = json.loads((root / "multilabel_problem" / "problemDoc.json").read_text())
    assert {"metric": "other", "specifyOther": "hammingLoss"} in pdoc["inputs"]["performanceMetrics"]
    assert run(["validate", root], capsys)[0] == 0
    code, out, err = run(["import", "croissant", cfile, "--record-set", "learningData", "--out", tmp_path / "b"],
                         capsys)
    assert code == 0, err
    back = TaskRoot.open(Path(out.strip()))
    assert (back.problem.task_type, back.problem.task_subtype) == ("classification", "multiLabel")
    assert back.problem.metrics == TaskRoot.open(root).problem.metrics
    a = pd.read_csv(root / "multilabel_dataset/tables/learningData.csv", dtype=str, keep_default_na=False)
    b = pd.read_csv(back.dataset.resource_path(back.dataset.learning_data), dtype=str, keep_default_na=False)
    pd.testing.assert_frame_equal(a, b)
    assert a["d3mIndex"].duplicated().any()          # the long form
    assert run(["validate", back.root], capsys)[0] == 0


@pytest.mark.slow
@pytest.mark.parametrize("root", PARAMS)
def test_example_roots_conform(root, tmp_path, capsys):
    """The example roots under problems/: the Croissant file and its TaskProblem conform to the
    shapes (the value root's 64 targets too), and the dataset loads in mlcroissant."""
    shapes_dir()
    dst = tmp_path / root.name
    shutil.copytree(root, dst)
    code, out, err = run(["export", "croissant", dst, "--tasks"], capsys)
    assert code == 0, err
    cfile, tfile = (Path(p) for p in out.split())
    check_shapes(cfile)
    check_shapes(tfile)
    load(cfile)


def test_hostile_task_files_refused(exported, tmp_path, capsys):
    """A dataset outside the task file's directory, a dataset that is not a Croissant file and
    a TaskProblem with no output: one line each, exit 1, nothing written."""
    p = _official(tmp_path, exported, {"@id": "../outside.croissant.json"})
    (tmp_path / "outside.croissant.json").write_text(exported["binary"][1].read_text())
    refused(["import", "croissant", p, "--out", tmp_path / "o1"], capsys, "path.escape", 1, p)
    (p.parent / "list.json").write_text("[1, 2]")
    doc = json.loads(p.read_text())
    doc["croissant:input"] = {"@id": "list.json"}
    p.write_text(json.dumps(doc))
    refused(["import", "croissant", p, "--out", tmp_path / "o2"], capsys, "croissant.context", 1)
    doc["croissant:input"] = {"@id": "binary.croissant.json"}
    del doc["croissant:output"]
    p.write_text(json.dumps(doc))
    refused(["import", "croissant", p, "--out", tmp_path / "o3"], capsys, "croissant.problem", 1, p)
    doc["croissant:input"] = {"@id": "missing.croissant.json"}
    p.write_text(json.dumps(doc))
    refused(["import", "croissant", p, "--out", tmp_path / "o4"], capsys, "file.missing", 1, p)
    assert not any((tmp_path / o).exists() for o in ("o1", "o2", "o3", "o4"))


def test_identity_without_the_embedded_problem(exported, tmp_path, capsys):
    """The TaskProblem alone carries the problem: with d3m:problem removed from the Croissant
    file (a dataset another tool wrote), D3M -> Tasks -> D3M is still the identity (kFold with
    repeats: the split parameters come from the TaskProblem's d3m:dataSplits)."""
    root, cfile, tfile = exported["multiclass"]
    d = tmp_path / "src"
    d.mkdir()
    shutil.copytree(root, d / root.name)
    doc = json.loads(cfile.read_text())
    del doc["d3m:problem"]
    (d / cfile.name).write_text(json.dumps(doc, ensure_ascii=False))
    shutil.copy(tfile, d / tfile.name)
    code, out, err = run(["import", "croissant", d / tfile.name, "--out", tmp_path / "back"], capsys)
    assert code == 0, err
    same_root(root, Path(out.strip()))
