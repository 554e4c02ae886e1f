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
bytes of an image     ``D3MKIT_MAX_IMAGE_BYTES``      256 MiB per image file
pixels of an image    ``D3MKIT_MAX_IMAGE_PIXELS``     100,000,000 decoded pixels (w x h)
IDX data bytes        ``D3MKIT_MAX_IDX_BYTES``        2 GiB the header promises (decompressed)
PGN games             ``D3MKIT_MAX_PGN_GAMES``        1,000,000 games read from one file
PGN half-moves        ``D3MKIT_MAX_PGN_PLIES``        10,000 half-moves in one game
PGN positions         ``D3MKIT_MAX_PGN_POSITIONS``    10,000,000 half-moves in one file
PGN line              ``D3MKIT_MAX_PGN_LINE``         1 MiB characters in one line
columns to import     ``D3MKIT_MAX_IMPORT_COLUMNS``   10,000 columns of a table ``import`` packages
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

from d3mkit.core.errors import Issue, error

DEFAULTS = {
    "MAX_FILE_BYTES": 4 << 30,
    "MAX_JSON_BYTES": 64 << 20,
    "MAX_COLUMNS": 100_000,
    "MAX_LABELS": 100_000,
    "MAX_LABEL_CELLS": 50_000_000,
    "MAX_SPLITS": 10_000,
    "MAX_SPLIT_ROWS": 100_000_000,
    "MAX_IMAGE_BYTES": 256 << 20,
    "MAX_IMAGE_PIXELS": 100_000_000,
    "MAX_IDX_BYTES": 2 << 30,
    "MAX_PGN_GAMES": 1_000_000,
    "MAX_PGN_PLIES": 10_000,
    "MAX_PGN_POSITIONS": 10_000_000,
    "MAX_PGN_LINE": 1 << 20,
    "MAX_IMPORT_COLUMNS": 10_000,
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
    wording of file kinds for the readers here and the output checks of d3mkit.io.atomic."""
    for test, what in ((stat.S_ISLNK, "a symlink"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISREG, "a file")):
        if test(mode):
            return what
    return "not a regular file"


def _a(what: str) -> str:
    """``what`` with its indefinite article ("an image file", "a CSV file")."""
    return f"an {what}" if what[:1].lower() in "aeio" else f"a {what}"


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
        return error("file.is_directory", "", f"expected {_a(what)}, found a directory", p)
    if not stat.S_ISREG(st.st_mode):
        return error("file.not_regular", "", f"expected {_a(what)}, found {file_kind(st.st_mode)}; "
                     f"only regular files are read", p)
    if st.st_size > limit(limit_name):
        return error("file.too_large", "", f"{what} is {st.st_size:,} bytes, over the "
                     f"byte {how_to_raise(limit_name)}", p)
    return None


def open_regular(path: Path | str, what: str = "file", limit_name: str = "MAX_FILE_BYTES", *,
                 note: bool = True):
    """``path`` opened for binary reading when it is a regular file within the byte limit
    ``limit_name``; else :class:`~d3mkit.core.errors.D3MKitError` with the issue of
    :func:`file_issue` (``file.missing``/``file.unreadable`` when it cannot be opened).
    The file is noted as an input of the run (:func:`d3mkit.io.readlog.note`) unless ``note`` is
    False: for a caller reading many files of a tree it has noted as a whole and whose outputs
    it keeps out of that tree (``export hf``'s images: a note is ~300 bytes a file).

    Race-free: the name is opened without blocking (a FIFO swapped in after the check does
    not hang ``open``) and the opened file is checked again, so what is read is what was
    checked.

    >>> open_regular("/dev/zero", "PGN file")
    Traceback (most recent call last):
    ...
    d3mkit.core.errors.D3MKitError: /dev/zero: error [file.not_regular] expected a PGN file, found a character device; only regular files are read
    """
    from d3mkit.core.errors import D3MKitError
    p = str(path)
    refused = file_issue(p, what, limit_name)
    if refused is not None:
        raise D3MKitError(refused)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise D3MKitError(error("file.missing", "", f"{what} does not exist", p)) from None
    except IsADirectoryError:
        raise D3MKitError(error("file.is_directory", "", f"expected {_a(what)}, found a directory", p)) from None
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise D3MKitError(error("file.unreadable", "", f"cannot read {what}: {why}", p)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit(limit_name):
            raise D3MKitError(error("file.not_regular", "", f"expected {_a(what)}, found "
                                    f"{file_kind(st.st_mode)}; only regular files are read", p)
                              if not stat.S_ISREG(st.st_mode) else
                              error("file.too_large", "", f"{what} is {st.st_size:,} bytes, over the "
                                    f"byte {how_to_raise(limit_name)}", p))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        if note:
            from d3mkit.io.readlog import note as note_input
            note_input(p, st)                # an input: no output of this run may replace it
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
