"""A challenge's phases: when submissions are open, on which problems, with which limits,
and what the board shows.

What this module owns: :class:`Phase`, reading phases from ``challenge create --phase
SPEC`` or a phase file (JSON, or YAML where PyYAML is installed), checking them, and the
rules the server asks about a moment (:func:`open_phase`, :func:`closed_message`,
:func:`board_phase`). A phase is::

    {"name": "dev", "start": "2026-03-01T00:00Z", "end": "2026-03-15T00:00Z",
     "problems": ["a_problem"],          # default: every problem of the challenge
     "daily_quota": 5, "total_quota": 50, # per team; default: the challenge's daily quota, no total
     "board": "public",                  # or "hidden": shown to teams only after the end
     "counts": "best"}                   # or "last": which submission is a team's entry

Times are UTC (an ISO 8601 text; no zone means UTC). Phases do not overlap. Outside every
phase uploads are refused (409 ``server.closed``), checked when a request starts and again
when its body completes. The end of the last phase is the challenge's finalize: a server
runs it at that moment (:meth:`d3mkit.server.dispatch.Dispatcher.step`), and ``challenge
finalize`` forces it earlier. A challenge without phases is open until it is finalized.

>>> p = parse_spec("name=dev,start=2026-01-01,end=2026-01-02T12:00,daily=3,board=hidden,counts=last")
>>> p.name, p.start[:19], p.end[:19], p.daily_quota, p.board, p.counts
('dev', '2026-01-01T00:00:00', '2026-01-02T12:00:00', 3, 'hidden', 'last')
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from d3mkit.core.errors import UsageError

BOARDS = ("public", "hidden")
COUNTS = ("best", "last")


@dataclass(frozen=True)
class Phase:
    name: str
    start: str                      # UTC, ISO text with microseconds (compares as text)
    end: str
    problems: tuple = ()            # empty: every problem
    daily_quota: int | None = None
    total_quota: int | None = None
    board: str = "public"
    counts: str = "best"

    def to_dict(self) -> dict:
        d = asdict(self)
        d["problems"] = list(self.problems)
        return d


def utc_text(value: str, what: str) -> str:
    """``value`` (ISO 8601; no zone is UTC) as the store's time text."""
    try:
        t = _dt.datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"{what}: {value!r} is not an ISO 8601 time (e.g. 2026-03-01T00:00Z)") from None
    if t.tzinfo is None:
        t = t.replace(tzinfo=_dt.timezone.utc)
    return t.astimezone(_dt.timezone.utc).isoformat(timespec="microseconds")


def _phase(d: dict, where: str) -> Phase:
    if not isinstance(d, dict):
        raise UsageError(f"{where}: a phase is an object with name, start and end")
    unknown = set(d) - {"name", "start", "end", "problems", "daily_quota", "total_quota", "board", "counts"}
    if unknown:
        raise UsageError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    for key in ("name", "start", "end"):
        if not d.get(key):
            raise UsageError(f"{where}: the phase needs {key!r}")

    def count(key):
        v = d.get(key)
        if v is None:
            return None
        if isinstance(v, bool) or not str(v).isdigit() or int(v) < 1:
            raise UsageError(f"{where}: {key} must be a whole number of at least 1, got {v!r}")
        return int(v)
    problems = d.get("problems") or ()
    if isinstance(problems, str):
        problems = [p for p in problems.replace(";", " ").split() if p]
    p = Phase(str(d["name"]), utc_text(d["start"], f"{where} start"), utc_text(d["end"], f"{where} end"),
              tuple(str(x) for x in problems), count("daily_quota"), count("total_quota"),
              str(d.get("board", "public")), str(d.get("counts", "best")))
    if p.board not in BOARDS or p.counts not in COUNTS:
        raise UsageError(f"{where}: board is public or hidden, counts is best or last")
    if p.start >= p.end:
        raise UsageError(f"{where}: phase {p.name!r} ends ({p.end}) before it starts ({p.start})")
    return p


_SPEC_KEYS = {"daily": "daily_quota", "total": "total_quota"}


def parse_spec(text: str) -> Phase:
    """One ``--phase`` value: ``name=N,start=T,end=T[,problems=a;b][,daily=N][,total=N]
    [,board=public|hidden][,counts=best|last]``."""
    d = {}
    for part in text.split(","):
        key, eq, value = part.partition("=")
        if not eq:
            raise UsageError(f"phase {text!r}: {part!r} is not KEY=VALUE (name=dev,start=...,end=...)")
        d[_SPEC_KEYS.get(key.strip(), key.strip())] = value.strip()
    return _phase(d, f"phase {text!r}")


def load_file(path: Path | str) -> list[Phase]:
    """The phases of a JSON or YAML file: a list of phases, or ``{"phases": [...]}``."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read the phase file: {exc.strerror or exc}", str(path), code="usage.path") from None
    if path.suffix.lower() in (".yaml", ".yml"):
        try:
            import yaml
        except ImportError:
            raise UsageError("a YAML phase file needs PyYAML (pip install pyyaml); or write it as JSON",
                             str(path)) from None
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise UsageError(f"not YAML: {str(exc).splitlines()[0]}", str(path)) from None
    else:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise UsageError(f"not JSON: {exc}", str(path)) from None
    if isinstance(data, dict):
        data = data.get("phases")
    if not isinstance(data, list) or not data:
        raise UsageError("a phase file holds a non-empty list of phases (or {\"phases\": [...]})", str(path))
    return [_phase(d, f"{path.name} phase {i + 1}") for i, d in enumerate(data)]


def check(phases: list[Phase], problems) -> list[Phase]:
    """``phases`` in time order, refused when two overlap, share a name or name an unknown problem."""
    phases = sorted(phases, key=lambda p: p.start)
    names = [p.name for p in phases]
    if len(set(names)) != len(names):
        raise UsageError("two phases share a name")
    for a, b in zip(phases, phases[1:]):
        if b.start < a.end:
            raise UsageError(f"phases {a.name!r} and {b.name!r} overlap")
    for p in phases:
        unknown = [x for x in p.problems if x not in problems]
        if unknown:
            raise UsageError(f"phase {p.name!r} names unknown problem(s): {', '.join(unknown)}")
    return phases


def from_config(data) -> tuple:
    return tuple(_phase(d, "challenge.json phase") for d in (data or ()))


def open_phase(phases, at: str) -> Phase | None:
    """The phase open at ``at`` (the store's time text), else None."""
    return next((p for p in phases if p.start <= at < p.end), None)


def closed_message(phases, at: str, problem: str | None = None) -> str | None:
    """Why an upload completing at ``at`` for ``problem`` is refused, or None (open)."""
    if not phases:
        return None
    p = open_phase(phases, at)
    if p is None:
        upcoming = [q for q in phases if q.start > at]
        if upcoming:
            return f"no phase is open now; phase {upcoming[0].name!r} opens at {upcoming[0].start[:19]}Z"
        return "the last phase has ended; no more submissions"
    if problem is not None and p.problems and problem not in p.problems:
        return f"phase {p.name!r} takes submissions for {', '.join(p.problems)} only"
    return None


def board_phase(phases, at: str) -> Phase | None:
    """The phase whose rules the board follows at ``at``: the open one, else the last one
    that started (None before the first, or without phases)."""
    started = [p for p in phases if p.start <= at]
    return started[-1] if started else None


def last_end(phases) -> str | None:
    return max((p.end for p in phases), default=None)
