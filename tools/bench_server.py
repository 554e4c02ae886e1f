#!/usr/bin/env python
"""Evaluation-server throughput: scored submissions per second for predictions of 10^4 TEST
rows, and the latency of ``POST /api/submissions`` while scoring runs.

    PYTHONPATH=. python tools/bench_server.py [--rows 10000] [--submissions 400] [--clients 8]
        [--workers 2] [--peer 40] [--pace 50] [--no-dask] [--save]
    PYTHONPATH=. python tools/bench_server.py --board [--rows 1000] [--submissions 500] [--teams 20]
        [--readers 20] [--loop 10] [--save]

``--board`` (issue 33): the rate of ``d3mkit serve --workers 2`` scoring ``--submissions``
files POSTed by ``--teams`` teams against a loop of ``d3mkit score`` processes (one process
per file, ``--loop`` files: what an organiser scripting the CLI gets), then the p95 of
``GET /api/leaderboard`` with ``--readers`` concurrent readers over those submissions (a full
answer each time, and with ``If-None-Match``: the live page's poll).

A challenge is made from :func:`d3mkit.evaluate.synthetic.make_campaign` (two problems:
classification with accuracy+f1Macro and regression with RMSE+MAE, ``--rows`` TEST rows
each). ``d3mkit serve`` runs in a child process (uvicorn, ``--workers`` scoring processes;
then the same with ``--scheduler`` on a Dask LocalCluster of ``--workers`` single-threaded
worker processes started here). ``--clients`` threads POST ``--submissions`` files through
``d3mkit submit``'s client as fast as the server answers (the saturated rate), then again on a
fresh challenge at ``--pace`` POSTs a second (open loop: the POST latency at the goal's offered
rate, 50/s, rather than behind a queue of clients); scored/s is the submissions over
the wall time from the first POST to the last one scored (read from the database). The peer,
measured in the same run: the same work (the worker's :func:`d3mkit.server.scoring.score_job`:
the whole-file check and the public scores) done serially in this process on ``--peer`` files,
no HTTP; beside it, the naive way (two :func:`d3mkit.score` calls, the whole file and a file of
its public rows, as the server did before). CPU columns are load-independent: the peer's
``time.process_time`` per file, and for a server run the CPU time of the server and its scoring
processes (``RUSAGE_CHILDREN`` of this process over the run: the server waits for its pool's
workers; a Dask cluster's workers are this process's children, counted once the cluster closes)
and of the client threads, per submission. "2 idle cores" is what two cores doing only that CPU
work would give: 2000 / (server + client CPU ms). Prints a markdown table with the machine's
load (``/proc/loadavg``) and the numpy, pandas and pyarrow versions (``--save`` also writes
tools/results/server_bench.md).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tools"))

from _bench_data import emit, md_table, versions_line  # noqa: E402

PIDS = ("synth_000_problem", "synth_001_problem")


def _load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split(" ")[0]
    except OSError:
        return "?"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _challenge(tmp: Path, problems: Path, name: str, teams: int, n: int) -> tuple[Path, list[str]]:
    from d3mkit.cli import main
    ch = tmp / name
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        assert main(["challenge", "create", "--problems", str(problems), "--out", str(ch), "--seed", "1",
                     "--daily-quota", str(n + 10), "--rate", "100000", "--max-size-mb", "50"]) == 0
    tokens = []
    for i in range(teams):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            assert main(["challenge", "team", "add", str(ch), f"team{i:02d}"]) == 0
        tokens.append(out.getvalue().strip())
    return ch, tokens


def _serve(ch: Path, port: int, extra: list[str], log: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, "-m", "d3mkit", "serve", str(ch), "--port", str(port), *extra],
                            env=env, stdout=subprocess.DEVNULL, stderr=open(log, "ab"))
    end = time.monotonic() + 120
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                return proc
        except OSError:
            if proc.poll() is not None:
                raise SystemExit(f"the server stopped: {log.read_text()[-2000:]}")
            time.sleep(0.1)
    raise SystemExit("the server did not start")


def _scored(ch: Path) -> int:
    with contextlib.closing(sqlite3.connect(ch / "challenge.sqlite", timeout=30)) as c:
        return c.execute("SELECT COUNT(*) FROM submissions WHERE status IN ('scored', 'failed')").fetchone()[0]


def _run_load(ch: Path, tokens: list[str], files: list[tuple[str, Path]], n: int, clients: int,
              extra: list[str], tmp: Path, pace: float = 0.0, keep: bool = False) -> dict:
    """POST ``n`` files with ``clients`` threads: as fast as the server answers, or with
    ``pace`` > 0 at that offered rate (the i-th POST starts at ``i / pace`` s, open loop:
    the latency of a server that keeps up, not of a queue of clients)."""
    from d3mkit.server import client
    port = _port()
    proc = _serve(ch, port, extra, tmp / f"{ch.name}.log")
    url = f"http://127.0.0.1:{port}"
    latencies: list[float] = []
    errors: list[str] = []
    counter = iter(range(n))
    lock = threading.Lock()

    start: list[float] = []

    def worker(k: int):
        while True:
            with lock:
                i = next(counter, None)
            if i is None:
                return
            if pace > 0:
                delay = start[0] + i / pace - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
            pid, path = files[i % len(files)]
            t = time.perf_counter()
            try:
                client.submit(url, tokens[i % len(tokens)], pid, path, idempotency_key=uuid.uuid4().hex)
            except Exception as exc:
                errors.append(str(exc))
            latencies.append(time.perf_counter() - t)

    try:
        load_before = _load()
        t0 = time.perf_counter()
        c0 = time.process_time()
        start.append(t0)
        threads = [threading.Thread(target=worker, args=(k,)) for k in range(clients)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        posted = time.perf_counter() - t0
        while _scored(ch) < n - len(errors):
            time.sleep(0.05)
        wall = time.perf_counter() - t0
        client_cpu = time.process_time() - c0
        with contextlib.closing(sqlite3.connect(ch / "challenge.sqlite")) as c:
            failed = c.execute("SELECT COUNT(*) FROM submissions WHERE status = 'failed'").fetchone()[0]
    finally:
        if not keep:
            proc.terminate()
            proc.wait(timeout=60)
    lat = np.array(latencies) * 1000
    more = {"proc": proc, "url": url} if keep else {}
    return {**more, "n": n, "wall": wall, "posted": posted, "rate": (n - len(errors)) / wall,
            "p50": float(np.percentile(lat, 50)), "p95": float(np.percentile(lat, 95)),
            "errors": len(errors), "failed": failed, "load": f"{load_before} -> {_load()}",
            "client_cpu_ms": 1000 * client_cpu / n}


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _naive(ch: Path, files: list[tuple[str, Path]], n: int) -> tuple[float, float]:
    """(files per second of wall time, CPU milliseconds per file) of two :func:`d3mkit.score`
    calls per file: the whole file against every TEST row, then a file of its public rows
    against their truth."""
    import d3mkit
    from d3mkit.server.challenge import open_challenge
    challenge = open_challenge(ch)

    def one(pid: str, path: Path, out: Path) -> None:
        truth = challenge.truth(pid)
        d3mkit.score(truth["problem"], path, targets=truth["all"])
        keep = set(pd.read_csv(truth["public"], dtype=str, usecols=["d3mIndex"])["d3mIndex"])
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
        df[df["d3mIndex"].isin(keep)].to_csv(out, index=False)
        d3mkit.score(truth["problem"], out, targets=truth["public"])
    with tempfile.TemporaryDirectory(prefix="d3mkit-naive-") as tmp:
        out = Path(tmp) / "predictions.csv"
        one(*files[0], out)
        t, c = time.perf_counter(), time.process_time()
        for i in range(n):
            one(*files[i % len(files)], out)
        return n / (time.perf_counter() - t), 1000 * (time.process_time() - c) / n


def _peer(ch: Path, files: list[tuple[str, Path]], n: int) -> tuple[float, float]:
    """(files per second of wall time, CPU milliseconds per file) of the serial peer."""
    from d3mkit.server.challenge import open_challenge
    from d3mkit.server.scoring import score_job
    challenge = open_challenge(ch)
    jobs = [{"id": str(i), "predictions": str(files[i % len(files)][1]),
             "truth": challenge.truth(files[i % len(files)][0]), "check": True, "parts": ["public"]}
            for i in range(n)]
    score_job(jobs[0])
    t, c = time.perf_counter(), time.process_time()
    for j in jobs:
        assert score_job(j)["status"] == "scored"
    return n / (time.perf_counter() - t), 1000 * (time.process_time() - c) / n


def _score_loop(ch: Path, files: list[tuple[str, Path]], n: int) -> float:
    """Files per second of a loop of ``d3mkit score`` processes (one per file)."""
    from d3mkit.server.challenge import open_challenge
    challenge = open_challenge(ch)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    t = time.perf_counter()
    for i in range(n):
        pid, path = files[i % len(files)]
        truth = challenge.truth(pid)
        subprocess.run([sys.executable, "-m", "d3mkit", "score", "--problem", truth["problem"],
                        "--predictions", str(path), "--targets", truth["all"]], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return n / (time.perf_counter() - t)


def _readers(url: str, readers: int, per_reader: int, etag: bool) -> np.ndarray:
    """Milliseconds of each ``GET /api/leaderboard`` of ``readers`` threads."""
    times: list[float] = []
    lock = threading.Lock()

    def reader():
        tag = None
        for _ in range(per_reader):
            req = urllib.request.Request(url + "/api/leaderboard", headers={"If-None-Match": tag} if tag else {})
            t = time.perf_counter()
            try:
                with urllib.request.urlopen(req, timeout=60) as r:
                    r.read()
                    if etag:
                        tag = r.headers.get("ETag")
            except urllib.error.HTTPError as exc:
                if exc.code != 304:
                    raise
            with lock:
                times.append(1000 * (time.perf_counter() - t))
    threads = [threading.Thread(target=reader) for _ in range(readers)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return np.array(times)


def board_main(args) -> None:
    from d3mkit.evaluate.synthetic import make_campaign
    from d3mkit.server import client
    with tempfile.TemporaryDirectory(prefix="d3mkit-bench-board-") as td:
        tmp = Path(td)
        problems, subs = make_campaign(tmp / "campaign", systems=4, problems=2, rows=2 * args.rows,
                                       seed=0, malformed=0)
        files = [(pid, subs / f"system_{k:02d}" / pid / "predictions.csv") for k in range(4) for pid in PIDS]
        ch, tokens = _challenge(tmp, problems, "board", args.teams, args.submissions)
        loop = _score_loop(ch, files, args.loop)
        r = _run_load(ch, tokens, files, args.submissions, args.clients, ["--workers", str(args.workers)],
                      tmp, keep=True)
        proc, url = r.pop("proc"), r.pop("url")
        try:
            with urllib.request.urlopen(url + "/api/leaderboard", timeout=60) as resp:   # built once
                resp.read()
            full = _readers(url, args.readers, args.per_reader, etag=False)
            polled = _readers(url, args.readers, args.per_reader, etag=True)
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    rows = [[f"loop of `d3mkit score` processes ({args.loop} files)", f"{loop:.2f}", "1.0", "-", "-"],
            [f"`d3mkit serve --workers {args.workers}`, {args.submissions} POSTs of {args.teams} teams "
             f"({args.clients} clients)", f"{r['rate']:.1f}", f"{r['rate'] / loop:.1f}", "-", "-"],
            [f"GET /api/leaderboard, {args.readers} readers, full answer", "-", "-",
             f"{np.percentile(full, 50):.1f}", f"{np.percentile(full, 95):.1f}"],
            [f"GET /api/leaderboard, {args.readers} readers, If-None-Match (the live page's poll)", "-", "-",
             f"{np.percentile(polled, 50):.1f}", f"{np.percentile(polled, 95):.1f}"]]
    lines = [f"## Evaluation server board: {args.submissions} submissions of {args.rows:,} rows, "
             f"{args.readers} leaderboard readers", "",
             f"{os.cpu_count()} cores; {versions_line()}; load {_load()}; errors {r['errors']}, failed {r['failed']}.", "",
             *md_table(["what", "files/s", "x score loop", "p50 ms", "p95 ms"], rows), ""]
    emit("\n".join(lines), "server_board_bench.md", args.save)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--board", action="store_true", help="the issue-33 figures (see the docstring)")
    ap.add_argument("--readers", type=int, default=20)
    ap.add_argument("--per-reader", type=int, default=50, help="GETs per reader")
    ap.add_argument("--loop", type=int, default=10, help="files the `d3mkit score` loop scores")
    ap.add_argument("--rows", type=int, default=10_000, help="TEST rows per predictions file")
    ap.add_argument("--submissions", type=int, default=400)
    ap.add_argument("--clients", type=int, default=8, help="concurrent client threads")
    ap.add_argument("--teams", type=int, default=20)
    ap.add_argument("--workers", type=int, default=2, help="scoring processes")
    ap.add_argument("--peer", type=int, default=40, help="files the serial peer scores")
    ap.add_argument("--pace", type=float, default=50.0,
                    help="also run with POSTs offered at this rate a second (0: only as fast as answered)")
    ap.add_argument("--no-dask", action="store_true")
    ap.add_argument("--save", action="store_true")
    args = ap.parse_args()
    os.environ.setdefault("D3MKIT_FSYNC", "1")
    if args.board:
        return board_main(args)
    from d3mkit.evaluate.synthetic import make_campaign
    with tempfile.TemporaryDirectory(prefix="d3mkit-bench-server-") as td:
        tmp = Path(td)
        problems, subs = make_campaign(tmp / "campaign", systems=4, problems=2, rows=2 * args.rows,
                                       seed=0, malformed=0)
        files = [(pid, subs / f"system_{k:02d}" / pid / "predictions.csv") for k in range(4) for pid in PIDS]
        size = np.mean([f.stat().st_size for _, f in files]) / 1024
        rows = []
        ch, tokens = _challenge(tmp, problems, "local", args.teams, args.submissions)
        peer, peer_cpu = _peer(ch, files, args.peer)
        naive, naive_cpu = _naive(ch, files, args.peer)
        rows.append(["serial score_job in one process (peer, no HTTP)", args.peer, f"{peer:.1f}", "-", "-",
                     "1.00", f"{peer_cpu:.1f}", "-", f"{2000 / peer_cpu:.0f}", _load()])
        rows.append(["naive: d3mkit.score of the file, then of its public rows (no HTTP)", args.peer,
                     f"{naive:.1f}", "-", "-", f"{naive / peer:.2f}", f"{naive_cpu:.1f}", "-",
                     f"{2000 / naive_cpu:.0f}", _load()])

        def server_row(label: str, r: dict, cpu: float) -> list:
            server_ms = 1000 * cpu / r["n"]
            return [label, r["n"], f"{r['rate']:.1f}", f"{r['p50']:.0f}", f"{r['p95']:.0f}",
                    f"{r['rate'] / peer:.2f}", f"{server_ms:.1f}", f"{r['client_cpu_ms']:.1f}",
                    f"{2000 / (server_ms + r['client_cpu_ms']):.0f}", r["load"]]
        paces = [0.0] + ([args.pace] if args.pace > 0 else [])

        def label(what: str, pace: float) -> str:
            return what + (f", POSTs paced at {pace:g}/s" if pace else ", clients as fast as answered")
        for k, pace in enumerate(paces):
            ch_k, tokens_k = (ch, tokens) if k == 0 else \
                _challenge(tmp, problems, f"local{k}", args.teams, args.submissions)
            c0 = _children_cpu()
            r = _run_load(ch_k, tokens_k, files, args.submissions, args.clients,
                          ["--workers", str(args.workers)], tmp, pace)
            rows.append(server_row(label(f"d3mkit serve --workers {args.workers}", pace), r, _children_cpu() - c0))
            if r["errors"] or r["failed"]:
                print(f"local: {r['errors']} client errors, {r['failed']} failed", file=sys.stderr)
        if not args.no_dask:
            from distributed import LocalCluster
            for k, pace in enumerate(paces):
                c0 = _children_cpu()
                with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
                    ch2, tokens2 = _challenge(tmp, problems, f"dask{k}", args.teams, args.submissions)
                    r = _run_load(ch2, tokens2, files, args.submissions, args.clients,
                                  ["--scheduler", cluster.scheduler_address], tmp, pace)
                rows.append(server_row(label(f"d3mkit serve --scheduler (Dask LocalCluster, {args.workers} "
                                             f"workers)", pace), r, _children_cpu() - c0))
                if r["errors"] or r["failed"]:
                    print(f"dask: {r['errors']} client errors, {r['failed']} failed", file=sys.stderr)
    lines = [f"## Evaluation server: {args.rows:,}-row predictions (~{size:.0f} KiB each), "
             f"{args.clients} client threads, {args.teams} teams",
             "", f"{os.cpu_count()} cores; {versions_line()}; D3MKIT_FSYNC={os.environ['D3MKIT_FSYNC']}. "
             "CPU ms are per submission (server: the server and its scoring processes; client: the "
             "POSTing threads); '2 idle cores /s' = 2000 / (server + client CPU ms), the rate two "
             "otherwise idle cores would give.", "",
             *md_table(["setup", "submissions", "scored/s", "POST p50 ms", "POST p95 ms", "x peer",
                        "CPU ms (server or peer)", "client CPU ms", "2 idle cores /s",
                        "load avg (before -> after)"], rows), ""]
    emit("\n".join(lines), "server_bench.md", args.save)


if __name__ == "__main__":
    main()
