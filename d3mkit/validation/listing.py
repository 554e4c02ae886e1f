"""A media collection's files as a compact sorted array, and which item names a table's
column gives that are not among them (``collection.item_missing``) or leave the dataset root
(``path.escape``).

The listing holds each file's path (relative to the collection, POSIX) as bytes in one sorted
numpy ``S`` array (a few bytes a file, where a set of Python strings costs many times more).
An item name that needs no normalisation (no ``\\``, ``:``,
``//``, ``/.``, leading ``/`` or ``.``, trailing ``/``: ``os.path.normpath`` leaves it as it is
and :func:`d3mkit.io.paths.lexical_escape` has nothing to say) is looked up with a binary search
over the whole array at once, in blocks; any other name, and every name when the collection
holds a symlink that leaves the root, goes through the one-name-at-a-time rules.

>>> names = np.array([b"a.png", b"sub/b.png", b"../x.png", b"c.png"])
>>> simple_names(names).tolist()
[True, True, False, True]
>>> item_faults(np.array([b"a.png", b"sub/b.png"]), {}, names).tolist()
[0, 0, 2, 1]
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from d3mkit.io.paths import iter_files, lexical_escape

BLOCK = 1 << 13      # names handled per numpy step (bounds the temporaries)


def listing(root: Path, rel_dir: str) -> tuple[np.ndarray, dict[str, str]]:
    """The files under ``root/rel_dir`` as a sorted ``S`` array of their relative paths'
    bytes, and the entries that are symlinks leaving ``root`` (:func:`d3mkit.io.paths.iter_files`)."""
    escaping: dict[str, str] = {}
    parts: list[np.ndarray] = []
    chunk: list[bytes] = []
    for name in iter_files(root, rel_dir, escaping):
        chunk.append(os.fsencode(name))
        if len(chunk) == BLOCK:
            parts.append(np.array(chunk))
            chunk = []
    if chunk:
        parts.append(np.array(chunk))
    if not parts:
        return np.zeros(0, dtype="S1"), escaping
    names = np.concatenate(parts) if len(parts) > 1 else parts[0]
    del parts
    names.sort()
    return names, escaping


def simple_names(names: np.ndarray) -> np.ndarray:
    """Which names (an ``S`` array) normalise to themselves and cannot leave the root
    lexically (see the module docstring)."""
    out = np.zeros(len(names), dtype=bool)
    width = names.dtype.itemsize
    for o in range(0, len(names), BLOCK):
        m = names[o:o + BLOCK].view(np.uint8).reshape(-1, width)
        ok = ~((m == 92) | (m == 58)).any(axis=1)                # no backslash, no colon (drive)
        ok &= (m[:, 0] != 47) & (m[:, 0] != 46)                  # no leading '/' or '.'
        if width > 1:
            slash = m[:, :-1] == 47
            ok &= ~(slash & ((m[:, 1:] == 47) | (m[:, 1:] == 46))).any(axis=1)   # no '//' or '/.'
        if width > 1:
            ok &= ~((m[:, :-1] == 0) & (m[:, 1:] != 0)).any(axis=1)           # no NUL inside
        length = (m != 0).sum(axis=1)
        ok &= m[np.arange(len(m)), np.maximum(length - 1, 0)] != 47            # no trailing '/'
        ok &= length > 0
        out[o:o + BLOCK] = ok
    return out


def _present(files: np.ndarray, names: np.ndarray) -> np.ndarray:
    if not len(files):
        return np.zeros(len(names), dtype=bool)
    pos = np.minimum(np.searchsorted(files, names), len(files) - 1)
    return files[pos] == names


def item_faults(files: np.ndarray, escaping: dict[str, str], names: np.ndarray,
                why: dict[int, str] | None = None) -> np.ndarray:
    """Per name (an ``S`` array of UTF-8 item names; ``b""``, an empty cell, is skipped): 0 a
    file of the collection or empty, 1 missing, 2 leaves the dataset root (the reason in
    ``why``, by position)."""
    why = why if why is not None else {}
    out = np.zeros(len(names), dtype=np.int8)
    quick = simple_names(names) if not escaping else np.zeros(len(names), dtype=bool)
    quick |= names == b""
    for o in range(0, len(names), BLOCK):
        q = quick[o:o + BLOCK]
        block = names[o:o + BLOCK]
        out[o:o + BLOCK][q] = np.where(_present(files, block[q]) | (block[q] == b""), 0, 1)
    for u in np.flatnonzero(~quick).tolist():
        v = names[u].decode("utf-8", "surrogateescape")
        reason = lexical_escape(v)
        norm = os.path.normpath(v).replace("\\", "/") if not reason else v
        if reason is None and norm in escaping:
            reason = escaping[norm]
        if reason is None and norm.split("/")[0] in escaping:
            reason = escaping[norm.split("/")[0]]
        if reason:
            out[u], why[u] = 2, reason
        elif not _present(files, np.array([os.fsencode(norm)]))[0]:
            out[u] = 1
    return out
