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

Submission states: ``queued`` (accepted: its file is fsynced and its row committed),
``scoring`` (claimed by a worker), ``scored`` or ``failed``. A ``scoring`` row left by a
killed server goes back to ``queued`` when the next one starts (:meth:`Store.requeue`);
a claim takes a batch of queued rows in one locked transaction, so no submission is
claimed twice, and a result is recorded only over a ``scoring`` row.

Limits: a team's daily quota and its rate (submissions in the last :data:`RATE_WINDOW`
seconds) are counted from ``submissions``, and checked again inside the transaction that
inserts the row, under SQLite's write lock (``BEGIN IMMEDIATE``) or the team's row lock on
PostgreSQL. Login attempts per client are rows of ``login_attempts``.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass

from d3mkit.errors import D3MKitError, UsageError, error

SCHEMA_VERSION = 2
MAX_ATTEMPTS = 3      # a submission whose scoring killed its worker this often fails
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
}


def now() -> str:
    """UTC time as ISO text with microseconds (sorts as it reads)."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="microseconds")


def today() -> str:
    return _dt.datetime.now(_dt.timezone.utc).date().isoformat()


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

    @property
    def shown_status(self) -> str:
        """What a team sees: a claimed submission is still ``queued``."""
        return "queued" if self.status == "scoring" else self.status


_COLS = ("id, team, problem, status, bytes, sha256, created, scored, attempts, issues, "
         "public_scores, private_scores")


def _sub(row) -> Submission:
    def js(v):
        return None if v is None else json.loads(v)
    return Submission(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8],
                      js(row[9]) or [], js(row[10]), js(row[11]))


class QuotaExceeded(D3MKitError):
    """A team over its daily quota."""

    def __init__(self, quota: int):
        self.quota = quota
        super().__init__(error("server.quota", "", f"daily quota of {quota} submission(s) reached; "
                               f"it resets at 00:00 UTC"))


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
    def add_team(self, key_id: str, name: str, token_hash: str) -> None:
        from sqlalchemy import text
        from sqlalchemy.exc import IntegrityError
        try:
            with self.engine.begin() as c:
                c.execute(text("INSERT INTO teams (key_id, name, token_hash, created) "
                               "VALUES (:k, :n, :h, :t)"), {"k": key_id, "n": name, "h": token_hash, "t": now()})
        except IntegrityError:
            raise D3MKitError(error("team.exists", "", f"a team named {name!r} already exists")) from None

    def team(self, key_id: str) -> Team | None:
        from sqlalchemy import text
        with self.engine.connect() as c:
            row = c.execute(text("SELECT key_id, name, token_hash FROM teams WHERE key_id = :k"),
                            {"k": key_id}).first()
        return None if row is None else Team(*row)

    def teams(self) -> dict[str, str]:
        """key_id -> name."""
        from sqlalchemy import text
        with self.engine.connect() as c:
            return dict(c.execute(text("SELECT key_id, name FROM teams")).all())

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
    def count_today(self, team: str) -> int:
        from sqlalchemy import text
        with self.engine.connect() as c:
            return int(c.execute(text("SELECT COUNT(*) FROM submissions WHERE team = :t AND day = :d"),
                                 {"t": team, "d": today()}).scalar_one())

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
                       idem_key: str | None, quota: int, per_minute: int | None = None) -> Submission:
        """Record an accepted submission (its file already fsynced) in one transaction that
        also checks the team's daily quota and, with ``per_minute``, its rate; returns the
        row (an earlier one with the same idempotency key, if there is one). The checks and
        the insert hold the team's lock (SQLite's write lock; the team's row on PostgreSQL),
        so concurrent posts — of any server process — cannot pass either limit. Raises
        :class:`QuotaExceeded` or :class:`RateLimited`."""
        from sqlalchemy import text
        from sqlalchemy.exc import IntegrityError
        day = today()
        try:
            with self.engine.begin() as c:
                self._write_lock(c)
                if self.dialect == "postgresql":     # serialise one team's inserts
                    c.execute(text("SELECT key_id FROM teams WHERE key_id = :t FOR UPDATE"), {"t": team})
                n = int(c.execute(text("SELECT COUNT(*) FROM submissions WHERE team = :t AND day = :d"),
                                  {"t": team, "d": day}).scalar_one())
                if n >= quota:
                    raise QuotaExceeded(quota)
                if per_minute is not None:
                    self._rate(c, team, per_minute, text)
                c.execute(text("INSERT INTO submissions (id, team, problem, status, bytes, sha256, "
                               "idem_key, created, day) VALUES (:i, :t, :p, 'queued', :b, :h, :k, :c, :d)"),
                          {"i": sid, "t": team, "p": problem, "b": size, "h": sha256, "k": idem_key,
                           "c": now(), "d": day})
        except IntegrityError:
            if idem_key is not None:
                earlier = self.by_idempotency_key(team, idem_key)
                if earlier is not None:
                    return earlier
            raise
        return self.submission(sid)

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
        """key_id -> how many of the team's submissions failed."""
        from sqlalchemy import text
        with self.engine.connect() as c:
            return dict(c.execute(text("SELECT team, COUNT(*) FROM submissions WHERE status = 'failed' "
                                       "GROUP BY team")).all())

    def counts(self) -> dict[str, int]:
        from sqlalchemy import text
        with self.engine.connect() as c:
            return dict(c.execute(text("SELECT status, COUNT(*) FROM submissions GROUP BY status")).all())

    def requeue(self) -> int:
        """Every ``scoring`` row back to ``queued`` (its worker died with the last server)."""
        from sqlalchemy import text
        with self.engine.begin() as c:
            return c.execute(text("UPDATE submissions SET status = 'queued' WHERE status = 'scoring'")).rowcount

    def _write_lock(self, c) -> None:
        """Take SQLite's write lock at the start of the transaction ``c`` (``BEGIN
        IMMEDIATE``), so that what it reads stays true until it commits, across threads and
        processes alike; PostgreSQL transactions lock the rows they need instead."""
        if self.dialect == "sqlite":
            c.exec_driver_sql("BEGIN IMMEDIATE")

    def claim(self, n: int) -> list[Submission]:
        """Up to ``n`` queued submissions, oldest first, now ``scoring`` (attempts + 1), in
        one transaction: under SQLite's write lock, or on PostgreSQL with the rows locked
        (``FOR UPDATE SKIP LOCKED``), so two dispatchers never claim the same row."""
        from sqlalchemy import text
        if n <= 0:
            return []
        pick = "SELECT id FROM submissions WHERE status = 'queued' ORDER BY created, id LIMIT :n"
        with self.engine.connect() as c:      # most looks find nothing: no lock for those
            if c.execute(text(pick), {"n": 1}).first() is None:
                return []
        with self.engine.begin() as c:
            self._write_lock(c)
            lock = " FOR UPDATE SKIP LOCKED" if self.dialect == "postgresql" else ""
            ids = [r[0] for r in c.execute(text(pick + lock), {"n": n}).all()]
            if not ids:
                return []
            args = {f"i{k}": sid for k, sid in enumerate(ids)}
            among = ", ".join(f":i{k}" for k in range(len(ids)))
            c.execute(text(f"UPDATE submissions SET status = 'scoring', attempts = attempts + 1 "
                           f"WHERE id IN ({among}) AND status = 'queued'"), args)
            rows = c.execute(text(f"SELECT {_COLS} FROM submissions WHERE id IN ({among}) "
                                  f"ORDER BY created, id"), args).all()
        return [_sub(r) for r in rows]

    def release(self, sid: str) -> None:
        """A claimed submission back to ``queued`` (its worker died)."""
        from sqlalchemy import text
        with self.engine.begin() as c:
            c.execute(text("UPDATE submissions SET status = 'queued' WHERE id = :i AND status = 'scoring'"),
                      {"i": sid})

    def record(self, sid: str, status: str, issues: list, public: list | None) -> bool:
        """Store a scoring result over a ``scoring`` row; False when the row was not being
        scored (recorded already: nothing is written twice)."""
        return self.record_many([(sid, status, issues, public)])[0]

    def record_many(self, results: list[tuple]) -> list[bool]:
        """:meth:`record` of each ``(id, status, issues, public scores)``, in one
        transaction (one commit, one fsync, for every result a dispatcher step collected)."""
        from sqlalchemy import text
        if not results:
            return []
        stamp = now()
        with self.engine.begin() as c:
            return [c.execute(text("UPDATE submissions SET status = :s, issues = :iss, public_scores = :p, "
                                   "scored = :t WHERE id = :i AND status = 'scoring'"),
                              {"s": status, "iss": json.dumps(issues), "t": stamp, "i": sid,
                               "p": None if public is None else json.dumps(public)}).rowcount == 1
                    for sid, status, issues, public in results]

    def record_private(self, sid: str, private: list) -> None:
        from sqlalchemy import text
        with self.engine.begin() as c:
            c.execute(text("UPDATE submissions SET private_scores = :p WHERE id = :i"),
                      {"p": json.dumps(private), "i": sid})


def _safe_url(url: str) -> str:
    """``url`` without its password (for messages)."""
    try:
        from sqlalchemy.engine import make_url
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "(database URL)"
