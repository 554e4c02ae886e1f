"""Valid without being read (issue 23, section 1): anything validate cannot read is an error
naming it with exit 2, never a silent pass: a problem directory that cannot be listed
(chmod 000, or --x: enterable but not listable), an unreadable dataset directory (validated
as the whole task root or from the problem alone), a file that cannot be opened.

Root bypasses permissions, so each case runs twice: with chmod (skipped as root) and with
``os.scandir`` / ``open`` monkeypatched to fail as the kernel would (runs as anyone)."""

import builtins
import io
import os

import pytest

from d3mkit.cli import main
from validate_helpers import Root, build_tabular

AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.fixture
def tab(tmp_path):
    return Root(build_tabular(tmp_path, "t"))


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out + err


def _deny_listing(monkeypatch, *dirs):
    real = os.scandir
    denied = {os.path.realpath(d) for d in dirs}

    def scandir(path="."):
        if os.path.realpath(os.fspath(path)) in denied:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)
    monkeypatch.setattr(os, "scandir", scandir)


def _deny_open(monkeypatch, *files):
    real = builtins.open
    denied = {os.path.realpath(f) for f in files}

    def fake_open(file, *a, **k):
        if isinstance(file, (str, os.PathLike)) and os.path.realpath(os.fspath(file)) in denied:
            raise PermissionError(13, "Permission denied", os.fspath(file))
        return real(file, *a, **k)
    monkeypatch.setattr(builtins, "open", fake_open)
    monkeypatch.setattr(io, "open", fake_open)
    monkeypatch.setattr(os, "open", _os_open_denying(denied))


def _os_open_denying(denied):
    real = os.open

    def fake(path, *a, **k):
        if os.path.realpath(os.fspath(path)) in denied:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path, *a, **k)
    return fake


@pytest.fixture
def chmod(request):
    changed = []

    def set_mode(path, mode):
        changed.append((path, path.stat().st_mode))
        path.chmod(mode)
    yield set_mode
    for path, mode in reversed(changed):
        path.chmod(mode)


# --- monkeypatched: run as any user -----------------------------------------------------------
@pytest.mark.parametrize("which", ["problem", "dataset"])
def test_unlistable_directory_in_a_task_root_is_exit_2(tab, capsys, monkeypatch, which):
    d = tab.problem if which == "problem" else tab.dataset
    _deny_listing(monkeypatch, d)
    code, text = _run(["validate", str(tab.root)], capsys)
    assert code == 2 and "[usage.path]" in text and str(d) in text and "cannot be listed" in text


def test_unreadable_dataset_beside_a_problem_validated_alone(tab, capsys, monkeypatch):
    # chmod 000 as the kernel applies it: neither listed nor its datasetDoc opened
    _deny_listing(monkeypatch, tab.dataset)
    _deny_open(monkeypatch, tab.ds_doc)
    code, text = _run(["validate", str(tab.problem)], capsys)
    assert code == 2 and str(tab.dataset) in text and "dataset 't_dataset'" in text


def test_unopenable_file_is_exit_2(tab, capsys, monkeypatch):
    _deny_open(monkeypatch, tab.pr_doc)
    code, text = _run(["validate", str(tab.root)], capsys)
    assert code == 2 and "[file.unreadable]" in text and str(tab.pr_doc) in text


# --- real permissions: meaningful only when not root ----------------------------------------
needs_user = pytest.mark.skipif(AS_ROOT, reason="running as root, which bypasses file permissions "
                                                "(the monkeypatched variants above cover the same cases)")


@needs_user
@pytest.mark.parametrize("which, mode", [("problem", 0o000), ("problem", 0o100), ("dataset", 0o000)])
def test_chmod_directory_is_exit_2(tab, capsys, chmod, which, mode):
    d = tab.problem if which == "problem" else tab.dataset
    chmod(d, mode)
    code, text = _run(["validate", str(tab.root)], capsys)
    assert code == 2 and str(d) in text


@needs_user
def test_chmod_problem_doc_is_exit_2(tab, capsys, chmod):
    chmod(tab.pr_doc, 0o000)
    code, text = _run(["validate", str(tab.root)], capsys)
    assert code == 2 and str(tab.pr_doc) in text
