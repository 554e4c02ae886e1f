r"""Issues, errors and exit codes shared by every d3mkit command.

A check never raises on bad input: it yields :class:`Issue` values (all of them, not the
first). Code that must stop (unreadable file, usage error) raises :class:`D3MKitError`
carrying one or more issues and an exit code; the CLI turns either into text or JSON.

>>> i = Issue("error", "json.syntax", "line 3, column 5", "trailing comma", path="p.json")
>>> i.format()
'p.json: line 3, column 5: error [json.syntax] trailing comma'
>>> D3MKitError.single("x.csv", "csv.empty", "", "file is empty").exit_code
1

Text from files never breaks the one-line form: every issue's message, location and path
are cleaned once, here (:func:`clean_text`): control characters (newlines, ESC, ...),
Unicode line separators and bidi overrides are escaped, a quoted value over
:data:`MAX_QUOTED` characters is cut (saying how long it was), a message over
:data:`MAX_MESSAGE` characters is cut, and numpy scalar reprs print as plain numbers.

>>> error("x", "row 2, column a\nb", "value 'a\x1b[31m' is np.float64(1.5)", "f\n.csv").format()
"f\\n.csv: row 2, column a\\nb: error [x] value 'a\\x1b[31m' is 1.5"
>>> len(error("x", "", "label " + repr("y" * 10_000)).message) < 200
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Iterable

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2

ERROR = "error"
WARNING = "warning"


MAX_QUOTED = 80        # characters of a quoted value kept in a message
MAX_MESSAGE = 2000    # characters of a whole message

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")
_NUMPY = re.compile(r"\bnp\.(?:float|int|uint|complex)(?:8|16|32|64|128)?\(([^()]*)\)|\bnp\.(True|False)_")
_QUOTED = re.compile(r"""(?<!\w)(?:'[^'\\]*(?:\\.[^'\\]*)*'|"[^"\\]*(?:\\.[^"\\]*)*")(?!\w)""")
_LONG = re.compile(r"[^\s'\"]{%d,}" % (4 * MAX_QUOTED))   # an unquoted value pasted in


def _escape(m: re.Match) -> str:
    c = m.group(0)
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return named.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def _cut(m: re.Match) -> str:
    """A quoted value (not an apostrophe: problemDoc's) cut to MAX_QUOTED characters."""
    q = m.group(0)
    if len(q) <= MAX_QUOTED + 2:
        return q
    return f"{q[:MAX_QUOTED - 20]}...{q[-12:]} ({len(q) - 2:,} characters)"


def clean_text(text: str, cut: bool = True) -> str:
    r"""``text`` as one safe line: see the module docstring.

    >>> clean_text("a\nb\x1b[0m\u202e"), clean_text("np.int64(3) and np.True_")
    ('a\\nb\\x1b[0m\\u202e', '3 and True')
    """
    text = str(text)
    if not cut:   # a path: escaped, never shortened
        return _CONTROL.sub(_escape, text)
    text = _NUMPY.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), text)
    text = _QUOTED.sub(_cut, text)
    text = _LONG.sub(lambda m: f"{m.group(0)[:MAX_QUOTED - 20]}...{m.group(0)[-12:]} "
                                f"({len(m.group(0)):,} characters)", text)
    text = _CONTROL.sub(_escape, text)
    if len(text) > MAX_MESSAGE:
        text = f"{text[:MAX_MESSAGE - 60]} ... ({len(text):,} characters in all)"
    return text


_ROW = re.compile(r"^row (\d+)(?:, column (.+))?$")
_LINE = re.compile(r"^line (\d+), column (\d+)$")
_COLUMN = re.compile(r"^column (.+)$")


@dataclass(frozen=True)
class Issue:
    """One finding: ``severity`` is "error" or "warning"; ``code`` is stable (dotted,
    e.g. ``schema.required``, listed in :mod:`d3mkit.codes`); ``path`` names the file.

    Where in the file, as structure: ``json_path`` (a dotted path with ``[i]`` indices into a
    JSON document), ``row`` (1-based line of a CSV file, the header being row 1) and
    ``column`` (a CSV column name), or ``line``/``column`` of a JSON syntax error. The text
    ``location`` is derived from them (or, given as text, parsed into them), so callers may
    pass either:

    >>> Issue("error", "coltype.real", "", "not a number", "ld.csv", row=5, column="alcohol").location
    'row 5, column alcohol'
    >>> i = Issue("error", "schema.range", "inputs.performanceMetrics[0].K", "K must be >= 1")
    >>> i.json_path, i.row
    ('inputs.performanceMetrics[0].K', None)
    >>> Issue("error", "csv.x", "row 7, column y", "bad").row
    7
    """

    severity: str
    code: str
    location: str = ""
    message: str = ""
    path: str = ""
    json_path: str | None = None
    row: int | None = None
    column: str | int | None = None
    line: int | None = None

    def __post_init__(self):
        set_ = object.__setattr__
        if not self.location:
            if self.json_path:
                set_(self, "location", self.json_path)
            elif self.line is not None:
                set_(self, "location", f"line {self.line}, column {self.column}")
            elif self.row is not None:
                set_(self, "location", f"row {self.row}" + (f", column {self.column}" if self.column is not None else ""))
            elif self.column is not None:
                set_(self, "location", f"column {self.column}")
        elif self.json_path is None and self.row is None and self.line is None and self.column is None:
            loc = str(self.location)
            if m := _ROW.match(loc):
                set_(self, "row", int(m.group(1)))
                set_(self, "column", m.group(2))
            elif m := _LINE.match(loc):
                set_(self, "line", int(m.group(1)))
                set_(self, "column", int(m.group(2)))
            elif m := _COLUMN.match(loc):
                set_(self, "column", m.group(1))
            elif " " not in loc:
                set_(self, "json_path", loc)
        for name in ("location", "message", "path"):
            value = getattr(self, name)
            clean = clean_text(value, cut=name != "path")
            if clean is not value:
                set_(self, name, clean)

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def to_dict(self) -> dict:
        """``{"severity", "code", "location", "message"}``: the JSON shape of reports."""
        return {"severity": self.severity, "code": self.code, "location": self.location,
                "message": self.message}

    def format(self) -> str:
        where = ": ".join(p for p in (self.path, self.location) if p)
        prefix = f"{where}: " if where else ""
        return f"{prefix}{self.severity} [{self.code}] {self.message}"


def error(code: str, location: str, message: str, path: str = "") -> Issue:
    return Issue(ERROR, code, location, message, str(path))


def warning(code: str, location: str, message: str, path: str = "") -> Issue:
    return Issue(WARNING, code, location, message, str(path))


def relocated(issues: Iterable[Issue], old, new) -> list[Issue]:
    """``issues`` with the temporary directory ``old`` named as ``new``, the path the
    user asked for (a build writes into a hidden sibling, then renames it)."""
    o, n = str(old), str(new)
    return [replace(i, path=i.path.replace(o, n), location=i.location.replace(o, n),
                    message=i.message.replace(o, n)) for i in issues]


def relocated_error(exc: BaseException, old, new) -> BaseException:
    """An exception raised while writing into ``old``, naming ``new`` instead (the
    D3MKitError's issues, or an OSError's file names); other exceptions unchanged."""
    o, n = str(old), str(new)
    if isinstance(exc, D3MKitError):
        return D3MKitError(relocated(exc.issues, o, n), exc.exit_code)
    if isinstance(exc, OSError) and (exc.filename is not None or exc.filename2 is not None):
        f1 = None if exc.filename is None else str(exc.filename).replace(o, n)
        f2 = None if exc.filename2 is None else str(exc.filename2).replace(o, n)
        return OSError(exc.errno, exc.strerror or str(exc), f1, None, f2)
    return exc


def has_errors(issues: Iterable[Issue], strict: bool = False) -> bool:
    """True when any issue is an error (or, with ``strict``, any issue at all)."""
    return any(strict or i.is_error for i in issues)


def print_issues(issues: Iterable[Issue], stream=None) -> None:
    """One line per issue (:meth:`Issue.format`) on ``stream`` (default stderr)."""
    import sys
    stream = stream or sys.stderr
    for i in issues:
        print(i.format(), file=stream)


class CoercionWarning(UserWarning):
    """Cells a loader could not read as their colType were kept as text, not dropped
    (:meth:`d3mkit.taskroot.TaskRoot.frame`)."""


class D3MKitError(ValueError):
    """An input problem that stops a command (a :class:`ValueError`). Carries issues and
    the exit code."""

    def __init__(self, issues: Iterable[Issue] | Issue, exit_code: int = EXIT_INVALID):
        self.issues = [issues] if isinstance(issues, Issue) else list(issues)
        self.exit_code = exit_code
        super().__init__("; ".join(i.format() for i in self.issues))

    @classmethod
    def single(cls, path, code: str, location: str, message: str,
               exit_code: int = EXIT_INVALID) -> "D3MKitError":
        return cls(error(code, location, message, str(path)), exit_code)


class UsageError(D3MKitError):
    """Bad arguments or an unreadable path: exit code 2."""

    def __init__(self, message: str, path: str = "", code: str = "usage"):
        super().__init__(error(code, "", message, str(path)), EXIT_USAGE)


def require_type(param: str, value, kinds: type | tuple[type, ...], expected: str) -> None:
    """A Python caller passed ``value`` for parameter ``param``: raise :class:`TypeError`
    naming the parameter unless it is one of ``kinds`` (a bool never counts as an int).

    >>> require_type("repeat", "0", int, "an int")
    Traceback (most recent call last):
    ...
    TypeError: repeat: expected an int, got str '0'
    """
    if isinstance(value, kinds) and not (isinstance(value, bool) and bool not in
                                         (kinds if isinstance(kinds, tuple) else (kinds,))):
        return
    shown = repr(value)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    raise TypeError(f"{param}: expected {expected}, got {type(value).__name__} {shown}")


def require_path(param: str, value) -> None:
    """``value`` is a path a caller may give: ``str`` or ``os.PathLike`` (not bytes)."""
    import os
    require_type(param, value, (str, os.PathLike), "a path (str or os.PathLike)")


class OutputIsInput(UsageError):
    """An output would replace a file the same run read (or a directory holding one):
    exit code 2, nothing written (:mod:`d3mkit.readlog`)."""

    def __init__(self, path: str, message: str):
        super().__init__(message, path, code="output.is_input")
