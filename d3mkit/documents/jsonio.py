"""Reading and writing D3M JSON documents.

Reading turns every failure into an :class:`~d3mkit.core.errors.Issue` with the file, a
``line L, column C`` location and a message that names the usual hand-editing mistakes
(trailing commas, comments, single quotes). Writing is byte-stable: keys in the order
they were read or built, 2-space indent, UTF-8, trailing newline.

Python's ``json`` accepts more than JSON, and other parsers read some documents
differently; each of these is an error with a code and a ``line L, column C`` location
(the message names the JSON path), so every command refuses the same documents:

* ``json.duplicate_key`` — an object names a key twice (Python keeps the last value,
  other parsers the first);
* ``json.nonfinite`` — ``NaN``, ``Infinity`` or ``-Infinity`` (not JSON), or a number
  too large for a float (``1e400``);
* ``json.big_number`` — an integer outside the 64-bit range (``-2**63 .. 2**64-1``;
  thousands of digits make Python's ``int`` refuse to convert it);
* ``json.surrogate`` — a string (or key) with a lone UTF-16 surrogate escape such as
  ``"\\ud800"``, which no UTF-8 file can hold.

Only regular files are read, at most ``D3MKIT_MAX_JSON_BYTES`` bytes (see
:mod:`d3mkit.io.limits`).

>>> parse_json('{"a": 1,}', "doc.json")[1][0].message
'trailing comma before "}"'
>>> parse_json('{"a": 1}', "doc.json")
({'a': 1}, [])
>>> [(i.code, i.location) for i in parse_json('{"a": {"b": 1,\\n "b": NaN}}', "d.json")[1]]
[('json.duplicate_key', 'line 2, column 2'), ('json.nonfinite', 'line 2, column 7')]
>>> dump_json({"b": 1, "a": [1, 2]})
'{\\n  "b": 1,\\n  "a": [\\n    1,\\n    2\\n  ]\\n}\\n'
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from d3mkit.core.errors import EXIT_USAGE, D3MKitError, Issue, error, require_path
from d3mkit.io.limits import file_issue
from d3mkit.io.readlog import note

INT_MIN, INT_MAX = -2 ** 63, 2 ** 64 - 1
_TOKEN = re.compile(r'[ \t\r\n]*(?:(?P<p>[{}\[\]:,])|(?P<s>")|(?P<l>true|false|null|NaN|-?Infinity)'
                    r'|(?P<n>-?(?:0|[1-9][0-9]*)(?P<f>(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)))')


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


def _line_column(text: str, pos: int) -> dict:
    """Where character ``pos`` of ``text`` is, as an issue's fields ``line`` and ``column``
    (both from 1)."""
    return {"line": text.count("\n", 0, pos) + 1, "column": pos - (text.rfind("\n", 0, pos) + 1) + 1}


class _Flag:
    """Hooks for :func:`json.loads` that note anything :func:`_strict_issues` must
    locate (the fast path stays the C parser)."""

    def __init__(self):
        self.hit = False

    def pairs(self, pairs):
        d = dict(pairs)
        if len(d) != len(pairs):
            self.hit = True
        return d

    def constant(self, name):
        self.hit = True
        return None

    def integer(self, s):
        if len(s) > 21 or not INT_MIN <= int(s) <= INT_MAX:
            self.hit = True
            return 0
        return int(s)

    def real(self, s):
        v = float(s)
        if v in (float("inf"), float("-inf")):
            self.hit = True
        return v


def _json_path(stack: list) -> str:
    out = ""
    for kind, key, _seen in stack:
        if kind == "[":
            out += f"[{key}]"
        elif key is not None:
            out += ("." if out else "") + key
    return out or "the top level"


def _strict_issues(text: str, path: str) -> list[Issue]:
    """Walk a document that :func:`json.loads` accepted and report what strict JSON
    (RFC 8259 with unique keys) does not: see the module docstring."""
    from json.decoder import scanstring
    out: list[Issue] = []
    stack: list = []          # [kind, current key or index, {key: position}]
    expect_key = False
    pos = 0

    def add(code, at, msg):
        out.append(error(code, "", msg, path, **_line_column(text, at)))

    while True:
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            break
        at = m.start(m.lastgroup)
        pos = m.end()
        if m.group("p"):
            c = m.group("p")
            if c in "{[":
                stack.append([c, None if c == "{" else 0, {}])
                expect_key = c == "{"
            elif c in "}]":
                stack.pop()
                expect_key = False
            elif c == "," and stack:
                if stack[-1][0] == "[":
                    stack[-1][1] += 1
                else:
                    expect_key = True
            continue
        if m.group("s"):
            value, pos = scanstring(text, pos)
            is_key = expect_key and bool(stack)
            if is_key:
                stack[-1][1] = None
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                add("json.surrogate", at, f"{'key' if is_key else 'string'} at {_json_path(stack)} "
                    f"holds a lone UTF-16 surrogate escape (not valid Unicode text)")
                value = value.encode("utf-8", "backslashreplace").decode("ascii")
            if is_key:
                seen = stack[-1][2]
                if value in seen:
                    first = _line_column(text, seen[value])
                    add("json.duplicate_key", at, f"key {value[:60]!r} appears twice in the object at "
                        f"{_json_path(stack)} (first at line {first['line']}, column {first['column']})")
                else:
                    seen[value] = at
                stack[-1][1] = value
                expect_key = False
            continue
        where = _json_path(stack)
        if m.group("l") in ("NaN", "Infinity", "-Infinity"):
            add("json.nonfinite", at, f"{m.group('l')} at {where} is not a JSON number")
        elif m.group("n") is not None:
            lit = m.group("n")
            shown = lit if len(lit) <= 30 else f"{lit[:12]}...{lit[-6:]} ({len(lit)} characters)"
            if m.group("f"):
                if float(lit) in (float("inf"), float("-inf")):
                    add("json.nonfinite", at, f"number {shown} at {where} is too large for a float")
            elif len(lit) > 21 or not INT_MIN <= int(lit) <= INT_MAX:
                add("json.big_number", at, f"integer {shown} at {where} is outside the 64-bit range")
    return out


def parse_json(text: str, path: str = "") -> tuple[Any, list[Issue]]:
    """Parse ``text``; return ``(value, [])`` or ``(None, issues)``."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        return None, [error("json.empty", "", "document is empty", path)]
    flag = _Flag()
    try:
        value = json.loads(text, object_pairs_hook=flag.pairs, parse_constant=flag.constant,
                           parse_int=flag.integer, parse_float=flag.real)
        if flag.hit or ("\\u" in text and re.search(r"\\u[dD][89a-fA-F]", text)):
            issues = _strict_issues(text, path)
            if issues:
                return None, issues
        return value, []
    except json.JSONDecodeError as exc:
        # a trailing comma is reported at the closing bracket; point at the comma instead
        msg = _explain(text, exc)
        pos = exc.pos
        if msg.startswith("trailing comma"):
            m = re.search(r",\s*$", text[:pos])
            pos = m.start() if m else pos
        return None, [error("json.syntax", "", msg, path, **_line_column(text, pos))]
    except RecursionError:
        return None, [error("json.syntax", "", "document is nested too deeply", path)]


def read_text(path: Path | str) -> tuple[str | None, list[Issue]]:
    """Read a UTF-8 text file; unreadable, binary, non-regular or oversized files
    become issues."""
    p = Path(path)
    try:
        refused = file_issue(p, "JSON document", "MAX_JSON_BYTES")
        if refused is not None:
            return None, [refused]
        raw = p.read_bytes()
        note(p)                          # an input: no output of this run may replace it
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


def save_json(path: Path | str, value: Any) -> None:
    """Write ``value`` as :func:`dump_json` text, atomically (:mod:`d3mkit.io.atomic`, imported
    here: a reader of documents, such as ``d3mkit score``, never loads the writer's
    ``secrets``/``hashlib``, about 4 MB of a process)."""
    from d3mkit.io.atomic import write_text
    write_text(path, dump_json(value))


class JsonDocument:
    """A D3M JSON document kept as the object read (saving writes back exactly what was
    loaded: key order, unknown fields) and where it was loaded from. A subclass names its
    file (``FILE_NAME``, what :meth:`load` looks for in a directory) and adds typed
    accessors; ProblemDoc and DatasetDoc are the two."""

    FILE_NAME = ""

    def __init__(self, data: dict, path: Path | None = None):
        self.data = data
        self.path = Path(path) if path is not None else None

    @classmethod
    def from_dict(cls, data: dict, path: Path | None = None):
        """A document over a deep copy of ``data``."""
        import copy
        return cls(copy.deepcopy(data), path)

    @classmethod
    def load(cls, path: Path | str):
        """Load the document (or :attr:`FILE_NAME` of a directory); errors raise
        :class:`~d3mkit.core.errors.D3MKitError` naming the file (:func:`load_json`); a ``path``
        that is not a path is a TypeError."""
        require_path("path", path)
        p = Path(path)
        if p.is_dir():
            p = p / cls.FILE_NAME
        return cls(load_json(p), p)

    def to_dict(self) -> dict:
        import copy
        return copy.deepcopy(self.data)

    def to_json(self) -> str:
        return dump_json(self.data)

    def save(self, path: Path | str) -> None:
        save_json(path, self.data)
