"""Version-aware validation: the declared version picks the schema; a missing or
unsupported version is one schema.version issue; 4.0.0 minimal metadata; a problemDoc on
its own; the 3.2-4.0 features the issue lists."""

import json

import pytest

from d3mkit.validation import validate_paths
from d3mkit.validation.schema import cerberus_errors, check_schema
from d3mkit.documents.versions import VERSIONS, family


def problem(version="3.1.1", **about):
    doc = {"about": {"problemID": "p", "problemName": "p", "taskType": "classification",
                     "taskSubType": "binary", "problemVersion": "1.0", "problemSchemaVersion": version},
           "inputs": {"data": [{"datasetID": "d", "targets": [
               {"targetIndex": 0, "resID": "learningData", "colIndex": 2, "colName": "y"}]}],
               "performanceMetrics": [{"metric": "f1Macro"}]},
           "expectedOutputs": {"predictionsFile": "predictions.csv"}}
    doc["about"].update(about)
    if family("problem", version) == "4.0":
        for k in ("taskType", "taskSubType"):
            doc["about"].pop(k)
        doc["about"]["taskKeywords"] = ["classification", "binary", "tabular"]
    return doc


@pytest.mark.parametrize("bad", ["5.0", "3.1.3", "", 3.1, None])
def test_unsupported_or_missing_version_is_one_issue(bad):
    doc = problem(taskType="vertexClassification", zz=1)   # would be two 3.1 errors
    if bad is None:
        del doc["about"]["problemSchemaVersion"]
    else:
        doc["about"]["problemSchemaVersion"] = bad
    issue, *base = check_schema("problem", doc, "x.json")
    # no version at all (issue 20): the base schema's findings follow, each saying so
    assert len(base) == (2 if bad is None else 0)
    assert all("checked against problemSchema 3.1.1" in i.message for i in base)
    assert issue.code == "schema.version" and issue.location == "about.problemSchemaVersion"
    assert "4.0.0" in issue.message and "3.1.1" in issue.message and "did you mean" not in issue.message
    if bad is not None:
        assert repr(bad) in issue.message


@pytest.mark.slow
@pytest.mark.parametrize("version", VERSIONS)
def test_each_version_has_its_schema(version):
    doc = problem(version)
    assert check_schema("problem", doc) == [] and cerberus_errors("problem", doc, version) == []


def test_vertex_classification_is_not_a_31_error_in_32():
    assert check_schema("problem", problem("3.2.0", taskType="vertexClassification")) == []
    [i] = check_schema("problem", problem("3.1.1", taskType="vertexClassification"))
    assert i.code == "schema.enum"


def test_400_problem_features():
    doc = problem("4.0.0")
    doc["inputs"]["dataSplits"] = {"method": "holdOut", "testSize": 0.2, "splitScript": "split.py",
                                   "datasetViewMaps": {"train": [{"from": "d", "to": "d_TRAIN"}]}}
    doc["inputs"]["performanceMetrics"] = [{"metric": "hitsAtK", "K": 10}, {"metric": "meanReciprocalRank"}]
    doc["dataAugmentation"] = [{"domain": ["government"], "keywords": ["census"]}]
    assert check_schema("problem", doc) == [] and cerberus_errors("problem", doc, "4.0.0") == []
    doc["about"]["taskType"] = "classification"   # unknown fields are allowed in 4.0.0 ...
    assert check_schema("problem", doc) == []
    doc["about"]["taskKeywords"] = ["classification", "clasification"]   # ... values are checked
    assert [i.code for i in check_schema("problem", doc)] == ["schema.enum"]


def dataset(version, columns, res_format=None, **res):
    return {"about": {"datasetID": "d", "datasetName": "d", "datasetVersion": "1.0",
                      "datasetSchemaVersion": version, "digest": "abc"},
            "dataResources": [dict({"resID": "learningData", "resPath": "tables/learningData.csv",
                                    "resType": "table", "resFormat": res_format or {"text/csv": ["csv"]},
                                    "isCollection": False, "columns": columns}, **res)]}


def test_400_minimal_metadata_task_root(tmp_path):
    """Undeclared columns are allowed in 4.0.0; colIndex then refers to the CSV."""
    ds = tmp_path / "d_dataset"
    (ds / "tables").mkdir(parents=True)
    (ds / "tables" / "learningData.csv").write_text("d3mIndex,a,b,Hall_of_Fame\n0,1,2,x\n1,3,4,y\n")
    cols = [{"colIndex": 0, "colName": "d3mIndex", "colType": "integer", "role": ["index"]}]
    (ds / "datasetDoc.json").write_text(json.dumps(dataset("4.0.0", cols, columnsCount=4)))
    pr = tmp_path / "d_problem"
    pr.mkdir()
    doc = problem("4.0.0")
    doc["inputs"]["data"][0]["targets"][0].update(colIndex=3, colName="Hall_of_Fame")
    (pr / "problemDoc.json").write_text(json.dumps(doc))
    (pr / "dataSplits.csv").write_text("d3mIndex,type,repeat,fold\n0,TRAIN,0,0\n1,TEST,0,0\n")
    report = validate_paths([tmp_path])
    errors = [i.format() for i in report.issues() if i.is_error]
    assert errors == []
    # a wrong colIndex of an undeclared target is still found, against the CSV
    doc["inputs"]["data"][0]["targets"][0].update(colIndex=2)
    (pr / "problemDoc.json").write_text(json.dumps(doc))
    hits = [i for i in validate_paths([tmp_path]).issues() if i.code == "target.column_missing"]
    assert len(hits) == 1 and "'b'" in hits[0].message
    # the same dataset declared as 3.1.2 must declare every column
    d31 = dataset("3.1.2", cols, res_format=["text/csv"])
    del d31["about"]["digest"]
    d31["about"]["license"] = "CC0"
    (ds / "datasetDoc.json").write_text(json.dumps(d31))
    got = {i.code for i in validate_paths([ds]).issues()}
    assert "table.header" in got


def test_problem_alone_is_checked_with_one_warning(tmp_path):
    p = tmp_path / "problemDoc.json"
    p.write_text(json.dumps(problem("3.1.1")))
    report = validate_paths([p])
    assert [i.code for i in report.issues()] == ["problem.dataset_unchecked"]
    assert [d.kind for d in report.documents] == ["problemDoc"] and report.valid()
    bad = problem("3.1.1", taskSubType="univariate")   # its own checks still run
    p.write_text(json.dumps(bad))
    assert {i.code for i in validate_paths([p]).issues()} == {"problem.dataset_unchecked", "task.subtype"}
