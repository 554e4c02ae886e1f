"""Bad input across the ``d3mkit`` CLI: one line naming the file and the problem, exit 1
(invalid input) or 2 (usage / unreadable path), no traceback, nothing half-written.

Each test is a regression test for a case the bad-input audit found."""

from __future__ import annotations

import os

import pytest

from d3mkit.cli import main

UNWRITABLE = "/proc/d3mkit-no-such-dir/out"   # cannot be created even by root


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err
    return code, out, err


@pytest.fixture(scope="module")
def wine(tmp_path_factory):
    from d3mkit.benchmarks.tabular import build_task_root
    return build_task_root(tmp_path_factory.mktemp("wine"), "wine", seed=1)


def _tree(path):
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


# --- output paths ------------------------------------------------------------------------
def test_views_out_that_cannot_be_created(wine, capsys):
    code, _, err = run(["views", wine, "--out", UNWRITABLE], capsys)
    assert code == 2 and "/proc/d3mkit-no-such-dir" in err


@pytest.mark.parametrize("name", ["../evil", "a/b", ".hidden"])
def test_build_name_with_a_path_in_it(tmp_path, capsys, name):
    code, _, err = run(["build", "tabular", "--out", tmp_path / "o", "--name", name, "--quiet"], capsys)
    assert code == 2 and repr(name) in err and "plain directory name" in err
    assert not (tmp_path / "evil").exists() and _tree(tmp_path) in ([], ["o"])


def test_build_out_is_a_file(tmp_path, capsys):
    f = tmp_path / "f.txt"
    f.write_text("x")
    code, _, err = run(["build", "tabular", "--out", f, "--quiet"], capsys)
    assert code == 2 and str(f) in err and "not a directory" in err
    assert f.read_text() == "x"


def test_build_out_that_cannot_be_created(capsys):
    code, _, err = run(["build", "tabular", "--out", UNWRITABLE, "--quiet"], capsys)
    assert code == 2 and "/proc/d3mkit-no-such-dir" in err
