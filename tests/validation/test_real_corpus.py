"""The 101 published D3M documents of the shared corpus (``$D3MKIT_REALWORLD/docs``, one
directory per document, origins in docs-manifest.csv): each gets the verdict judged from
the D3M documentation of the version it declares, and both schema forms of that version
agree. INVALID lists the documents that are invalid, with the issues (code, location) and
why; every other document is valid. Skips without ``D3MKIT_REALWORLD``.

Three findings of issue 20 are checked on whole directories: a 3.2.0 problemDoc's
``dataAugmentation`` is valid, a 4.0.0 problemDoc validated on its own is "dataset
unchecked" (not paired with another task's dataset), and a document with no version gets
the base schema's findings beside ``schema.version``.
"""

import csv
import os
from collections import Counter
from pathlib import Path

import pytest

from d3mkit.documents.jsonio import load_json_issues
from d3mkit.documents.versions import VERSIONS, supported_version
from d3mkit.validation.run import validate_paths
from d3mkit.validation.schema import cerberus_errors, check_schema

REALWORLD = os.environ.get("D3MKIT_REALWORLD")
pytestmark = pytest.mark.skipif(not REALWORLD, reason="D3MKIT_REALWORLD is not set (the shared "
                                                      "corpus of published documents; .ci/run sets it)")
DOCS = Path(REALWORLD or ".") / "docs"
MANIFEST = list(csv.DictReader(open(Path(REALWORLD) / "docs-manifest.csv", encoding="utf-8"))) \
    if REALWORLD else []

INVALID = {
    "002_mitll_multitable_example": (
        {("schema.required", "qualities[1].qualName"), ("schema.required", "qualities[1].qualValue"),
         ("schema.unknown_field", "qualities[1].qualityName"), ("schema.unknown_field", "qualities[1].qualityValue")},
        "the 3.0 documentation's own example writes qualityName/qualityValue; the schema says qualName/qualValue"),
    "003_mitll_image_example": (
        {("json.syntax", "line 18, column 27")}, "trailing commas: not JSON (the documentation's example as published)"),
    "040_dam311_tabular_csv": (
        {("schema.type", "dataResources[0].resFormat")},
        "resFormat as a 4.0.0-style object under datasetSchema 3.1.1, where it is a list"),
    "074_horses32_dataset": (
        {("schema.type", "about.redacted"), ("schema.type", "dataResources[0].isCollection"),
         ("schema.type", "dataResources[1].isCollection"), ("schema.type", "dataResources[2].isCollection")},
        "booleans written as the strings \"true\"/\"false\""),
    "101_ingest_nover_testdata": (
        {("schema.version", "about.datasetSchemaVersion"), ("schema.required", "about.license"),
         ("schema.type", "dataResources[0].isCollection"), ("schema.enum", "dataResources[0].columns[1].colType")},
        "no datasetSchemaVersion; against the base 3.1.2 schema: no license, isCollection \"false\", "
        "colType 'text'"),
}


def _doc(entry):
    kind = "problem" if entry["kind"] == "problemDoc" else "dataset"
    return kind, DOCS / entry["id"] / f"{entry['kind']}.json"


def test_corpus_size_and_spread():
    assert len(MANIFEST) == 101
    versions = Counter(e["schemaVersion"] for e in MANIFEST)
    assert {"3.0", "3.1.1", "3.2.0", "3.3.0", "3.3.1", "4.0.0"} <= set(versions)
    assert set(INVALID) <= {e["id"] for e in MANIFEST}


@pytest.mark.slow
@pytest.mark.parametrize("entry", MANIFEST, ids=[e["id"] for e in MANIFEST])
def test_judged_verdict(entry):
    kind, path = _doc(entry)
    want, why = INVALID.get(entry["id"], (set(), "valid"))
    data, issues = load_json_issues(path)
    if not issues:
        issues = check_schema(kind, data, str(path))
    got = {(i.code, i.location) for i in issues}
    assert got == want, (why, [i.format() for i in issues])
    version = supported_version(kind, data) if not issues or data is not None else None
    if version is not None:
        assert version in VERSIONS and entry["schemaVersion"] == version
        # the cerberus form of the declared version's schema gives the same verdict
        cb = cerberus_errors(kind, data, version)
        assert (cb == []) == (not want), cb


def test_32_data_augmentation_is_valid():
    versions = []
    for d in sorted(DOCS.glob("*/problemDoc.json")):
        data, issues = load_json_issues(d)
        if not issues and "dataAugmentation" in data:
            versions.append(data["about"]["problemSchemaVersion"])
            assert check_schema("problem", data) == [], d
    assert "3.2.0" in versions and "4.0.0" in versions


def test_40_problem_alone_is_dataset_unchecked():
    """docs/ is a directory of collected documents, not a task root: a 4.0.0 problemDoc in it
    is not paired with another task's 3.1.1 dataset of the same datasetID."""
    issues = validate_paths([DOCS / "089_byu40_196_autoMpg_archive_problem"]).issues()
    assert [i.code for i in issues] == ["problem.dataset_unchecked"]


def test_no_version_gets_the_base_schema_findings():
    issues = validate_paths([DOCS / "101_ingest_nover_testdata" / "datasetDoc.json"]).issues()
    codes = [i.code for i in issues]
    assert codes[0] == "schema.version" and "schema.required" in codes
    assert all("checked against datasetSchema 3.1.2" in i.message for i in issues if i.code.startswith("schema.")
               and i.code != "schema.version")
