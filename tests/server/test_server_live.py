"""The evaluation server as it runs: ``d3mkit serve`` (uvicorn) on 127.0.0.1 in a child
process, 20 teams submitting 25 files each at once through ``d3mkit submit``'s client.

* every submission is recorded exactly once and scored equal to ``d3mkit score`` on the
  same (public) rows;
* ``kill -9`` of the server in the middle of the load, then a restart: the clients' retries
  (same Idempotency-Key) go on, and nothing is lost or recorded twice.

Slow (a few tens of seconds on 2 cores); skipped without the ``[server]`` extra."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from server_helpers import expected_scores, make_challenge, need_server_extra

need_server_extra()

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
TEAMS, PER_TEAM = 20, 25
PIDS = ("synth_000_problem", "synth_001_problem")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(challenge: Path, port: int, log: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, "-m", "d3mkit", "serve", str(challenge), "--port", str(port),
                             "--workers", "2"], env=env, stdout=subprocess.DEVNULL,
                            stderr=open(log, "ab"))
    end = time.monotonic() + 60
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                if json.loads(r.read())["status"] == "ok":
                    return proc
        except OSError:
            time.sleep(0.1)
        if proc.poll() is not None:
            raise AssertionError(f"the server stopped: {log.read_text()[-2000:]}")
    raise AssertionError("the server did not start in 60 s")


def _load(url: str, tokens: dict, subs: Path, acks: dict, errors: list, started: threading.Event | None = None):
    from d3mkit.server import client

    def team(i: int, name: str):
        for k in range(PER_TEAM):
            pid, system = PIDS[k % 2], (i + k) % 3
            key = f"{name}-{k}-{uuid.uuid4().hex[:8]}"
            path = subs / f"system_{system:02d}" / pid / "predictions.csv"
            try:
                got = client.submit(url, tokens[name], pid, path, idempotency_key=key, retries=12)
                acks[key] = (got["id"], pid, system)
            except Exception as exc:  # recorded, the test fails on it
                errors.append(f"{name} {k}: {exc}")
            if started is not None and len(acks) >= 120:
                started.set()
    threads = [threading.Thread(target=team, args=(i, n)) for i, n in enumerate(sorted(tokens))]
    for t in threads:
        t.start()
    return threads


def _rows(challenge: Path) -> list[tuple]:
    import sqlite3
    with sqlite3.connect(challenge / "challenge.sqlite") as c:
        return c.execute("SELECT id, idem_key, status, public_scores, problem FROM submissions").fetchall()


def _wait_scored(challenge: Path, n: int, timeout: float = 240) -> list[tuple]:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        rows = _rows(challenge)
        if len(rows) >= n and all(r[2] in ("scored", "failed") for r in rows):
            return rows
        time.sleep(0.5)
    raise AssertionError(f"not all scored in {timeout} s: {len(rows)} rows")


def _check(rows, acks, problems, subs, root):
    assert len(rows) == TEAMS * PER_TEAM == len(acks)
    by_key = {}
    for sid, key, status, scores, pid in rows:
        assert key not in by_key, f"recorded twice: {key}"
        by_key[key] = (sid, status, scores, pid)
    assert set(by_key) == set(acks)
    want = {(pid, k): expected_scores(problems, root, pid, subs / f"system_{k:02d}" / pid / "predictions.csv")
            for pid in PIDS for k in range(3)}
    for key, (sid, pid, system) in acks.items():
        got_id, status, scores, got_pid = by_key[key]
        assert got_id == sid and got_pid == pid and status == "scored"
        got = {s["metric"]: s["value"] for s in json.loads(scores)}
        assert got == pytest.approx(want[(pid, system)], rel=1e-12, abs=1e-12)


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.fixture
def challenge(tmp_path):
    teams = [f"team{i:02d}" for i in range(TEAMS)]
    return make_challenge(tmp_path, rows=200, teams=teams, daily_quota=PER_TEAM, rate=600)


def test_twenty_teams_twenty_five_submissions_each(challenge, tmp_path):
    problems, subs, root, tokens = challenge
    port = _port()
    proc = _start(root, port, tmp_path / "server.log")
    try:
        acks, errors = {}, []
        for t in _load(f"http://127.0.0.1:{port}", tokens, subs, acks, errors):
            t.join(timeout=300)
        assert not errors, errors[:5]
        rows = _wait_scored(root, TEAMS * PER_TEAM)
        _check(rows, acks, problems, subs, root)
        # one more over the quota: 429 for that team only
        from d3mkit.server import client
        with pytest.raises(client.ServerError, match="daily quota"):
            client.submit(f"http://127.0.0.1:{port}", tokens["team00"], PIDS[0],
                          subs / "system_00" / PIDS[0] / "predictions.csv")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_kill_9_mid_load_loses_nothing_and_doubles_nothing(challenge, tmp_path):
    problems, subs, root, tokens = challenge
    port = _port()
    log = tmp_path / "server.log"
    proc = _start(root, port, log)
    acks, errors = {}, []
    started = threading.Event()
    threads = _load(f"http://127.0.0.1:{port}", tokens, subs, acks, errors, started)
    try:
        assert started.wait(120), "the load did not start"
        workers = _children(proc.pid)
        assert workers, "the server has no scoring processes"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        end = time.monotonic() + 30              # its workers die with it (no orphans)
        while time.monotonic() < end and any(_alive(w) for w in workers):
            time.sleep(0.1)
        assert not [w for w in workers if _alive(w)], "orphaned scoring workers"
        assert len(acks) < TEAMS * PER_TEAM, "the load finished before the kill"
        time.sleep(0.5)
        proc = _start(root, port, log)
        for t in threads:
            t.join(timeout=300)
        assert not errors, errors[:5]
        rows = _wait_scored(root, TEAMS * PER_TEAM)
        _check(rows, acks, problems, subs, root)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        for t in threads:
            t.join(timeout=60)
