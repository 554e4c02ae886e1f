"""What commands print: the one terminal form of scores (:mod:`d3mkit.display`) and
``--format json`` for scripts, written so that any console can take it.

A console that cannot encode a character (``PYTHONIOENCODING=ascii``, a cp1252 Windows
console) gets it escaped instead of an error: :func:`safe_streams` (called once by
:func:`d3mkit.cli.main`) makes stdout and stderr write ``\\xe9``-style escapes, and JSON is
written with ``\\u00e9`` escapes there (:func:`write`), so it stays valid JSON.
"""

from __future__ import annotations

import re
import sys


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
    from d3mkit.display import score_table
    write("\n".join(score_table(scores)) + "\n", stream)

