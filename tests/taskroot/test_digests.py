"""Digests (d3mkit.taskroot.digests): a build records the sha256 of every file of the task root in
``<name>_debug/manifest.json``; ``d3mkit validate --verify-digests`` names each changed,
missing or unexpected file, one issue each, exit 1; each byte is read once."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from _attack_util import refused, run
from d3mkit.taskroot import digests
from d3mkit.taskroot.model import verify_task_root
from d3mkit.benchmarks.tabular import build_task_root


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_task_root(tmp_path_factory.mktemp("dg"), "iris")   # a small build, once


@pytest.fixture
def root(built, tmp_path):
    dst = tmp_path / built.name
    shutil.copytree(built, dst)
    return dst


def _manifest(root):
    return json.loads((root / f"{root.name}_debug" / "manifest.json").read_text())


def test_build_records_every_file(root):
    recorded = _manifest(root)["digests"]
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    assert sorted(recorded) == [f for f in files if not f.endswith("_debug/manifest.json")]
    import hashlib
    for rel, d in recorded.items():
        data = (root / rel).read_bytes()
        assert d == {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}


def test_untouched_root_verifies(root, capsys):
    code, out, _ = run(["validate", "--verify-digests", root], capsys)
    assert code == 0 and "(digests)" in out, out


def test_each_tampering_is_one_issue(root, capsys):
    ld = root / "iris_dataset" / "tables" / "learningData.csv"
    ld.write_bytes(ld.read_bytes().replace(b"setosa", b"setosb", 1))       # changed, same size
    (root / "iris_problem" / "dataSplits.csv").unlink()                    # missing
    (root / "iris_dataset" / "notes.txt").write_text("added")             # unexpected
    doc = root / "iris_dataset" / "datasetDoc.json"
    os.rename(doc, root / "iris_dataset" / "real.json")
    doc.symlink_to("real.json")                                           # a symlink now
    manifest, issues = verify_task_root(root)
    got = sorted((i.code, os.path.relpath(i.path, root)) for i in issues)
    assert got == [("digest.changed", "iris_dataset/datasetDoc.json"),
                   ("digest.changed", "iris_dataset/tables/learningData.csv"),
                   ("digest.missing", "iris_problem/dataSplits.csv"),
                   ("digest.unexpected", "iris_dataset/notes.txt"),
                   ("digest.unexpected", "iris_dataset/real.json")]
    text = refused(["validate", "--verify-digests", root], capsys, "digest.changed", 1)
    for rel in ("iris_dataset/notes.txt", "iris_problem/dataSplits.csv", "iris_dataset/tables/learningData.csv"):
        assert f"file {rel}: error [digest." in text, text      # every added, missing, changed file named


def test_solution_files_are_not_the_roots(root, capsys):
    (root / "iris_solution").mkdir()
    (root / "iris_solution" / "predictions.csv").write_text("d3mIndex,species\n")
    assert verify_task_root(root)[1] == []


@pytest.mark.parametrize("value, code", [(None, "digest.none"), ([1], "digest.malformed"),
                                         ({"a": {"sha256": "x", "bytes": 1}}, "digest.malformed")])
def test_no_or_malformed_digests(root, capsys, value, code):
    m = root / "iris_debug" / "manifest.json"
    data = _manifest(root)
    if value is None:
        del data["digests"]
    else:
        data["digests"] = value
    m.write_text(json.dumps(data))
    refused(["validate", "--verify-digests", root], capsys, code, 1, path=m)


def test_each_byte_read_once(root, monkeypatch):
    seen = []
    real = digests.file_sha256
    monkeypatch.setattr(digests, "file_sha256", lambda p: seen.append(p) or real(p))
    assert verify_task_root(root)[1] == []
    assert sorted(seen) == sorted(set(seen)) and len(seen) == len(_manifest(root)["digests"])


def test_convert_rerecords_digests(root, tmp_path, capsys):
    out = tmp_path / "conv" / root.name
    code, _, err = run(["convert", root, "--to", "4.0.0", "--out", out], capsys)
    assert code == 0, err
    assert verify_task_root(out)[1] == []


def test_verify_with_problem_is_a_usage_error(root, capsys):
    refused(["validate", "--verify-digests", "--problem", root, root / "x.csv"], capsys, "usage", 2)


def test_load_manifest_streams_the_digests(root, tmp_path):
    """load_manifest keeps only the wanted digests and reads everything else exactly as a whole
    read does, with the same issues for the same broken documents; TaskRoot.manifest holds none."""
    from d3mkit.documents.jsonio import load_json
    from d3mkit.core.errors import D3MKitError
    from d3mkit.taskroot.model import TaskRoot
    mpath = root / f"{root.name}_debug" / "manifest.json"
    whole = load_json(mpath)
    some = sorted(whole["digests"])[:2]
    got = digests.load_manifest(mpath, keep=some + ["not/there.csv"])
    assert got == {**whole, "digests": {k: whole["digests"][k] for k in some}}
    assert digests.load_manifest(mpath) == whole
    task = TaskRoot.open(root)
    assert task.manifest == {**whole, "digests": {}}
    assert task.recorded_digests(some) == ({k: whole["digests"][k] for k in some}, [])
    text = mpath.read_text()
    first = json.dumps(some[0])
    for broken in (text.replace("{", "{,", 1),                                  # syntax
                   text.replace(f'{first}: {{', f'{first}: {{"bytes": 1, ', 1),  # a duplicate key in a kept entry
                   text.rstrip() + " []\n",                                      # trailing data
                   text.replace('"seed"', '"seed": NaN, "x"', 1)):               # not JSON (outside the digests)
        mpath.write_text(broken)
        with pytest.raises(D3MKitError) as whole_err:
            load_json(mpath)
        with pytest.raises(D3MKitError) as streamed_err:
            digests.load_manifest(mpath, keep=some)
        assert [i.format() for i in streamed_err.value.issues] == [i.format() for i in whole_err.value.issues]
    mpath.write_text(text.replace('"digests": {', '"digests": 3, "old": {', 1))    # malformed: named, not hidden
    assert digests.recorded(digests.load_manifest(mpath, keep=some))[1][0].code == "digest.malformed"
