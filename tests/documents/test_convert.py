"""problemDoc conversion 3.1.1 <-> 4.0.0 (d3mkit.documents.convert, ``d3mkit convert``)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from d3mkit.cli import main
from d3mkit.documents.convert import TASK_SUBTYPE_KEYWORDS, TASK_TYPE_KEYWORDS
from d3mkit.validation.convert import convert_checked
from d3mkit.documents.jsonio import dump_json
from d3mkit.documents.problem import ProblemDoc, Target
from d3mkit.validation.schema import check_problem_schema

# The D3M reference package (d3m 2022.5.5, Python 3.8) is not a dependency: point
# D3MKIT_D3M_PYTHON at its interpreter to run the cross-check (docs/d3m-interop.md).
D3M_PYTHON = Path(os.environ.get("D3MKIT_D3M_PYTHON", ""))
D3M_MISSING = ("set D3MKIT_D3M_PYTHON to the python of a d3m==2022.5.5 environment "
               "to run this cross-check (docs/d3m-interop.md)")


def doc311(task_type="classification", sub="binary", metrics=None):
    return ProblemDoc.new("p_problem", "p", task_type, sub, "p_dataset",
                          [Target(0, "learningData", 2, "label", None)],
                          metrics or [{"metric": "f1", "posLabel": "1"}, {"metric": "accuracy"}],
                          description="a problem").to_dict()


@pytest.mark.parametrize("task_type", sorted(TASK_TYPE_KEYWORDS))
@pytest.mark.parametrize("sub", [None] + sorted(TASK_SUBTYPE_KEYWORDS))
def test_round_trip_is_byte_identical(task_type, sub):
    d = doc311(task_type, sub)
    d["about"]["x-extra"] = {"kept": [1, 2]}          # unknown fields are preserved too
    new, issues = convert_checked(d, "4.0.0")
    assert issues == []
    kws = new["about"]["taskKeywords"]
    assert kws == TASK_TYPE_KEYWORDS[task_type] + (TASK_SUBTYPE_KEYWORDS[sub] if sub else [])
    assert "taskType" not in new["about"] and "taskSubType" not in new["about"]
    assert new["about"]["problemSchemaVersion"] == "4.0.0"
    assert new["inputs"] == d["inputs"] and new["expectedOutputs"] == d["expectedOutputs"]
    back, issues = convert_checked(new, "3.1.1")
    assert [i.code for i in issues] == ["schema.unknown_field"]     # x-extra, as before
    assert dump_json(back) == dump_json(d)


def test_key_position_is_kept():
    d = doc311()
    new, _ = convert_checked(d, "4.0.0")
    assert list(new["about"]) == ["problemID", "problemName", "problemDescription", "taskKeywords",
                                  "problemVersion", "problemSchemaVersion"]


def test_same_version_is_unchanged():
    d = doc311()
    out, issues = convert_checked(d, "3.1.1")
    assert out == d and out is not d and issues == []


def test_400_keywords_without_311_equivalent_are_dropped_with_warning():
    d = doc311()
    new, _ = convert_checked(d, "4.0.0")
    new["about"]["taskKeywords"] = ["tabular", "classification", "multiClass", "lupi"]
    back, issues = convert_checked(new, "3.1.1")
    assert back["about"]["taskType"] == "classification" and back["about"]["taskSubType"] == "multiClass"
    assert [(i.severity, i.code) for i in issues] == [("warning", "convert.dropped_keywords")]
    assert "tabular, lupi" in issues[0].message
    assert check_problem_schema(back) == []


def test_time_series_classification_is_classification():
    new, _ = convert_checked(doc311(), "4.0.0")
    new["about"]["taskKeywords"] = ["timeSeries", "classification", "binary"]
    back, issues = convert_checked(new, "3.1.1")
    assert back["about"]["taskType"] == "classification"
    assert "timeSeries" in issues[0].message


@pytest.mark.parametrize("keywords, code", [
    (["tabular"], "convert.task_type"),
    (["vertexClassification", "binary"], "convert.task_type"),
    (["classification", "regression"], "convert.task_type"),
    (["classification", "binary", "multiClass"], "convert.task_subtype"),
    ("classification", "convert.task_keywords"),
    ([1, 2], "convert.task_keywords"),
])
def test_unconvertible_400(keywords, code):
    new, _ = convert_checked(doc311(), "4.0.0")
    new["about"]["taskKeywords"] = keywords
    out, issues = convert_checked(new, "3.1.1", "p.json")
    assert out is None
    assert code in [i.code for i in issues if i.is_error]
    assert all(i.path == "p.json" and i.location == "about.taskKeywords" for i in issues)


def test_400_metric_missing_in_311_is_an_error():
    new, _ = convert_checked(doc311(), "4.0.0")
    new["inputs"]["performanceMetrics"].append({"metric": "hammingLoss"})
    out, issues = convert_checked(new, "3.1.1")
    assert out is None
    assert [(i.code, i.location) for i in issues] == [("convert.metric", "inputs.performanceMetrics[2].metric")]


def test_311_metrics_unknown_to_d3m_warn():
    d = doc311(metrics=[{"metric": "other", "specifyOther": "sF1"}, {"metric": "rootMeanSquaredErrorAvg"}])
    new, issues = convert_checked(d, "4.0.0")
    assert new is not None
    assert [(i.severity, i.location) for i in issues] == [
        ("warning", "inputs.performanceMetrics[0].metric"), ("warning", "inputs.performanceMetrics[1].metric")]


@pytest.mark.parametrize("about_patch, code", [
    ({"taskType": "graphClustering"}, "convert.task_type"),
    ({"taskType": "other"}, "convert.task_type"),
    ({"taskSubType": "other"}, "convert.task_subtype"),
    ({"taskKeywords": ["classification"]}, "convert.version"),
])
def test_unconvertible_311(about_patch, code):
    d = doc311()
    d["about"].update(about_patch)
    out, issues = convert_checked(d, "4.0.0")
    assert out is None and [i.code for i in issues] == [code]


@pytest.mark.parametrize("doc", [[], "x", {"about": []}, {"inputs": {}}, {"about": {"problemID": "p"}},
                                 {"about": {"datasetID": "d"}, "dataResources": []}])
def test_not_a_problem_doc(doc):
    out, issues = convert_checked(doc, "4.0.0")
    assert out is None and issues and all(i.is_error for i in issues)


# --- command line -------------------------------------------------------------------------
def write(tmp_path, doc, name="problemDoc.json"):
    p = tmp_path / name
    p.write_text(dump_json(doc))
    return p


def test_cli_stdout_and_output(tmp_path, capsys):
    src = write(tmp_path, doc311())
    assert main(["convert", str(src), "--to", "4.0.0"]) == 0
    printed = capsys.readouterr().out
    out = tmp_path / "out" / "problemDoc.json"
    assert main(["convert", str(tmp_path), "--to", "4.0.0", "--out", str(out)]) == 0
    assert out.read_text() == printed
    assert json.loads(printed)["about"]["taskKeywords"] == ["classification", "binary"]
    # refuses to overwrite without --force, exit 2
    assert main(["convert", str(src), "--to", "4.0.0", "--out", str(out)]) == 2
    assert "--force" in capsys.readouterr().err
    back = tmp_path / "back.json"
    assert main(["convert", str(out), "--to", "3.1.1", "--out", str(back)]) == 0
    assert back.read_bytes() == src.read_bytes()


def test_cli_bad_input_exit_codes(tmp_path, capsys):
    assert main(["convert", str(tmp_path / "missing.json"), "--to", "4.0.0"]) == 2
    bad = tmp_path / "bad.json"
    bad.write_text('{"about": {"taskType": "classification",}}')
    assert main(["convert", str(bad), "--to", "4.0.0"]) == 1
    err = capsys.readouterr().err
    assert "line 1" in err and "trailing comma" in err
    d = doc311()
    d["about"]["taskType"] = "graphClustering"
    assert main(["convert", str(write(tmp_path, d, "g.json")), "--to", "4.0.0"]) == 1
    err = capsys.readouterr().err
    assert "about.taskType" in err and "Traceback" not in err
    with pytest.raises(SystemExit) as exc:
        main(["convert", str(bad), "--to", "2.0"])
    assert exc.value.code == 2


# --- the D3M reference package reads both forms as the same task ------------------------------
D3M_KEYWORDS = r"""
import json, logging, sys
logging.disable(logging.CRITICAL)
from d3m.metadata.problem import Problem
out = {}
for p in sys.argv[1:]:
    prob = Problem.load("file://" + p)
    out[p] = sorted(k.unparse() for k in prob["problem"]["task_keywords"])
print(json.dumps(out))
"""


@pytest.mark.skipif(not os.environ.get("D3MKIT_D3M_PYTHON") or not D3M_PYTHON.is_file(), reason=D3M_MISSING)
def test_d3m_reads_converted_keywords_like_legacy_fields(tmp_path):
    pairs = []
    for t in sorted(TASK_TYPE_KEYWORDS):
        for s in (None, "binary", "univariate", "overlapping"):
            d = doc311(t, s, metrics=[{"metric": "accuracy"}])
            a = tmp_path / f"{t}_{s}_311" / "problemDoc.json"
            b = tmp_path / f"{t}_{s}_400" / "problemDoc.json"
            a.parent.mkdir()
            b.parent.mkdir()
            a.write_text(dump_json(d))
            b.write_text(dump_json(convert_checked(d, "4.0.0")[0]))
            pairs.append((str(a), str(b)))
    res = subprocess.run([str(D3M_PYTHON), "-c", D3M_KEYWORDS] + [p for ab in pairs for p in ab],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    got = json.loads(res.stdout)
    for a, b in pairs:
        assert got[a] == got[b], (a, got[a], got[b])


def test_task_type_of_the_wrong_json_type_is_an_error_not_a_crash(tmp_path, capsys):
    from d3mkit.cli import main
    doc = json.loads((Path(__file__).resolve().parents[2] / "problems/wine/wine_problem/problemDoc.json").read_text())
    doc["about"]["taskType"] = ["classification"]
    src = tmp_path / "problemDoc.json"
    src.write_text(json.dumps(doc))
    assert main(["convert", str(src), "--to", "4.0.0", "--out", str(tmp_path / "out.json")]) == 1
    err = capsys.readouterr().err
    assert "about.taskType" in err and "must be a string" in err and "Traceback" not in err
    assert not (tmp_path / "out.json").exists()
