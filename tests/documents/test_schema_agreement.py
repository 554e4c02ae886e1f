"""Both forms of each schema (cerberus, JSON Schema) agree on valid/invalid over a corpus.

The corpus is built here: hand-written valid documents using every field and every
enumeration value, hand-written invalid ones (required fields, dependencies, other /
specifyOther, K, posLabel, applicabilityToTarget, unknown fields), systematic mutations of
a full document (delete each field, give each field a value of each wrong type, add an
unknown field to each object), random mutations (hypothesis) and the published D3M
examples (iris and image valid once image's trailing commas are removed; multitable's
qualities are invalid).
"""

import copy
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from d3mkit.validation.schema import cerberus_errors, check_schema, load_schema
from d3mkit.documents.versions import BASE_VERSION

import os

# the example datasetDocs published with the D3M 3.1 dataset schema documentation, read from
# the shared reference directory (third-party files stay out of the repository)
REFERENCE = os.environ.get("D3MKIT_REFERENCE")
EXAMPLES = Path(REFERENCE or ".") / "d3m-3.1" / "examples"

TASK_TYPES = ["classification", "regression", "clustering", "linkPrediction", "vertexNomination",
              "communityDetection", "graphClustering", "graphMatching", "timeSeriesForecasting",
              "collaborativeFiltering", "objectDetection", "other"]
TASK_SUBTYPES = ["binary", "multiClass", "multiLabel", "univariate", "multivariate",
                 "overlapping", "nonOverlapping", "other"]
METRICS = ["accuracy", "precision", "recall", "f1", "f1Micro", "f1Macro", "rocAuc", "rocAucMicro",
           "rocAucMacro", "meanSquaredError", "rootMeanSquaredError", "rootMeanSquaredErrorAvg",
           "meanAbsoluteError", "rSquared", "normalizedMutualInformation", "jaccardSimilarityScore",
           "precisionAtTopK", "objectDetectionAP"]
RES_TYPES = ["image", "video", "audio", "speech", "text", "graph", "edgeList", "table", "timeseries"]
COL_TYPES = ["boolean", "integer", "real", "string", "categorical", "dateTime", "realVector",
             "json", "geojson"]
ROLES = ["index", "key", "attribute", "suggestedTarget", "timeIndicator", "locationIndicator",
         "boundaryIndicator", "instanceWeight", "boundingBox"]


def full_problem():
    return {
        "about": {"problemID": "p_problem", "problemName": "p", "problemDescription": "d",
                  "problemURI": "file:///p", "taskType": "classification", "taskSubType": "binary",
                  "problemVersion": "1.0", "problemSchemaVersion": "3.1.1"},
        "inputs": {
            "data": [{"datasetID": "p_dataset", "targets": [
                {"targetIndex": 0, "resID": "1", "colIndex": 2, "colName": "y", "numClusters": 3}]}],
            "dataSplits": {"method": "holdOut", "testSize": 0.25, "numFolds": 0, "stratified": True,
                           "numRepeats": 1, "randomSeed": 42, "splitsFile": "dataSplits.csv"},
            "performanceMetrics": [
                {"metric": "f1", "posLabel": "1", "applicabilityToTarget": "singleTarget"},
                {"metric": "precisionAtTopK", "K": 5},
                {"metric": "other", "specifyOther": "sF1", "applicabilityToTarget": "allTargets"}]},
        "expectedOutputs": {"predictionsFile": "predictions.csv", "scoresFile": "scores.csv"},
    }


def full_dataset():
    return {
        "about": {"datasetID": "p_dataset", "datasetName": "p", "datasetURI": "file:///p",
                  "description": "d", "citation": "c", "publicationDate": "2018", "humanSubjectsResearch": False,
                  "license": "CC0", "source": "s", "sourceURI": "http://s", "approximateSize": "1 MB",
                  "applicationDomain": "vision", "datasetVersion": "1.0", "datasetSchemaVersion": "3.1.2",
                  "redacted": False},
        "dataResources": [
            {"resID": "0", "resPath": "media/", "resType": "image", "resFormat": ["image/png"],
             "isCollection": True},
            {"resID": "1", "resPath": "tables/learningData.csv", "resType": "table", "resFormat": ["text/csv"],
             "isCollection": False, "columns": [
                 {"colIndex": 0, "colName": "d3mIndex", "colType": "integer", "role": ["index"]},
                 {"colIndex": 1, "colName": "image", "colDescription": "file", "colType": "string",
                  "role": ["index"], "refersTo": {"resID": "0", "resObject": "item"}},
                 {"colIndex": 2, "colName": "y", "colType": "realVector",
                  "role": ["suggestedTarget", "boundaryIndicator", "boundingBox"],
                  "refersTo": {"resID": "1", "resObject": {"columnName": "image"}}},
                 {"colIndex": 3, "colName": "z", "colType": "integer", "role": ["attribute"],
                  "refersTo": {"resID": "1", "resObject": {"columnIndex": 0}}}]}],
        "qualities": [
            {"qualName": "a", "qualValue": "x", "qualValueType": "string"},
            {"qualName": "b", "qualValue": 6.5, "qualValueType": "real", "qualValueUnits": "MB",
             "restrictedTo": {"resID": "1", "resComponent": {"columnName": "y"}}},
            {"qualName": "c", "qualValue": True, "qualValueType": "boolean",
             "restrictedTo": {"resID": "1", "resComponent": {"columnIndex": 2}}},
            {"qualName": "d", "qualValue": 3, "qualValueType": "integer",
             "restrictedTo": {"resID": "0", "resComponent": "nodes"}},
            {"qualName": "e", "qualValue": "v", "qualValueType": "string",
             "restrictedTo": {"resID": "0", "resComponent": {"nodeAttribute": "w"}}},
            {"qualName": "f", "qualValue": "v", "qualValueType": "string",
             "restrictedTo": {"resID": "0", "resComponent": {"edgeAttribute": "w"}}},
            {"qualName": "g", "qualValue": "v", "qualValueType": "string", "restrictedTo": {"resID": "0"}}],
    }


def mutated(doc, path, value=None, delete=False):
    d = copy.deepcopy(doc)
    node = d
    for p in path[:-1]:
        node = node[p]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return d


P, D = "problem", "dataset"
M = ("inputs", "performanceMetrics")


def hand_cases():
    """(name, kind, document, expected valid)."""
    cases = [("problem full", P, full_problem(), True), ("dataset full", D, full_dataset(), True)]
    fp, fd = full_problem(), full_dataset()
    for t in TASK_TYPES:
        cases.append((f"taskType {t}", P, mutated(fp, ("about", "taskType"), t), True))
    for t in TASK_SUBTYPES:
        cases.append((f"taskSubType {t}", P, mutated(fp, ("about", "taskSubType"), t), True))
    for m in METRICS:
        cases.append((f"metric {m}", P, mutated(fp, M, [{"metric": m}]), True))
        if m != "precisionAtTopK":
            cases.append((f"K with {m}", P, mutated(fp, M, [{"metric": m, "K": 3}]), False))
        if m != "f1":
            cases.append((f"posLabel with {m}", P, mutated(fp, M, [{"metric": m, "posLabel": "1"}]), False))
        cases.append((f"specifyOther with {m}", P, mutated(fp, M, [{"metric": m, "specifyOther": "x"}]), False))
    for a in ("singleTarget", "allTargets"):
        cases.append((f"applicability {a}", P, mutated(fp, M, [{"metric": "accuracy", "applicabilityToTarget": a}]), True))
    cases += [
        ("other without specifyOther", P, mutated(fp, M, [{"metric": "other"}]), False),
        ("other with empty specifyOther", P, mutated(fp, M, [{"metric": "other", "specifyOther": ""}]), False),
        ("other with K", P, mutated(fp, M, [{"metric": "other", "specifyOther": "x", "K": 2}]), False),
        ("other with posLabel", P, mutated(fp, M, [{"metric": "other", "specifyOther": "x", "posLabel": "1"}]), False),
        ("K zero", P, mutated(fp, M, [{"metric": "precisionAtTopK", "K": 0}]), False),
        ("K string", P, mutated(fp, M, [{"metric": "precisionAtTopK", "K": "5"}]), False),
        ("posLabel int", P, mutated(fp, M, [{"metric": "f1", "posLabel": 1}]), False),
        ("applicability bad", P, mutated(fp, M, [{"metric": "f1", "applicabilityToTarget": "all"}]), False),
        ("metric missing", P, mutated(fp, M, [{"K": 3}]), False),
        ("metric unknown name", P, mutated(fp, M, [{"metric": "acuracy"}]), False),
        ("no metrics", P, mutated(fp, M, []), False),
        ("kFold without testSize", P, mutated(fp, ("inputs", "dataSplits"), {"method": "kFold", "numFolds": 5}), True),
        ("kFold with testSize", P, mutated(fp, ("inputs", "dataSplits"), {"method": "kFold", "testSize": 0.2}), False),
        ("testSize without method", P, mutated(fp, ("inputs", "dataSplits"), {"testSize": 0.2}), True),
        ("empty dataSplits", P, mutated(fp, ("inputs", "dataSplits"), {}), True),
        # an explicit null is not the default (cerberus' normalisation would fill it in)
        ("problemVersion null", P, mutated(fp, ("about", "problemVersion"), None), False),
        ("dataSplits.method null", P, mutated(fp, ("inputs", "dataSplits", "method"), None), False),
        ("testSize with method null", P, mutated(fp, ("inputs", "dataSplits"), {"method": None, "testSize": 0.2}), False),
        ("no dataSplits", P, mutated(fp, ("inputs", "dataSplits"), None, delete=True), True),
        ("testSize 0", P, mutated(fp, ("inputs", "dataSplits", "testSize"), 0), True),
        ("testSize 1", P, mutated(fp, ("inputs", "dataSplits", "testSize"), 1), True),
        ("testSize > 1", P, mutated(fp, ("inputs", "dataSplits", "testSize"), 1.01), False),
        ("testSize < 0", P, mutated(fp, ("inputs", "dataSplits", "testSize"), -0.1), False),
        ("method bad", P, mutated(fp, ("inputs", "dataSplits", "method"), "bootstrap"), False),
        ("numFolds negative", P, mutated(fp, ("inputs", "dataSplits", "numFolds"), -1), False),
        ("colIndex 2.0", P, mutated(fp, ("inputs", "data", 0, "targets", 0, "colIndex"), 2.0), False),
        ("colIndex true", P, mutated(fp, ("inputs", "data", 0, "targets", 0, "colIndex"), True), False),
        ("numClusters 0", P, mutated(fp, ("inputs", "data", 0, "targets", 0, "numClusters"), 0), False),
        ("no targets", P, mutated(fp, ("inputs", "data", 0, "targets"), []), False),
        ("no data", P, mutated(fp, ("inputs", "data"), []), False),
        ("data is object", P, mutated(fp, ("inputs", "data"), fp["inputs"]["data"][0]), False),
        ("empty problemID", P, mutated(fp, ("about", "problemID"), ""), False),
        ("taskType bad", P, mutated(fp, ("about", "taskType"), "Classification"), False),
        ("problem not object", P, [fp], False),
        ("empty expectedOutputs", P, mutated(fp, ("expectedOutputs",), {}), True),
        ("3.1.1 to 4.0 keyword field", P, mutated(fp, ("about", "taskKeywords"), ["classification"]), False),
    ]
    for r in RES_TYPES:
        cases.append((f"resType {r}", D, mutated(fd, ("dataResources", 0, "resType"), r), True))
        ok = r in ("table", "timeseries", "edgeList")
        cases.append((f"columns with {r}", D, mutated(fd, ("dataResources", 1, "resType"), r), ok))
    for c in COL_TYPES:
        cases.append((f"colType {c}", D, mutated(fd, ("dataResources", 1, "columns", 3, "colType"), c), True))
    for r in ROLES:
        cases.append((f"role {r}", D, mutated(fd, ("dataResources", 1, "columns", 3, "role"), [r, "attribute"]), True))
    for o in ("item", "node", "nodeAttribute", "edge", "edgeAttribute"):
        cases.append((f"resObject {o}", D, mutated(fd, ("dataResources", 1, "columns", 1, "refersTo", "resObject"), o), True))
    for t in ("boolean", "integer", "real", "string"):
        cases.append((f"qualValueType {t}", D, mutated(fd, ("qualities", 0, "qualValueType"), t), True))
    ro = ("dataResources", 1, "columns", 1, "refersTo", "resObject")
    rc = ("qualities", 1, "restrictedTo", "resComponent")
    cases += [
        ("resObject file", D, mutated(fd, ro, "file"), False),
        ("resObject colName", D, mutated(fd, ro, {"colName": "x"}), False),
        ("resObject two keys", D, mutated(fd, ro, {"columnName": "x", "columnIndex": 1}), False),
        ("resObject empty", D, mutated(fd, ro, {}), False),
        ("resObject columnIndex str", D, mutated(fd, ro, {"columnIndex": "1"}), False),
        # datasetSchema.md's own privilegedFeature example uses {"colName": ...}
        ("resComponent colName", D, mutated(fd, rc, {"colName": "y"}), True),
        ("resComponent bad string", D, mutated(fd, rc, "vertices"), False),
        ("resComponent list", D, mutated(fd, rc, ["nodes"]), False),
        ("role empty", D, mutated(fd, ("dataResources", 1, "columns", 0, "role"), []), False),
        ("role string", D, mutated(fd, ("dataResources", 1, "columns", 0, "role"), "index"), False),
        ("role multiIndex", D, mutated(fd, ("dataResources", 1, "columns", 0, "role"), ["multiIndex"]), False),
        ("colType int", D, mutated(fd, ("dataResources", 1, "columns", 0, "colType"), "int"), False),
        ("colName empty", D, mutated(fd, ("dataResources", 1, "columns", 0, "colName"), ""), False),
        ("colIndex -1", D, mutated(fd, ("dataResources", 1, "columns", 0, "colIndex"), -1), False),
        ("resFormat string", D, mutated(fd, ("dataResources", 1, "resFormat"), "text/csv"), False),
        ("resFormat 4.0 mapping", D, mutated(fd, ("dataResources", 1, "resFormat"), {"text/csv": ["csv"]}), False),
        ("resFormat empty", D, mutated(fd, ("dataResources", 1, "resFormat"), []), False),
        ("resType unknown", D, mutated(fd, ("dataResources", 0, "resType"), "tensor"), False),
        ("no resources", D, mutated(fd, ("dataResources",), []), False),
        ("qualValue list", D, mutated(fd, ("qualities", 0, "qualValue"), [1]), False),
        ("qualValue null", D, mutated(fd, ("qualities", 0, "qualValue"), None), False),
        ("qualValueType bad", D, mutated(fd, ("qualities", 0, "qualValueType"), "float"), False),
        ("empty datasetName", D, mutated(fd, ("about", "datasetName"), ""), False),
        ("redacted string", D, mutated(fd, ("about", "redacted"), "false"), False),
        ("dataset not object", D, "datasetDoc", False),
    ]
    return cases


# --- systematic mutations -------------------------------------------------------------------
WRONG_VALUES = {"string": "17", "integer": 17, "number": 0.5, "boolean": True,
                "object": {"x": 1}, "array": ["x"]}   # a value of each JSON type


def walk(node, path=()):
    """Every (path, value) below ``node`` (not the root)."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield path + (k,), v
            yield from walk(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield path + (i,), v
            yield from walk(v, path + (i,))


def json_type(v):
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer",
            float: "number"}[type(v)]


def compact_dataset():
    """full_dataset() cut down to one of each construct (cerberus' oneof checks are slow)."""
    d = full_dataset()
    d["dataResources"][1]["columns"] = d["dataResources"][1]["columns"][1:2]
    d["qualities"] = d["qualities"][1:2]
    return d


def systematic_cases():
    """(name, kind, doc, must be invalid): delete each field; give each value a value of
    another JSON type (rotating through the types so that every type is used); add an
    unknown field to every object."""
    out = []
    types = list(WRONG_VALUES)
    for kind, doc in ((P, full_problem()), (D, compact_dataset())):
        for n, (path, value) in enumerate(walk(doc)):
            if isinstance(path[-1], str):
                out.append((f"delete {path}", kind, mutated(doc, path, delete=True), False))
            wrong = [t for t in types if t != json_type(value)
                     and not (t == "integer" and isinstance(value, float))]
            for t in (wrong[n % len(wrong)], wrong[(n + 3) % len(wrong)]):
                lenient = path[-1] == "qualValue" and t in ("string", "number", "integer", "boolean")
                out.append((f"{path} as {t}", kind, mutated(doc, path, WRONG_VALUES[t]), not lenient))
            if isinstance(value, dict):
                out.append((f"unknown field in {path}", kind, mutated(doc, path + ("zzUnknown",), 1), True))
        out.append(("unknown top-level field", kind, mutated(doc, ("zzUnknown",), 1), True))
    return out


def agree(kind, doc, version=None):
    # both forms of one version's schema (default: the base version, whatever the document
    # declares; tests/validation/test_real_corpus.py checks the declared-version dispatch)
    version = version or BASE_VERSION[kind]
    js = check_schema(kind, doc, version=version)
    cb = cerberus_errors(kind, doc, version)
    return not js, not cb, js, cb


@pytest.mark.slow
@pytest.mark.parametrize("name, kind, doc, expected", hand_cases(), ids=lambda x: x if isinstance(x, str) else None)
def test_hand_corpus(name, kind, doc, expected):
    js_valid, cb_valid, js, cb = agree(kind, doc)
    assert js_valid == cb_valid, (name, js, cb)
    assert js_valid == expected, (name, [i.format() for i in js])


@pytest.mark.slow
def test_systematic_mutations_agree():
    cases = systematic_cases()
    assert len(cases) > 250
    disagree, accepted = [], []
    for name, kind, doc, must_fail in cases:
        js_valid, cb_valid, js, cb = agree(kind, doc)
        if js_valid != cb_valid:
            disagree.append((name, [i.format() for i in js], cb))
        if must_fail and js_valid:
            accepted.append(name)
    assert disagree == []
    assert accepted == []


@pytest.mark.slow
def test_optional_fields_are_exactly_the_documented_ones():
    """Deleting a field is accepted exactly when the field is optional (or has a default)."""
    optional = {
        P: {"problemDescription", "problemURI", "taskSubType", "problemVersion", "problemSchemaVersion",
            "numClusters", "dataSplits", "method", "testSize", "numFolds", "stratified", "numRepeats",
            "randomSeed", "splitsFile", "posLabel", "K", "applicabilityToTarget", "predictionsFile",
            "scoresFile"},
        D: {"datasetURI", "description", "citation", "publicationDate", "humanSubjectsResearch", "source",
            "sourceURI", "approximateSize", "applicationDomain", "datasetVersion", "datasetSchemaVersion",
            "redacted", "isCollection", "columns", "colDescription", "refersTo", "qualities",
            "qualValueUnits", "restrictedTo", "resComponent"},
    }
    for kind, doc in ((P, full_problem()), (D, full_dataset())):
        for path, _ in walk(doc):
            if isinstance(path[-1], str):
                valid = not check_schema(kind, mutated(doc, path, delete=True), version=BASE_VERSION[kind])
                # specifyOther is required with metric "other" (the full doc has one)
                assert valid == (path[-1] in optional[kind]), (path, valid)


# --- random mutations -------------------------------------------------------------------------
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 30) | st.floats(-2, 2, allow_nan=False)
    | st.sampled_from(["", "x", "other", "f1", "precisionAtTopK", "holdOut", "kFold", "table", "image",
                       "item", "nodes", "index", "integer", "classification", "allTargets"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["metric", "K", "posLabel", "specifyOther", "columnName", "columnIndex", "x"]),
        inner, max_size=3),
    max_leaves=6)


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_mutations_agree(data):
    kind = data.draw(st.sampled_from([P, D]))
    doc = full_problem() if kind == P else compact_dataset()
    paths = [p for p, _ in walk(doc)]
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        try:
            doc = mutated(doc, path, data.draw(json_values))
        except (KeyError, IndexError, TypeError):
            pass
    js_valid, cb_valid, js, cb = agree(kind, doc)
    assert js_valid == cb_valid, (doc, [i.format() for i in js], cb)


# --- published examples as oracle -------------------------------------------------------------
@pytest.mark.skipif(not REFERENCE, reason="D3MKIT_REFERENCE is not set (the shared D3M reference "
                                          "documents; .ci/run sets it)")
@pytest.mark.parametrize("name, expected", [("iris", True), ("image", True), ("multitable", False)])
def test_published_examples(name, expected):
    text = (EXAMPLES / f"{name}.datasetDoc.json").read_text()
    if name == "image":
        text = re.sub(r",(\s*[}\]])", r"\1", text)    # its trailing commas are a JSON error
    doc = json.loads(text)
    js_valid, cb_valid, js, cb = agree(D, doc)
    assert js_valid == cb_valid == expected, ([i.format() for i in js], cb)
    if name == "multitable":
        assert {i.location for i in js} >= {"qualities[1].qualityName"}


def test_both_forms_list_the_same_enumerations():
    """The allowed values written in both forms are the same sets."""
    def allowed_cerberus(node, out):
        if isinstance(node, dict):
            if "allowed" in node:
                out.add(tuple(sorted(node["allowed"])))
            for v in node.values():
                allowed_cerberus(v, out)
        elif isinstance(node, list):
            for v in node:
                allowed_cerberus(v, out)
        return out

    def enums_json(node, out):
        if isinstance(node, dict):
            if "enum" in node and "dependentSchemas" not in str(node):
                out.add(tuple(sorted(node["enum"])))
            for k, v in node.items():
                if k != "dependentSchemas":
                    enums_json(v, out)
        elif isinstance(node, list):
            for v in node:
                enums_json(v, out)
        return out

    for kind in (P, D):
        cer = allowed_cerberus(load_schema(kind, "cerberus"), set())
        js = enums_json(load_schema(kind, "jsonschema"), set())
        if kind == P:   # cerberus splits the metric names: standard ones, then "other" alone
            metric_names = tuple(sorted(METRICS + ["other"]))
            assert metric_names in js and tuple(sorted(METRICS)) in cer and ("other",) in cer
            js.discard(metric_names)
            cer.discard(tuple(sorted(METRICS)))
            cer.discard(("other",))
        assert cer == js
