"""The sha256 digests of a task root's files: what ``build`` and ``import`` record in
``<name>_debug/manifest.json`` and what ``d3mkit validate --verify-digests`` checks.

What this module owns: which files of a task root are digested, how (sha256 of the bytes,
read once in 1 MiB blocks), where the digests live in the manifest (``"digests"``: a JSON
object mapping each file's path relative to the task root, ``/``-separated, to
``{"sha256": HEX, "bytes": SIZE}``, sorted by path) and what counts as changed, missing or
unexpected.

The manifest of a root with many files is mostly digests (about 150 bytes a file): readers
that need a few of them (the exporters) or none (:attr:`d3mkit.taskroot.model.TaskRoot.manifest`)
use :func:`load_manifest`, which streams the ``"digests"`` object entry by entry and keeps
only the wanted ones, so their memory does not grow with the number of files; verification
reads them all.

Every regular file under the task root is digested except two: the manifest itself (it
cannot hold its own digest) and ``<name>_solution/`` (what baselines write after the build).
Hidden entries (``.NAME``) are skipped only when they are d3mkit's own leftovers of a killed
run; everything else counts.

>>> import tempfile
>>> root = Path(tempfile.mkdtemp()) / "t"
>>> (root / "t_dataset").mkdir(parents=True); _ = (root / "t_dataset" / "a.csv").write_text("x\\n")
>>> tree_digests(root, "t")
{'t_dataset/a.csv': {'sha256': '...', 'bytes': 2}}
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from pathlib import Path

from d3mkit.core.errors import Issue, error

KEY = "digests"                 # the manifest's field
MANIFEST = "manifest.json"      # in <name>_debug/
_BLOCK = 1 << 20


def file_sha256(path: Path | str) -> tuple[str, int]:
    """(sha256 hex digest, size in bytes) of the regular file ``path``, read once, never
    through a symlink (``O_NOFOLLOW``)."""
    h = hashlib.sha256()
    n = 0
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb", buffering=0) as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise OSError(21, "not a regular file", str(path))
        buf = bytearray(_BLOCK)
        view = memoryview(buf)
        while True:
            k = fh.readinto(buf)
            if not k:
                break
            h.update(view[:k])
            n += k
    return h.hexdigest(), n


def _excluded(rel: str, name: str) -> bool:
    return rel == f"{name}_debug/{MANIFEST}" or rel.startswith(f"{name}_solution/")


def _leftover(entry: str) -> bool:
    return entry.startswith(".") and (".tmp-" in entry or ".old-" in entry)


def walk(root: Path | str, name: str):
    """Yield ``(relative path, os.DirEntry)`` for every entry under the task root ``root``
    that the digests cover (files, and symlinks or other non-directories, which verification
    names), in sorted order; directories are entered, never through a symlink."""
    root = Path(root)
    stack = [("", str(root))]
    while stack:
        prefix, d = stack.pop()
        with os.scandir(d) as it:
            entries = sorted(it, key=lambda e: e.name, reverse=True)
        for e in entries:
            if _leftover(e.name):
                continue
            rel = f"{prefix}{e.name}"
            if e.is_dir(follow_symlinks=False):
                stack.append((rel + "/", e.path))
            elif not _excluded(rel, name):
                yield rel, e


def tree_digests(root: Path | str, name: str) -> dict[str, dict]:
    """``{relative path: {"sha256", "bytes"}}`` of every regular file the digests cover
    (see the module docstring), sorted by path."""
    out = {}
    for rel, e in walk(root, name):
        if e.is_file(follow_symlinks=False):
            digest, size = file_sha256(e.path)
            out[rel] = {"sha256": digest, "bytes": size}
    return dict(sorted(out.items()))


def recorded(manifest: dict, path: str = "") -> tuple[dict[str, dict] | None, list[Issue]]:
    """The digests recorded in ``manifest`` (None when there are none) and the issues of a
    malformed ``digests`` field (``digest.malformed``, naming ``path``)."""
    if KEY not in manifest:
        return None, []
    value = manifest[KEY]
    bad = not isinstance(value, dict)
    if not bad:
        for rel, d in value.items():
            if not (isinstance(d, dict) and isinstance(d.get("sha256"), str) and len(d["sha256"]) == 64
                    and isinstance(d.get("bytes"), int)):
                return None, [error("digest.malformed", f"{KEY}.{rel}",
                                    "a digest is an object {\"sha256\": 64 hex digits, \"bytes\": size}", path)]
    if bad:
        return None, [error("digest.malformed", KEY, "digests must be a JSON object of path -> digest", path)]
    return value, []


class _Unstreamable(Exception):
    """The manifest is not in the shape :func:`load_manifest` streams: read it whole instead."""


class _Stream:
    """A JSON text read in blocks: ``value()`` decodes the next value, ``take(ch)`` the next
    structural character; the text read is kept (``head``) unless ``keep`` is off, when only
    its line count and last-line width are (so the kept text can stand in for the whole)."""

    _WS = re.compile(r"[ \t\r\n]*")
    _DECODER = json.JSONDecoder()

    def __init__(self, fh):
        self.fh, self.buf, self.pos, self.eof = fh, "", 0, False
        self.head: list[str] = []
        self.keep = True
        self.lines = self.col = 0

    def _advance(self, end: int) -> str:
        text = self.buf[self.pos:end]
        self.pos = end
        if self.keep:
            self.head.append(text)
        else:
            n = text.count("\n")
            self.lines += n
            self.col = len(text) - text.rfind("\n") - 1 if n else self.col + len(text)
        return text

    def _more(self) -> bool:
        if self.eof:
            return False
        chunk = self.fh.read(1 << 16)
        if not chunk:
            self.eof = True
            return False
        self.buf = self.buf[self.pos:] + chunk
        self.pos = 0
        return True

    def peek(self) -> str:
        while True:
            self._advance(self._WS.match(self.buf, self.pos).end())
            if self.pos < len(self.buf) or not self._more():
                return self.buf[self.pos:self.pos + 1]

    def take(self, ch: str) -> None:
        if self.peek() != ch:
            raise _Unstreamable
        self._advance(self.pos + 1)

    def value(self) -> tuple[object, str]:
        self.peek()
        while True:
            try:
                v, end = self._DECODER.raw_decode(self.buf, self.pos)
            except (json.JSONDecodeError, RecursionError):
                if self._more():
                    continue
                raise _Unstreamable from None
            if end == len(self.buf) and self._more():      # a number may go on in the next block
                continue
            return v, self._advance(end)


def _stream_manifest(path: Path, keep: set[str]) -> tuple[dict, dict]:
    """(the manifest text's top level without its digests, parsed strictly with exact
    positions; the kept digests' texts), reading the digests one entry at a time."""
    from d3mkit.documents.jsonio import parse_json
    kept: dict[str, str] | None = None          # None: no "digests" object was streamed
    with open(path, encoding="utf-8", newline="") as fh:
        st = _Stream(fh)
        st.take("{")
        if st.peek() != "}":
            while True:
                key, _ = st.value()
                st.take(":")
                if key == KEY and st.peek() == "{":
                    kept = {}
                    st.take("{")
                    st.keep = False           # the entries stand in as blank lines (same positions after)
                    st.lines = st.col = 0
                    if st.peek() != "}":
                        while True:
                            rel, _ = st.value()
                            st.take(":")
                            _, text = st.value()
                            if rel in keep:
                                if rel in kept:
                                    raise _Unstreamable          # a duplicate: the whole read names it
                                kept[rel] = text
                            if st.peek() != ",":
                                break
                            st.take(",")
                    st.head.append("\n" * st.lines + " " * st.col)
                    st.keep = True
                    st.take("}")
                else:
                    st.value()
                if st.peek() != ",":
                    break
                st.take(",")
        st.take("}")
        if st.peek() != "":
            raise _Unstreamable
    data, issues = parse_json("".join(st.head), str(path))
    if issues or not isinstance(data, dict):
        raise _Unstreamable
    return data, kept


def load_manifest(path: Path | str, keep=None) -> object:
    """The manifest at ``path`` as :func:`d3mkit.documents.jsonio.load_json` reads it (the same
    issues for the same documents), except that with ``keep`` (relative paths) its
    ``"digests"`` hold only those entries: the others are read one at a time and dropped,
    so the memory does not grow with the number of files. ``keep=None`` reads them all."""
    from d3mkit.documents.jsonio import load_json, parse_json
    from d3mkit.io.limits import file_issue
    from d3mkit.io.readlog import note
    path = Path(path)
    if keep is None or file_issue(path, "JSON document", "MAX_JSON_BYTES") is not None:
        data = load_json(path)
    else:
        keep = set(keep)
        try:
            data, kept = _stream_manifest(path, keep)
            note(path)
            if kept is not None:
                data[KEY] = {}
                for rel, text in kept.items():
                    value, issues = parse_json(text, str(path))
                    if issues:
                        raise _Unstreamable
                    data[KEY][rel] = value
            return data
        except (_Unstreamable, OSError, UnicodeDecodeError, ValueError):
            data = load_json(path)           # names what is wrong, exactly as a whole read does
    if keep is not None and isinstance(data, dict) and isinstance(data.get(KEY), dict):
        data[KEY] = {k: v for k, v in data[KEY].items() if k in keep}
    return data


def verify(root: Path | str, name: str, manifest: dict, manifest_path: str = "") -> list[Issue]:
    """One issue per file of the task root ``root`` whose bytes differ from the recorded
    digest (``digest.changed``), per recorded file that is gone (``digest.missing``) and per
    file the manifest does not list (``digest.unexpected``). Each file is read once. No
    recorded digests is ``digest.none``."""
    root = Path(root)
    want, issues = recorded(manifest, manifest_path)
    if issues:
        return issues
    if want is None:
        return [error("digest.none", KEY, "the manifest records no digests (the task root was not "
                      "written by a d3mkit that records them; rebuild it to record them)", manifest_path)]
    seen: set[str] = set()
    for rel, e in walk(root, name):
        seen.add(rel)
        p = str(root / rel)
        if rel not in want:
            issues.append(error("digest.unexpected", f"file {rel}", "the file is not in the manifest's digests "
                                "(added after the task root was written)", p))
            continue
        if not e.is_file(follow_symlinks=False):
            issues.append(error("digest.changed", f"file {rel}", "a regular file was recorded; now it is a symlink "
                                "or another kind of file", p))
            continue
        digest, size = file_sha256(e.path)
        w = want[rel]
        if digest != w["sha256"]:
            issues.append(error("digest.changed", f"file {rel}", f"sha256 {digest[:12]}... ({size:,} bytes) differs from "
                                f"the recorded {w['sha256'][:12]}... ({w['bytes']:,} bytes)", p))
    for rel in want:
        if rel not in seen:
            issues.append(error("digest.missing", f"file {rel}", "the manifest records this file; it is gone",
                                str(root / rel)))
    return issues

