"""Outputs (issue 10 §4): ``--out`` never follow or replace a symlink, FIFO,
device node or socket (usage error, exit 2, the thing untouched, no hang), and everything
d3mkit creates honours the umask (0644/0755 under 022, not tempfile's 0600/0700).

Table-driven over the commands that write and the kinds of hostile names; device nodes
are made with mknod where the machine allows it (skipped otherwise)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import stat
from pathlib import Path

import pytest

from d3mkit.cli import main

ORIGINAL = "original content\n"


def run(argv, capsys):
    old = signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(TimeoutError("hung on an output")))
    signal.alarm(60)
    try:
        code = main([str(a) for a in argv])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err
    return code, out, err


@pytest.fixture(scope="module")
def wine(tmp_path_factory):
    from taskroot_helpers import wine_root
    root = wine_root(tmp_path_factory.mktemp("wine"), with_predictions=True)
    (root.parent / "captions.txt").write_text("a glass is used for drinking unless it is broken\n")
    return root


def _mknod(path: Path, kind: int):
    try:
        os.mknod(path, kind | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot create a device node here: {exc}")


def _socket(path: Path):
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    return s


def _hostile(kind: str, p: Path, tmp: Path):
    """Make ``p`` a hostile name of ``kind``; return a function telling it is untouched."""
    target = tmp / "victim.txt"
    target.write_text(ORIGINAL)
    if kind == "symlink to a file":
        p.symlink_to(target)
        return lambda: p.is_symlink() and target.read_text() == ORIGINAL
    if kind == "relative symlink to a file":
        p.symlink_to(os.path.relpath(target, p.parent))
        return lambda: p.is_symlink() and target.read_text() == ORIGINAL
    if kind == "dangling symlink":
        p.symlink_to(tmp / "nothing-here")
        return lambda: p.is_symlink() and not (tmp / "nothing-here").exists()
    if kind == "symlink to a directory":
        (tmp / "victim_dir").mkdir()
        p.symlink_to(tmp / "victim_dir")
        return lambda: p.is_symlink() and list((tmp / "victim_dir").iterdir()) == []
    if kind == "symlink to /dev/null":
        p.symlink_to("/dev/null")
        return lambda: p.is_symlink() and stat.S_ISCHR(os.stat("/dev/null").st_mode)
    if kind == "FIFO":
        os.mkfifo(p)
        return lambda: stat.S_ISFIFO(os.lstat(p).st_mode)
    if kind == "character device":
        _mknod(p, stat.S_IFCHR)
        return lambda: stat.S_ISCHR(os.lstat(p).st_mode)
    if kind == "block device":
        _mknod(p, stat.S_IFBLK)
        return lambda: stat.S_ISBLK(os.lstat(p).st_mode)
    if kind == "socket":
        s = _socket(p)
        return lambda: (s.close() or True) and stat.S_ISSOCK(os.lstat(p).st_mode)
    if kind == "directory":
        p.mkdir()
        return lambda: p.is_dir() and list(p.iterdir()) == []
    if kind == "regular file":
        p.write_text(ORIGINAL)
        return lambda: p.read_text() == ORIGINAL
    raise AssertionError(kind)


FILE_KINDS = ["symlink to a file", "relative symlink to a file", "dangling symlink", "symlink to a directory",
              "symlink to /dev/null", "FIFO", "character device", "block device", "socket", "directory"]
DIR_KINDS = ["symlink to a directory", "dangling symlink", "symlink to a file", "FIFO", "character device",
             "socket", "regular file"]


def _file_cmd(name, wine, out):
    root = wine
    return {
        "score --out": ["score", "--problem", root, "--predictions", root.parent / "predictions.csv",
                           "--out", out],
        "convert --out": ["convert", root / "wine_problem", "--to", "4.0.0", "--out", out, "--force"],
        "prism extract --out": ["prism", "extract", "--captions", root.parent / "captions.txt", "--out", out],
        "prism query --out": ["prism", "query", "--premises", root.parent / "captions.txt",
                                 "--captions", root.parent / "captions.txt", "--out", out],
    }[name]


FILE_CMDS = ["score --out", "convert --out", "prism extract --out", "prism query --out"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", FILE_KINDS)
@pytest.mark.parametrize("cmd", FILE_CMDS)
def test_file_outputs_refuse_non_regular_names(wine, tmp_path, capsys, cmd, kind):
    out = tmp_path / "out.csv"
    untouched = _hostile(kind, out, tmp_path)
    code, _, err = run(_file_cmd(cmd, wine, out), capsys)
    assert code == 2 and str(out) in err, err
    assert untouched()
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]


def _dir_cmd(name, wine, out):
    return {
        "views --out": ["views", wine, "--out", out],
        "build --out": ["build", "tabular", "--out", out, "--quiet"],
        "demo --out": ["demo", "--out", out, "--only", "no-such-part"],
        "evaluate --out": ["evaluate", "--problems", wine.parent, "--submissions", wine.parent, "--out", out],
    }[name]


DIR_CMDS = ["views --out", "build --out", "evaluate --out"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", DIR_KINDS)
@pytest.mark.parametrize("cmd", DIR_CMDS)
def test_directory_outputs_refuse_non_directories(wine, tmp_path, capsys, cmd, kind):
    out = tmp_path / "out"
    untouched = _hostile(kind, out, tmp_path)
    code, _, err = run(_dir_cmd(cmd, wine, out), capsys)
    assert code == 2 and str(out) in err, err
    assert untouched()


def test_score_output_to_dev_null_is_refused(wine, capsys):
    """The issue's example: as root this would have replaced the system's /dev/null."""
    code, _, err = run(_file_cmd("score --out", wine, Path("/dev/null")), capsys)
    assert code == 2 and "/dev/null" in err and "character device" in err
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)


def test_a_task_root_that_is_a_symlink_is_not_replaced(wine, tmp_path, capsys):
    shutil.copytree(wine, tmp_path / "real" / "wine")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "wine").symlink_to(tmp_path / "real" / "wine")
    code, _, err = run(["build", "tabular", "--out", tmp_path / "out", "--quiet", "--force"], capsys)
    assert code == 2 and "symlink" in err
    assert (tmp_path / "out" / "wine").is_symlink()


# --- umask --------------------------------------------------------------------------------
def _modes(root: Path) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {"dir": set(), "file": set()}
    for p in [root, *root.rglob("*")] if root.is_dir() else [root]:
        out["dir" if p.is_dir() else "file"].add(stat.S_IMODE(os.lstat(p).st_mode))
    return out


@pytest.fixture()
def umask_of(request):
    old = os.umask(request.param)
    yield request.param
    os.umask(old)


UMASK_CMDS = ["build", "views", "score --out", "convert --out", "split", "baseline"]


@pytest.mark.slow
@pytest.mark.parametrize("umask_of", [0o022, 0o027, 0o077, 0o002], indirect=True)
@pytest.mark.parametrize("cmd", UMASK_CMDS)
def test_created_files_and_directories_honour_the_umask(wine, tmp_path, capsys, umask_of, cmd):
    mask = umask_of
    if cmd == "build":
        code, _, _ = run(["build", "tabular", "--out", tmp_path, "--quiet", "--name", "w"], capsys)
        made = tmp_path / "w"
    elif cmd == "views":
        code, _, _ = run(["views", wine, "--out", tmp_path / "v"], capsys)
        made = tmp_path / "v"
    elif cmd == "score --out":
        code, _, _ = run(_file_cmd("score --out", wine, tmp_path / "scores.csv"), capsys)
        made = tmp_path / "scores.csv"
    elif cmd == "convert --out":
        code, _, _ = run(_file_cmd("convert --out", wine, tmp_path / "p.json"), capsys)
        made = tmp_path / "p.json"
    elif cmd == "split":
        root = tmp_path / "wine"
        shutil.copytree(wine, root)
        (root / "wine_problem" / "dataSplits.csv").unlink()
        code, _, _ = run(["split", root], capsys)
        made = root / "wine_problem" / "dataSplits.csv"
    else:
        root = tmp_path / "wine"
        shutil.copytree(wine, root)
        code, _, _ = run(["baseline", root, "--model", "mean", "--quiet"], capsys)
        made = root / "wine_solution"
        if code == 2:
            pytest.skip("no 'mean' tabular baseline on this version")
    assert code == 0
    modes = _modes(made)
    assert modes["file"] == {0o666 & ~mask}, {k: sorted(map(oct, v)) for k, v in modes.items()}
    assert modes["dir"] <= {0o777 & ~mask}


def count_hostile_inputs() -> dict[str, int]:
    return {"output: file outputs x hostile names": len(FILE_KINDS) * len(FILE_CMDS) + 1,
            "output: directory outputs x hostile names": len(DIR_KINDS) * len(DIR_CMDS) + 1,
            "umask: commands x umasks": len(UMASK_CMDS) * 4}
