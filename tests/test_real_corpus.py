"""Real published D3M documents (tests/data/real): each gets the verdict judged from the
D3M documentation of the version it declares, and both schema forms of that version agree.

tests/data/real/corpus.json records, per document, its origin (repository, path, commit),
the declared version, the verdict and, for an invalid one, the issues (code, location) and
why in words. The documents are the files as published (bytes unchanged).
"""

import json
from collections import Counter
from pathlib import Path

import pytest

from d3mkit.validation.schema import cerberus_errors, check_schema
from d3mkit.docs.versions import VERSIONS, supported_version

HERE = Path(__file__).parent / "data" / "real"
CORPUS = json.loads((HERE / "corpus.json").read_text(encoding="utf-8"))


def test_corpus_size_and_spread():
    assert len(CORPUS) >= 60
    versions = Counter(e["declared_version"] for e in CORPUS)
    assert {"3.0", "3.1.1", "3.2.0", "3.3.0", "3.3.1", "4.0.0"} <= set(versions)
    assert all(v in VERSIONS for v in versions)
    for e in CORPUS:
        assert e["repository"].count("/") == 1 and len(e["commit"]) == 40 and e["path"]
        assert (e["verdict"] == "invalid") == bool(e.get("issues")) == bool(e.get("why"))


@pytest.mark.parametrize("entry", CORPUS, ids=[e["file"] for e in CORPUS])
def test_judged_verdict(entry):
    doc = json.loads((HERE / "docs" / entry["file"]).read_text(encoding="utf-8"))
    assert supported_version(entry["kind"], doc) == entry["declared_version"]
    issues = check_schema(entry["kind"], doc, entry["file"])
    got = sorted({(i.code, i.location) for i in issues})
    assert got == sorted(tuple(x) for x in entry.get("issues", [])), [i.format() for i in issues]
    assert not any(i.code == "schema.version" for i in issues)
    # the cerberus form of the declared version's schema gives the same verdict
    cb = cerberus_errors(entry["kind"], doc, entry["declared_version"])
    assert (cb == []) == (entry["verdict"] == "valid"), cb


def test_features_of_later_versions_are_not_31_errors():
    """The features the issue lists validate in the versions that have them."""
    by_version = {}
    for e in CORPUS:
        if e["verdict"] == "valid":
            doc = json.loads((HERE / "docs" / e["file"]).read_text(encoding="utf-8"))
            by_version.setdefault((e["kind"], e["declared_version"]), []).append(doc)
    text = {k: json.dumps(v) for k, v in by_version.items()}
    assert '"digest"' in text[("dataset", "3.2.0")] and "suggestedGroupingKey" in text[("dataset", "3.2.0")]
    assert '"splitScript"' in text[("problem", "3.2.0")] and "vertexClassification" in text[("problem", "3.2.0")]
    assert "averageMeanReciprocalRank" in text[("problem", "3.3.1")]
    assert '"taskKeywords"' in text[("problem", "4.0.0")] and "datasetViewMaps" in text[("problem", "4.0.0")]
    assert '"resFormat": {' in text[("dataset", "4.0.0")].replace('"resFormat":{', '"resFormat": {')
