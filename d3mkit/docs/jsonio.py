"""Reading and writing D3M JSON documents.

Reading turns every failure into an :class:`~d3mkit.errors.Issue` with the file, a
``line L, column C`` location and a message that names the usual hand-editing mistakes
(trailing commas, comments, single quotes). Writing is byte-stable: keys in the order
they were read or built, 2-space indent, UTF-8, trailing newline.

>>> parse_json('{"a": 1,}', "doc.json")[1][0].message
'trailing comma before "}"'
>>> parse_json('{"a": 1}', "doc.json")
({'a': 1}, [])
>>> dump_json({"b": 1, "a": [1, 2]})
'{\\n  "b": 1,\\n  "a": [\\n    1,\\n    2\\n  ]\\n}\\n'
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from d3mkit.errors import EXIT_USAGE, D3MKitError, Issue, error

MAX_DOC_BYTES = 256 * 1024 * 1024


def _explain(text: str, exc: json.JSONDecodeError) -> str:
    pos = exc.pos
    rest = text[pos:pos + 2]
    before = text[:pos].rstrip()
    if rest[:1] in "}]" and before.endswith(","):
        return f'trailing comma before "{rest[:1]}"'
    if rest.startswith("//") or rest.startswith("/*"):
        return "comments are not allowed in JSON"
    if rest[:1] == "'":
        return "strings must use double quotes"
    if pos >= len(text.rstrip()):
        return "unexpected end of document (unclosed { or [ ?)"
    return exc.msg[0].lower() + exc.msg[1:]


def _location_of(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"line {line}, column {col}"


def parse_json(text: str, path: str = "") -> tuple[Any, list[Issue]]:
    """Parse ``text``; return ``(value, [])`` or ``(None, [issue])``."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        return None, [error("json.empty", "", "document is empty", path)]
    try:
        return json.loads(text), []
    except json.JSONDecodeError as exc:
        # a trailing comma is reported at the closing bracket; point at the comma instead
        msg = _explain(text, exc)
        pos = exc.pos
        if msg.startswith("trailing comma"):
            m = re.search(r",\s*$", text[:pos])
            pos = m.start() if m else pos
        return None, [error("json.syntax", _location_of(text, pos), msg, path)]
    except RecursionError:
        return None, [error("json.syntax", "", "document is nested too deeply", path)]


def read_text(path: Path | str, max_bytes: int = MAX_DOC_BYTES) -> tuple[str | None, list[Issue]]:
    """Read a UTF-8 text file; unreadable, binary or oversized files become issues."""
    p = Path(path)
    try:
        if p.is_dir():
            return None, [error("file.is_directory", "", "expected a file, found a directory", str(p))]
        size = p.stat().st_size
        if size > max_bytes:
            return None, [error("file.too_large", "", f"file is {size} bytes, over the {max_bytes} byte limit", str(p))]
        raw = p.read_bytes()
    except FileNotFoundError:
        return None, [error("file.missing", "", "file does not exist", str(p))]
    except OSError as exc:
        return None, [error("file.unreadable", "", f"cannot read file: {exc.strerror or exc}", str(p))]
    if b"\x00" in raw:
        return None, [error("file.binary", "", "file is binary, not UTF-8 text", str(p))]
    try:
        return raw.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        return None, [error("file.encoding", f"byte {exc.start}", "file is not valid UTF-8", str(p))]


def load_json_issues(path: Path | str) -> tuple[Any, list[Issue]]:
    """Read and parse a JSON file; ``(value, issues)``, value None when unusable."""
    text, issues = read_text(path)
    if text is None:
        return None, issues
    return parse_json(text, str(path))


def load_json(path: Path | str) -> Any:
    """Read and parse a JSON file or raise :class:`D3MKitError` (exit 1; 2 if missing)."""
    value, issues = load_json_issues(path)
    if issues:
        code = EXIT_USAGE if issues[0].code in ("file.missing", "file.unreadable", "file.is_directory") else 1
        raise D3MKitError(issues, code)
    return value


def dump_json(value: Any) -> str:
    """Canonical text of a document: insertion order, 2-space indent, final newline."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def write_text_atomic(path: Path | str, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary sibling and a rename."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_json(path: Path | str, value: Any) -> None:
    write_text_atomic(path, dump_json(value))
