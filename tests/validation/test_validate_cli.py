"""``d3mkit validate``: exit codes, the JSON shape, --strict, --list-codes, never writes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from d3mkit.cli import main

from validate_helpers import Root, build_tabular


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    return build_tabular(tmp_path_factory.mktemp("cli"))


@pytest.fixture
def tab(pristine, tmp_path) -> Root:
    return Root(shutil.copytree(pristine, tmp_path / "t"))


def run(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:   # argparse usage errors
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_valid_exit_0_text(tab, capsys):
    code, out, _ = run(["validate", str(tab.root)], capsys)
    assert code == 0
    assert out.rstrip().endswith("valid") and "0 error(s)" in out


def test_json_shape(tab, capsys):
    tab.set_cell(tab.ld, 5, "k", "1.5")
    # a cell that does not read as its colType is a warning; --strict makes it fail
    assert run(["validate", str(tab.root), "--format", "json"], capsys)[0] == 0
    code, out, _ = run(["validate", str(tab.root), "--format", "json", "--strict"], capsys)
    assert code == 1
    doc = json.loads(out)
    assert set(doc) == {"valid", "documents"} and doc["valid"] is False
    for d in doc["documents"]:
        assert set(d) == {"path", "kind", "valid", "issues"}
        assert d["kind"] in ("problemDoc", "datasetDoc", "dataSplits", "learningData", "table")
        for i in d["issues"]:
            assert set(i) == {"severity", "code", "location", "message"}
    (ld,) = [d for d in doc["documents"] if d["kind"] == "learningData"]
    assert ld["valid"] is False
    assert ld["issues"] == [{"severity": "warning", "code": "coltype.integer",
                             "location": "row 7, column k",
                             "message": "'1.5' is not an integer (colType integer)"}]


def test_warnings_fail_only_with_strict(tab, capsys):
    tab.pr(lambda d: d["inputs"]["performanceMetrics"].append({"metric": "rSquared"}))
    assert run(["validate", str(tab.root)], capsys)[0] == 0
    code, out, _ = run(["validate", "--strict", "--format", "json", str(tab.root)], capsys)
    assert code == 1 and json.loads(out)["valid"] is False


def test_usage_errors_exit_2(tab, tmp_path, capsys):
    assert run(["validate"], capsys)[0] == 2
    assert run(["validate", str(tmp_path / "nope")], capsys)[0] == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run(["validate", str(empty)], capsys)
    assert code == 2 and "no problemDoc.json" in err
    assert run(["validate", str(tab.root), "--format", "xml"], capsys)[0] == 2
    assert run(["validate", str(tab.root), "--datasets", str(tmp_path / "nope")], capsys)[0] == 2
    stray = tmp_path / "notes.txt"
    stray.write_text("hi")
    assert run(["validate", str(stray)], capsys)[0] == 2


def test_unreadable_path_exit_2(tab, capsys, monkeypatch):
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, m, *a, **k: False if Path(p) == tab.root else real(p, m))
    code, _, err = run(["validate", str(tab.root)], capsys)
    assert code == 2 and "not readable" in err


def test_list_codes(capsys):
    from d3mkit.core.codes import CODES   # the whole catalogue, as `d3mkit codes`
    code, out, _ = run(["validate", "--list-codes"], capsys)
    assert code == 0 and all(c in out for c in CODES)
    code, out, _ = run(["validate", "--list-codes", "--format", "json"], capsys)
    assert {r["code"] for r in json.loads(out)} == set(CODES)


@pytest.mark.slow
def test_paths_of_every_kind(tab, capsys):
    for p in (tab.pr_doc, tab.ds_doc, tab.problem, tab.dataset, tab.ld, tab.splits, tab.root.parent):
        assert run(["validate", str(p)], capsys)[0] == 0, p


def test_validator_never_writes(tab, capsys):
    tab.set_cell(tab.ld, 5, "k", "1.5")

    def snapshot():
        return sorted((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in tab.root.rglob("*"))
    before = snapshot()
    run(["validate", str(tab.root), "--format", "json"], capsys)
    run(["validate", str(tab.root)], capsys)
    assert snapshot() == before


@pytest.mark.slow
def test_console_script_subprocess(tab):
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    out = subprocess.run([sys.executable, "-m", "d3mkit", "validate", str(tab.root), "--format", "json"],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0 and json.loads(out.stdout)["valid"] is True
    assert "Traceback" not in out.stderr
