"""The quota and the rate limits live in the database, so several server processes (uvicorn
``--workers``, or several hosts on one PostgreSQL) enforce them together: two app instances
on one SQLite database, each with its own engine (its own connections, as two processes
have), share a team's rate, its daily quota and a client's login attempts; and concurrent
inserts through both cannot pass the quota. Skipped without the ``[server]`` extra."""

from __future__ import annotations

import re
import threading

import pytest

from server_helpers import bearer, make_challenge, need_server_extra

need_server_extra()

from d3mkit.server import store as store_mod  # noqa: E402
from d3mkit.server.app import make_app  # noqa: E402
from d3mkit.server.challenge import open_challenge  # noqa: E402
from d3mkit.server.store import QuotaExceeded, RateLimited, Store  # noqa: E402

PID = "synth_000_problem"


def _instances(root, n=2):
    from starlette.testclient import TestClient
    ch = open_challenge(root)
    stores = [Store.open(ch.default_db_url()) for _ in range(n)]
    clients = [TestClient(make_app(ch, s, None, start_dispatcher=False)) for s in stores]
    return ch, stores, clients


def _post(client, token, body):
    return client.post("/api/submissions", headers=bearer(token), data={"problem": PID},
                       files={"file": ("predictions.csv", body, "text/csv")})


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("D3MKIT_FSYNC", "0")
    yield tmp_path


@pytest.mark.slow
def test_two_servers_share_the_rate_limit_and_the_quota(env):
    _, subs, root, tokens = make_challenge(env / "rate", rows=20, daily_quota=50, rate=3)
    body = (subs / "system_00" / PID / "predictions.csv").read_bytes()
    ch, stores, (a, b) = _instances(root)
    codes = [_post(c, tokens["alpha"], body).status_code for c in (a, b, a)]
    assert codes == [202, 202, 202]
    r = _post(b, tokens["alpha"], body)          # the 4th in a minute, on the other server
    assert r.status_code == 429 and r.json()["error"]["code"] == "server.rate_limit"
    assert "at most 3 a minute" in r.json()["error"]["message"]
    assert 1 <= int(r.headers["retry-after"]) <= 60
    assert _post(a, tokens["beta"], body).status_code == 202       # per team
    assert stores[0].counts() == {"queued": 4}

    _, subs, root, tokens = make_challenge(env / "quota", rows=20, daily_quota=2, rate=100)
    ch, stores, (a, b) = _instances(root)
    assert [_post(c, tokens["alpha"], body).status_code for c in (a, b)] == [202, 202]
    r = _post(a, tokens["alpha"], body)
    assert r.status_code == 429 and r.json()["error"]["code"] == "server.quota"


@pytest.mark.slow
def test_login_attempts_are_counted_across_servers(env, monkeypatch):
    monkeypatch.setattr(store_mod, "LOGINS_PER_MINUTE", 3)
    _, _, root, tokens = make_challenge(env, rows=20, teams=("alpha",))
    _, _, (a, b) = _instances(root)
    got = []
    for c in (a, b, a, b):
        page = c.get("/login").text
        field = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
        got.append(c.post("/login", data={"token": "d3m.x.wrong", "csrf": field}).status_code)
    assert got == [401, 401, 401, 429]


@pytest.mark.slow
def test_concurrent_posts_through_two_databases_handles_cannot_pass_the_limits(env):
    _, _, root, _ = make_challenge(env, rows=20, teams=("alpha",), daily_quota=7, rate=100)
    ch = open_challenge(root)
    stores = [Store.open(ch.default_db_url()) for _ in range(2)]
    team = next(iter(stores[0].teams()))
    outcomes: list[str] = []
    lock = threading.Lock()

    def post(k: int) -> None:
        try:
            stores[k % 2].add_submission(f"{k:032x}", team, PID, 10, "0" * 64, None, 7, 5)
            what = "ok"
        except QuotaExceeded:
            what = "quota"
        except RateLimited:
            what = "rate"
        with lock:
            outcomes.append(what)
    threads = [threading.Thread(target=post, args=(k,)) for k in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count("ok") == 5 and outcomes.count("rate") == 11     # the rate (5) binds first
    assert stores[1].counts() == {"queued": 5}
    for s in stores:
        s.close()


def test_a_version_1_database_is_upgraded_in_place(tmp_path):
    from sqlalchemy import create_engine, text
    url = f"sqlite:///{tmp_path / 'old.sqlite'}"
    with create_engine(url).begin() as c:          # the database as the last release made it
        c.execute(text("CREATE TABLE schema_version (version INTEGER NOT NULL)"))
        c.execute(text("INSERT INTO schema_version (version) VALUES (1)"))
        for stmt in store_mod.MIGRATIONS[1]:
            c.execute(text(stmt))
        c.execute(text("INSERT INTO teams VALUES ('k1', 'alpha', 'h', 't')"))
        c.execute(text("INSERT INTO submissions (id, team, problem, status, bytes, sha256, created, day) "
                       "VALUES ('s1', 'k1', 'p', 'scoring', 1, 'h', '2026-01-01', '2026-01-01')"))
    s = Store.open(url)
    assert [x.id for x in s.claim(5, "new")] == ["s1"]      # an old server's claim is taken over
    assert s.version() == store_mod.SCHEMA_VERSION == 3
    assert s.teams() == {"k1": "alpha"}
    s.login_attempt("ip:1", 5)
    s.rate_check("k1", 1)
    s.close()


@pytest.mark.slow
def test_a_starting_server_keeps_the_partial_uploads_another_one_is_receiving(env):
    import os
    import time

    from d3mkit.server.challenge import clean_uploads
    _, _, root, _ = make_challenge(env, rows=20, teams=())
    ch = open_challenge(root)
    old, fresh = ch.uploads / ".upload-old", ch.uploads / ".upload-fresh"
    old.write_bytes(b"d3mIndex")
    fresh.write_bytes(b"d3mIndex")
    past = time.time() - 2 * 3600
    os.utime(old, (past, past))
    assert clean_uploads(ch) == 1
    assert not old.exists() and fresh.exists()
