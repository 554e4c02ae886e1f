"""The path policy: a path that a document, a manifest or a directory layout names must
stay inside the root it is named relative to. Every command asks this module.

What this module owns: deciding whether ``root/rel`` (or an already joined path) stays
inside ``root``, and raising the one error (code ``path.escape``, exit 1) when it does
not. The rule:

* paths given on the command line are the user's own and are used as given;
* every path derived from untrusted content - a datasetDoc ``resPath`` or collection item,
  a problemDoc ``splitsFile``/``predictionsFile``/``scoresFile``, the ``<name>_dataset``
  and ``<name>_problem`` directories of a task root, a dataset found beside a problem by
  its datasetID, an image a manifest names - must resolve, after following every symlink,
  to a location inside the real path of its root (the document's directory, the task
  root, or the directory given on the command line);
* an absolute path, a ``..`` that climbs out, a symlink (file, directory, or a chain of
  them) leading out, and a path that cannot be resolved (a symlink loop) all escape.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> escape_reason(root, "tables/learningData.csv") is None
True
>>> escape_reason(root, "../other/learningData.csv")
"'..' climbs out of the root"
>>> escape_reason(root, "/etc/passwd")
'absolute path'
>>> (root / "out").symlink_to("/etc")
>>> escape_reason(root, "out/passwd")
'a symlink leads outside the root (to /etc/passwd)'
>>> inside("/a/b", "/a/bc"), inside("/a/b", "/a/b/c"), inside("/", "/x")
(False, True, True)
"""

from __future__ import annotations

import errno
import os
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Iterator

from d3mkit.core.errors import D3MKitError, error

CODE = "path.escape"


def lexical_escape(rel: str) -> str | None:
    """Why ``rel`` escapes without looking at the disk, or None."""
    if not isinstance(rel, str):
        return "not a string"
    if "\x00" in rel:
        return "contains a NUL character"
    if rel.startswith(("/", "\\")) or PureWindowsPath(rel).is_absolute() or PureWindowsPath(rel).drive:
        return "absolute path"
    norm = os.path.normpath(rel.replace("\\", "/"))
    if norm == ".." or norm.startswith("../"):
        return "'..' climbs out of the root"
    return None


def inside(root_real: str, real: str) -> bool:
    """``real`` is ``root_real`` or below it (both already resolved; compared by path
    components, never by string prefix)."""
    root_real = str(root_real)
    real = str(real)
    if real == root_real:
        return True
    return real.startswith(root_real if root_real.endswith(os.sep) else root_real + os.sep)


def _real(p: Path | str) -> str:
    return os.path.realpath(p)


def _real_checked(p: Path | str) -> str:
    """The real path; a symlink loop is an error (the non-strict realpath hides it)."""
    try:
        return os.path.realpath(p, strict=True)
    except FileNotFoundError:
        return os.path.realpath(p)              # not there (yet): where it would be
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, "a symlink loop") from None
        return os.path.realpath(p)              # e.g. permission: resolve as far as possible


def outside_reason(root: Path | str, path: Path | str) -> str | None:
    """Why the joined ``path`` (following every symlink) is not inside ``root``, or None."""
    try:
        real = _real_checked(path)
        root_real = _real(root)
    except D3MKitError:   # a ValueError too: an input problem already stated
        raise
    except (OSError, ValueError) as exc:
        return f"cannot resolve ({exc.strerror if isinstance(exc, OSError) and exc.strerror else exc})"
    if not inside(root_real, real):
        return f"a symlink leads outside the root (to {real})"
    return None


def escape_reason(root: Path | str, rel: str) -> str | None:
    """Why ``root/rel`` is outside ``root`` (absolute, ``..``, symlink), or None."""
    why = lexical_escape(rel)
    if why:
        return why
    return outside_reason(root, Path(root) / rel)


def resolve_inside(root: Path | str, rel: str, *, doc: Path | str | None, location: str,
                   what: str = "path", root_name: str = "its root") -> Path:
    """``root/rel`` when it stays inside ``root``; else :class:`D3MKitError` (code
    ``path.escape``, exit 1) naming ``doc`` (the file that named ``rel``) and ``location``."""
    why = escape_reason(root, rel)
    if why:
        raise D3MKitError(error(CODE, location, f"{what} {rel!r} leaves {root_name}: {why}",
                                str(doc if doc is not None else root)))
    return Path(root) / rel


def require_inside(root: Path | str, path: Path | str, *, doc: Path | str | None = None,
                   location: str = "", what: str = "path", root_name: str | None = None) -> Path:
    """``path`` when it (following every symlink) is inside ``root``; else
    :class:`D3MKitError` (code ``path.escape``) naming ``doc`` or ``path``."""
    why = outside_reason(root, path)
    if why:
        raise D3MKitError(error(CODE, location, f"{what} leaves {root_name or str(root)}: {why}",
                                str(doc if doc is not None else path)))
    return Path(path)


def partition_inside(root: Path | str, paths) -> tuple[list[Path], list[tuple[Path, str]]]:
    """``(paths inside root, [(path, why) for the others])``: searches (a dataset beside a
    problem, documents under a directory) read only the first list and report the second
    when nothing inside matched."""
    ok: list[Path] = []
    out: list[tuple[Path, str]] = []
    for p in paths:
        why = outside_reason(root, p)
        if why:
            out.append((Path(p), why))
        else:
            ok.append(Path(p))
    return ok, out


def escaped_error(escaped: list[tuple[Path, str]], *, doc: Path | str, location: str,
                  wanted: str, root_name: str) -> D3MKitError:
    """The error for a search that found nothing inside its root but skipped ``escaped``."""
    p, why = escaped[0]
    return D3MKitError(error(CODE, location, f"{wanted} not found inside {root_name}; "
                             f"{p} was not read: {why}", str(doc)))


def walk_files(root: Path, rel_dir: str) -> tuple[set[str], dict[str, str]]:
    """Files under ``root/rel_dir`` as POSIX paths relative to that directory, and the
    entries (files or directories) that are symlinks leading outside ``root``, with why."""
    escaping: dict[str, str] = {}
    return set(iter_files(root, rel_dir, escaping)), escaping


def iter_files(root: Path, rel_dir: str, escaping: dict[str, str]) -> Iterator[str]:
    """:func:`walk_files` one file at a time (a caller may keep them compactly); the
    entries that are symlinks leading outside ``root`` go into ``escaping`` with why."""
    root_real = _real(root)
    base = Path(root) / rel_dir
    stack = [(base, "")]
    seen_dirs: set[str] = set()
    while stack:
        d, rel = stack.pop()
        try:
            real_d = _real(d)
            if real_d in seen_dirs:
                continue
            seen_dirs.add(real_d)
            it = os.scandir(d)
        except OSError:
            continue
        with it:          # one entry at a time: a directory of 10^5 files is not listed twice
            while True:
                try:
                    e = next(it, None)
                except OSError:
                    break
                if e is None:
                    break
                r = f"{rel}{e.name}"
                try:
                    if e.is_symlink():
                        real = _real(e.path)
                        if not inside(root_real, real):
                            escaping[r] = f"a symlink leads outside the dataset root (to {real})"
                            continue
                    if e.is_dir():
                        stack.append((Path(e.path), f"{r}/"))
                    else:
                        yield r
                except OSError:
                    continue
