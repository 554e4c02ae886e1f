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
from _croissant_util import PARAMS, copy_root
from d3mkit.importing.croissant import read_record_set
from d3mkit.taskroot.model import TaskRoot

REPO = Path(__file__).resolve().parents[2]


def _exported(tmp: Path, capsys, name: str = "wine") -> Path:
    shutil.copytree(REPO / "problems" / name, tmp / name)
    assert run(["export", "croissant", tmp / name], capsys)[0] == 0
    return tmp / f"{name}.croissant.json"


def _fields(doc: dict, rs: str) -> list[tuple]:
    r = next(x for x in doc["recordSet"] if x["@id"] == rs)
    return [(f["name"], json.dumps(f["dataType"])) for f in r["field"]]


@pytest.mark.slow
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


@pytest.mark.slow
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
    # a CSV file declared Parquet: read with the Parquet reader, which refuses it
    "parquet": (lambda d: d["distribution"][0].update(encodingFormat="application/x-parquet"),
                "import.format"),
    "json": (lambda d: d["distribution"][0].update(encodingFormat="application/json"),
             "croissant.unsupported"),
    "archive": (lambda d: d["distribution"][0].update(containedIn={"@id": "zip"}), "croissant.unsupported"),
    "transform": (lambda d: _ld(d)["field"][1]["source"].update(transform={"regex": "x"}),
                  "croissant.unsupported"),
    "fileproperty": (lambda d: _ld(d)["field"][1]["source"].update(extract={"fileProperty": "filename"}),
                     "croissant.unsupported"),
    "column": (lambda d: _ld(d)["field"][1]["source"].update(extract={"column": "nope"}), "croissant.column"),
    "digest": (lambda d: d["distribution"][0].update(sha256="0" * 64), "croissant.digest"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_refused(tmp_path, capsys, case):
    change, code = CASES[case]
    p = _variant(tmp_path, capsys, change)
    out = tmp_path / "out"
    refused(["import", "croissant", p, "--record-set", "learningData", "--target", "class", "--out", out],
            capsys, code, 1, path=p if code not in ("croissant.digest", "import.format") else None)
    assert not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize("content, code", [("{not json", "json.syntax"), ("[1, 2]", "croissant.context"),
                                           ('{"@context": "https://schema.org/"}', "croissant.context")])
def test_corrupt_or_unknown(tmp_path, capsys, content, code):
    p = tmp_path / "c.json"
    p.write_text(content)
    refused(["import", "croissant", p, "--record-set", "x", "--target", "y", "--out", tmp_path / "o"], capsys, code, 1)
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_missing_record_set_and_url_file(tmp_path, capsys):
    p = _exported(tmp_path, capsys)
    text = refused(["import", "croissant", p, "--record-set", "nope", "--target", "class", "--out", tmp_path / "o"],
                   capsys, "croissant.record_set", 1)
    assert "learningData" in text                        # names the record sets there are
    refused(["import", "croissant", "https://example.org/c.json", "--record-set", "x", "--target", "y",
             "--out", tmp_path / "o"], capsys, "croissant.url", 1)


def _splits_of(path: Path) -> tuple[pd.DataFrame, dict]:
    doc = json.loads(path.read_text())
    return read_record_set(path, "dataSplits").frame, json.loads(doc["d3m:problem"]["d3m:dataSplits"])


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["holdOut", "kFold"])
def test_round_trip_keeps_the_splits(tmp_path, capsys, kind):
    """export -> import -> export gives the same dataSplits record set and split parameters,
    for a holdOut root and a 3-fold x 2-repeat one (the fold record set back to kFold/repeats)."""
    from _croissant_util import wine_kfold
    if kind == "kFold":
        root = wine_kfold(tmp_path, capsys)
        assert run(["export", "croissant", root], capsys)[0] == 0
        first = tmp_path / "wine.croissant.json"
    else:
        first = _exported(tmp_path, capsys)
    out = tmp_path / "imported"
    code, stdout, err = run(["import", "croissant", first, "--record-set", "learningData", "--target", "class",
                             "--out", out], capsys)
    assert code == 0, err
    code, stdout, err = run(["export", "croissant", out / "wine"], capsys)
    assert code == 0, err
    (rows1, doc1), (rows2, doc2) = _splits_of(first), _splits_of(Path(stdout.strip()))
    pd.testing.assert_frame_equal(rows1, rows2)
    assert doc1 == doc2, (doc1, doc2)
    assert doc2["method"] == kind and TaskRoot.open(out / "wine").problem.splits["method"] == kind
    if kind == "kFold":
        assert (doc2["numFolds"], doc2["numRepeats"]) == (3, 2)
        assert sorted(set(zip(rows2["repeat"], rows2["fold"]))) == [(r, f) for r in "01" for f in "012"]


def _split_field_file(tmp: Path, names: list[str], urls: dict[str, str]) -> Path:
    """A hand-written Croissant file whose record set has a split field (Croissant's own way)."""
    rows = [(i, f"x{i}", "ab"[i % 2], names[i % len(names)]) for i in range(12)]
    (tmp / "data.csv").write_text("id,x,y,split\n" + "".join(f"{a},{b},{c},{d}\n" for a, b, c, d in rows))
    from d3mkit.interop.croissant import CONTEXT
    f = lambda n, t, ref=None: {"@type": "cr:Field", "@id": f"rows/{n}", "name": n, "dataType": t,
                                "source": {"fileObject": {"@id": "data"}, "extract": {"column": n}},
                                **({"references": {"field": {"@id": ref}}} if ref else {})}
    doc = {"@context": CONTEXT, "@type": "sc:Dataset", "name": "s", "conformsTo": "http://mlcommons.org/croissant/1.1",
           "distribution": [{"@type": "cr:FileObject", "@id": "data", "name": "data.csv", "contentUrl": "data.csv",
                             "encodingFormat": "text/csv"}],
           "recordSet": [{"@type": "cr:RecordSet", "@id": "split_enums", "dataType": "cr:Split",
                          "key": {"@id": "split_enums/name"},
                          "field": [{"@type": "cr:Field", "@id": "split_enums/name", "dataType": "sc:Text"},
                                    {"@type": "cr:Field", "@id": "split_enums/url", "dataType": "cr:Split"}],
                          "data": [{"split_enums/name": k, "split_enums/url": v} for k, v in urls.items()]},
                         {"@type": "cr:RecordSet", "@id": "rows", "key": {"@id": "rows/id"},
                          "field": [f("id", "sc:Integer"), f("x", "sc:Text"), f("y", "sc:Text"),
                                    f("split", "sc:Text", "split_enums/name")]}]}
    p = tmp / "s.json"
    p.write_text(json.dumps(doc))
    return p


def test_a_split_field_becomes_a_holdout(tmp_path, capsys):
    p = _split_field_file(tmp_path, ["training", "testing", "training", "val"],
                          {"training": "cr:TrainingSplit", "testing": "cr:TestSplit", "val": "cr:ValidationSplit"})
    code, stdout, err = run(["import", "croissant", p, "--record-set", "rows", "--target", "y", "--out",
                             tmp_path / "o", "--name", "s"], capsys)
    assert code == 0, err
    assert "croissant.split_validation" in err and "3 validation row(s)" in err
    task = TaskRoot.open(tmp_path / "o" / "s")
    assert "split" not in task.learning_data().columns            # the split field leaves the table
    s = task.splits()
    assert s["type"].tolist() == ["TEST" if i % 4 == 1 else "TRAIN" for i in range(12)]
    assert task.problem.splits["method"] == "holdOut" and task.problem.splits["testSize"] == 0.25


def test_an_unknown_split_is_refused(tmp_path, capsys):
    p = _split_field_file(tmp_path, ["train", "test", "extra"], {"train": "cr:TrainingSplit",
                                                                 "test": "cr:TestSplit", "extra": "x:Other"})
    refused(["import", "croissant", p, "--record-set", "rows", "--target", "y", "--out", tmp_path / "o"],
            capsys, "croissant.split", 1, path=p)
    assert not (tmp_path / "o").exists()


def _problem_root(tmp: Path, kind: str) -> Path:
    """A root with non-default metrics: binary classification scored by f1 of the positive
    label 'yes' (a parameter), accuracy and jaccardSimilarityScore, or a regression by
    meanAbsoluteError and rSquared; with a description, a problem description, a licence and a citation."""
    from _scoring_util import make_task
    n = 40
    if kind == "binary":
        frame = pd.DataFrame({"d3mIndex": range(n), "x": [f"{i % 7}.5" for i in range(n)],
                              "y": ["yes" if i % 3 else "no" for i in range(n)]})
        metrics = [{"metric": "f1", "posLabel": "yes"}, {"metric": "accuracy"}, {"metric": "jaccardSimilarityScore"}]
        root = make_task(tmp, kind, frame, ["y"], metrics, subtype="binary", col_types={"x": "real"})
    else:
        frame = pd.DataFrame({"d3mIndex": range(n), "x": [str(i % 5) for i in range(n)],
                              "y": [f"{i * 0.5:.1f}" for i in range(n)]})
        metrics = [{"metric": "meanAbsoluteError"}, {"metric": "rSquared"}]
        root = make_task(tmp, kind, frame, ["y"], metrics, task_type="regression", subtype="univariate",
                         col_types={"x": "integer", "y": "real"})
    for doc, update in ((f"{kind}_dataset/datasetDoc.json", {"description": f"The {kind} data.",
                                                             "license": "CC BY 4.0", "citation": "A. Author, 2026."}),
                        (f"{kind}_problem/problemDoc.json", {"problemDescription": f"Predict y ({kind})."})):
        data = json.loads((root / doc).read_text())
        data["about"].update(update)
        (root / doc).write_text(json.dumps(data))
    return root


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["binary", "regression"])
def test_round_trip_keeps_the_problem(tmp_path, capsys, kind):
    """export -> import (no --target: the file's problem names it) -> export gives the same
    d3m:problem (targets, task type/subtype, metrics with their parameters, splits,
    description) and the same name, description, licence and citation."""
    root = _problem_root(tmp_path, kind)
    assert run(["export", "croissant", root], capsys)[0] == 0
    first = tmp_path / f"{kind}.croissant.json"
    out = tmp_path / "imported"
    code, stdout, err = run(["import", "croissant", first, "--record-set", "learningData", "--out", out], capsys)
    assert code == 0, err
    task = TaskRoot.open(out / kind)
    assert task.problem.metrics == TaskRoot.open(root).problem.metrics
    code, stdout, err = run(["export", "croissant", out / kind], capsys)
    assert code == 0, err
    d1, d2 = json.loads(first.read_text()), json.loads(Path(stdout.strip()).read_text())
    assert d1["d3m:problem"] == d2["d3m:problem"]
    for k in ("name", "description", "license", "citeAs"):
        assert d1[k] == d2[k], k
    assert _fields(d1, "learningData") == _fields(d2, "learningData")


def test_metric_flag_replaces_the_files_metrics(tmp_path, capsys):
    first = _exported_problem(tmp_path, capsys)
    code, _, err = run(["import", "croissant", first, "--record-set", "learningData", "--out", tmp_path / "o",
                        "--metric", "f1Macro"], capsys)
    assert code == 0, err
    task = TaskRoot.open(tmp_path / "o" / "binary")
    assert task.problem.metrics == [{"metric": "f1Macro"}] and task.problem.task_subtype == "binary"


@pytest.mark.slow
def test_another_target_does_not_take_the_problem(tmp_path, capsys):
    """The file's problem applies to its own targets only: another target gets the defaults."""
    first = _exported_problem(tmp_path, capsys)
    code, _, err = run(["import", "croissant", first, "--record-set", "learningData", "--out", tmp_path / "o",
                        "--target", "x"], capsys)
    assert code == 0, err
    assert TaskRoot.open(tmp_path / "o" / "binary").problem.metric_names == ["rootMeanSquaredError"]


def _exported_problem(tmp: Path, capsys) -> Path:
    root = _problem_root(tmp, "binary")
    assert run(["export", "croissant", root], capsys)[0] == 0
    return tmp / "binary.croissant.json"


def _problem_variant(tmp: Path, capsys, change) -> Path:
    doc = json.loads(_exported_problem(tmp, capsys).read_text())
    change(doc["d3m:problem"])
    p = tmp / "variant.json"
    p.write_text(json.dumps(doc))
    return p


PROBLEM_CASES = {
    "unknown": (lambda p: p.update({"d3m:performanceMetrics": json.dumps([{"metric": "accuracy"}, {"metric": "nope"}])}),
                "metric.unknown", "d3m:problem.d3m:performanceMetrics[1]"),
    "unknown_name": (lambda p: (p.pop("d3m:performanceMetrics"),
                                p["cr:evaluation"].update({"cr:expectedMetric": [{"@value": "nope"}]})),
                     "metric.unknown", "cr:evaluation.cr:expectedMetric[0]"),
    "unknown_old_name": (lambda p: (p.pop("d3m:performanceMetrics"), p["cr:evaluation"].pop("cr:expectedMetric"),
                                    p["cr:evaluation"].update({"cr:metric": ["nope"]})),
                         "metric.unknown", "cr:evaluation.cr:metric[0]"),
    "not_json": (lambda p: p.update({"d3m:performanceMetrics": "[{"}), "croissant.problem", "d3m:performanceMetrics"),
    "task": (lambda p: p.update({"d3m:taskType": "objectDetection"}), "croissant.problem", "d3m:taskType"),
    "subtype": (lambda p: p.update({"d3m:taskSubType": "univariate"}), "croissant.problem", "d3m:taskSubType"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(PROBLEM_CASES))
def test_bad_problem_refused(tmp_path, capsys, case):
    change, code, where = PROBLEM_CASES[case]
    p = _problem_variant(tmp_path, capsys, change)
    text = refused(["import", "croissant", p, "--record-set", "learningData", "--out", tmp_path / "o"],
                   capsys, code, 1, path=p)
    assert where in text
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


def test_no_target_and_no_problem(tmp_path, capsys):
    p = _problem_variant(tmp_path, capsys, lambda prob: None)
    doc = json.loads(p.read_text())
    del doc["d3m:problem"]
    p.write_text(json.dumps(doc))
    refused(["import", "croissant", p, "--record-set", "learningData", "--out", tmp_path / "o"], capsys, "usage", 2)


@pytest.mark.slow
@pytest.mark.parametrize("root", PARAMS)
def test_problems_round_trip(root, tmp_path, capsys):
    """Every root under problems/: export -> import (the file's problem) -> export gives the same
    d3m:problem, dataset facts (name, description, licence, citation, RAI fields) and
    learningData record set; a classification problem of several targets that is not
    multiLabel (value: 64 cells) does not map to an import and is refused."""
    src = copy_root(root, tmp_path)
    assert run(["export", "croissant", src], capsys)[0] == 0
    first = tmp_path / f"{root.name}.croissant.json"
    argv = ["import", "croissant", first, "--record-set", "learningData", "--out", tmp_path / "in"]
    if len(TaskRoot.open(src).targets) > 1:
        refused(argv, capsys, "croissant.problem", 1, path=first)
        return
    code, _, err = run(argv, capsys)
    assert code == 0, err
    code, stdout, err = run(["export", "croissant", tmp_path / "in" / root.name], capsys)
    assert code == 0 and "rai_missing" not in err, err
    second = Path(stdout.strip())
    d1, d2 = json.loads(first.read_text()), json.loads(second.read_text())
    assert d1["d3m:problem"] == d2["d3m:problem"]
    for k in [k for k in d1 if k.startswith("rai:")] + ["name", "description", "license", "citeAs"]:
        assert d1[k] == d2[k], k
    assert _fields(d1, "learningData") == _fields(d2, "learningData")
    pd.testing.assert_frame_equal(read_record_set(first, "learningData").frame,
                                  read_record_set(second, "learningData").frame)


def test_python_api_takes_the_problem_and_metric_entries(tmp_path, capsys):
    """import_croissant without a target takes the file's; import_table's metrics may be
    performanceMetrics entries with parameters."""
    import d3mkit
    first = _exported_problem(tmp_path, capsys)
    root = d3mkit.import_croissant(first, record_set="learningData", out=tmp_path / "api")
    assert TaskRoot.open(root).problem.metrics[0] == {"metric": "f1", "posLabel": "yes"}
    frame = pd.DataFrame({"x": [str(i) for i in range(20)], "y": ["yes", "no"] * 10})
    root = d3mkit.import_table(frame, target="y", out=tmp_path / "t", name="t",
                               metrics=[{"metric": "f1", "posLabel": "no"}, "accuracy"])
    assert TaskRoot.open(root).problem.metrics == [{"metric": "f1", "posLabel": "no"}, {"metric": "accuracy"}]
