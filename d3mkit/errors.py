"""Issues, errors and exit codes shared by every d3mkit command.

A check never raises on bad input: it yields :class:`Issue` values (all of them, not the
first). Code that must stop (unreadable file, usage error) raises :class:`D3MKitError`
carrying one or more issues and an exit code; the CLI turns either into text or JSON.

>>> i = Issue("error", "json.syntax", "line 3, column 5", "trailing comma", path="p.json")
>>> i.format()
'p.json: line 3, column 5: error [json.syntax] trailing comma'
>>> D3MKitError.single("x.csv", "csv.empty", "", "file is empty").exit_code
1
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Iterable

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Issue:
    """One finding: ``severity`` is "error" or "warning"; ``code`` is stable (dotted,
    e.g. ``schema.required``); ``location`` is a dotted JSON path with ``[i]`` indices,
    ``line L, column C`` or ``row R, column NAME``; ``path`` names the file."""

    severity: str
    code: str
    location: str
    message: str
    path: str = ""

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("path")
        return d

    def format(self) -> str:
        where = ": ".join(p for p in (self.path, self.location) if p)
        prefix = f"{where}: " if where else ""
        return f"{prefix}{self.severity} [{self.code}] {self.message}"


def error(code: str, location: str, message: str, path: str = "") -> Issue:
    return Issue(ERROR, code, location, message, str(path))


def warning(code: str, location: str, message: str, path: str = "") -> Issue:
    return Issue(WARNING, code, location, message, str(path))


def has_errors(issues: Iterable[Issue], strict: bool = False) -> bool:
    """True when any issue is an error (or, with ``strict``, any issue at all)."""
    return any(strict or i.is_error for i in issues)


def print_issues(issues: Iterable[Issue], stream=None) -> None:
    """One line per issue (:meth:`Issue.format`) on ``stream`` (default stderr)."""
    import sys
    stream = stream or sys.stderr
    for i in issues:
        print(i.format(), file=stream)


class D3MKitError(Exception):
    """An input problem that stops a command. Carries issues and the exit code."""

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
