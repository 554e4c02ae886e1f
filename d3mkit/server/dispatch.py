"""The scoring loop: queued submissions go to the project's executor, results to the database.

What this module owns: :class:`Dispatcher`, one background thread of the server (never a
request handler) that claims queued submissions (:meth:`Store.claim`) under a lease,
starts each with :meth:`d3mkit.io.executor.Executor.submit` on a local process pool or a Dask
cluster, renews its leases with a heartbeat, and records each result once
(:meth:`Store.record_many`). Requests wake it when they accept a submission; otherwise it
looks again every ``poll`` seconds (so a submission accepted by another process, or whose
lease expired because its server was killed, is found too: any server takes it over).

Platform failures — a worker that died (a broken pool, a lost Dask worker), a job over
``job_timeout``, a memory cap, an internal error — put the submission back in the queue
with one more platform failure (:meth:`Store.release`); at ``max_failures`` it fails with
``server.platform_failure``, never charged to the team. A submission that has failed on the
platform once is scored alone afterwards (nothing else in flight), so a file that kills its
worker cannot take other teams' submissions down with it twice. A broken pool is
abandoned (its workers killed, never waited for) and made anew, however many times it
breaks; :meth:`Dispatcher.health` says whether anything can score (``/healthz``).
"""

from __future__ import annotations

import logging
import threading

import json
import time

from d3mkit.server.scoring import board_statistics, score_job, score_jobs, warm
from d3mkit.server.store import LEASE, MAX_ATTEMPTS

LOG = logging.getLogger("d3mkit.server")
SCORING_NICE = 10     # a local pool's scoring processes yield the CPU to the request handlers
STATS_EVERY = 10.0    # seconds between two looks at which boards' entries changed
STATS_QUIET = 2.0     # ... made once nothing was claimed for this long (scoring first)
STATS_MAX_WAIT = 60.0  # ... or, under a steady stream of submissions, after this long anyway
JOB_TIMEOUT = 600.0   # seconds one submission may score before it is a platform failure
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
    store.set_board_state(stats_key(result["part"], result["problem"]), json.dumps(result))
_SERVER_ERROR = [{"severity": "error", "code": "server.scoring_error", "location": "",
                  "message": "the server could not score this submission; the organisers can "
                             "see why in the server log"}]


class Dispatcher:
    """Hands queued submissions of ``challenge`` in ``store`` to executors made by
    ``make_executor()`` (see the module docstring); ``inflight``: submissions started at
    once (default four per worker); ``lease``: seconds a claim holds without a heartbeat;
    ``job_timeout``: seconds a submission may score before it counts as a platform failure."""

    def __init__(self, challenge, store, make_executor, *, inflight: int | None = None,
                 poll: float = 0.5, lease: float = LEASE, job_timeout: float = JOB_TIMEOUT,
                 max_failures: int = MAX_ATTEMPTS, name: str | None = None):
        import os
        import secrets
        import socket
        self.challenge, self.store = challenge, store
        self._make = make_executor
        self.executor = make_executor()
        self.cap = inflight or 4 * max(1, self.executor.workers)
        self.poll, self.lease, self.job_timeout, self.max_failures = poll, lease, job_timeout, max_failures
        self.owner = name or f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._inflight: dict = {}          # id -> (future, submission, started)
        self._held: list = []             # claimed submissions waiting to be scored alone
        self._stats: dict = {}           # problemID -> (future, job) of its public board's statistics
        self._stats_last = -1e9           # when the boards were last looked at
        self._last_claim = -1e9
        self._beat = -1e9
        self._tick = time.monotonic()
        self.scored = 0
        self.replaced = 0                  # pools made anew after a break
        self.last_error = ""
        self.workers_alive = self._alive()
        self._finalizing = False            # this server runs the automatic finalize

    # ------------------------------------------------------------------------ control
    def warm_up(self) -> None:
        """Start every worker process now (before the server's threads exist)."""
        futures = [self.executor.submit(warm, i) for i in range(max(1, self.executor.workers))]
        for f in futures:
            f.result()
        self.workers_alive = self._alive()

    def start(self) -> None:
        n = self.store.requeue(self._dead_owners())
        if n:
            LOG.log(logging.WARNING, "%d submission(s) were being scored by a server of this host that "
                    "stopped: queued again", n)
        self._thread = threading.Thread(target=self._loop, name="d3mkit-dispatch", daemon=True)
        self._thread.start()

    def _dead_owners(self) -> list[str]:
        """Lease owners of this host whose process is gone (their leases need not expire)."""
        import os
        import socket
        host, dead = socket.gethostname(), []
        for owner in self.store.lease_owners():
            h, _, rest = owner.partition(":")
            pid = rest.partition(":")[0]
            if h != host or not pid.isdigit() or int(pid) == os.getpid():
                continue
            try:
                os.kill(int(pid), 0)
            except ProcessLookupError:
                dead.append(owner)
            except OSError:        # alive, another user's
                pass
        return dead

    def wake(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        """Stop scoring now: the work in flight goes back to the queue (not a failure)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        if self.executor is not None:
            try:
                self.executor.abandon()
            except Exception:
                pass
        try:
            self.store.requeue([self.owner])
            self.store.server_gone(self.owner)
        except Exception as exc:         # the database away: the leases expire instead
            LOG.log(logging.ERROR, "stopping: %s", exc)

    def health(self) -> dict:
        """``{"ok", "reason", "workers_alive", "replaced"}``: ok when this server's scoring
        loop runs (it stepped recently) and its executor can run work."""
        limit = max(30.0, 20 * self.poll)
        reason = ""
        if self._thread is not None and not self._thread.is_alive():
            reason = "the scoring loop stopped"
        elif self._thread is not None and time.monotonic() - self._tick > limit:
            reason = f"the scoring loop has not stepped for {time.monotonic() - self._tick:.0f} s"
        elif self.executor is None:
            reason = f"no executor: {self.last_error}"
        elif self.executor.broken():
            reason = "the worker pool is broken"
        elif self.executor.kind == "dask" and self.workers_alive == 0:
            reason = "the Dask cluster has no worker"
        return {"ok": not reason, "reason": reason, "workers_alive": self.workers_alive,
                "replaced": self.replaced, "executor": self.executor.describe() if self.executor else None}

    def _alive(self) -> int:
        try:
            return self.executor.alive() if self.executor is not None else 0
        except Exception:
            return 0

    # --------------------------------------------------------------------------- work
    def _job(self, sub, parts=("public",), check=True) -> dict:
        return {"id": sub.id, "predictions": str(self.challenge.uploads / f"{sub.id}.csv"),
                "truth": self.challenge.truth(sub.problem), "check": check, "parts": list(parts),
                "nice": SCORING_NICE if self.executor.kind == "local" else 0}

    def _heartbeat(self, now: float) -> None:
        if now - self._beat < self.lease / 4:
            return
        self._beat = now
        held = list(self._inflight) + [s.id for s in self._held]
        if held:
            self.store.heartbeat(self.owner, held, self.lease)
        self.workers_alive = self._alive()
        h = self.health()
        self.store.server_seen(self.owner, {"workers_alive": self.workers_alive, "ok": h["ok"],
                                            "reason": h["reason"], "executor": h["executor"],
                                            "inflight": len(self._inflight), "replaced": self.replaced})

    def _ensure_executor(self) -> bool:
        """An executor that can take work (made anew when the last one broke)."""
        if self.executor is not None and self.executor.broken():
            self._replace("the worker pool broke")
        if self.executor is None:
            try:
                self.executor = self._make()
                self.workers_alive = self._alive()
            except Exception as exc:        # e.g. the Dask scheduler away: tried again next step
                self.last_error = f"{type(exc).__name__}: {exc}"
                return False
        if self.executor.kind == "dask" and self.workers_alive == 0:
            self.workers_alive = self._alive()
            return self.workers_alive > 0
        return True

    def _replace(self, reason: str) -> None:
        """Abandon the executor (kill its workers, wait for nothing); every submission in
        flight on it has a platform failure (it may be the one that killed the worker: it is
        scored alone next time), the statistics are tried again later."""
        LOG.log(logging.ERROR, "%s: abandoning the pool (%d submission(s) in flight); a new one is made",
                reason, len(self._inflight))
        old, self.executor = self.executor, None
        try:
            old.abandon()
        except Exception:
            pass
        for sid, (_f, _sub, _t) in list(self._inflight.items()):
            self._inflight.pop(sid)
            self.store.release(sid, reason, self.owner, max_failures=self.max_failures)
        self._stats.clear()
        self.replaced += 1
        try:
            self.executor = self._make()
        except Exception as exc:
            self.last_error = f"{type(exc).__name__}: {exc}"
        self.workers_alive = self._alive()

    def _start(self, subs: list) -> None:
        jobs = []
        for sub in subs:
            if sub.problem not in self.challenge.problems:      # a problem removed since
                self.store.record(sub.id, "failed", _SERVER_ERROR, None, "platform")
                continue
            jobs.append((sub, self._job(sub)))
        size = -(-len(jobs) // max(1, self.executor.workers))  # one task per worker for a batch
        started = time.monotonic()
        for k in range(0, len(jobs), max(1, size)):
            chunk = jobs[k:k + size]
            try:
                fut = self.executor.submit(score_jobs, [j for _, j in chunk])
            except Exception as exc:   # a pool that broke before the submit
                for sub, _ in chunk:
                    self._inflight[sub.id] = (_failed_future(exc), sub, started)
                continue
            fut.add_done_callback(lambda _f: self._wake.set())
            for sub, _ in chunk:
                self._inflight[sub.id] = (fut, sub, started)

    def step(self, statistics_now: bool = False) -> bool:
        """Renew the leases, claim what fits, record what finished, and start the statistics
        of the public boards whose entries changed: at most every :data:`STATS_EVERY`
        seconds, once nothing was claimed for :data:`STATS_QUIET` seconds (or after
        :data:`STATS_MAX_WAIT` seconds of steady submissions), or now with
        ``statistics_now``. True when anything happened."""
        from concurrent.futures.process import BrokenProcessPool
        now = time.monotonic()
        self._tick = now
        self._heartbeat(now)
        busy = False
        if not self._ensure_executor():
            return False
        self._auto_finalize()
        # a job over its time: a platform failure (a local pool is abandoned to stop it)
        late = [sid for sid, (f, _s, t) in self._inflight.items() if not f.done() and now - t > self.job_timeout]
        if late:
            busy = True
            for sid in late:
                self._inflight.pop(sid)
                self.store.release(sid, f"scoring took over {self.job_timeout:g} s", self.owner,
                                   max_failures=self.max_failures)
            if self.executor.kind == "local":
                for sid, (_f, _sub, _t) in list(self._inflight.items()):   # not theirs: no failure
                    self._inflight.pop(sid)
                    self.store.release(sid, "its pool was restarted", self.owner, platform_failure=False)
                self._replace("a job over its time")
                if self.executor is None:
                    return True
        claimed = []
        if self._held:
            if not self._inflight:
                self._start([self._held.pop(0)])
                busy = True
        else:
            claimed = self.store.claim(self.cap - len(self._inflight), self.owner, self.lease, self.max_failures)
        if claimed:
            self._last_claim = now
            busy = True
            alone = [s for s in claimed if s.platform_failures > 0]
            self._held += alone
            self._start([s for s in claimed if s.platform_failures == 0])
            if self._held and not self._inflight:
                self._start([self._held.pop(0)])
        finished, broken = [], False
        for sid in [s for s, (f, _sub, _t) in self._inflight.items() if f.done()]:
            if sid not in self._inflight:      # released with its broken pool just now
                continue
            busy = True
            fut, sub, _t = self._inflight.pop(sid)
            try:
                result = next(r for r in fut.result() if r["id"] == sid)
            except BrokenProcessPool as exc:
                self.store.release(sid, f"its worker died ({type(exc).__name__})", self.owner,
                                   max_failures=self.max_failures)
                broken = True
                continue
            except Exception as exc:     # a lost Dask worker (KilledWorker), a cancelled task
                LOG.log(logging.ERROR, "scoring %s failed in its worker: %s", sid, exc)
                self.store.release(sid, f"its worker failed ({type(exc).__name__})", self.owner,
                                   max_failures=self.max_failures)
                continue
            if result.get("log"):
                LOG.log(logging.ERROR, "submission %s: %s", sid, result["log"])
            if result.get("failure") == "platform":
                self.store.release(sid, "an internal error (logged)", self.owner, max_failures=self.max_failures)
                continue
            finished.append((sid, result["status"], result["issues"], result["scores"].get("public"),
                             result.get("failure")))
        self.scored += sum(self.store.record_many(finished))
        if broken:
            self._replace("a worker died")
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
        if (self.executor is not None and not claimed and not self._stats and not self._held
                and (statistics_now or (waited >= STATS_EVERY and (
                    now - self._last_claim >= STATS_QUIET or waited >= STATS_MAX_WAIT)))):
            self._stats_last = now
            nice = SCORING_NICE if self.executor.kind == "local" else 0
            for job in statistics_jobs(self.challenge, self.store, "public", nice=nice):
                try:
                    fut = self.executor.submit(board_statistics, job)
                except Exception:          # a broken pool: replaced at the next step
                    break
                fut.add_done_callback(lambda _f: self._wake.set())
                self._stats[job["problem"]] = (fut, job)
                busy = True
        return busy

    def _auto_finalize(self) -> None:
        """At the end of the last phase, finalize (one server does it: the one that creates
        the ``finalizing`` state row): close submissions now; once nothing is queued or
        scoring, score the private rows and the private boards' statistics."""
        from d3mkit.server.phases import last_end
        from d3mkit.server.store import now
        end = last_end(self.challenge.phases)
        if end is None:
            return
        if not self._finalizing:
            if now() < end or self.store.get_state("finalize_done") is not None:
                return
            if not self.store.claim_state("finalizing"):
                return
            LOG.log(logging.WARNING, "the last phase ended at %s: finalizing", end)
            self.store.close_submissions("finalized")
            self._finalizing = True
        counts = self.store.counts()
        if self._inflight or self._held or counts.get("queued") or counts.get("scoring"):
            return
        score_private(self.challenge, self.store, self.executor)
        jobs = statistics_jobs(self.challenge, self.store, "private", stale_only=False)
        for result in self.executor.map(board_statistics, jobs, chunksize=1 if self.executor.workers > 1 else None):
            record_statistics(self.store, result)
        self.store.close_submissions("finalize_done")
        self._finalizing = False

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                busy = self.step()
            except Exception as exc:      # the database away for a moment: try again later
                LOG.log(logging.ERROR, "scoring loop: %s", exc)
                self.last_error = f"{type(exc).__name__}: {exc}"
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
            counts = self.store.counts()
            if (not self._inflight and not self._stats and not self._held and not busy
                    and not counts.get("queued") and not counts.get("scoring")):
                return
            if not busy:
                self._wake.wait(0.05)
                self._wake.clear()


def _failed_future(exc: BaseException):
    from concurrent.futures import Future
    f: Future = Future()
    f.set_exception(exc)
    return f


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
    store.close_submissions("finalized")
    d = Dispatcher(challenge, store, make_executor)
    try:
        store.requeue()
        d.drain()
        private = score_private(challenge, store, d.executor)
        jobs = statistics_jobs(challenge, store, "private", stale_only=False)
        for result in d.executor.map(board_statistics, jobs, chunksize=1 if d.executor.workers > 1 else None):
            record_statistics(store, result)
        store.close_submissions("finalize_done")     # a server at the phases' end has nothing left to do
    finally:
        d.executor.close()
    return {"queued_scored": d.scored, "private_scored": private, "counts": store.counts()}
