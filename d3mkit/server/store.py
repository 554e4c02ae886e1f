"""The challenge database: teams, submissions, the rate limits' state and the challenge's state.

What this module owns: the schema, its migrations and every query, and so the quota and the
rate limits, which are counted here (every server process on the database shares them). SQLAlchemy Core (a
well-kept layer over both databases) talks to SQLite by default — one file in the
challenge directory, WAL mode (readers never wait for the writer) with
``synchronous=FULL`` (a commit is on the disk before it returns) — or to PostgreSQL given
a URL (``postgresql+psycopg://user@host/db``).

Migrations: the table ``schema_version`` holds one row, the version the database is at;
:data:`MIGRATIONS` maps each version to the statements that reach it from the one before.
:meth:`Store.open` applies the missing ones in order, each in one transaction, so a new
d3mkit upgrades an old database on first use, and a database newer than this d3mkit is
refused (``store.version``).

Submission states (the lifecycle, docs/server.md): ``received`` (the body completed and its
file is fsynced: the first event of its history) -> ``queued`` (its row committed) ->
``scoring`` (claimed by one server's dispatcher, under a **lease**: ``lease_owner`` and
``lease_until``, renewed by that dispatcher's heartbeat) -> ``scored`` | ``failed`` |
``cancelled`` (by its team while queued). Every change is a row of ``events`` (the
submission's history, shown to its team). A lease that expires (the server or its worker
was killed) is taken over by whichever dispatcher claims next (:meth:`Store.claim`): the
row goes back to ``queued`` with one more platform failure; at :data:`MAX_ATTEMPTS`
platform failures it is ``failed`` with ``server.platform_failure``. A claim takes a batch
of queued rows in one locked transaction, so no submission is claimed twice, and a result
is recorded once (only over a ``scoring`` or re-``queued`` row).

Who a failure is due to (``failure``): ``team`` (its file: the issues say why) or
``platform`` (a worker's death, a timeout, a memory cap, an internal error). Platform
failures are never charged to the quota; the team's own failures are charged only when the
challenge says so (``count_failed``, ``challenge create --count-failed``; default no).

Limits: a team's daily quota and its rate (submissions in the last :data:`RATE_WINDOW`
seconds) are counted from ``submissions``, and checked again inside the transaction that
inserts the row, under SQLite's write lock (``BEGIN IMMEDIATE``) or the team's row lock on
PostgreSQL. Login attempts per client are rows of ``login_attempts``.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass

from d3mkit.core.errors import D3MKitError, UsageError, error

SCHEMA_VERSION = 3
MAX_ATTEMPTS = 3      # a submission whose scoring failed on the platform this often fails
LEASE = 60.0          # seconds a claim holds without a heartbeat
RATE_WINDOW = 60      # seconds: the rate limit counts what a team did in the last minute
LOGINS_PER_MINUTE = 30

MIGRATIONS: dict[int, list[str]] = {
    1: [
        "CREATE TABLE teams (key_id VARCHAR(32) PRIMARY KEY, name VARCHAR(200) NOT NULL UNIQUE, "
        "token_hash VARCHAR(64) NOT NULL, created VARCHAR(40) NOT NULL)",
        "CREATE TABLE submissions (id VARCHAR(32) PRIMARY KEY, "
        "team VARCHAR(32) NOT NULL REFERENCES teams (key_id), problem VARCHAR(300) NOT NULL, "
        "status VARCHAR(10) NOT NULL, bytes BIGINT NOT NULL, sha256 VARCHAR(64) NOT NULL, "
        "idem_key VARCHAR(100), created VARCHAR(40) NOT NULL, day VARCHAR(10) NOT NULL, "
        "scored VARCHAR(40), attempts INTEGER NOT NULL DEFAULT 0, issues TEXT, "
        "public_scores TEXT, private_scores TEXT, UNIQUE (team, idem_key))",
        "CREATE INDEX submissions_status ON submissions (status, created)",
        "CREATE INDEX submissions_team_day ON submissions (team, day)",
        "CREATE TABLE state (name VARCHAR(50) PRIMARY KEY, value TEXT NOT NULL)",
    ],
    2: [   # the rate limits' state in the database, shared by every server process
        "CREATE INDEX submissions_team_created ON submissions (team, created)",
        "CREATE TABLE login_attempts (client VARCHAR(100) NOT NULL, at VARCHAR(40) NOT NULL)",
        "CREATE INDEX login_attempts_client ON login_attempts (client, at)",
        "CREATE INDEX login_attempts_at ON login_attempts (at)",
    ],
    3: [   # the lifecycle: leases, platform failures, history, the servers alive
        "ALTER TABLE submissions ADD COLUMN lease_owner VARCHAR(200)",
        "ALTER TABLE submissions ADD COLUMN lease_until VARCHAR(40)",
        "ALTER TABLE submissions ADD COLUMN platform_failures INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE submissions ADD COLUMN failure VARCHAR(10)",
        "CREATE INDEX submissions_lease ON submissions (status, lease_until)",
        "CREATE TABLE events (sid VARCHAR(32) NOT NULL, at VARCHAR(40) NOT NULL, "
        "state VARCHAR(12) NOT NULL, detail TEXT)",
        "CREATE INDEX events_sid ON events (sid, at)",
        "CREATE TABLE servers (name VARCHAR(200) PRIMARY KEY, seen VARCHAR(40) NOT NULL, info TEXT NOT NULL)",
        "INSERT INTO state (name, value) VALUES ('board_version', '0')",
        "ALTER TABLE teams ADD COLUMN role VARCHAR(10) NOT NULL DEFAULT 'team'",
        # rows an older server was scoring have no lease: expired now, so any server takes them over
        "UPDATE submissions SET lease_until = '' WHERE status = 'scoring'",
    ],
}

PLATFORM_ISSUE = {"severity": "error", "code": "server.platform_failure", "location": "",
                  "message": "the server failed to score this submission (not your file: it is "
                             "not counted against your quota); the organisers can see why in the log"}


def now() -> str:
    """UTC time as ISO text with microseconds (sorts as it reads)."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="microseconds")


def today() -> str:
    return _dt.datetime.now(_dt.timezone.utc).date().isoformat()


def _later(seconds: float) -> str:
    """:func:`now` plus ``seconds``."""
    return (_dt.datetime.now(_dt.timezone.utc) + _dt.timedelta(seconds=seconds)).isoformat(timespec="microseconds")


def _ago(seconds: float) -> str:
    """:func:`now` ``seconds`` ago (compares with stored times as text)."""
    return (_dt.datetime.now(_dt.timezone.utc) - _dt.timedelta(seconds=seconds)).isoformat(timespec="microseconds")


def _wait_from(oldest: str | None) -> int:
    """Whole seconds until a window entry made at ``oldest`` leaves the window (at least 1)."""
    import math
    if not oldest:
        return 1
    left = RATE_WINDOW - (_dt.datetime.now(_dt.timezone.utc) - _dt.datetime.fromisoformat(oldest)).total_seconds()
    return max(1, math.ceil(left))


@dataclass(frozen=True)
class Team:
    key_id: str
    name: str
    token_hash: str
    role: str = "team"          # "team", "baseline" (a team drawn apart on the boards) or
                                # "organiser" (sees every board and the queue; never submits)

    @property
    def organiser(self) -> bool:
        return self.role == "organiser"


@dataclass(frozen=True)
class Submission:
    id: str
    team: str
    problem: str
    status: str
    bytes: int
    sha256: str
    created: str
    scored: str | None
    attempts: int
    issues: list
    public: list | None
    private: list | None
    failure: str | None = None          # "team" | "platform" for a failed one
    platform_failures: int = 0
    lease_owner: str | None = None
    lease_until: str | None = None

    @property
    def shown_status(self) -> str:
        """What a team sees: the state itself (queued, scoring, scored, failed, cancelled)."""
        return self.status


_COLS = ("id, team, problem, status, bytes, sha256, created, scored, attempts, issues, "
         "public_scores, private_scores, failure, platform_failures, lease_owner, lease_until")
WAITING = ("queued", "scoring")
# the quota counts a team's rows of the day except these (``:free`` = 1: its own failures are free too)
_CHARGED = ("status <> 'cancelled' AND NOT (status = 'failed' AND (COALESCE(failure, 'team') = 'platform' "
            "OR (:free = 1 AND COALESCE(failure, 'team') = 'team')))")


def _sub(row) -> Submission:
    def js(v):
        return None if v is None else json.loads(v)
    return Submission(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8],
                      js(row[9]) or [], js(row[10]), js(row[11]), row[12], int(row[13] or 0),
                      row[14], row[15])


def _in(ids) -> tuple[str, dict]:
    """``(":i0, :i1, ...", {"i0": ..., ...})`` for an ``IN`` list."""
    args = {f"i{k}": v for k, v in enumerate(ids)}
    return ", ".join(f":i{k}" for k in range(len(args))), args


class Closed(D3MKitError):
    """A submission whose body completed when no phase was open (finalized, or between phases)."""

    def __init__(self, message: str = "the challenge is finalized; no more submissions"):
        super().__init__(error("server.closed", "", message))


class QuotaExceeded(D3MKitError):
    """A team over its daily quota."""

    def __init__(self, quota: int, span: str = "day"):
        self.quota = quota
        super().__init__(error("server.quota", "", f"daily quota of {quota} submission(s) reached; "
                               f"it resets at 00:00 UTC" if span == "day" else
                               f"quota of {quota} submission(s) for {span} reached"))


class RateLimited(D3MKitError):
    """A team (or a client logging in) over its rate: ``retry_after`` seconds to wait."""

    def __init__(self, message: str, retry_after: int):
        self.retry_after = retry_after
        super().__init__(error("server.rate_limit", "", message))


class Store:
    """The database behind one challenge (see the module docstring)."""

    def __init__(self, engine):
        self.engine = engine
        self.dialect = engine.dialect.name

    # -------------------------------------------------------------------------- opening
    @classmethod
    def open(cls, url: str) -> "Store":
        """Connect to ``url`` and bring its schema to :data:`SCHEMA_VERSION`."""
        from sqlalchemy import create_engine, event
        from sqlalchemy.exc import ArgumentError, NoSuchModuleError, OperationalError
        try:
            if url.startswith("sqlite"):
                _private_file(url)
                engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False},
                                       pool_size=8, max_overflow=16)

                @event.listens_for(engine, "connect")
                def _pragmas(dbapi_conn, _record):
                    cur = dbapi_conn.cursor()
                    cur.execute("PRAGMA journal_mode=WAL")
                    cur.execute("PRAGMA synchronous=FULL")
                    cur.execute("PRAGMA foreign_keys=ON")
                    cur.execute("PRAGMA busy_timeout=30000")
                    cur.close()
            else:
                engine = create_engine(url, pool_size=8, max_overflow=16, pool_pre_ping=True)
            store = cls(engine)
            store.migrate()
        except (ArgumentError, NoSuchModuleError) as exc:
            raise UsageError(f"cannot use the database URL: {exc}", _safe_url(url), code="store.url") from None
        except OperationalError as exc:
            raise UsageError(f"cannot open the database: {str(exc.orig).strip()}", _safe_url(url),
                             code="store.unreachable") from None
        return store

    def migrate(self) -> int:
        from sqlalchemy import text
        with self.engine.begin() as c:
            c.execute(text("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"))
            row = c.execute(text("SELECT version FROM schema_version")).first()
            if row is None:
                c.execute(text("INSERT INTO schema_version (version) VALUES (0)"))
                current = 0
            else:
                current = int(row[0])
        if current > SCHEMA_VERSION:
            raise D3MKitError(error("store.version", "", f"the database is at schema version "
                                    f"{current}, newer than this d3mkit ({SCHEMA_VERSION}); "
                                    f"upgrade d3mkit"))
        for version in range(current + 1, SCHEMA_VERSION + 1):
            with self.engine.begin() as c:
                for stmt in MIGRATIONS[version]:
                    c.execute(text(stmt))
                c.execute(text("UPDATE schema_version SET version = :v"), {"v": version})
        return SCHEMA_VERSION

    def version(self) -> int:
        from sqlalchemy import text
        with self.engine.connect() as c:
            return int(c.execute(text("SELECT version FROM schema_version")).scalar_one())

    def close(self) -> None:
        self.engine.dispose()

    # ---------------------------------------------------------------------------- teams
    def add_team(self, key_id: str, name: str, token_hash: str, role: str = "team") -> None:
        from sqlalchemy import text
        from sqlalchemy.exc import IntegrityError
        try:
            with self.engine.begin() as c:
                c.execute(text("INSERT INTO teams (key_id, name, token_hash, created, role) "
                               "VALUES (:k, :n, :h, :t, :r)"),
                          {"k": key_id, "n": name, "h": token_hash, "t": now(), "r": role})
        except IntegrityError:
            raise D3MKitError(error("team.exists", "", f"a team named {name!r} already exists")) from None

    def team(self, key_id: str) -> Team | None:
        from sqlalchemy import text
        with self.engine.connect() as c:
            row = c.execute(text("SELECT key_id, name, token_hash, role FROM teams WHERE key_id = :k"),
                            {"k": key_id}).first()
        return None if row is None else Team(*row)

    def teams(self) -> dict[str, str]:
        """key_id -> name, of the teams and baselines (not the organisers)."""
        from sqlalchemy import text
        with self.engine.connect() as c:
            return dict(c.execute(text("SELECT key_id, name FROM teams WHERE role <> 'organiser'")).all())

    def baselines(self) -> set[str]:
        """The key ids of the baseline entries' teams."""
        from sqlalchemy import text
        with self.engine.connect() as c:
            return {r[0] for r in c.execute(text("SELECT key_id FROM teams WHERE role = 'baseline'")).all()}

    # ---------------------------------------------------------------------------- state
    def get_state(self, name: str) -> str | None:
        from sqlalchemy import text
        with self.engine.connect() as c:
            return c.execute(text("SELECT value FROM state WHERE name = :n"), {"n": name}).scalar()

    def set_state(self, name: str, value: str) -> None:
        from sqlalchemy import text
        with self.engine.begin() as c:
            if c.execute(text("UPDATE state SET value = :v WHERE name = :n"),
                         {"n": name, "v": value}).rowcount == 0:
                c.execute(text("INSERT INTO state (name, value) VALUES (:n, :v)"), {"n": name, "v": value})

    def set_board_state(self, name: str, value: str) -> None:
        """:meth:`set_state` of something a board shows (its statistics): the board's
        version grows in the same transaction."""
        from sqlalchemy import text
        with self.engine.begin() as c:
            if c.execute(text("UPDATE state SET value = :v WHERE name = :n"),
                         {"n": name, "v": value}).rowcount == 0:
                c.execute(text("INSERT INTO state (name, value) VALUES (:n, :v)"), {"n": name, "v": value})
            self._bump(c)

    def states(self, prefix: str) -> dict[str, str]:
        """Every state row whose name starts with ``prefix``: ``{name: value}``."""
        from sqlalchemy import text
        with self.engine.connect() as c:
            rows = c.execute(text("SELECT name, value FROM state WHERE name LIKE :p"),
                             {"p": prefix.replace("%", "").replace("_", "") + "%"}).all()
        return {n: v for n, v in rows if n.startswith(prefix)}

    def finalized(self) -> bool:
        return self.get_state("finalized") is not None

    # ---------------------------------------------------------------------- submissions
    def count_since(self, team: str, since: str, count_failed: bool = False) -> int:
        """The submissions charged to ``team`` since ``since`` (a phase's start)."""
        from sqlalchemy import text
        with self.engine.connect() as c:
            return int(c.execute(text(f"SELECT COUNT(*) FROM submissions WHERE team = :t AND created >= :s AND {_CHARGED}"),
                                 {"t": team, "s": since, "free": 0 if count_failed else 1}).scalar_one())

    def claim_state(self, name: str) -> bool:
        """Create the state row ``name`` (now); True for the one caller that created it."""
        from sqlalchemy import text
        from sqlalchemy.exc import IntegrityError
        try:
            with self.engine.begin() as c:
                c.execute(text("INSERT INTO state (name, value) VALUES (:n, :v)"), {"n": name, "v": now()})
            return True
        except IntegrityError:
            return False

    def count_today(self, team: str, count_failed: bool = False) -> int:
        """The submissions charged to ``team`` today (UTC): every one of the day except the
        cancelled ones and the platform's failures (and, unless ``count_failed``, the team's
        own failed files)."""
        from sqlalchemy import text
        with self.engine.connect() as c:
            return int(c.execute(text(f"SELECT COUNT(*) FROM submissions WHERE team = :t AND day = :d AND {_CHARGED}"),
                                 {"t": team, "d": today(), "free": 0 if count_failed else 1}).scalar_one())

    def by_idempotency_key(self, team: str, key: str) -> Submission | None:
        from sqlalchemy import text
        with self.engine.connect() as c:
            row = c.execute(text(f"SELECT {_COLS} FROM submissions WHERE team = :t AND idem_key = :k"),
                            {"t": team, "k": key}).first()
        return None if row is None else _sub(row)

    def rate_check(self, team: str, per_minute: int) -> None:
        """Raise :class:`RateLimited` when ``team`` made ``per_minute`` submissions in the
        last :data:`RATE_WINDOW` seconds (every server process counts the same rows)."""
        from sqlalchemy import text
        with self.engine.connect() as c:
            self._rate(c, team, per_minute, text)

    def _rate(self, c, team: str, per_minute: int, text) -> None:
        n, oldest = c.execute(text("SELECT COUNT(*), MIN(created) FROM submissions "
                                   "WHERE team = :t AND created >= :since"),
                              {"t": team, "since": _ago(RATE_WINDOW)}).one()
        if int(n) >= per_minute:
            raise RateLimited(f"too many submissions: at most {per_minute} a minute; try again "
                              f"in {_wait_from(oldest)} s", _wait_from(oldest))

    def add_submission(self, sid: str, team: str, problem: str, size: int, sha256: str,
                       idem_key: str | None, quota: int, per_minute: int | None = None, *,
                       count_failed: bool = False, received: str | None = None,
                       is_open=None, total: tuple | None = None) -> Submission:
        """Record an accepted submission (its file already fsynced) in one transaction that
        first returns an earlier row with the same idempotency key (a retry is never refused
        for a slot its original took), then checks that the challenge is open (not finalized;
        ``is_open(now) -> None | message`` for the phases), the team's daily quota (charged
        rows, :meth:`count_today`) and, with ``per_minute``, its rate. The checks and the
        insert hold the team's lock (SQLite's write lock; the team's row on PostgreSQL, and a
        shared advisory lock that :meth:`close_submissions` takes exclusively), so concurrent
        posts — of any server process — cannot pass a limit, and no upload completing while
        the challenge is finalized slips in. Raises :class:`Closed`, :class:`QuotaExceeded` or
        :class:`RateLimited`. ``total``: ``(quota, since)``, the phase's total quota counted
        from its start."""
        from sqlalchemy import text
        from sqlalchemy.exc import IntegrityError
        day = today()
        stamp = now()
        try:
            with self.engine.begin() as c:
                self._write_lock(c)
                if self.dialect == "postgresql":     # serialise one team's inserts
                    c.execute(text("SELECT pg_advisory_xact_lock_shared(:k)"), {"k": _GATE_LOCK})
                    c.execute(text("SELECT key_id FROM teams WHERE key_id = :t FOR UPDATE"), {"t": team})
                if idem_key is not None:
                    row = c.execute(text(f"SELECT {_COLS} FROM submissions WHERE team = :t AND idem_key = :k"),
                                    {"t": team, "k": idem_key}).first()
                    if row is not None:
                        return _sub(row)
                if c.execute(text("SELECT value FROM state WHERE name = 'finalized'")).first() is not None:
                    raise Closed()
                if is_open is not None:
                    why = is_open(stamp)
                    if why:
                        raise Closed(why)
                n = int(c.execute(text(f"SELECT COUNT(*) FROM submissions WHERE team = :t AND day = :d AND {_CHARGED}"),
                                  {"t": team, "d": day, "free": 0 if count_failed else 1}).scalar_one())
                if n >= quota:
                    raise QuotaExceeded(quota)
                if total is not None:
                    m = int(c.execute(text(f"SELECT COUNT(*) FROM submissions WHERE team = :t AND created >= :s "
                                           f"AND {_CHARGED}"), {"t": team, "s": total[1],
                                                                "free": 0 if count_failed else 1}).scalar_one())
                    if m >= total[0]:
                        raise QuotaExceeded(total[0], "this phase")
                if per_minute is not None:
                    self._rate(c, team, per_minute, text)
                c.execute(text("INSERT INTO submissions (id, team, problem, status, bytes, sha256, "
                               "idem_key, created, day) VALUES (:i, :t, :p, 'queued', :b, :h, :k, :c, :d)"),
                          {"i": sid, "t": team, "p": problem, "b": size, "h": sha256, "k": idem_key,
                           "c": stamp, "d": day})
                self._event(c, sid, "received", f"{size:,} bytes", received or stamp)
                self._event(c, sid, "queued", "", stamp)
        except IntegrityError:
            if idem_key is not None:
                earlier = self.by_idempotency_key(team, idem_key)
                if earlier is not None:
                    return earlier
            raise
        return self.submission(sid)

    def close_submissions(self, name: str = "finalized") -> None:
        """Set the state row ``name`` (finalize) once no upload is between its checks and its
        insert: under SQLite's write lock, or PostgreSQL's advisory lock taken exclusively
        (:meth:`add_submission` holds it shared)."""
        from sqlalchemy import text
        with self.engine.begin() as c:
            self._write_lock(c)
            if self.dialect == "postgresql":
                c.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _GATE_LOCK})
            if c.execute(text("SELECT value FROM state WHERE name = :n"), {"n": name}).first() is None:
                c.execute(text("INSERT INTO state (name, value) VALUES (:n, :v)"), {"n": name, "v": now()})
            self._bump(c)

    @staticmethod
    def _event(c, sid: str, state: str, detail: str = "", at: str | None = None) -> None:
        from sqlalchemy import text
        c.execute(text("INSERT INTO events (sid, at, state, detail) VALUES (:s, :a, :st, :d)"),
                  {"s": sid, "a": at or now(), "st": state, "d": detail[:500]})

    @staticmethod
    def _bump(c) -> None:
        """One more ``board_version``: a board (or what it shows) changed."""
        from sqlalchemy import text
        if c.execute(text("UPDATE state SET value = CAST(CAST(value AS INTEGER) + 1 AS VARCHAR(20)) "
                          "WHERE name = 'board_version'")).rowcount == 0:
            c.execute(text("INSERT INTO state (name, value) VALUES ('board_version', '1')"))

    def board_version(self) -> int:
        """A counter that grows whenever a score, a failure or a cancellation is recorded,
        or the challenge is finalized: the leaderboard's cache key and ETag."""
        v = self.get_state("board_version")
        return int(v) if v and v.isdigit() else 0

    def board_state(self) -> tuple[int, dict, bool]:
        """``(board_version, counts per state, finalized)`` on one connection (every view
        of the board asks this)."""
        from sqlalchemy import text
        with self.engine.connect() as c:
            st = dict(c.execute(text("SELECT name, value FROM state WHERE name IN ('board_version', 'finalized')")).all())
            counts = dict(c.execute(text("SELECT status, COUNT(*) FROM submissions GROUP BY status")).all())
        v = st.get("board_version")
        return (int(v) if v and v.isdigit() else 0), counts, "finalized" in st

    def events(self, sid: str) -> list[dict]:
        """The submission's history: ``[{"state", "at", "detail"}]`` in order."""
        from sqlalchemy import text
        with self.engine.connect() as c:
            rows = c.execute(text("SELECT state, at, detail FROM events WHERE sid = :s ORDER BY at, state"),
                             {"s": sid}).all()
        return [{"state": st, "at": at, "detail": d or ""} for st, at, d in rows]

    def cancel(self, sid: str, team: str) -> bool:
        """Cancel ``team``'s submission ``sid`` if it is still queued (True), else False."""
        from sqlalchemy import text
        with self.engine.begin() as c:
            self._write_lock(c)
            done = c.execute(text("UPDATE submissions SET status = 'cancelled', scored = :t WHERE id = :i "
                                  "AND team = :team AND status = 'queued'"),
                             {"i": sid, "team": team, "t": now()}).rowcount == 1
            if done:
                self._event(c, sid, "cancelled", "by the team")
                self._bump(c)
        return done

    def login_attempt(self, client: str, per_minute: int | None = None) -> None:
        """Count one login attempt of ``client`` (an address); raise :class:`RateLimited`
        when it made ``per_minute`` in the last :data:`RATE_WINDOW` seconds. Attempts older
        than the window are deleted on the way. ``per_minute``: :data:`LOGINS_PER_MINUTE`."""
        from sqlalchemy import text
        per_minute = LOGINS_PER_MINUTE if per_minute is None else per_minute
        since = _ago(RATE_WINDOW)
        with self.engine.begin() as c:
            self._write_lock(c)
            c.execute(text("DELETE FROM login_attempts WHERE at < :since"), {"since": since})
            n, oldest = c.execute(text("SELECT COUNT(*), MIN(at) FROM login_attempts "
                                       "WHERE client = :c AND at >= :since"),
                                  {"c": client[:100], "since": since}).one()
            if int(n) >= per_minute:
                raise RateLimited("too many login attempts; try again shortly", _wait_from(oldest))
            c.execute(text("INSERT INTO login_attempts (client, at) VALUES (:c, :t)"),
                      {"c": client[:100], "t": now()})

    def submission(self, sid: str) -> Submission | None:
        from sqlalchemy import text
        with self.engine.connect() as c:
            row = c.execute(text(f"SELECT {_COLS} FROM submissions WHERE id = :i"), {"i": sid}).first()
        return None if row is None else _sub(row)

    def submissions(self, team: str | None = None, status: str | None = None) -> list[Submission]:
        from sqlalchemy import text
        where, args = [], {}
        if team is not None:
            where.append("team = :t")
            args["t"] = team
        if status is not None:
            where.append("status = :s")
            args["s"] = status
        sql = f"SELECT {_COLS} FROM submissions" + (" WHERE " + " AND ".join(where) if where else "")
        with self.engine.connect() as c:
            return [_sub(r) for r in c.execute(text(sql + " ORDER BY created, id"), args).all()]

    def failures_by_team(self) -> dict[str, int]:
        """key_id -> how many of the team's files failed (the platform's failures are not theirs)."""
        from sqlalchemy import text
        with self.engine.connect() as c:
            return dict(c.execute(text("SELECT team, COUNT(*) FROM submissions WHERE status = 'failed' "
                                       "AND COALESCE(failure, 'team') = 'team' GROUP BY team")).all())

    def counts(self) -> dict[str, int]:
        from sqlalchemy import text
        with self.engine.connect() as c:
            return dict(c.execute(text("SELECT status, COUNT(*) FROM submissions GROUP BY status")).all())

    def requeue(self, owners=None) -> int:
        """``scoring`` rows back to ``queued`` without counting a platform failure: those
        leased by one of ``owners`` (a dispatcher of this host that is gone), or every one
        (None: ``challenge finalize``, run with no server alive). Returns how many."""
        from sqlalchemy import text
        with self.engine.begin() as c:
            self._write_lock(c)
            where, args = "status = 'scoring'", {}
            if owners is not None:
                owners = list(owners)
                if not owners:
                    return 0
                among, args = _in(owners)
                where += f" AND lease_owner IN ({among})"
            ids = [r[0] for r in c.execute(text(f"SELECT id FROM submissions WHERE {where}"), args).all()]
            for sid in ids:
                c.execute(text("UPDATE submissions SET status = 'queued', lease_owner = NULL, lease_until = NULL "
                               "WHERE id = :i AND status = 'scoring'"), {"i": sid})
                self._event(c, sid, "queued", "its server stopped")
        return len(ids)

    def lease_owners(self) -> list[str]:
        """The owners of the leases held now."""
        from sqlalchemy import text
        with self.engine.connect() as c:
            return [r[0] for r in c.execute(text("SELECT DISTINCT lease_owner FROM submissions "
                                                 "WHERE status = 'scoring' AND lease_owner IS NOT NULL")).all()]

    def _write_lock(self, c) -> None:
        """Take SQLite's write lock at the start of the transaction ``c`` (``BEGIN
        IMMEDIATE``), so that what it reads stays true until it commits, across threads and
        processes alike; PostgreSQL transactions lock the rows they need instead."""
        if self.dialect == "sqlite":
            c.exec_driver_sql("BEGIN IMMEDIATE")

    def reap(self, c=None, max_failures: int = MAX_ATTEMPTS) -> int:
        """Take over the expired leases (any server's: its dispatcher or its worker died):
        each goes back to ``queued`` with one more platform failure, or, at
        ``max_failures``, is ``failed`` with ``server.platform_failure``. Returns how many."""
        from sqlalchemy import text
        if c is None:
            with self.engine.begin() as c2:
                self._write_lock(c2)
                return self.reap(c2, max_failures)
        lock = " FOR UPDATE SKIP LOCKED" if self.dialect == "postgresql" else ""
        rows = c.execute(text("SELECT id, platform_failures, lease_owner FROM submissions "
                              "WHERE status = 'scoring' AND lease_until < :now" + lock), {"now": now()}).all()
        for sid, failures, owner in rows:
            self._platform_failure(c, sid, int(failures or 0), "its lease expired (its server or "
                                   "worker stopped)", max_failures)
        return len(rows)

    def _platform_failure(self, c, sid: str, failures: int, reason: str, max_failures: int) -> str:
        from sqlalchemy import text
        failures += 1
        if failures >= max_failures:
            c.execute(text("UPDATE submissions SET status = 'failed', failure = 'platform', "
                           "platform_failures = :f, issues = :iss, scored = :t, lease_owner = NULL, "
                           "lease_until = NULL WHERE id = :i"),
                      {"i": sid, "f": failures, "iss": json.dumps([PLATFORM_ISSUE]), "t": now()})
            self._event(c, sid, "failed", f"platform failure {failures} of {max_failures}: {reason}")
            self._bump(c)
            return "failed"
        c.execute(text("UPDATE submissions SET status = 'queued', platform_failures = :f, "
                       "lease_owner = NULL, lease_until = NULL WHERE id = :i"), {"i": sid, "f": failures})
        self._event(c, sid, "queued", f"platform failure {failures} of {max_failures}: {reason}")
        return "queued"

    def claim(self, n: int, owner: str = "", lease: float = LEASE,
              max_failures: int = MAX_ATTEMPTS) -> list[Submission]:
        """Take over the expired leases (:meth:`reap`), then up to ``n`` queued submissions,
        oldest first, now ``scoring`` under ``owner``'s lease of ``lease`` seconds (attempts
        + 1), in one transaction: under SQLite's write lock, or on PostgreSQL with the rows
        locked (``FOR UPDATE SKIP LOCKED``), so two dispatchers never claim the same row."""
        from sqlalchemy import text
        if n <= 0:
            return []
        pick = "SELECT id FROM submissions WHERE status = 'queued' ORDER BY created, id LIMIT :n"
        expired = "SELECT id FROM submissions WHERE status = 'scoring' AND lease_until < :now LIMIT 1"
        with self.engine.connect() as c:      # most looks find nothing: no lock for those
            if (c.execute(text(pick), {"n": 1}).first() is None
                    and c.execute(text(expired), {"now": now()}).first() is None):
                return []
        with self.engine.begin() as c:
            self._write_lock(c)
            self.reap(c, max_failures)
            lock = " FOR UPDATE SKIP LOCKED" if self.dialect == "postgresql" else ""
            ids = [r[0] for r in c.execute(text(pick + lock), {"n": n}).all()]
            if not ids:
                return []
            among, args = _in(ids)
            c.execute(text(f"UPDATE submissions SET status = 'scoring', attempts = attempts + 1, "
                           f"lease_owner = :o, lease_until = :u WHERE id IN ({among}) AND status = 'queued'"),
                      {**args, "o": owner, "u": _later(lease)})
            for sid in ids:
                self._event(c, sid, "scoring", owner)
            rows = c.execute(text(f"SELECT {_COLS} FROM submissions WHERE id IN ({among}) "
                                  f"ORDER BY created, id"), args).all()
        return [_sub(r) for r in rows]

    def heartbeat(self, owner: str, ids, lease: float = LEASE) -> int:
        """Renew ``owner``'s leases on ``ids`` for ``lease`` seconds; returns how many it holds."""
        from sqlalchemy import text
        ids = list(ids)
        if not ids:
            return 0
        among, args = _in(ids)
        with self.engine.begin() as c:
            return c.execute(text(f"UPDATE submissions SET lease_until = :u WHERE id IN ({among}) "
                                  f"AND status = 'scoring' AND lease_owner = :o"),
                             {**args, "o": owner, "u": _later(lease)}).rowcount

    def release(self, sid: str, reason: str = "its worker died", owner: str | None = None, *,
                platform_failure: bool = True, max_failures: int = MAX_ATTEMPTS) -> str | None:
        """A claimed submission back to ``queued`` — with one more platform failure (failed
        at ``max_failures``) when ``platform_failure``, else as if never claimed (another
        job's failure took its worker). Only while ``owner`` (if given) holds it. Returns the
        new status, or None when the row was not held."""
        from sqlalchemy import text
        with self.engine.begin() as c:
            self._write_lock(c)
            row = c.execute(text("SELECT platform_failures, lease_owner FROM submissions "
                                 "WHERE id = :i AND status = 'scoring'"), {"i": sid}).first()
            if row is None or (owner is not None and row[1] != owner):
                return None
            if platform_failure:
                return self._platform_failure(c, sid, int(row[0] or 0), reason, max_failures)
            c.execute(text("UPDATE submissions SET status = 'queued', lease_owner = NULL, lease_until = NULL "
                           "WHERE id = :i"), {"i": sid})
            self._event(c, sid, "queued", reason)
            return "queued"

    def record(self, sid: str, status: str, issues: list, public: list | None,
               failure: str | None = None) -> bool:
        """Store a scoring result over a ``scoring`` (or re-``queued``) row; False when the
        row was recorded already (nothing is written twice) or cancelled."""
        return self.record_many([(sid, status, issues, public, failure)])[0]

    def record_many(self, results: list[tuple]) -> list[bool]:
        """:meth:`record` of each ``(id, status, issues, public scores[, failure])``, in one
        transaction (one commit, one fsync, for every result a dispatcher step collected)."""
        from sqlalchemy import text
        if not results:
            return []
        stamp = now()
        out = []
        with self.engine.begin() as c:
            self._write_lock(c)
            for sid, status, issues, public, *rest in results:
                failure = (rest[0] if rest else None) or ("team" if status == "failed" else None)
                ok = c.execute(text("UPDATE submissions SET status = :s, issues = :iss, public_scores = :p, "
                                    "scored = :t, failure = :f, lease_owner = NULL, lease_until = NULL "
                                    "WHERE id = :i AND status IN ('scoring', 'queued')"),
                               {"s": status, "iss": json.dumps(issues), "t": stamp, "i": sid,
                                "f": failure if status == "failed" else None,
                                "p": None if public is None else json.dumps(public)}).rowcount == 1
                if ok:
                    self._event(c, sid, status, "" if status == "scored" else
                                f"{'the file' if failure == 'team' else 'the platform'}: "
                                + "; ".join(i.get("code", "") for i in issues if i.get("severity") == "error"), stamp)
                out.append(ok)
            if any(out):
                self._bump(c)
        return out

    def record_private(self, sid: str, private: list) -> None:
        from sqlalchemy import text
        with self.engine.begin() as c:
            c.execute(text("UPDATE submissions SET private_scores = :p WHERE id = :i"),
                      {"p": json.dumps(private), "i": sid})
            self._bump(c)

    # ------------------------------------------------------------------ the servers alive
    def server_seen(self, name: str, info: dict) -> None:
        """``name``'s dispatcher is alive now: ``info`` (workers alive, executor, health)."""
        from sqlalchemy import text
        with self.engine.begin() as c:
            args = {"n": name, "s": now(), "i": json.dumps(info)}
            if c.execute(text("UPDATE servers SET seen = :s, info = :i WHERE name = :n"), args).rowcount == 0:
                c.execute(text("INSERT INTO servers (name, seen, info) VALUES (:n, :s, :i)"), args)

    def server_gone(self, name: str) -> None:
        from sqlalchemy import text
        with self.engine.begin() as c:
            c.execute(text("DELETE FROM servers WHERE name = :n"), {"n": name})

    def status_report(self, alive_within: float = 3 * LEASE) -> dict:
        """What ``challenge status`` shows: counts per state, the leases held, the oldest
        waiting submission and the servers seen in the last ``alive_within`` seconds."""
        from sqlalchemy import text
        with self.engine.connect() as c:
            counts = dict(c.execute(text("SELECT status, COUNT(*) FROM submissions GROUP BY status")).all())
            leases = [{"id": i, "owner": o, "until": u, "platform_failures": int(f or 0)} for i, o, u, f in c.execute(text(
                "SELECT id, lease_owner, lease_until, platform_failures FROM submissions "
                "WHERE status = 'scoring' ORDER BY lease_until")).all()]
            oldest = c.execute(text("SELECT id, created FROM submissions WHERE status = 'queued' "
                                    "ORDER BY created, id LIMIT 1")).first()
            since = _ago(alive_within)
            servers = [{"name": n, "seen": s, **json.loads(i)} for n, s, i in c.execute(text(
                "SELECT name, seen, info FROM servers WHERE seen >= :s ORDER BY name"), {"s": since}).all()]
        expired = [lease for lease in leases if lease["until"] and lease["until"] < now()]
        waited = None
        if oldest is not None:
            waited = (_dt.datetime.now(_dt.timezone.utc) - _dt.datetime.fromisoformat(oldest[1])).total_seconds()
        return {"counts": counts, "leases": leases, "expired_leases": len(expired),
                "oldest_waiting": None if oldest is None else {"id": oldest[0], "since": oldest[1],
                                                               "seconds": round(waited, 1)},
                "servers": servers}


_GATE_LOCK = 0x6433_6D6B   # PostgreSQL advisory lock: uploads (shared) against finalize (exclusive)


def _private_file(url: str) -> None:
    """Create a SQLite database file readable by its owner only (0600, whatever the umask;
    SQLite gives its -wal and -shm files the same mode), and tighten an existing one."""
    import os
    from sqlalchemy.engine import make_url
    path = make_url(url).database
    if not path or path == ":memory:" or path.startswith("file:"):
        return
    try:
        fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
        os.close(fd)
        os.chmod(path, 0o600)
    except OSError:          # a directory not there, not ours: SQLite says so when it opens
        pass


def _safe_url(url: str) -> str:
    """``url`` without its password (for messages)."""
    try:
        from sqlalchemy.engine import make_url
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "(database URL)"
