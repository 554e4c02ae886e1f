"""The large set-up on real components (issue 33): a PostgreSQL server started by the test,
two ``d3mkit serve`` processes on it, scoring on a Dask scheduler with two worker
processes. 20 teams post 500 submissions in parallel through both servers; part-way one
server and one Dask worker are killed with SIGKILL (the clients fail over to the other
server with the same Idempotency-Key). Then:

* every acknowledged submission is scored exactly once (one ``scored`` event), none is
  left waiting, and nothing was recorded twice;
* the survivor took over the killed server's leases without a restart;
* the restarted server's board and the survivor's are identical;
* the platform's failures were charged to no team.

Slow (minutes on two cores); skipped with the reason without PostgreSQL's programs, psycopg,
Dask or the ``[server]`` extra."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from server_helpers import make_challenge, need_server_extra

need_server_extra()
pytest.importorskip("psycopg", reason='PostgreSQL needs psycopg (pip install "d3mkit[postgres]")')
pytest.importorskip("distributed", reason='the scale test needs Dask (pip install "d3mkit[dask]")')

from test_server_postgres import _run_as, pg_url, request_cleanup  # noqa: E402,F401 (fixtures)

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
TEAMS, TOTAL = 20, 500
PIDS = ("synth_000_problem", "synth_001_problem")


def _port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env() -> dict:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
                D3MKIT_FSYNC="0")


def _wait_http(url: str, proc: subprocess.Popen, log: Path, timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            if proc.poll() is not None:
                raise AssertionError(f"{url}: the process stopped: {log.read_text()[-2000:]}")
            time.sleep(0.2)
    raise AssertionError(f"{url} did not answer in {timeout} s")


def _serve(ch: Path, db: str, scheduler: str, port: int, log: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "d3mkit", "serve", str(ch), "--db", db, "--port", str(port),
                             "--scheduler", scheduler, "--lease", "5"], env=_env(),
                            stdout=subprocess.DEVNULL, stderr=open(log, "ab"))
    _wait_http(f"http://127.0.0.1:{port}/healthz", proc, log)
    return proc


def test_two_servers_on_postgresql_and_dask_lose_nothing_when_a_server_and_a_worker_are_killed(tmp_path, pg_url):  # noqa: F811
    from d3mkit.cli import main
    from d3mkit.server import client
    from d3mkit.server.store import Store
    _p, subs, root, _ = make_challenge(tmp_path, teams=(), daily_quota=TOTAL, rate=100000)
    tokens = {}
    for i in range(TEAMS):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            assert main(["challenge", "team", "add", str(root), f"team{i:02d}", "--db", pg_url]) == 0
        tokens[f"team{i:02d}"] = out.getvalue().strip()
    procs: list[subprocess.Popen] = []
    sport = _port()
    sched_log = tmp_path / "scheduler.log"
    sched = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                              "--port", str(sport), "--dashboard-address", ":0"], env=_env(),
                             stdout=subprocess.DEVNULL, stderr=open(sched_log, "ab"))
    procs.append(sched)
    scheduler = f"tcp://127.0.0.1:{sport}"
    workers = []
    for k in range(2):
        w = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", scheduler, "--nthreads", "1",
                              "--nworkers", "1", "--no-nanny", "--name", f"w{k}"], env=_env(),
                             stdout=subprocess.DEVNULL, stderr=open(tmp_path / f"worker{k}.log", "ab"))
        workers.append(w)
        procs.append(w)
    try:
        from distributed import Client
        with Client(scheduler, timeout="60s") as c:
            c.wait_for_workers(2, timeout=120)
        ports = [_port(), _port()]
        servers = [_serve(root, pg_url, scheduler, p, tmp_path / f"server{i}.log") for i, p in enumerate(ports)]
        procs += servers
        urls = [f"http://127.0.0.1:{p}" for p in ports]
        acks: dict[str, str] = {}
        errors: list[str] = []
        lock = threading.Lock()
        killed = {"server": False, "worker": False}

        def team(i: int, name: str):
            for k in range(TOTAL // TEAMS):
                pid, system = PIDS[k % 2], (i + k) % 3
                key = f"{name}-{k}-{uuid.uuid4().hex[:6]}"
                path = subs / f"system_{system:02d}" / pid / "predictions.csv"
                order = [urls[i % 2], urls[1 - i % 2]]
                for attempt in range(6):            # fail over to the other server, same key
                    url = order[0] if not (killed["server"] and order[0] == urls[0]) else urls[1]
                    try:
                        got = client.submit(url, tokens[name], pid, path, idempotency_key=key, retries=2)
                        with lock:
                            acks[key] = got["id"]
                        break
                    except client.ServerError as exc:
                        if exc.status != 0 or attempt == 5:
                            with lock:
                                errors.append(f"{name} {k}: {exc}")
                            break
                        order.reverse()
        threads = [threading.Thread(target=team, args=(i, n)) for i, n in enumerate(sorted(tokens))]
        for t in threads:
            t.start()
        while len(acks) < 150 and any(t.is_alive() for t in threads):
            time.sleep(0.05)
        servers[0].send_signal(signal.SIGKILL)          # a server, with leases held
        killed["server"] = True
        while len(acks) < 250 and any(t.is_alive() for t in threads):
            time.sleep(0.05)
        workers[0].send_signal(signal.SIGKILL)          # a Dask worker, mid-task
        killed["worker"] = True
        for t in threads:
            t.join(timeout=600)
        assert not errors, errors[:5]
        assert len(acks) == TOTAL and len(set(acks.values())) == TOTAL
        store = Store.open(pg_url)
        try:
            end = time.monotonic() + 300
            while time.monotonic() < end:
                c = store.counts()
                if not c.get("queued") and not c.get("scoring"):
                    break
                time.sleep(0.5)
            counts = store.counts()
            assert counts.get("queued", 0) == 0 and counts.get("scoring", 0) == 0, counts
            assert counts.get("scored", 0) == TOTAL, counts           # every file here is valid
            subs_ = {s.id: s for s in store.submissions()}
            assert set(subs_) == set(acks.values())
            for sid in acks.values():
                states = [e["state"] for e in store.events(sid)]
                assert states.count("scored") == 1 and states[-1] == "scored", (sid, states)
            taken_over = [s for s in subs_.values() if s.platform_failures > 0]
            names = {v: k for k, v in store.teams().items()}
            for name in tokens:                       # charged: every submission, platform failures free
                key = names[name]
                mine = [s for s in subs_.values() if s.team == key]
                assert store.count_today(key) == len([s for s in mine if s.failure != "platform"])
            report = store.status_report()
        finally:
            store.close()
        # the killed server comes back; both boards are the same
        servers[0] = _serve(root, pg_url, scheduler, ports[0], tmp_path / "server0.log")
        procs.append(servers[0])
        boards = []
        for url in urls:
            with urllib.request.urlopen(url + "/api/leaderboard", timeout=60) as r:
                boards.append(json.loads(r.read()))
        assert boards[0] == boards[1] and len(boards[0]["overall"]) == TEAMS
        print(f"\nscale: {TOTAL} scored, {len(taken_over)} taken over after a platform failure, "
              f"servers seen {len(report['servers'])}")
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
