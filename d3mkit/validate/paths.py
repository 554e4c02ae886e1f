"""Path containment (a security check): a path a document names must stay inside its root.

An absolute path, a ``..`` that climbs out, or a symlink whose target lies outside the
root all escape.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> escape_reason(root, "tables/learningData.csv") is None
True
>>> escape_reason(root, "../other/learningData.csv")
"'..' climbs out of the root"
>>> escape_reason(root, "/etc/passwd")
'absolute path'
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath, PureWindowsPath


def lexical_escape(rel: str) -> str | None:
    """Why ``rel`` escapes without looking at the disk, or None."""
    if rel.startswith(("/", "\\")) or PureWindowsPath(rel).is_absolute() or PureWindowsPath(rel).drive:
        return "absolute path"
    norm = os.path.normpath(rel.replace("\\", "/"))
    if norm == ".." or norm.startswith("../"):
        return "'..' climbs out of the root"
    return None


def inside(root_real: str, real: str) -> bool:
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)


def escape_reason(root: Path, rel: str) -> str | None:
    """Why ``root/rel`` is outside ``root`` (absolute, ``..``, symlink), or None."""
    why = lexical_escape(rel)
    if why:
        return why
    try:
        real = os.path.realpath(Path(root) / rel)
        root_real = os.path.realpath(root)
    except (OSError, ValueError) as exc:
        return f"cannot resolve ({exc})"
    if not inside(root_real, real):
        return f"a symlink leads outside the root (to {real})"
    return None


def walk_files(root: Path, rel_dir: str) -> tuple[set[str], dict[str, str]]:
    """Files under ``root/rel_dir`` as POSIX paths relative to that directory, and the
    entries (files or directories) that are symlinks leading outside ``root``, with why."""
    root_real = os.path.realpath(root)
    base = Path(root) / rel_dir
    files: set[str] = set()
    escaping: dict[str, str] = {}
    stack = [(base, PurePosixPath())]
    seen_dirs: set[str] = set()
    while stack:
        d, rel = stack.pop()
        try:
            real_d = os.path.realpath(d)
            if real_d in seen_dirs:
                continue
            seen_dirs.add(real_d)
            entries = list(os.scandir(d))
        except OSError:
            continue
        for e in entries:
            r = str(rel / e.name)
            try:
                if e.is_symlink():
                    real = os.path.realpath(e.path)
                    if not inside(root_real, real):
                        escaping[r] = f"a symlink leads outside the dataset root (to {real})"
                        continue
                if e.is_dir():
                    stack.append((Path(e.path), rel / e.name))
                else:
                    files.add(r)
            except OSError:
                continue
    return files, escaping
