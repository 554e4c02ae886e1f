"""Output names (issue 23 section 1, "Outputs"): a legal long name never fails on its
temporary sibling, errors name the user's path and never a temporary one, and the next run
into a directory removes every dead run's temporaries there, whatever their name."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from d3mkit.io import atomic
from d3mkit.cli import main

LONG = "r" * 236 + ".csv"          # 240 bytes: legal (NAME_MAX is 255)


def test_a_long_file_name_is_written(tmp_path):
    atomic.write_text(tmp_path / LONG, "x\n")
    assert (tmp_path / LONG).read_text() == "x\n"
    assert [p.name for p in tmp_path.iterdir()] == [LONG]


def test_a_long_directory_name_is_staged_and_swapped(tmp_path):
    name = "d" * 240
    for force in (False, True):
        with atomic.StagedDir(tmp_path / name, force=force) as tmp:
            assert len(tmp.name.encode()) < 255
            (tmp / "f.txt").write_text(str(force))
    assert (tmp_path / name / "f.txt").read_text() == "True"
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_score_to_a_long_name(tmp_path, capsys):
    from taskroot_helpers import wine_root
    root = wine_root(tmp_path / "fx", with_predictions=True)
    out = tmp_path / LONG
    code = main(["score", "--problem", str(root), "--predictions", str(root.parent / "predictions.csv"),
                 "--output", str(out)])
    assert code == 0, capsys.readouterr()
    assert out.read_text().startswith("index,problemID,metric,value")


def _dead_pid() -> int:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return pid                                   # reaped: no process has it now


def test_dead_runs_temporaries_of_any_name_are_removed(tmp_path):
    dead = _dead_pid()
    stale = [tmp_path / f".value.tmp-{dead}-0123abcd",              # a tree of another name
             tmp_path / f".{atomic._stem('x' * 240)}.tmp-{dead}-89abcdef"]   # a shortened one
    for d in stale:
        d.mkdir()
        (d / "half.csv").write_text("half")
    stale_file = tmp_path / f".scores.csv.tmp-{dead}-deadbeef.csv"   # a file being written
    stale_file.write_text("half")
    live = tmp_path / f".other.tmp-{os.getpid()}-00000000"            # this process: alive
    live.mkdir()
    keep = tmp_path / ".hidden-user-dir"
    keep.mkdir()
    notes = atomic.clean_leftovers(tmp_path, "wine")
    assert len(notes) == 3, notes
    assert not any(p.exists() for p in (*stale, stale_file))
    assert live.exists() and keep.exists()


def test_an_old_tree_of_another_name_is_put_back(tmp_path):
    dead = _dead_pid()
    old = tmp_path / f".value.old-{dead}-0123abcd"       # killed between the fallback's renames
    old.mkdir()
    (old / "datasetDoc.json").write_text("{}")
    notes = atomic.clean_leftovers(tmp_path, "wine")
    assert (tmp_path / "value" / "datasetDoc.json").exists() and not old.exists(), notes


def test_a_read_only_file_system_names_the_users_directory(tmp_path, monkeypatch):
    real = os.mkdir

    def erofs(path, *a, **k):
        if ".tmp-" in os.fspath(path):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fspath(path))
        return real(path, *a, **k)
    monkeypatch.setattr(os, "mkdir", erofs)
    with pytest.raises(OSError) as info:
        with atomic.StagedDir(tmp_path / "root"):
            pass
    assert info.value.filename == str(tmp_path / "root")
    assert ".tmp-" not in str(info.value)
