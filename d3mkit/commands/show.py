"""What commands print: the one terminal form of scores (:mod:`d3mkit.scoring.display`) and
``--format json`` for scripts, written so that any console can take it.

**JSON mode.** With ``--format json`` stdout carries exactly one JSON document:
:class:`Results` (entered by :func:`d3mkit.cli.main` around every command) sends
whatever else is printed while the command runs (progress, a builder's or a demo's lines)
to stderr, and :func:`print_json`/:func:`write` go to the real stdout. A command that stops
on a :class:`~d3mkit.core.errors.D3MKitError` before printing its document prints the error
convention instead, ``{"issues": [{"severity", "code", "location", "message", "path"}]}``
(:meth:`Results.failed`); its lines go to stderr as in text mode, with the same exit code.

A console that cannot encode a character (``PYTHONIOENCODING=ascii``, a cp1252 Windows
console) gets it escaped instead of an error: :func:`safe_streams` (called once by
:func:`d3mkit.cli.main`) makes stdout and stderr write ``\\xe9``-style escapes, and JSON is
written with ``\\u00e9`` escapes there (:func:`write`), so it stays valid JSON.
"""

from __future__ import annotations

import re
import sys
from contextlib import redirect_stdout
from contextvars import ContextVar

_RESULTS: ContextVar["Results | None"] = ContextVar("d3mkit_results", default=None)


class Results:
    """The stdout of one command's results (a context manager): in JSON mode (``json``
    true) everything printed inside goes to stderr except what :func:`write` writes, which
    goes to the stdout of the moment the block was entered; ``printed`` says whether it did."""

    def __init__(self, json: bool = False):
        self.json, self.printed, self.stream = json, False, None
        self._token = self._redirect = None

    def __enter__(self) -> "Results":
        if self.json:
            self.stream = sys.stdout
            self._token = _RESULTS.set(self)
            self._redirect = redirect_stdout(sys.stderr)
            self._redirect.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._redirect is not None:
            self._redirect.__exit__(*exc)
            _RESULTS.reset(self._token)
            self._redirect = self._token = None

    def failed(self, issues) -> None:
        """In JSON mode, when the command printed no document: ``{"issues": [...]}``."""
        if self.json and not self.printed:
            import json
            self.printed = True
            write(json.dumps({"issues": [issue_dict(i) for i in issues]}, indent=2, ensure_ascii=False)
                  + "\n", self.stream or sys.stdout)


def issue_dict(issue) -> dict:
    """An issue in JSON: :meth:`d3mkit.core.errors.Issue.to_dict` and the file it is about."""
    return {**issue.to_dict(), "path": issue.path}


def safe_streams() -> None:
    """stdout and stderr escape what their encoding cannot hold (never UnicodeEncodeError)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):   # not a TextIOWrapper (captured, piped oddly)
            pass


def _encodable(text: str, stream) -> bool:
    try:
        text.encode(getattr(stream, "encoding", None) or "utf-8")
        return True
    except (UnicodeEncodeError, LookupError):
        return False


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _json_escape(m: re.Match) -> str:
    import json
    return json.dumps(m.group(0))[1:-1]    # \u00e9, or a surrogate pair beyond the BMP


def write(text: str, stream=None) -> None:
    """Write ``text`` (JSON or any printed result) to ``stream`` (stdout). Where the console
    cannot encode a character, JSON text gets ``\\uXXXX`` escapes (still valid JSON; only
    strings hold such characters); other text is escaped by :func:`safe_streams`."""
    results = _RESULTS.get()
    if stream is None and results is not None:   # JSON mode: the one document, on the real stdout
        stream, results.printed = results.stream, True
    stream = stream or sys.stdout
    if not _encodable(text, stream) and text.lstrip()[:1] in ("{", "["):
        text = _NON_ASCII.sub(_json_escape, text)
    stream.write(text)


def print_json(obj) -> None:
    """``obj`` as indented JSON on stdout."""
    import json
    write(json.dumps(obj, indent=2, ensure_ascii=False, default=str) + "\n")


def print_scores(scores, stream=None) -> None:
    """Scores as the aligned ``metric  value`` table every command prints."""
    from d3mkit.scoring.display import score_table
    write("\n".join(score_table(scores)) + "\n", stream)

