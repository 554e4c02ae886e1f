"""Size limits on untrusted input, checked before memory or time is spent on it.

This module owns every limit that a file we read can push against, and the check that
a path names a regular file before anything opens it (a FIFO blocks ``open``, a
character device such as ``/dev/zero`` never ends). Each limit has a default that is far
above what real D3M tasks need and an environment variable that raises (or lowers) it;
a value that is not a positive integer is ignored.

====================  ==============================  =================================
limit                 environment variable            default
====================  ==============================  =================================
bytes of a CSV file   ``D3MKIT_MAX_FILE_BYTES``       4 GiB
bytes of a JSON doc   ``D3MKIT_MAX_JSON_BYTES``       64 MiB
columns of a CSV      ``D3MKIT_MAX_COLUMNS``          100,000
multiLabel labels     ``D3MKIT_MAX_LABELS``           100,000 distinct labels per target
label matrix cells    ``D3MKIT_MAX_LABEL_CELLS``      50,000,000 (indices x labels)
repeats x folds       ``D3MKIT_MAX_SPLITS``           10,000 (repeat, fold) pairs
dataSplits rows       ``D3MKIT_MAX_SPLIT_ROWS``       100,000,000 rows to generate
====================  ==============================  =================================

>>> limit("MAX_COLUMNS")
100000
>>> import os; os.environ["D3MKIT_MAX_COLUMNS"] = "7"; limit("MAX_COLUMNS")
7
>>> os.environ["D3MKIT_MAX_COLUMNS"] = "-3"; limit("MAX_COLUMNS"); del os.environ["D3MKIT_MAX_COLUMNS"]
100000
>>> file_issue("/dev/null").code
'file.not_regular'
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from d3mkit.errors import Issue, error

DEFAULTS = {
    "MAX_FILE_BYTES": 4 << 30,
    "MAX_JSON_BYTES": 64 << 20,
    "MAX_COLUMNS": 100_000,
    "MAX_LABELS": 100_000,
    "MAX_LABEL_CELLS": 50_000_000,
    "MAX_SPLITS": 10_000,
    "MAX_SPLIT_ROWS": 100_000_000,
}


def limit(name: str) -> int:
    """The limit ``name`` (a key of :data:`DEFAULTS`), raised or lowered by the
    environment variable ``D3MKIT_<name>``."""
    raw = os.environ.get(f"D3MKIT_{name}", "")
    try:
        v = int(raw.strip().replace("_", ""))
    except ValueError:
        return DEFAULTS[name]
    return v if v > 0 else DEFAULTS[name]


def how_to_raise(name: str) -> str:
    """The hint every limit issue ends with."""
    return f"limit {limit(name):,}; raise it with the environment variable D3MKIT_{name}"


def file_kind(mode: int) -> str:
    """What a ``st_mode`` names, for messages ("a FIFO (named pipe)", "a symlink", ...): the one
    wording of file kinds for the readers here and the output checks of d3mkit.atomic."""
    for test, what in ((stat.S_ISLNK, "a symlink"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISREG, "a file")):
        if test(mode):
            return what
    return "not a regular file"


def file_issue(path: Path | str, what: str = "file", limit_name: str = "MAX_FILE_BYTES") -> Issue | None:
    """None when ``path`` is a regular file within the byte limit ``limit_name``; else
    the issue refusing it, before anything opens it. A missing or unreadable path is
    left to the reader (which names it)."""
    p = str(path)
    try:
        st = os.stat(p)
    except (OSError, ValueError):
        return None
    if stat.S_ISDIR(st.st_mode):
        return error("file.is_directory", "", f"expected a {what}, found a directory", p)
    if not stat.S_ISREG(st.st_mode):
        return error("file.not_regular", "", f"expected a {what}, found {file_kind(st.st_mode)}; "
                     f"only regular files are read", p)
    if st.st_size > limit(limit_name):
        return error("file.too_large", "", f"{what} is {st.st_size:,} bytes, over the "
                     f"byte {how_to_raise(limit_name)}", p)
    return None
