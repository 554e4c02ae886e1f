"""Write d3mkit/schemas/{problem,dataset}Schema-VERSION.{schema,cerberus}.json for every
supported D3M schema version from the hand-written 3.1 base files and the changes listed
here (the versions table in docs/schemas.md says the same in words).

    python tools/make_schemas.py          # (re)write the files
    python tools/make_schemas.py --check  # exit 1 when a file differs from what it would write

The base files are problemSchema-3.1.1 and datasetSchema-3.1.2; every other file is
generated. Each change is applied to both forms (JSON Schema draft 2020-12 and cerberus),
so the two forms stay equivalent (tests/documents/test_schema_agreement.py checks them per version).
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from d3mkit.documents.versions import (DATASET_VERSIONS, PROBLEM_VERSIONS,  # noqa: E402
                                      BASE_VERSION, family)

SCHEMAS = ROOT / "d3mkit" / "schemas"


def _load(kind: str, form: str) -> dict:
    name = f"{kind}Schema-{BASE_VERSION[kind]}.{'schema' if form == 'jsonschema' else 'cerberus'}.json"
    return json.loads((SCHEMAS / name).read_text(encoding="utf-8"))


# ---------------------------------------------------------------- small editing helpers
def js_enum_add(node: dict, values: list[str]) -> None:
    node["enum"] = node["enum"] + [v for v in values if v not in node["enum"]]


def js_enum_remove(node: dict, values: list[str]) -> None:
    node["enum"] = [v for v in node["enum"] if v not in values]


def cb_allowed_add(node: dict, values: list[str]) -> None:
    node["allowed"] = node["allowed"] + [v for v in values if v not in node["allowed"]]


def cb_allowed_remove(node: dict, values: list[str]) -> None:
    node["allowed"] = [v for v in node["allowed"] if v not in values]


STR = {"type": "string", "minLength": 1}
CB_STR = {"type": "string", "empty": False}

# ---------------------------------------------------------------- problemSchema changes
TASK_TYPES_32 = ["vertexClassification", "semiSupervisedClassification", "semiSupervisedRegression"]
METRICS_33 = ["meanReciprocalRank", "hitsAtK", "averageMeanReciprocalRank", "hammingLoss"]
# the problemSchema 4.0.0 documentation's list of metrics, plus "other" (see docs/schemas.md)
METRICS_40 = ["accuracy", "precision", "recall", "f1", "f1Micro", "f1Macro", "rocAuc", "rocAucMacro",
              "rocAucMicro", "meanSquaredError", "rootMeanSquaredError", "meanAbsoluteError", "rSquared",
              "normalizedMutualInformation", "jaccardSimilarityScore", "precisionAtTopK",
              "objectDetectionAP", "hammingLoss", "meanReciprocalRank", "hitsAtK"]
TASK_KEYWORDS_40 = ["classification", "regression", "clustering", "linkPrediction", "vertexNomination",
                    "vertexClassification", "communityDetection", "graphMatching", "forecasting",
                    "collaborativeFiltering", "objectDetection", "semiSupervised", "unsupervised",
                    "binary", "multiClass", "multiLabel", "univariate", "multivariate", "overlapping",
                    "nonOverlapping", "tabular", "relational", "nested", "image", "audio", "video",
                    "speech", "text", "graph", "multiGraph", "timeSeries", "grouped", "geospatial",
                    "remoteSensing", "lupi", "missingMetadata"]
POS_LABEL_METRICS = ["f1", "precision", "recall"]


def _cb_metric_forms(cb: dict) -> list[dict]:
    return cb["inputs"]["schema"]["performanceMetrics"]["schema"]["oneof_schema"]


def problem_32(js: dict, cb: dict) -> None:
    js_enum_add(js["properties"]["about"]["properties"]["taskType"], TASK_TYPES_32)
    cb_allowed_add(cb["about"]["schema"]["taskType"], TASK_TYPES_32)
    js["$defs"]["dataSplits"]["properties"]["splitScript"] = dict(STR)
    cb["inputs"]["schema"]["dataSplits"]["schema"]["splitScript"] = {"type": "string", "required": False,
                                                                      "empty": False}
    # dataAugmentation (top level): search hints for augmenting the data;
    # every official DA_* problem of problemSchema 3.2.0 has it (issue 20)
    js["properties"]["dataAugmentation"] = {
        "type": "array", "items": {"type": "object",
                                   "properties": {"domain": {"type": "array", "items": {"type": "string"}},
                                                  "keywords": {"type": "array", "items": {"type": "string"}}}}}
    cb["dataAugmentation"] = {
        "type": "list", "required": False, "schema": {"type": "dict", "schema": {
            "domain": {"type": "list", "required": False, "schema": {"type": "string"}},
            "keywords": {"type": "list", "required": False, "schema": {"type": "string"}}}}}
    # posLabel: f1, precision and recall (3.1 allowed it with f1 only)
    js["$defs"]["metric"]["dependentSchemas"]["posLabel"] = {
        "properties": {"metric": {"enum": POS_LABEL_METRICS}}}
    _cb_metric_forms(cb)[0]["posLabel"]["dependencies"] = {"metric": POS_LABEL_METRICS}


def _column_ref(index_field: str) -> tuple[dict, dict]:
    js = {"type": "object", "additionalProperties": False,
          "required": [index_field, "resID", "colIndex", "colName"],
          "properties": {index_field: {"type": "integer", "minimum": 0}, "resID": dict(STR),
                         "colIndex": {"type": "integer", "minimum": 0}, "colName": dict(STR)}}
    cb = {"type": "dict", "schema": {
        index_field: {"type": "integer", "required": True, "min": 0},
        "resID": {"type": "string", "required": True, "empty": False},
        "colIndex": {"type": "integer", "required": True, "min": 0},
        "colName": {"type": "string", "required": True, "empty": False}}}
    return js, cb


def problem_33(js: dict, cb: dict) -> None:
    js_enum_add(js["$defs"]["metricName"], METRICS_33)
    cb_allowed_add(_cb_metric_forms(cb)[0]["metric"], METRICS_33)
    js["$defs"]["metric"]["dependentSchemas"]["K"] = {
        "properties": {"metric": {"enum": ["precisionAtTopK", "hitsAtK"]}}}
    _cb_metric_forms(cb)[0]["K"]["dependencies"] = {"metric": ["precisionAtTopK", "hitsAtK"]}
    data_js = js["properties"]["inputs"]["properties"]["data"]["items"]["properties"]
    data_cb = cb["inputs"]["schema"]["data"]["schema"]["schema"]
    pj, pc = _column_ref("privilegedDataIndex")
    data_js["privilegedData"] = {"type": "array", "items": pj}
    data_cb["privilegedData"] = {"type": "list", "required": False, "schema": pc}
    data_js["forecastingHorizon"] = {
        "type": "object", "additionalProperties": False,
        "required": ["resID", "colIndex", "colName", "horizonValue"],
        "properties": {"resID": dict(STR), "colIndex": {"type": "integer", "minimum": 0},
                       "colName": dict(STR), "horizonValue": {"type": "number", "minimum": 0}}}
    data_cb["forecastingHorizon"] = {"type": "dict", "required": False, "schema": {
        "resID": {"type": "string", "required": True, "empty": False},
        "colIndex": {"type": "integer", "required": True, "min": 0},
        "colName": {"type": "string", "required": True, "empty": False},
        "horizonValue": {"type": "float", "required": True, "min": 0}}}


def open_objects(js, cb) -> None:
    """4.0.0: the published schema files allow unknown fields in every object
    (cerberus ``allow_unknown``); the top level is opened by the validator
    (:func:`d3mkit.documents.versions.open_objects`)."""
    def js_open(node):
        if isinstance(node, dict):
            if node.get("additionalProperties") is False:
                del node["additionalProperties"]
            for v in node.values():
                js_open(v)
        elif isinstance(node, list):
            for v in node:
                js_open(v)

    def cb_open(node):
        if isinstance(node, dict):
            if node.get("type") == "dict" and isinstance(node.get("schema"), dict):
                node["allow_unknown"] = True
            for v in node.values():
                cb_open(v)
        elif isinstance(node, list):
            for v in node:
                cb_open(v)
    js["additionalProperties"] = True
    js_open(js)
    cb_open(cb)


def _exclusive_object(fields: dict) -> dict:
    """A JSON Schema object in which at most one of ``fields`` may appear (cerberus
    ``excludes``), each with its type; other fields are allowed."""
    names = list(fields)
    return {"type": "object", "minProperties": 1, "properties": fields,
            "dependentSchemas": {n: {"not": {"anyOf": [{"required": [o]} for o in names if o != n]}}
                                 for n in names}}


def _cb_exclusive(fields: dict) -> dict:
    names = list(fields)
    return {"type": "dict", "allow_unknown": True, "schema": {
        n: dict(rule, excludes=[o for o in names if o != n]) for n, rule in fields.items()}}


def problem_40(js: dict, cb: dict) -> None:
    about_js = js["properties"]["about"]
    about_cb = cb["about"]["schema"]
    for f in ("taskType", "taskSubType"):
        del about_js["properties"][f]
        del about_cb[f]
    # taskKeywords replaces taskType/taskSubType; problemVersion and problemSchemaVersion are required
    about_js["required"] = ["problemID", "problemName", "taskKeywords", "problemVersion",
                            "problemSchemaVersion"]
    about_js["properties"]["taskKeywords"] = {"type": "array", "minItems": 1,
                                              "items": {"type": "string", "enum": TASK_KEYWORDS_40}}
    about_cb["taskKeywords"] = {"type": "list", "required": True, "minlength": 1,
                                "schema": {"type": "string", "allowed": TASK_KEYWORDS_40}}
    for f in ("problemVersion", "problemSchemaVersion"):
        about_js["properties"][f].pop("default", None)
        about_cb[f] = {"type": "string", "required": True}
    js["$defs"]["metricName"]["enum"] = METRICS_40 + ["other"]
    _cb_metric_forms(cb)[0]["metric"]["allowed"] = list(METRICS_40)
    js["$defs"]["metric"]["dependentSchemas"]["posLabel"] = {
        "properties": {"metric": {"enum": POS_LABEL_METRICS + ["jaccardSimilarityScore"]}}}
    _cb_metric_forms(cb)[0]["posLabel"]["dependencies"] = {"metric": POS_LABEL_METRICS + ["jaccardSimilarityScore"]}
    # datasetViewMaps: which dataset each view of the split uses in place of the full one
    view = {"type": "array", "items": {"type": "object", "required": ["from", "to"],
                                       "properties": {"from": dict(STR), "to": dict(STR)}}}
    js["$defs"]["dataSplits"]["properties"]["datasetViewMaps"] = {
        "type": "object", "properties": {k: copy.deepcopy(view) for k in ("train", "test", "score")}}
    cb_view = {"type": "list", "required": False, "schema": {"type": "dict", "schema": {
        "from": {"type": "string", "required": True, "empty": False},
        "to": {"type": "string", "required": True, "empty": False}}}}
    cb["inputs"]["schema"]["dataSplits"]["schema"]["datasetViewMaps"] = {
        "type": "dict", "required": False,
        "schema": {k: copy.deepcopy(cb_view) for k in ("train", "test", "score")}}
    # expectedOutputs is optional in 4.0.0
    js["required"] = [r for r in js["required"] if r != "expectedOutputs"]
    cb["expectedOutputs"]["required"] = False
    open_objects(js, cb)


# ---------------------------------------------------------------- datasetSchema changes
ROLES_32 = ["suggestedGroupingKey"]
ROLES_33 = ["suggestedPrivilegedData"]
# the edge roles of an edgeList table: published 3.3.x datasets (LL1_VTXC_1369_synthetic,
# datasetSchema 3.3.1) use them, as 4.0.0 does
EDGE_ROLES = ["edgeSource", "directedEdgeSource", "undirectedEdgeSource", "multiEdgeSource",
              "simpleEdgeSource", "edgeTarget", "directedEdgeTarget", "undirectedEdgeTarget",
              "multiEdgeTarget", "simpleEdgeTarget"]
ROLES_40 = ["multiIndex", "interval", "boundingPolygon"] + EDGE_ROLES
TIME_UNITS = ["seconds", "minutes", "days", "weeks", "months", "years", "unspecified"]


def _js_roles(js: dict) -> dict:
    return js["$defs"]["column"]["properties"]["role"]["items"]


def _cb_res(cb: dict) -> dict:
    return cb["dataResources"]["schema"]["schema"]


def _cb_col(cb: dict) -> dict:
    return _cb_res(cb)["columns"]["schema"]["schema"]


def dataset_32(js: dict, cb: dict) -> None:
    # license became optional (the 4.0.0 schema has it optional; the program's own 3.2/3.3
    # seed datasets omit it)
    js["properties"]["about"]["required"].remove("license")
    cb["about"]["schema"]["license"]["required"] = False
    js["properties"]["about"]["properties"]["digest"] = {"type": "string"}
    cb["about"]["schema"]["digest"] = {"type": "string", "required": False}
    js_enum_add(_js_roles(js), ROLES_32)
    cb_allowed_add(_cb_col(cb)["role"]["schema"], ROLES_32)


def dataset_33(js: dict, cb: dict) -> None:
    js_enum_add(_js_roles(js), ROLES_33)
    cb_allowed_add(_cb_col(cb)["role"]["schema"], ROLES_33)


def dataset_33_edges(js: dict, cb: dict) -> None:
    js_enum_add(_js_roles(js), EDGE_ROLES)
    cb_allowed_add(_cb_col(cb)["role"]["schema"], EDGE_ROLES)


def dataset_40(js: dict, cb: dict) -> None:
    about_js, about_cb = js["properties"]["about"], cb["about"]["schema"]
    # license is optional; datasetVersion and datasetSchemaVersion are required
    about_js["required"] = ["datasetID", "datasetName", "datasetVersion", "datasetSchemaVersion"]
    about_cb["license"]["required"] = False
    for f in ("datasetVersion", "datasetSchemaVersion"):
        about_js["properties"][f].pop("default", None)
        about_cb[f] = {"type": "string", "required": True}
    about_js["properties"]["redacted"].pop("default", None)
    about_cb["redacted"] = {"type": "boolean", "required": False}
    # resFormat: {media type: [file extensions]}
    res_js = js["$defs"]["resource"]["properties"]
    res_js["resFormat"] = {"type": "object", "additionalProperties": {"type": "array"}}
    _cb_res(cb)["resFormat"] = {"type": "dict", "required": True, "keysrules": {"type": "string"},
                                "valuesrules": {"type": "list"}}
    res_js["columnsCount"] = {"type": "integer", "minimum": 0}
    _cb_res(cb)["columnsCount"] = {"type": "integer", "required": False, "min": 0}
    js_enum_add(res_js["resType"], ["raw"])
    cb_allowed_add(_cb_res(cb)["resType"], ["raw"])
    col_js = js["$defs"]["column"]["properties"]
    js_enum_add(col_js["colType"], ["unknown"])
    cb_allowed_add(_cb_col(cb)["colType"], ["unknown"])
    js_enum_remove(_js_roles(js), ["boundingBox"] + EDGE_ROLES)
    js_enum_add(_js_roles(js), ROLES_40)
    cb_allowed_remove(_cb_col(cb)["role"]["schema"], ["boundingBox"] + EDGE_ROLES)
    cb_allowed_add(_cb_col(cb)["role"]["schema"], ROLES_40)
    col_js["timeGranularity"] = {"type": "object", "required": ["value", "unit"],
                                 "properties": {"value": {"type": "number"},
                                                "unit": {"type": "string", "enum": TIME_UNITS}}}
    _cb_col(cb)["timeGranularity"] = {"type": "dict", "required": False, "schema": {
        "value": {"type": "number", "required": True},
        "unit": {"type": "string", "required": True, "allowed": TIME_UNITS}}}
    # resObject: "item" (graph references moved into the object form) or one of nodeAttribute,
    # edgeAttribute, columnIndex, columnName
    ref_fields_js = {"nodeAttribute": {"type": "string"}, "edgeAttribute": {"type": "string"},
                     "columnIndex": {"type": "integer", "minimum": 0}, "columnName": {"type": "string"}}
    ref_fields_cb = {"nodeAttribute": {"type": "string"}, "edgeAttribute": {"type": "string"},
                     "columnIndex": {"type": "integer", "min": 0}, "columnName": {"type": "string"}}
    ro = js["$defs"]["refersTo"]["properties"]["resObject"]
    ro["description"] = ('"item", or an object with one of nodeAttribute, edgeAttribute, '
                         'columnIndex (integer) or columnName')
    ro["oneOf"] = [{"type": "string", "enum": ["item", "node", "edge", "nodeAttribute", "edgeAttribute"]},
                   _exclusive_object(ref_fields_js)]
    _cb_col(cb)["refersTo"]["schema"]["resObject"]["oneof"] = [
        {"type": "string", "allowed": ["item", "node", "edge", "nodeAttribute", "edgeAttribute"]},
        _cb_exclusive(ref_fields_cb)]
    # qualities: qualValueType may be dict; resComponent "nodes"/"edges" or an object with one
    # of columnIndex, columnName, nodeAttribute, edgeAttribute, selector
    q_js = js["$defs"]["quality"]["properties"]
    js_enum_add(q_js["qualValueType"], ["dict"])
    q_js["qualValue"] = {}
    q_cb = cb["qualities"]["schema"]["schema"]
    cb_allowed_add(q_cb["qualValueType"], ["dict"])
    q_cb["qualValue"] = {"required": True}
    comp_js = {"columnIndex": {"type": "integer", "minimum": 0}, "columnName": {"type": "string"},
               "nodeAttribute": {"type": "string"}, "edgeAttribute": {"type": "string"},
               "selector": {"type": "array"}}
    comp_cb = {"columnIndex": {"type": "integer", "min": 0}, "columnName": {"type": "string"},
               "nodeAttribute": {"type": "string"}, "edgeAttribute": {"type": "string"},
               "selector": {"type": "list"}}
    rc = q_js["restrictedTo"]["properties"]["resComponent"]
    rc["description"] = ('"nodes", "edges", or an object with one of columnIndex, columnName, '
                         'nodeAttribute, edgeAttribute or selector')
    rc["oneOf"] = [{"type": "string", "enum": ["nodes", "edges"]}, _exclusive_object(comp_js)]
    q_cb["restrictedTo"]["schema"]["resComponent"]["oneof"] = [
        {"type": "string", "allowed": ["nodes", "edges"]}, _cb_exclusive(comp_cb)]
    open_objects(js, cb)


CHANGES = {
    "problem": {"3.1": [], "3.2": [problem_32, problem_33],
                "4.0": [problem_32, problem_33, problem_40]},
    "dataset": {"3.1": [], "3.2": [dataset_32, dataset_33],
                "4.0": [dataset_32, dataset_33, dataset_40]},
}
# changes of one version within its family (applied after the family's)
VERSION_CHANGES = {"problem": {}, "dataset": {"3.3.0": [dataset_33_edges], "3.3.1": [dataset_33_edges]}}


def build(kind: str, version: str) -> tuple[dict, dict]:
    js, cb = _load(kind, "jsonschema"), _load(kind, "cerberus")
    for change in CHANGES[kind][family(kind, version)] + VERSION_CHANGES[kind].get(version, []):
        change(js, cb)
    title = "problemDoc (problemSchema" if kind == "problem" else "datasetDoc (datasetSchema"
    js["$id"] = f"https://d3mkit.invalid/schemas/{kind}Schema-{version}.schema.json"
    js["title"] = f"D3M {title} {version})"
    js["description"] = (f"Generated by tools/make_schemas.py from the {BASE_VERSION[kind]} file and the "
                         f"changes of the D3M schema history up to {version} (docs/schemas.md).")
    about_js = js["properties"]["about"]["properties"]
    about_cb = cb["about"]["schema"]
    field = "problemSchemaVersion" if kind == "problem" else "datasetSchemaVersion"
    about_js[field]["default"] = version
    about_cb[field]["default"] = version
    return js, cb


def dump(obj: dict) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    bad = []
    for kind, versions in (("problem", PROBLEM_VERSIONS), ("dataset", DATASET_VERSIONS)):
        for v in versions:
            if v == BASE_VERSION[kind]:
                continue
            js, cb = build(kind, v)
            for form, obj in (("schema", js), ("cerberus", cb)):
                path = SCHEMAS / f"{kind}Schema-{v}.{form}.json"
                text = dump(obj)
                if check:
                    if not path.is_file() or path.read_text(encoding="utf-8") != text:
                        bad.append(path.name)
                else:
                    path.write_text(text, encoding="utf-8")
    if bad:
        print("out of date (run tools/make_schemas.py):", ", ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
