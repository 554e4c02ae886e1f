"""The scoring loop: queued submissions go to the project's executor, results to the database.

What this module owns: :class:`Dispatcher`, one background thread of the server (never a
request handler) that claims queued submissions (:meth:`Store.claim`), starts each with
:meth:`d3mkit.executor.Executor.submit` on a local process pool or a Dask cluster, and
records each result once (:meth:`Store.record`). Requests wake it when they accept a
submission; otherwise it looks again every ``poll`` seconds (so a submission accepted by
another process, or left queued by a killed server, is found too).

At start, ``scoring`` rows left by a dead server go back to ``queued`` (:meth:`Store.requeue`).
A worker that dies (a broken pool) puts its submissions back in the queue and the pool is
made anew; after :data:`~d3mkit.server.store.MAX_ATTEMPTS` such deaths a submission fails
with ``server.scoring_error`` instead of killing workers for ever.
"""

from __future__ import annotations

import logging
import threading

import json
import time

from d3mkit.server.scoring import board_statistics, score_job, score_jobs, warm
from d3mkit.server.store import MAX_ATTEMPTS

LOG = logging.getLogger("d3mkit.server")
SCORING_NICE = 10     # a local pool's scoring processes yield the CPU to the request handlers
STATS_EVERY = 10.0    # seconds between two looks at which boards' entries changed
STATS_QUIET = 2.0     # ... made once nothing was claimed for this long (scoring first)
STATS_MAX_WAIT = 60.0  # ... or, under a steady stream of submissions, after this long anyway
BOOTSTRAP = 1000      # resamples of a board's statistics (the campaign's default)
CONFIDENCE = 0.95


def stats_key(part: str, problem_id: str) -> str:
    """The ``state`` row holding a board's statistics."""
    return f"stats:{part}:{problem_id}"


def statistics_jobs(challenge, store, part: str, *, nice: int = 0, stale_only: bool = True) -> list[dict]:
    """The :func:`~d3mkit.server.scoring.board_statistics` jobs of ``part``'s boards: one per
    problem with entries, only those whose entries changed since their statistics were
    computed when ``stale_only``."""
    from d3mkit.server.board import entries
    jobs = []
    for pid, best in entries(challenge, store.submissions(status="scored")).items():
        subs = [best[t] for t in sorted(best)]
        if not subs:
            continue
        if stale_only:
            stored = store.get_state(stats_key(part, pid))
            if stored and sorted(json.loads(stored).get("entries", [])) == sorted(s.id for s in subs):
                continue
        jobs.append({"problem": pid, "part": part, "truth": challenge.truth(pid),
                     "entries": [[s.id, str(challenge.uploads / f"{s.id}.csv")] for s in subs],
                     "resamples": BOOTSTRAP, "confidence": CONFIDENCE, "seed": challenge.seed, "nice": nice})
    return jobs


def record_statistics(store, result: dict) -> None:
    if result.get("log"):
        LOG.log(logging.ERROR, "statistics of %s (%s): %s", result["problem"], result["part"], result["log"])
    store.set_state(stats_key(result["part"], result["problem"]), json.dumps(result))
_SERVER_ERROR = [{"severity": "error", "code": "server.scoring_error", "location": "",
                  "message": "the server could not score this submission; the organisers can "
                             "see why in the server log"}]


class Dispatcher:
    """Hands queued submissions of ``challenge`` in ``store`` to executors made by
    ``make_executor()`` (see the module docstring); ``inflight``: submissions started at
    once (default four per worker)."""

    def __init__(self, challenge, store, make_executor, *, inflight: int | None = None,
                 poll: float = 0.5):
        self.challenge, self.store = challenge, store
        self._make = make_executor
        self.executor = make_executor()
        self.cap = inflight or 4 * max(1, self.executor.workers)
        self.poll = poll
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._inflight: dict = {}
        self._stats: dict = {}           # problemID -> (future, job) of its public board's statistics
        self._stats_last = -1e9           # when the boards were last looked at
        self._last_claim = -1e9
        self.scored = 0

    # ------------------------------------------------------------------------ control
    def warm_up(self) -> None:
        """Start every worker process now (before the server's threads exist)."""
        futures = [self.executor.submit(warm, i) for i in range(max(1, self.executor.workers))]
        for f in futures:
            f.result()

    def start(self) -> None:
        n = self.store.requeue()
        if n:
            LOG.log(logging.WARNING, "%d submission(s) were being scored when the last server stopped: queued again", n)
        self._thread = threading.Thread(target=self._loop, name="d3mkit-dispatch", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        self.executor.close()

    # --------------------------------------------------------------------------- work
    def _job(self, sub, parts=("public",), check=True) -> dict:
        return {"id": sub.id, "predictions": str(self.challenge.uploads / f"{sub.id}.csv"),
                "truth": self.challenge.truth(sub.problem), "check": check, "parts": list(parts),
                "nice": SCORING_NICE if self.executor.kind == "local" else 0}

    def step(self, statistics_now: bool = False) -> bool:
        """Claim what fits, record what finished, and start the statistics of the public
        boards whose entries changed: at most every :data:`STATS_EVERY` seconds, once
        nothing was claimed for :data:`STATS_QUIET` seconds (or after
        :data:`STATS_MAX_WAIT` seconds of steady submissions), or now with
        ``statistics_now``. True when anything happened."""
        busy = False
        claimed = self.store.claim(self.cap - len(self._inflight))
        now = time.monotonic()
        if claimed:
            self._last_claim = now
        jobs = []
        for sub in claimed:
            busy = True
            if sub.problem not in self.challenge.problems:      # a problem removed since
                self.store.record(sub.id, "failed", _SERVER_ERROR, None)
                continue
            jobs.append((sub, self._job(sub)))
        size = -(-len(jobs) // max(1, self.executor.workers))  # one task per worker for a batch
        for k in range(0, len(jobs), max(1, size)):
            chunk = jobs[k:k + size]
            try:
                fut = self.executor.submit(score_jobs, [j for _, j in chunk])
            except Exception as exc:   # a pool that broke before the submit
                for sub, _ in chunk:
                    LOG.log(logging.ERROR, "could not start scoring %s: %s", sub.id, exc)
                    self._retry(sub.id, sub.attempts, exc)
                continue
            fut.add_done_callback(lambda _f: self._wake.set())
            for sub, _ in chunk:
                self._inflight[sub.id] = (fut, sub.attempts)
        finished = []
        for sid in [s for s, (f, _) in self._inflight.items() if f.done()]:
            if sid not in self._inflight:      # released with its broken pool just now
                continue
            busy = True
            fut, attempts = self._inflight.pop(sid)
            try:
                result = next(r for r in fut.result() if r["id"] == sid)
            except Exception as exc:     # the worker died (BrokenProcessPool, a lost Dask worker)
                self._retry(sid, attempts, exc)
                continue
            if result.get("log"):
                LOG.log(logging.ERROR, "submission %s: %s", sid, result["log"])
            finished.append((sid, result["status"], result["issues"], result["scores"].get("public")))
        self.scored += sum(self.store.record_many(finished))
        for pid in [p for p, (f, _j) in self._stats.items() if f.done()]:
            busy = True
            fut, job = self._stats.pop(pid)
            try:
                result = fut.result()
            except Exception as exc:      # a worker that died: tried again when the entries change
                result = {"problem": pid, "part": job["part"], "entries": [e[0] for e in job["entries"]],
                          "log": f"{type(exc).__name__}: {exc}"}
            record_statistics(self.store, result)
        waited = now - self._stats_last
        if not claimed and not self._stats and (statistics_now or (waited >= STATS_EVERY and (
                now - self._last_claim >= STATS_QUIET or waited >= STATS_MAX_WAIT))):
            self._stats_last = now
            nice = SCORING_NICE if self.executor.kind == "local" else 0
            for job in statistics_jobs(self.challenge, self.store, "public", nice=nice):
                fut = self.executor.submit(board_statistics, job)
                fut.add_done_callback(lambda _f: self._wake.set())
                self._stats[job["problem"]] = (fut, job)
                busy = True
        return busy

    def _retry(self, sid: str, attempts: int, exc: BaseException) -> None:
        from concurrent.futures.process import BrokenProcessPool
        LOG.log(logging.ERROR, "scoring %s failed in its worker (attempt %d): %s", sid, attempts, exc)
        if attempts >= MAX_ATTEMPTS:
            self.store.record(sid, "failed", _SERVER_ERROR, None)
        else:
            self.store.release(sid)
        if isinstance(exc, BrokenProcessPool):
            for other, (f, a) in list(self._inflight.items()):
                self._inflight.pop(other)
                self.store.release(other)
            try:
                self.executor.close()
            except Exception:
                pass
            self.executor = self._make()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                busy = self.step()
            except Exception as exc:      # the database away for a moment: try again later
                LOG.log(logging.ERROR, "scoring loop: %s", exc)
                busy = False
            if not busy:
                self._wake.wait(self.poll)
                self._wake.clear()

    def drain(self, timeout: float = 600.0) -> None:
        """Score everything queued now, and the statistics of the boards it changed, in this
        thread (``d3mkit challenge finalize``, tests)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            busy = self.step(statistics_now=True)
            if not self._inflight and not self._stats and not busy and not self.store.counts().get("queued"):
                return
            if not busy:
                self._wake.wait(0.05)
                self._wake.clear()


def score_private(challenge, store, executor) -> int:
    """The private scores of every scored submission that has none (``challenge finalize``),
    on ``executor``; returns how many were scored."""
    subs = [s for s in store.submissions(status="scored") if s.private is None]
    jobs = [{"id": s.id, "predictions": str(challenge.uploads / f"{s.id}.csv"),
             "truth": challenge.truth(s.problem), "check": False, "parts": ["private"]} for s in subs]
    for result in executor.map(score_job, jobs, chunksize=1 if executor.workers > 1 else None):
        if result["status"] == "scored":
            store.record_private(result["id"], result["scores"]["private"])
        else:
            LOG.log(logging.ERROR, "private scoring of %s: %s", result["id"], result.get("log"))
    return len(jobs)


def finalize(challenge, store, make_executor) -> dict:
    """Close the challenge to submissions, score what is still queued, then the private part
    of every scored submission; the private board is shown from now on. Running it again
    scores only what is missing."""
    if not store.finalized():
        from d3mkit.server.store import now
        store.set_state("finalized", now())
    d = Dispatcher(challenge, store, make_executor)
    try:
        store.requeue()
        d.drain()
        private = score_private(challenge, store, d.executor)
        jobs = statistics_jobs(challenge, store, "private", stale_only=False)
        for result in d.executor.map(board_statistics, jobs, chunksize=1 if d.executor.workers > 1 else None):
            record_statistics(store, result)
    finally:
        d.executor.close()
    return {"queued_scored": d.scored, "private_scored": private, "counts": store.counts()}
