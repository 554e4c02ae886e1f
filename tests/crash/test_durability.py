"""Crash safety across a power loss (issue 10, class 4): d3mkit.io.atomic flushes content to
the disk before a rename makes it visible, and the parent directory after. The order of
the system calls is recorded (os.fsync, os.replace, os.rename and the C library's syncfs
and renameat2 are wrapped) and checked for files, for staged trees on both paths (syncfs,
and the per-entry fsync where syncfs is missing) and for D3MKIT_FSYNC=0."""

from __future__ import annotations

import os
import stat

import pytest

import d3mkit.io.atomic as A


@pytest.fixture()
def calls(monkeypatch):
    monkeypatch.setenv("D3MKIT_FSYNC", "1")     # the default, which conftest turns off for scratch outputs
    log: list[tuple[str, str]] = []
    real_fsync, real_replace, real_rename = os.fsync, os.replace, os.rename

    def fsync(fd):
        path = os.readlink(f"/proc/self/fd/{fd}") if os.path.exists("/proc/self/fd") else str(fd)
        kind = "dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file"
        log.append((f"fsync-{kind}", os.path.basename(path)))
        return real_fsync(fd)

    def replace(a, b, *k, **kw):
        log.append(("replace", os.path.basename(str(b))))
        return real_replace(a, b, *k, **kw)

    def rename(a, b, *k, **kw):
        log.append(("rename", os.path.basename(str(b))))
        return real_rename(a, b, *k, **kw)
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "rename", rename)
    real_r2 = A._renameat2

    def renameat2(src, dst, flags):
        done = real_r2(src, dst, flags)
        if done:
            log.append(("renameat2", os.path.basename(str(dst))))
        return done
    monkeypatch.setattr(A, "_renameat2", renameat2)
    return log


def test_a_file_is_flushed_before_its_rename_and_the_directory_after(tmp_path, calls):
    A.write_text(tmp_path / "scores.csv", "metric,value\n")
    kinds = [k for k, _ in calls]
    assert kinds == ["fsync-file", "replace", "fsync-dir"], calls
    assert calls[0][1].startswith(".scores.csv.tmp-") and calls[2][1] == tmp_path.name


@pytest.mark.parametrize("syncfs", [True, False])
@pytest.mark.parametrize("replace", [False, True])
def test_a_staged_tree_is_flushed_before_it_is_swapped_in(tmp_path, calls, monkeypatch, syncfs, replace):
    synced: list[str] = []
    if syncfs:
        class Libc:                         # the real C library, syncfs recorded
            def __init__(self, real):
                self.real = real

            def __getattr__(self, name):
                return getattr(self.real, name)

            def syncfs(self, fd):
                synced.append(os.readlink(f"/proc/self/fd/{fd}"))
                calls.append(("syncfs", ""))
                return self.real.syncfs(fd)
        real = A._libc_handle()
        if not real or not hasattr(real, "syncfs"):
            pytest.skip("no syncfs in this C library")
        monkeypatch.setattr(A, "_libc_handle", lambda: Libc(real))
    else:
        class NoSyncfs:
            def __init__(self, real):
                self.real = real

            def __getattr__(self, name):
                if name == "syncfs":
                    raise AttributeError(name)
                return getattr(self.real, name)
        import ctypes
        monkeypatch.setattr(A, "_libc_handle", lambda: NoSyncfs(ctypes.CDLL(None, use_errno=True)))
    if replace:
        with A.StagedDir(tmp_path / "root") as t:
            (t / "old.txt").write_text("old")
        calls.clear()
        synced.clear()
    with A.StagedDir(tmp_path / "root", force=replace) as t:
        (t / "sub").mkdir()
        (t / "sub" / "a.csv").write_text("a")
        (t / "b.json").write_text("{}")
    names = [k for k, _ in calls]
    swap = next(i for i, k in enumerate(names) if k in ("renameat2", "rename"))
    before, after = calls[:swap], calls[swap + 1:]
    if syncfs:
        assert ("syncfs", "") in before and len(synced) == 1 and ".root.tmp-" in synced[0]
    else:
        flushed = {n for k, n in before if k.startswith("fsync")}
        assert {"a.csv", "b.json", "sub"} <= flushed, calls
    assert ("fsync-dir", tmp_path.name) in after, calls
    assert (tmp_path / "root" / "sub" / "a.csv").read_text() == "a"


def test_fsync_can_be_turned_off(tmp_path, calls, monkeypatch):
    monkeypatch.setenv("D3MKIT_FSYNC", "0")
    A.write_text(tmp_path / "x.txt", "x")
    with A.StagedDir(tmp_path / "root") as t:
        (t / "f").write_text("f")
    assert not [c for c in calls if c[0].startswith(("fsync", "syncfs"))], calls


def test_a_scratch_tree_is_not_flushed(tmp_path, calls, monkeypatch):
    """StagedDir(durable=False) (a system's sandbox, d3mkit.systems.handover): swapped in
    atomically, never flushed (neither syncfs nor an fsync of its entries or its parent)."""
    synced: list[int] = []

    class Libc:
        def syncfs(self, fd):
            synced.append(fd)
            return 0
    monkeypatch.setattr(A, "_libc_handle", lambda: Libc())
    with A.StagedDir(tmp_path / "box", durable=False) as t:
        (t / "a.csv").write_text("a")
    assert (tmp_path / "box" / "a.csv").read_text() == "a"
    assert not synced and not [c for c in calls if c[0].startswith("fsync")], calls
    with A.StagedDir(tmp_path / "kept") as t:          # the default is durable
        (t / "a.csv").write_text("a")
    assert synced
