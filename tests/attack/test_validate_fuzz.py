"""Property tests: arbitrary JSON values and arbitrary bytes in place of problemDoc,
datasetDoc, learningData and dataSplits never crash the validator; only Issues come out."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from d3mkit.core.errors import Issue
from d3mkit.validation import validate_paths
from d3mkit.validation.codes import severity_of

from validate_helpers import Root, build_detection, build_tabular

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))

# keys the validator looks at, so generated objects reach the deep checks
VOCAB = ["about", "inputs", "data", "targets", "dataSplits", "performanceMetrics", "datasetID",
         "resID", "colIndex", "colName", "targetIndex", "numClusters", "taskType", "taskSubType",
         "metric", "specifyOther", "dataResources", "columns", "resPath", "resType", "isCollection",
         "role", "refersTo", "resObject", "columnName", "columnIndex", "colType", "splitsFile",
         "method", "testSize", "numFolds", "numRepeats", "stratified", "problemID"]
LEAF_WORDS = ["learningData", "0", "1", "d3mIndex", "y", "table", "image", "index", "item",
              "classification", "binary", "kFold", "holdOut", "other", "f1", "rSquared",
              "objectDetection", "objectDetectionAP", "../x", "/etc/passwd", "tables/learningData.csv",
              "media/", "dataSplits.csv", "t_dataset", "integer", "real", "boolean"]
leaves = st.one_of(st.none(), st.booleans(), st.integers(-3, 12), st.floats(allow_nan=False),
                   st.sampled_from(LEAF_WORDS), st.text(max_size=8))
json_values = st.recursive(
    leaves,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.one_of(st.sampled_from(VOCAB), st.text(max_size=6)),
                                            inner, max_size=6)),
    max_leaves=40)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("fuzz")
    return {"tab": build_tabular(base), "od": build_detection(base)}


def check(root: Path) -> None:
    report = validate_paths([root])
    for i in report.issues():
        assert isinstance(i, Issue) and i.code and i.message
        severity_of(i.code)   # every emitted code is catalogued
    report.to_json()
    report.to_text()


def _mutated(pristine, which: str, target: str, payload) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        r = Root(shutil.copytree(pristine[which], Path(tmp) / pristine[which].name))
        p = getattr(r, target)
        p.write_bytes(payload if isinstance(payload, bytes) else json.dumps(payload).encode())
        check(r.root)


@pytest.mark.slow
@SETTINGS
@given(value=json_values, target=st.sampled_from(["pr_doc", "ds_doc"]), which=st.sampled_from(["tab", "od"]))
def test_arbitrary_json_documents(pristine, value, target, which):
    _mutated(pristine, which, target, value)


@pytest.mark.slow
@SETTINGS
@given(value=json_values, where=st.sampled_from(VOCAB), target=st.sampled_from(["pr_doc", "ds_doc"]))
def test_valid_document_with_one_field_replaced(pristine, value, where, target):
    """Replace every occurrence of one known field by an arbitrary value."""
    src = json.loads(getattr(Root(pristine["tab"]), target).read_text())

    def walk(x):
        if isinstance(x, dict):
            return {k: (value if k == where else walk(v)) for k, v in x.items()}
        if isinstance(x, list):
            return [walk(v) for v in x]
        return x
    _mutated(pristine, "tab", target, walk(src))


@pytest.mark.slow
@SETTINGS
@given(data=st.binary(max_size=300), target=st.sampled_from(["pr_doc", "ds_doc", "ld", "splits"]))
def test_arbitrary_bytes(pristine, data, target):
    _mutated(pristine, "tab", target, data)


csv_cells = st.one_of(st.sampled_from(["", "0", "1", "-1", "1.5", "a", "TRAIN", "TEST", "img1.png",
                                       "g0", "true", "2020-01-01", "1,2", '"', "nan", "1e400", " x "]),
                      st.text(max_size=5))


@SETTINGS
@given(header=st.lists(st.sampled_from(["d3mIndex", "image", "type", "repeat", "fold", "k", "y", "x", "grp"]),
                       min_size=0, max_size=6),
       rows=st.lists(st.lists(csv_cells, max_size=7), max_size=8),
       target=st.sampled_from(["ld", "splits"]), which=st.sampled_from(["tab", "od"]))
@pytest.mark.slow
@example(header=["d3mIndex", "image"], rows=[[""]], target="ld", which="od")   # read-only mask once
def test_arbitrary_csv(pristine, header, rows, target, which):
    import csv
    import io
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(header)
    w.writerows(rows)
    _mutated(pristine, which, target, buf.getvalue().encode())
