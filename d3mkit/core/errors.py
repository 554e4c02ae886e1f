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
EXIT_MISSING_DEPENDENCY = 3    # an optional extra (torch, dask, ...) is not installed

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


def _unsurrogate(m: re.Match) -> str:
    c = ord(m.group(0))
    return f"\\x{c - 0xDC00:02x}" if 0xDC80 <= c <= 0xDCFF else f"\\u{c:04x}"


_SURROGATE = re.compile("[\ud800-\udfff]")


def shown(name: str) -> str:
    r"""A name safe to write as UTF-8: bytes of a file name that are not UTF-8 (which Python
    holds as lone surrogates) as ``\xNN``, any other lone surrogate as ``\uNNNN``. The one
    owner of this escape (issue texts, reports, JSON, the evaluate tables).

    >>> shown("ok"), shown("bad\udcff"), shown("x\ud800")
    ('ok', 'bad\\xff', 'x\\ud800')
    """
    return _SURROGATE.sub(_unsurrogate, name)


def clean_text(text: str, cut: bool = True) -> str:
    r"""``text`` as one safe line: see the module docstring.

    >>> clean_text("a\nb\x1b[0m\u202e"), clean_text("np.int64(3) and np.True_")
    ('a\\nb\\x1b[0m\\u202e', '3 and True')
    >>> clean_text("f\udcff.csv", cut=False)
    'f\\xff.csv'
    """
    text = shown(str(text))
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
    e.g. ``schema.required``, listed in :mod:`d3mkit.core.codes`); ``path`` names the file.

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
                set_(self, "location", f"line {self.line}" + (f", column {self.column}" if self.column is not None else ""))
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


def close_match(value: str, choices: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The choice ``value`` was most likely meant to be (a typo), or None: the one owner of
    "did you mean" (metric names, models, commands, options). ``cutoff`` is difflib's
    similarity ratio a match needs.

    Case does not count (``Validate`` was meant to be ``validate``).

    >>> close_match("acuracy", ["accuracy", "f1"]), close_match("xyz", ["accuracy"])
    ('accuracy', None)
    >>> close_match("VALIDATE", ["score", "validate"]), close_match("Mean", ["mean", "text"])
    ('validate', 'mean')
    """
    import difflib
    by_lower: dict[str, str] = {}
    for c in choices:
        by_lower.setdefault(str(c).lower(), str(c))
    match = difflib.get_close_matches(str(value).lower(), list(by_lower), n=1, cutoff=cutoff)
    return by_lower[match[0]] if match else None


def error(code: str, location: str, message: str, path: str = "", **where) -> Issue:
    """An error; ``where``: the location as fields (``row``, ``column``, ``line``,
    ``json_path``) when ``location`` is ""."""
    return Issue(ERROR, code, location, message, str(path), **where)


def warning(code: str, location: str, message: str, path: str = "", **where) -> Issue:
    """A warning; ``where`` as :func:`error`'s."""
    return Issue(WARNING, code, location, message, str(path), **where)


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
    (:meth:`d3mkit.taskroot.model.TaskRoot.frame`)."""


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


# ------------------------------------------------------------- errors naming parameters
_PARAM = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)(?:=([^{}]*))?\}")


def literal(text) -> str:
    """``text`` (a path, a value from a file) as it must appear in an :class:`ArgumentError`
    template: its braces doubled, so ``{x}`` in a file name is never read as a parameter.

    >>> InvalidArgument("out", "cannot hold " + literal("a{b}")).issues[0].message
    'out cannot hold a{b}'
    """
    return str(text).replace("{", "{{").replace("}", "}}")


def _fill(text: str, name) -> str:
    """``text`` with each ``{param}`` written as ``name(param, value)`` and ``{{``/``}}`` as braces."""
    return _PARAM.sub(lambda m: m.group(0)[0] if m.group(1) is None else name(m.group(1), m.group(2)), text)


def python_name(param: str, value: str | None) -> str:
    """How a Python caller is told about ``param``: ``n_train``, ``force=True``."""
    return param if value is None else f"{param}={value}"


def flag_name(param: str, value: str | None) -> str:
    """How a command line is told about ``param`` by the rule every option follows (its
    ``dest`` is the parameter it fills): ``--n-train``, ``--force``, ``--device cuda``."""
    flag = "--" + param.replace("_", "-")
    return flag if value in (None, "True") else f"{flag} {value}"


def issues_for_cli(exc: "D3MKitError", name=flag_name) -> list[Issue]:
    """``exc``'s issues as a command line prints them: an :class:`ArgumentError`'s
    parameters written as flags by ``name``."""
    return exc.render(name) if isinstance(exc, ArgumentError) else exc.issues


class ArgumentError(D3MKitError):
    """A :class:`D3MKitError` about the caller's arguments, naming Python parameters, never
    command-line flags. Each of its ``templates`` ``(code, location, message, path)`` writes
    a parameter as ``{param}`` or ``{param=value}``; :meth:`render` fills them in, for a
    Python caller (``n_train``, ``force=True``: the default, used for ``str(exc)`` and
    ``issues``) or, through the CLI's table of parameter -> flag, for a terminal
    (``--n-train``, ``--force``).

    >>> e = InvalidArgument("n_train", "{n_train} and {n_test} must be at least 1, got 0")
    >>> e.issues[0].message
    'n_train and n_test must be at least 1, got 0'
    >>> e.params
    ('n_train', 'n_test')
    >>> e.render(flag_name)[0].message
    '--n-train and --n-test must be at least 1, got 0'
    """

    def __init__(self, templates: Iterable[tuple], exit_code: int = EXIT_USAGE):
        self.templates = [(code, location, message, str(path))
                          for code, location, message, *path in templates for path in [path[0] if path else ""]]
        self.params = tuple(dict.fromkeys(m.group(1) for t in self.templates for text in t[1:3]
                                          for m in _PARAM.finditer(text) if m.group(1) is not None))
        D3MKitError.__init__(self, self.render(python_name), exit_code)

    def render(self, name=python_name) -> list[Issue]:
        """The issues with every ``{param}`` written as ``name(param, value)``."""
        def one(c: str, location: str, message: str, path: str) -> Issue:   # c: the code
            return error(c, _fill(location, name), _fill(message, name), path)
        return [one(*t) for t in self.templates]


class InvalidArgument(ArgumentError, UsageError):
    """An argument with a bad value (exit 2 unless ``exit_code`` says otherwise).
    ``param`` is the parameter the message is about (None: the message names its
    parameters itself); a message that does not name it as ``{param}`` gets it in front: ``InvalidArgument("epochs", "must be at least 1")`` reads
    "epochs must be at least 1" (and "--epochs must be at least 1" on the command line)."""

    def __init__(self, param: str | None, message: str, path: str = "", code: str = "usage",
                 location: str = "", exit_code: int = EXIT_USAGE):
        self.param = param
        if param and "{" + param + "}" not in message and "{" + param + "=" not in message \
                and "{" + param + "}" not in location:
            message = "{" + param + "} " + message
        ArgumentError.__init__(self, [(code, location, message, path)], exit_code)


def argument_error(code: str, param: str, message: str, exit_code: int = EXIT_INVALID) -> InvalidArgument:
    """An :class:`InvalidArgument` with its own ``code`` located at ``param`` (exit 1 by
    default: the value given is an invalid input, such as an unknown source name).

    >>> argument_error("visudo.split", "split", "no valid split index in 'x'").issues[0].format()
    "split: error [visudo.split] no valid split index in 'x'"
    """
    return InvalidArgument(param, message, code=code, location="{" + param + "}", exit_code=exit_code)


class OutputExists(ArgumentError, UsageError):
    """An output that exists and may be replaced only when asked (``force=True``).

    >>> OutputExists("out/wine").issues[0].format()
    'out/wine: error [output.exists] out/wine already exists (pass force=True to replace it)'
    """

    def __init__(self, path, param: str = "out", force: str = "force", detail: str = "already exists"):
        self.param = param
        ArgumentError.__init__(self, [("output.exists", "", f"{literal(path)} {detail} (pass {{{force}=True}} to replace it)",
                                        path)])


class OutputInsideInput(ArgumentError, UsageError):
    """The one error of code ``output.is_input``: an output that is an input, lies inside
    one or holds one (writing it would replace what is read). Raised by the library's own
    checks (``input_path`` given: the output must lie outside it) and by
    :func:`d3mkit.io.readlog.refuse_input` (``reason`` given: the file or a file under the
    directory was read by the same run); exit code 2, nothing written.

    >>> OutputInsideInput("r/x", "r").issues[0].format()
    'r/x: error [output.is_input] out must be outside the input r and must not contain it'
    >>> OutputInsideInput("a{b}.csv", reason="was read").render(flag_name)[0].format()
    'a{b}.csv: error [output.is_input] was read'
    """

    def __init__(self, path, input_path=None, param: str = "out", what: str = "the input",
                 reason: str | None = None):
        self.param = param
        message = (literal(reason) if reason is not None else
                   f"{{{param}}} must be outside {what} {literal(input_path)} and must not contain it")
        ArgumentError.__init__(self, [("output.is_input", "", message, str(path))])


class MissingDependency(D3MKitError):
    """An optional dependency that is not installed: names the package and the extra that
    brings it; exit code :data:`EXIT_MISSING_DEPENDENCY`.

    >>> MissingDependency("torch", "baselines", "this baseline").issues[0].format()
    'error [dependency.missing] this baseline needs torch, which is not installed: pip install "d3mkit[baselines]"'
    """

    def __init__(self, module: str, extra: str | None, what: str = "this", path: str = ""):
        self.module, self.extra = module, extra
        how = f'pip install "d3mkit[{extra}]"' if extra else f"pip install {module}"
        super().__init__(error("dependency.missing", "", f"{what} needs {module}, which is not installed: {how}",
                               str(path)), EXIT_MISSING_DEPENDENCY)
