"""The files a command has read, so that nothing it writes replaces one of them.

What this module owns: the answer to "is this output one of my inputs?". The readers that
every command goes through (:func:`d3mkit.io.limits.open_regular`, the CSV reader, the JSON
document reader) :func:`note` each file they open; the writers in :mod:`d3mkit.io.atomic`
call :func:`refuse_input` before a file or a directory becomes visible. A file is known by
its device and inode, so a second name for it (a hard link, ``a/../b``, a symlinked parent)
is the same input. A directory output is refused when it holds an input, since replacing
the directory would replace the input too.

What the run itself writes is its own output, not an input: a tree it is building (a
:class:`d3mkit.io.atomic.StagedDir`'s temporary directory, :func:`own`), a tree it has put in
place and a file it has written (:func:`produced`). Reading those back (a converter
rewriting a table it copied, a reproduction scoring the predictions it wrote before it
writes the next model's) records nothing.

Recording happens only inside :func:`recording` (the command line wraps every command in
it), so a long-lived Python process that calls the library does not accumulate inodes that
the file system may later reuse.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp()); truth = d / "learningData.csv"
>>> _ = truth.write_text("d3mIndex,y\\n0,a\\n")
>>> with recording():
...     note(truth)
...     refuse_input(d / "scores.csv")           # a new name: fine
...     refuse_input(truth)
Traceback (most recent call last):
...
d3mkit.core.errors.OutputInsideInput: ...learningData.csv: error [output.is_input] this file was read as an input of the same run; writing the output over it would destroy it (give another name)
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

_LOCK = threading.Lock()
_DEPTH = 0
_READ: dict[tuple[int, int], str] = {}     # (st_dev, st_ino) -> the real path it was read as
_OWN: list[str] = []                        # real paths of the trees this run is building
_DONE: list[str] = []                       # real paths of the trees this run has written
_WRITTEN: set[tuple[int, int]] = set()      # (st_dev, st_ino) of the files this run has written


@contextmanager
def recording() -> Iterator[None]:
    """Record the files read inside the block (nested blocks share one record)."""
    global _DEPTH
    with _LOCK:
        _DEPTH += 1
    try:
        yield
    finally:
        with _LOCK:
            _DEPTH -= 1
            if _DEPTH == 0:
                _READ.clear()
                _DONE.clear()
                _WRITTEN.clear()


@contextmanager
def own(tree: Path | str) -> Iterator[None]:
    """Inside the block, files read under ``tree`` (being built by this run) are not inputs."""
    real = os.path.realpath(str(tree))
    with _LOCK:
        _OWN.append(real)
    try:
        yield
    finally:
        with _LOCK:
            _OWN.remove(real)


def _is_own(real: str) -> bool:
    return any(real == t or real.startswith(t + os.sep) for t in (*_OWN, *_DONE))


def produced(path: Path | str) -> None:
    """Record ``path`` (a file or a tree just put in place) as written by this run."""
    if _DEPTH == 0:
        return
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return
    with _LOCK:
        if os.path.isdir(path):
            _DONE.append(os.path.realpath(str(path)))
        else:
            _WRITTEN.add((st.st_dev, st.st_ino))


def note(path: Path | str, st: os.stat_result | None = None) -> None:
    """Record ``path`` (or the file ``st`` describes) as read; a no-op outside
    :func:`recording`, for a file of a tree this run is building (:func:`own`), or when
    the file cannot be stat'ed."""
    if _DEPTH == 0:
        return
    real = os.path.realpath(str(path))
    if (_OWN or _DONE) and _is_own(real):
        return
    try:
        st = st if st is not None else os.stat(path)
    except (OSError, ValueError):
        return
    if (st.st_dev, st.st_ino) in _WRITTEN:
        return
    with _LOCK:
        _READ[(st.st_dev, st.st_ino)] = real


def note_fd(fd: int, path: Path | str) -> None:
    """Record the open file ``fd`` (read as ``path``)."""
    if _DEPTH:
        try:
            note(path, os.fstat(fd))
        except OSError:
            pass


def _inputs_under(directory: str) -> list[str]:
    prefix = directory.rstrip(os.sep) + os.sep
    with _LOCK:
        return [p for p in _READ.values() if p == directory or p.startswith(prefix)]


def refuse_input(path: Path | str) -> None:
    """Raise :class:`~d3mkit.core.errors.OutputInsideInput` when writing ``path`` would replace a
    file read in this run: ``path`` is that file, or a directory holding it."""
    if _DEPTH == 0 or not _READ:
        return
    from d3mkit.core.errors import OutputInsideInput
    p = str(path)
    try:
        st = os.stat(p)
    except (OSError, ValueError):
        return
    with _LOCK:
        hit = (st.st_dev, st.st_ino) in _READ
    if hit:
        raise OutputInsideInput(p, reason="this file was read as an input of the same run; writing "
                                          "the output over it would destroy it (give another name)")
    if os.path.isdir(p):
        held = _inputs_under(os.path.realpath(p))
        if held:
            raise OutputInsideInput(p, reason=f"this directory holds an input of the same run "
                                              f"({os.path.relpath(held[0], p)}); replacing it would "
                                              f"destroy the input (give another name)")
