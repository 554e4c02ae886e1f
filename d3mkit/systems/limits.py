"""A process tree run under a time, memory and core budget.

What this module owns: :func:`run_limited`, which starts a command in its own session and
watches the whole tree it grows (children, grandchildren; :mod:`psutil`) every
:data:`POLL` seconds:

* **time** — at ``time_limit`` + :func:`grace` (at most 10 s) every process of the tree is
  killed (SIGKILL) and the status is ``timeout``;
* **memory** — two caps. The resident memory of the tree, summed, is sampled; over
  ``memory_mb`` the tree is killed and the status is ``memout``. On Linux each process of
  the tree also has a hard cap the kernel enforces between samples: ``RLIMIT_DATA`` (its
  private writable memory) = ``memory_mb`` + :data:`HEADROOM_MB` (:func:`hard_cap_mb`), set
  on the child right after it starts (:func:`cap_process`; inherited by what it starts) or,
  for a child forked by the zygote, in the child before it runs. ``RLIMIT_AS`` is not used: a
  JVM reserves 8 GB of address space to use 400 MB. An allocation past the hard cap fails
  (``MemoryError``); a child that exits with :data:`d3mkit.systems.child.EXIT_MEMORY`, or
  non-zero with an out-of-memory message in the tail of its log (:data:`OOM_WORDS`), or is
  killed by the kernel's OOM killer, is ``memout`` too. The peak of the samples is reported;
* **cores** — :func:`thread_env`: BLAS, OpenMP, MKL and numexpr are told the number of
  threads they may start (the system's own ``n_jobs`` comes from
  :class:`~d3mkit.systems.plugins.Options`).

Nothing here knows about task roots; :mod:`d3mkit.systems.runner` decides what runs.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

POLL = 0.1
MAX_GRACE = 10.0
#: what RLIMIT_DATA allows a process beyond the memory limit: private writable memory it has
#: reserved but not touched. Measured (docs/systems.md): pyarrow's mimalloc pool, which
#: pandas 3 uses, reserves about 1 GB as soon as a CSV is written (VmData 1,196 MB for a
#: resident 170 MB); a 100-tree forest +90 MB; an H2O JVM +135 MB (VmSize: 8.1 GB)
HEADROOM_MB = 1280
#: words in the tail of a failed child's log that say it ran out of memory
OOM_WORDS = ("MemoryError", "Cannot allocate memory", "OutOfMemoryError", "std::bad_alloc",
             "Unable to allocate", "out of memory", "Native memory allocation")
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "BLIS_NUM_THREADS", "RAYON_NUM_THREADS")


def grace(time_limit: float) -> float:
    """Seconds a system may overrun its limit before it is killed: 1 s + 10 %, at most 10 s.

    >>> grace(5), grace(60), grace(3600)
    (1.5, 7.0, 10.0)
    """
    return min(MAX_GRACE, 1.0 + 0.1 * time_limit)


def hard_cap_mb(memory_mb: float | None) -> int | None:
    """The RLIMIT_DATA of each process of a system's tree (MB) under a memory limit of
    ``memory_mb`` (None: none).

    >>> hard_cap_mb(None), hard_cap_mb(500)
    (None, 1780)
    """
    return None if memory_mb is None else int(memory_mb) + HEADROOM_MB


def cap_process(pid: int | None, memory_mb: float | None) -> None:
    """Set the hard cap (:func:`hard_cap_mb`) on process ``pid`` (None: this process); on a
    system without RLIMIT_DATA, nothing."""
    cap = hard_cap_mb(memory_mb)
    if cap is None:
        return
    try:
        import resource
        limit = (cap << 20, cap << 20)
        if pid is None:
            resource.setrlimit(resource.RLIMIT_DATA, limit)
        else:
            resource.prlimit(pid, resource.RLIMIT_DATA, limit)
    except (ImportError, AttributeError, OSError, ValueError):
        pass        # no such limit here (or the child already gone): the sampling cap only


def thread_env(cores: int) -> dict[str, str]:
    """The environment variables that cap BLAS/OpenMP threads at ``cores``."""
    return {v: str(cores) for v in THREAD_VARS}


@dataclass
class Outcome:
    status: str              # ok, failed, timeout, memout
    returncode: int | None
    wall_seconds: float
    peak_memory_mb: float
    log: str                 # the last lines of the tree's stdout and stderr


def _psutil():
    try:
        import psutil
    except ModuleNotFoundError:
        from d3mkit.core.errors import MissingDependency
        raise MissingDependency("psutil", "systems", "running a system under limits") from None
    return psutil


def _tree(psutil, root):
    try:
        return [root] + root.children(recursive=True)
    except psutil.Error:
        return [root]


def _rss_mb(psutil, procs) -> float:
    total = 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total / (1 << 20)


def _kill(psutil, procs, pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass
    for p in procs:      # those that left the session (setsid) are in the tree still
        try:
            p.kill()
        except psutil.Error:
            pass


def _tail(path: Path, limit: int = 16000) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - limit))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _watch(psutil, pid: int, wait, start: float, deadline: float | None, memory_mb: float | None):
    """Watch the tree of ``pid`` until ``wait(timeout)`` gives its exit code; kill it over a
    limit. Returns (exit code, status or None, peak MB)."""
    try:
        root = psutil.Process(pid)
    except psutil.Error:
        root = None
    peak, status, known = 0.0, None, []
    while True:
        code = wait(POLL)
        if code is not None:
            break
        known = _tree(psutil, root) if root is not None else []
        rss = _rss_mb(psutil, known)
        peak = max(peak, rss)
        if memory_mb is not None and rss > memory_mb:
            status = "memout"
        elif deadline is not None and time.monotonic() - start > deadline:
            status = "timeout"
        if status:
            _kill(psutil, known, pid)
            code = wait(None)
            break
    _kill(psutil, [p for p in known if p.pid != pid], pid)   # no orphan outlives its system
    return code, status, peak


def _outcome(returncode, status, peak, start: float, log: Path, memory_mb: float | None) -> Outcome:
    from d3mkit.systems.child import EXIT_MEMORY
    tail = _tail(log)
    if status is None:
        oom = memory_mb is not None and any(w in tail[-4000:] for w in OOM_WORDS)
        status = ("ok" if returncode == 0 else
                  "memout" if returncode in (EXIT_MEMORY, -signal.SIGKILL) or oom else "failed")
    return Outcome(status, returncode, time.monotonic() - start, round(peak, 1), tail)


def run_limited(argv: list[str], *, cwd: Path, env: dict, log: Path, time_limit: float | None = None,
                memory_mb: float | None = None) -> Outcome:
    """Run ``argv`` in ``cwd`` with exactly ``env``, its output to the file ``log``, under the
    limits (see the module docstring)."""
    psutil = _psutil()
    deadline = None if time_limit is None else time_limit + grace(time_limit)
    start = time.monotonic()
    with open(log, "wb") as out:
        try:
            proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        except OSError as exc:
            return Outcome("failed", None, 0.0, 0.0, f"cannot start {argv[0]}: {exc.strerror or exc}")
        cap_process(proc.pid, memory_mb)     # not preexec_fn: unsafe when the caller has threads

        def wait(timeout):
            try:
                return proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                return None
        returncode, status, peak = _watch(psutil, proc.pid, wait, start, deadline, memory_mb)
    return _outcome(returncode, status, peak, start, log, memory_mb)


def run_forked(zygote, argv: list[str], *, cwd: Path, env: dict, log: Path, time_limit: float | None = None,
               memory_mb: float | None = None) -> Outcome:
    """:func:`run_limited` for a child forked by a warm :class:`~d3mkit.systems.zygote.Zygote`
    (``argv``: the arguments of :func:`d3mkit.systems.child.main`)."""
    psutil = _psutil()
    deadline = None if time_limit is None else time_limit + grace(time_limit)
    zygote.wait_ready()         # its imports are not the fold's: the clock starts at the fork
    start = time.monotonic()
    pid = zygote.start(argv, str(cwd), env, str(log), memory_mb)
    returncode, status, peak = _watch(psutil, pid, lambda t: zygote.wait(3600.0 if t is None else t), start,
                                      deadline, memory_mb)
    peak = max(peak, zygote.last_maxrss_mb)     # the child's own peak: it may exit before a sample
    return _outcome(returncode, status, peak, start, log, memory_mb)
