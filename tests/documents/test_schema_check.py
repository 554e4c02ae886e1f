"""JSON Schema check: codes and locations of the issues (d3mkit.validation.schema)."""

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from d3mkit.documents.dataset import Column, DatasetDoc, Resource
from d3mkit.documents.problem import ProblemDoc, Target
from d3mkit.validation.schema import (cerberus_errors, check_dataset_schema,
                                    check_problem_schema, load_schema, schema_dir)


def problem():
    return ProblemDoc.new("p_problem", "p", "classification", "binary", "p_dataset",
                          [Target(0, "learningData", 2, "label")],
                          [{"metric": "f1", "posLabel": "1"}, {"metric": "accuracy"}]).to_dict()


def dataset():
    return DatasetDoc.new("p_dataset", "p", [
        Resource.collection("media", "media/", "image", ["image/png"]),
        Resource.table("learningData", "tables/learningData.csv", [
            Column(0, "d3mIndex", "integer", ("index",)),
            Column(1, "image", "string", ("attribute",), {"resID": "media", "resObject": "item"}),
            Column(2, "label", "categorical", ("suggestedTarget",))])]).to_dict()


def codes(issues):
    return sorted((i.code, i.location) for i in issues)


def test_schema_files_present():
    from d3mkit.documents.versions import VERSIONS
    names = sorted(p.name for p in schema_dir().glob("*.json"))
    assert names == sorted(f"{k}Schema-{v}.{f}.json" for k in ("problem", "dataset")
                           for v in VERSIONS for f in ("schema", "cerberus"))
    assert load_schema("problem")["$schema"].endswith("2020-12/schema")


def test_skeleton_documents_are_valid():
    assert check_problem_schema(problem()) == [] and cerberus_errors("problem", problem()) == []
    assert check_dataset_schema(dataset()) == [] and cerberus_errors("dataset", dataset()) == []


def test_issue_carries_path_and_one_line_message():
    d = problem()
    d["inputs"]["data"][0]["targets"][0]["colIndex"] = "2"
    [issue] = check_problem_schema(d, "x/problemDoc.json")
    assert (issue.code, issue.location, issue.path) == (
        "schema.type", "inputs.data[0].targets[0].colIndex", "x/problemDoc.json")
    assert "\n" not in issue.message and "integer" in issue.message


@pytest.mark.parametrize("mutate, expected", [
    (lambda d: d["about"].pop("taskType"), [("schema.required", "about.taskType")]),
    (lambda d: d["about"].update(taskTyp="x"), [("schema.unknown_field", "about.taskTyp")]),
    (lambda d: d["about"].update(taskType="classify"), [("schema.enum", "about.taskType")]),
    (lambda d: d["inputs"]["data"][0]["targets"][0].update(colIndex=1.0),
     [("schema.type", "inputs.data[0].targets[0].colIndex")]),
    (lambda d: d["inputs"]["data"][0]["targets"][0].update(targetIndex=True),
     [("schema.type", "inputs.data[0].targets[0].targetIndex")]),
    (lambda d: d["inputs"]["data"][0]["targets"][0].update(colIndex=-1),
     [("schema.range", "inputs.data[0].targets[0].colIndex")]),
    (lambda d: d["inputs"]["data"][0].update(targets=[]), [("schema.min_items", "inputs.data[0].targets")]),
    (lambda d: d["inputs"]["data"][0].update(datasetID=""), [("schema.empty", "inputs.data[0].datasetID")]),
    (lambda d: d["inputs"]["dataSplits"].update(testSize=1.5), [("schema.range", "inputs.dataSplits.testSize")]),
    (lambda d: d["inputs"]["dataSplits"].update(method="kFold", numFolds=5),
     [("schema.dependency", "inputs.dataSplits.testSize")]),
    (lambda d: d["inputs"]["performanceMetrics"].append({"metric": "other"}),
     [("schema.required", "inputs.performanceMetrics[2].specifyOther")]),
    (lambda d: d["inputs"]["performanceMetrics"].append({"metric": "accuracy", "specifyOther": "x"}),
     [("schema.dependency", "inputs.performanceMetrics[2].specifyOther")]),
    (lambda d: d["inputs"]["performanceMetrics"][1].update(K=5),
     [("schema.dependency", "inputs.performanceMetrics[1].K")]),
    (lambda d: d["inputs"]["performanceMetrics"][1].update(posLabel="1"),
     [("schema.dependency", "inputs.performanceMetrics[1].posLabel")]),
    (lambda d: d["inputs"]["performanceMetrics"][0].update(applicabilityToTarget="everything"),
     [("schema.enum", "inputs.performanceMetrics[0].applicabilityToTarget")]),
    (lambda d: d.pop("expectedOutputs"), [("schema.required", "expectedOutputs")]),
])
def test_problem_mutation_codes(mutate, expected):
    d = problem()
    mutate(d)
    assert codes(check_problem_schema(d)) == sorted(expected)
    assert cerberus_errors("problem", d) != []


def test_all_issues_reported_not_the_first():
    d = problem()
    d["about"].pop("problemID")
    d["about"]["extra"] = 1
    d["inputs"]["performanceMetrics"][0]["metric"] = "f2"
    d["inputs"]["data"][0]["targets"][0]["colName"] = 3
    assert codes(check_problem_schema(d)) == sorted([
        ("schema.required", "about.problemID"), ("schema.unknown_field", "about.extra"),
        ("schema.enum", "inputs.performanceMetrics[0].metric"),
        ("schema.dependency", "inputs.performanceMetrics[0].posLabel"),
        ("schema.type", "inputs.data[0].targets[0].colName")])


@pytest.mark.parametrize("mutate, expected", [
    (lambda d: d["about"].pop("license"), [("schema.required", "about.license")]),
    (lambda d: d["dataResources"][0].update(columns=[]),
     [("schema.dependency", "dataResources[0].columns")]),
    (lambda d: d["dataResources"][1]["columns"][0].update(colType="int"),
     [("schema.enum", "dataResources[1].columns[0].colType")]),
    (lambda d: d["dataResources"][1]["columns"][0].update(role=["primaryKey"]),
     [("schema.enum", "dataResources[1].columns[0].role[0]")]),
    (lambda d: d["dataResources"][1]["columns"][1]["refersTo"].update(resObject="file"),
     [("schema.one_of", "dataResources[1].columns[1].refersTo.resObject")]),
    (lambda d: d["dataResources"][1]["columns"][1]["refersTo"].update(resObject={"colName": "x"}),
     [("schema.one_of", "dataResources[1].columns[1].refersTo.resObject")]),
    (lambda d: d["dataResources"][1].update(resFormat="text/csv"),
     [("schema.type", "dataResources[1].resFormat")]),
    (lambda d: d["dataResources"][1].update(isCollection="no"),
     [("schema.type", "dataResources[1].isCollection")]),
    (lambda d: d.update(qualities=[{"qualityName": "LUPI", "qualValue": True, "qualValueType": "boolean"}]),
     [("schema.required", "qualities[0].qualName"), ("schema.unknown_field", "qualities[0].qualityName")]),
])
def test_dataset_mutation_codes(mutate, expected):
    d = dataset()
    mutate(d)
    assert codes(check_dataset_schema(d)) == sorted(expected)
    assert cerberus_errors("dataset", d) != []


def test_not_an_object():
    for bad in ([], "x", 3, None):
        [issue] = check_dataset_schema(bad)
        assert issue.code == "schema.type" and issue.location == ""
        assert cerberus_errors("dataset", bad) != []


def test_check_does_not_modify_input():
    d = problem()
    before = copy.deepcopy(d)
    check_problem_schema(d)
    cerberus_errors("problem", d)
    assert d == before


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["about", "inputs", "data", "targets", "dataResources", "columns", "metric",
                         "resObject", "refersTo", "qualities", "x", ""]) | st.text(max_size=3),
        inner, max_size=4),
    max_leaves=15)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(json_values, st.sampled_from(["problem", "dataset"]))
def test_arbitrary_json_gives_issues_never_exceptions(value, kind):
    check = check_problem_schema if kind == "problem" else check_dataset_schema
    issues = check(value, "doc.json")
    assert all(i.code.startswith("schema.") and i.path == "doc.json" and "\n" not in i.message
               for i in issues)
    if not isinstance(value, dict):
        assert issues
