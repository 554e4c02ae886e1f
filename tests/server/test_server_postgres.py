"""The challenge store on PostgreSQL: a throw-away server started by the test (``initdb`` and
``pg_ctl`` on PATH; as root, run as the ``postgres`` user), migrated, then the same
operations as on SQLite: teams, the quota inside the insert's transaction (with concurrent
posts of one team), idempotency, claim/record once, requeue. Skipped, with the reason,
without PostgreSQL's programs, psycopg or the ``[server]`` extra."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time

import pytest

from server_helpers import need_server_extra

need_server_extra()
pytest.importorskip("psycopg", reason='PostgreSQL needs psycopg (pip install "d3mkit[postgres]")')
pytestmark = pytest.mark.slow


def _run_as():
    if os.geteuid() != 0:
        return []
    try:
        import pwd
        pwd.getpwnam("postgres")
    except (ImportError, KeyError):
        return None
    return ["runuser", "-u", "postgres", "--"] if shutil.which("runuser") else None


@pytest.fixture
def request_cleanup():
    dirs = []
    yield dirs
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def pg_url(tmp_path, request_cleanup):
    if not (shutil.which("initdb") and shutil.which("pg_ctl")):
        pytest.skip("no PostgreSQL server programs (initdb, pg_ctl) on PATH")
    prefix = _run_as()
    if prefix is None:
        pytest.skip("running as root without a 'postgres' user to start PostgreSQL as")
    import tempfile
    from pathlib import Path
    base = Path(tempfile.mkdtemp(prefix="d3mkit-pg-"))   # pytest's tmp is private to root
    request_cleanup.append(base)
    data = base / "pg"
    data.mkdir()
    if prefix:
        shutil.chown(base, "postgres")
        shutil.chown(data, "postgres")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = subprocess.run(prefix + ["initdb", "-D", str(data), "-U", "d3mkit", "--auth=trust", "-E", "UTF8"],
                       capture_output=True, text=True, timeout=120)
    if r.returncode:
        pytest.skip(f"initdb failed: {r.stderr.strip()[-300:]}")
    log = base / "pg.log"
    r = subprocess.run(prefix + ["pg_ctl", "-D", str(data), "-l", str(log), "-w", "-t", "60", "-o",
                                 f"-p {port} -k {data} -c listen_addresses=127.0.0.1 -c fsync=off", "start"],
                       capture_output=True, text=True, timeout=120)
    if r.returncode:
        pytest.skip(f"PostgreSQL did not start: {r.stderr.strip()[-300:]}")
    try:
        yield f"postgresql+psycopg://d3mkit@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(prefix + ["pg_ctl", "-D", str(data), "-m", "immediate", "stop"], capture_output=True,
                       timeout=120)


def test_store_on_postgresql(pg_url):
    from d3mkit.server.auth import add_team, check_token
    from d3mkit.server.store import SCHEMA_VERSION, QuotaExceeded, Store
    store = Store.open(pg_url)
    assert store.dialect == "postgresql" and store.version() == SCHEMA_VERSION
    token = add_team(store, "alpha")
    team = check_token(store, token)
    assert team is not None and team.name == "alpha" and check_token(store, token + "x") is None
    # eight concurrent posts of one team against a quota of five: five rows, three refusals
    results = []

    def post(i):
        try:
            results.append(store.add_submission(f"s{i}", team.key_id, "p", 10, "0" * 64, None, 5).id)
        except QuotaExceeded:
            results.append("429")
    threads = [threading.Thread(target=post, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results).count("429") == 3 and store.count_today(team.key_id) == 5
    store2 = Store.open(pg_url)             # a second opening migrates nothing
    assert store2.version() == SCHEMA_VERSION
    claimed = store.claim(3)
    assert len(claimed) == 3 and store2.claim(10) and store.claim(10) == []
    assert store.record(claimed[0].id, "scored", [], [{"metric": "accuracy", "value": 0.5}])
    assert not store.record(claimed[0].id, "failed", [], None)     # never twice
    assert store.requeue() == 4 and store.counts() == {"queued": 4, "scored": 1}
    # the rate limit in the database: a second team's concurrent posts through two
    # handles (two server processes), at most three a minute
    from d3mkit.server.store import RateLimited
    token = add_team(store, "beta")
    beta = check_token(store, token)
    outcomes = []

    def post_rate(i):
        try:
            (store, store2)[i % 2].add_submission(f"r{i}", beta.key_id, "p", 10, "0" * 64, None, 50, 3)
            outcomes.append("ok")
        except RateLimited as exc:
            outcomes.append(exc.retry_after)
    threads = [threading.Thread(target=post_rate, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count("ok") == 3 and all(1 <= w <= 60 for w in outcomes if w != "ok")
    with pytest.raises(RateLimited):
        store2.rate_check(beta.key_id, 3)
    for _ in range(2):
        store.login_attempt("ip:1", 2)
    with pytest.raises(RateLimited):
        store2.login_attempt("ip:1", 2)
    store.close()
    store2.close()
    time.sleep(0.1)
