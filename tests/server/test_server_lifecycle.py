"""The submission lifecycle (issue 33): received -> queued -> scoring -> scored | failed |
cancelled, with leases and heartbeats. A lease that expires is taken over by another
server's dispatcher with no restart; a file that kills its worker fails with a platform
code after a few tries while the pool is replaced every time and the others are scored;
workers of a pool made after a SIGTERM handler was installed still end on SIGTERM;
``/healthz`` says when nothing can score; a team cancels a queued submission and reads
each submission's history; ``challenge status`` shows the queue, the leases and the
servers. Skipped without the ``[server]`` extra."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import time

import pytest

from server_helpers import bearer, make_challenge, need_server_extra

need_server_extra()

from d3mkit.io.executor import LocalPool, make_executor  # noqa: E402
from d3mkit.server import dispatch  # noqa: E402
from d3mkit.server.app import make_app  # noqa: E402
from d3mkit.server.challenge import open_challenge  # noqa: E402
from d3mkit.server.dispatch import Dispatcher  # noqa: E402
from d3mkit.server.scoring import score_jobs  # noqa: E402
from d3mkit.server.store import Store  # noqa: E402

PID = "synth_000_problem"
KILL = b"# kill my worker\n"


@pytest.fixture
def ch(tmp_path, monkeypatch):
    monkeypatch.setenv("D3MKIT_FSYNC", "0")
    problems, subs, root, tokens = make_challenge(tmp_path, daily_quota=50, rate=1000)
    challenge = open_challenge(root)
    store = Store.open(challenge.default_db_url())
    yield challenge, store, subs, tokens
    store.close()


def _client(challenge, store, dispatcher=None, start=False):
    from starlette.testclient import TestClient
    return TestClient(make_app(challenge, store, dispatcher, start_dispatcher=start))


def _post(client, token, body, pid=PID):
    return client.post("/api/submissions", headers=bearer(token), data={"problem": pid},
                       files={"file": ("predictions.csv", body, "text/csv")})


def _body(subs, system=0):
    return (subs / f"system_{system:02d}" / PID / "predictions.csv").read_bytes()


def killing_score_jobs(jobs):
    """:func:`score_jobs`, except that a file holding :data:`KILL` kills its worker process."""
    for j in jobs:
        with open(j["predictions"], "rb") as fh:
            if KILL in fh.read():
                os.kill(os.getpid(), signal.SIGKILL)
    return score_jobs(jobs)


@pytest.mark.slow
def test_an_expired_lease_is_taken_over_by_another_server_without_a_restart(ch):
    challenge, store, subs, tokens = ch
    sid = _post(_client(challenge, store), tokens["alpha"], _body(subs)).json()["id"]
    # server A claims it and is killed (no heartbeat, no result)
    assert [s.id for s in store.claim(5, "hostA:1:dead", lease=0.2)] == [sid]
    other = Store.open(challenge.default_db_url())          # server B: its own connections
    b = Dispatcher(challenge, other, lambda: make_executor(1), lease=5)
    assert b.step() is False or store.submission(sid).status == "scoring"   # not expired yet
    time.sleep(0.3)
    b.drain(timeout=30)
    got = store.submission(sid)
    assert got.status == "scored" and got.platform_failures == 1 and got.attempts == 2
    states = [e["state"] for e in store.events(sid)]
    assert states == ["received", "queued", "scoring", "queued", "scoring", "scored"]
    assert store.count_today(got.team) == 1
    other.close()


@pytest.mark.slow
def test_a_file_that_kills_its_worker_fails_on_the_platform_and_the_pool_is_replaced_each_time(ch, monkeypatch):
    challenge, store, subs, tokens = ch
    monkeypatch.setattr(dispatch, "score_jobs", killing_score_jobs)
    # as under uvicorn: the server process has its own SIGTERM handler when pools are made
    old = signal.signal(signal.SIGTERM, lambda *a: None)
    d = None
    try:
        client = _client(challenge, store)
        good = [_post(client, tokens["beta"], _body(subs, k)).json()["id"] for k in range(3)]
        bad = _post(client, tokens["alpha"], KILL + _body(subs)).json()["id"]
        d = Dispatcher(challenge, store, lambda: LocalPool(2), max_failures=3)
        d.warm_up()
        t0 = time.monotonic()
        d.drain(timeout=120)
        assert time.monotonic() - t0 < 100
        got = store.submission(bad)
        assert got.status == "failed" and got.failure == "platform" and got.platform_failures == 3
        assert got.issues[0]["code"] == "server.platform_failure"
        assert all(store.submission(s).status == "scored" for s in good)
        assert d.replaced >= 3 and d.health()["ok"], d.health()
        assert store.count_today(got.team) == 0                     # never charged
        history = [e["state"] for e in store.events(bad)]
        assert history[-1] == "failed" and history.count("scoring") == 3
        # a submission after all that is still scored
        late = _post(client, tokens["beta"], _body(subs, 1)).json()["id"]
        d.drain(timeout=60)
        assert store.submission(late).status == "scored"
    finally:
        if d is not None:
            d.stop()
        signal.signal(signal.SIGTERM, old)


def test_workers_end_on_sigterm_even_when_the_parent_ignores_it():
    old = signal.signal(signal.SIGTERM, lambda *a: None)
    try:
        pool = LocalPool(1)
        pid = pool.submit(_pid, 0).result(timeout=30)
        os.kill(pid, signal.SIGTERM)
        end = time.monotonic() + 10
        while time.monotonic() < end and pool.alive():
            time.sleep(0.05)
        assert pool.alive() == 0
        t0 = time.monotonic()
        pool.abandon()                      # never waits for a worker
        assert time.monotonic() - t0 < 5
    finally:
        signal.signal(signal.SIGTERM, old)


def _pid(_x):
    return os.getpid()


def test_healthz_is_unhealthy_when_nothing_can_score(ch):
    challenge, store, _subs, _tokens = ch
    made = []

    def make():
        if made:
            raise OSError("no more processes")
        made.append(1)
        return LocalPool(1)
    d = Dispatcher(challenge, store, make, poll=0.05)
    d.warm_up()
    with _client(challenge, store, d, start=True) as client:
        assert client.get("/healthz").json()["status"] == "ok"
        for p in list(d.executor._pool._processes.values()):
            p.kill()
        end = time.monotonic() + 20
        while time.monotonic() < end and client.get("/healthz").status_code == 200:
            time.sleep(0.1)
        r = client.get("/healthz")
        assert r.status_code == 503 and r.json()["status"] == "unhealthy", r.json()
        assert "no more processes" in r.json()["reason"] or "broken" in r.json()["reason"]


def test_a_team_cancels_a_queued_submission_and_reads_its_history(ch):
    challenge, store, subs, tokens = ch
    client = _client(challenge, store)
    sid = _post(client, tokens["alpha"], _body(subs)).json()["id"]
    assert client.post(f"/api/submissions/{sid}/cancel", headers=bearer(tokens["beta"])).status_code == 404
    r = client.post(f"/api/submissions/{sid}/cancel", headers=bearer(tokens["alpha"]))
    assert r.status_code == 200 and r.json()["status"] == "cancelled" and r.json()["charged"] is False
    assert [h["state"] for h in r.json()["history"]] == ["received", "queued", "cancelled"]
    again = client.post(f"/api/submissions/{sid}/cancel", headers=bearer(tokens["alpha"]))
    assert again.status_code == 409 and again.json()["error"]["code"] == "server.not_cancellable"
    assert store.claim(5, "x") == []                                   # never scored
    assert store.count_today(store.submission(sid).team) == 0
    sid2 = _post(client, tokens["alpha"], _body(subs)).json()["id"]
    Dispatcher(challenge, store, lambda: make_executor(1)).drain()
    got = client.get(f"/api/submissions/{sid2}", headers=bearer(tokens["alpha"])).json()
    assert [h["state"] for h in got["history"]] == ["received", "queued", "scoring", "scored"]
    assert all(h["at"] for h in got["history"]) and got["history"][0]["detail"].endswith("bytes")
    assert client.post(f"/api/submissions/{sid2}/cancel", headers=bearer(tokens["alpha"])).status_code == 409


def test_challenge_status_shows_the_queue_the_leases_and_the_servers(ch):
    from d3mkit.cli import main
    challenge, store, subs, tokens = ch
    client = _client(challenge, store)
    ids = [_post(client, tokens["alpha"], _body(subs, k)).json()["id"] for k in range(3)]
    d = Dispatcher(challenge, store, lambda: make_executor(1), inflight=1)
    d._heartbeat(time.monotonic())                 # the server says it is alive
    store.claim(1, d.owner, lease=60)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["challenge", "status", str(challenge.root), "--format", "json"]) == 0
    got = json.loads(out.getvalue())
    assert got["counts"] == {"queued": 2, "scoring": 1}
    assert [lease["id"] for lease in got["leases"]] == [ids[0]] and got["leases"][0]["owner"] == d.owner
    assert got["oldest_waiting"]["id"] == ids[1] and got["oldest_waiting"]["seconds"] >= 0
    assert [s["name"] for s in got["servers"]] == [d.owner] and got["servers"][0]["workers_alive"] == 1
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        assert main(["challenge", "status", str(challenge.root)]) == 0
    assert "queued 2, scoring 1" in text.getvalue() and "servers alive: 1" in text.getvalue()


def test_a_stopping_server_puts_its_work_back_without_a_failure(ch):
    challenge, store, subs, tokens = ch
    sid = _post(_client(challenge, store), tokens["alpha"], _body(subs)).json()["id"]
    d = Dispatcher(challenge, store, lambda: make_executor(1))
    store.claim(1, d.owner)
    d.stop()
    got = store.submission(sid)
    assert got.status == "queued" and got.platform_failures == 0 and got.lease_owner is None


SLOW = b"# take forever\n"


def sleeping_score_jobs(jobs):
    """:func:`score_jobs`, except that a file holding :data:`SLOW` never finishes."""
    for j in jobs:
        with open(j["predictions"], "rb") as fh:
            if SLOW in fh.read():
                time.sleep(3600)
    return score_jobs(jobs)


@pytest.mark.slow
def test_a_job_over_its_time_is_a_platform_failure_and_its_pool_is_replaced(ch, monkeypatch):
    challenge, store, subs, tokens = ch
    monkeypatch.setattr(dispatch, "score_jobs", sleeping_score_jobs)
    client = _client(challenge, store)
    slow = _post(client, tokens["alpha"], SLOW + _body(subs)).json()["id"]
    d = Dispatcher(challenge, store, lambda: LocalPool(1), job_timeout=1.0, max_failures=2)
    try:
        d.warm_up()
        d.drain(timeout=60)
        got = store.submission(slow)
        assert got.status == "failed" and got.failure == "platform" and got.platform_failures == 2
        assert any("took over" in e["detail"] for e in store.events(slow))
        assert d.replaced >= 2 and store.count_today(got.team) == 0
        ok = _post(client, tokens["beta"], _body(subs)).json()["id"]
        d.drain(timeout=60)
        assert store.submission(ok).status == "scored"
    finally:
        d.stop()


def test_a_memory_cap_in_the_worker_is_a_platform_failure(ch, monkeypatch):
    from d3mkit.server import scoring
    challenge, store, subs, tokens = ch

    def out_of_memory(truth):
        raise MemoryError("cannot allocate")
    monkeypatch.setattr(scoring, "scorer", out_of_memory)
    sid = _post(_client(challenge, store), tokens["alpha"], _body(subs)).json()["id"]
    Dispatcher(challenge, store, lambda: make_executor(1)).drain(timeout=60)
    got = store.submission(sid)
    assert got.status == "failed" and got.failure == "platform" and got.platform_failures == 3
    assert [i["code"] for i in got.issues] == ["server.platform_failure"]
    assert store.count_today(got.team) == 0
