"""Where parallel work runs: one executor for campaigns (``d3mkit evaluate``) and builds.

:func:`make_executor` returns an :class:`Executor` whose :meth:`~Executor.map` applies a
module-level function to a list of items and returns the results **in input order**, so
the output of a job never depends on how many workers ran it or which finished first:

* ``workers=1`` — in this process, no pool (the reference the others must equal);
* ``workers=N`` (default: the CPU count) — a local process pool
  (:class:`concurrent.futures.ProcessPoolExecutor`, ``fork`` where available);
* ``scheduler="tcp://HOST:PORT"`` (or a ``distributed.Client``) — a Dask distributed
  cluster. Needs the optional extra ``pip install "d3mkit[dask]"`` here and d3mkit
  importable on every worker. Nothing home-made: Dask ships the work and the results.

Items are sent in chunks (``chunksize``, default a few chunks per worker) so that a
200,000-image build is a few hundred tasks, not 200,000. An exception raised by ``fn``
propagates to the caller (a job that must survive bad items catches them itself, as
:mod:`d3mkit.evaluate` does).

>>> with make_executor(workers=1) as ex:
...     ex.map(abs, [-2, 3, -5])
[2, 3, 5]

:meth:`~Executor.submit` starts one item and returns a
:class:`concurrent.futures.Future`, for work that arrives one item at a time (the
evaluation server's submissions).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Sequence

from d3mkit.io.beside import cpu_count
from d3mkit.core.errors import InvalidArgument, MissingDependency, UsageError

DASK_EXTRA = 'pip install "d3mkit[dask]"'
CONNECT_TIMEOUT = "10s"


def _run_chunk(fn: Callable, chunk: Sequence) -> list:
    return [fn(item) for item in chunk]


def _init_worker(parent: int) -> None:
    """Initializer of a pool's worker: Ctrl-C is left to the calling process (one message,
    no traceback each), and the worker is killed with its parent (Linux
    ``PR_SET_PDEATHSIG``), so a server or campaign killed with ``kill -9`` leaves no
    orphaned workers waiting on a queue for ever; where the parent is already gone, exit now.
    SIGTERM goes back to its default (end the process): a pool made after a server installed
    its own SIGTERM handler (uvicorn's) would otherwise inherit it and never exit when told to."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)     # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(1)


def _chunks(items: Sequence, size: int) -> list[Sequence]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def default_chunksize(n_items: int, n_workers: int, cap: int = 64) -> int:
    """About four chunks per worker, at most ``cap`` items each.

    >>> default_chunksize(1000, 2), default_chunksize(10, 2), default_chunksize(0, 4)
    (64, 2, 1)
    """
    return max(1, min(cap, -(-n_items // (4 * max(1, n_workers)))))


class Executor:
    """Base: ``map(fn, items)`` in input order with an optional progress bar."""

    workers = 1
    kind = "serial"

    def map(self, fn: Callable, items: Sequence, *, chunksize: int | None = None,
            progress: bool = False, desc: str | None = None, unit: str = "it") -> list:
        items = list(items)
        size = chunksize or default_chunksize(len(items), self.workers)
        chunks = _chunks(items, size)
        bar = None
        if progress and items:
            from tqdm import tqdm
            bar = tqdm(total=len(items), desc=desc, unit=unit, leave=False)
        try:
            parts = self._run(fn, chunks, bar)
        finally:
            if bar is not None:
                bar.close()
        return [r for part in parts for r in part]

    def _run(self, fn, chunks, bar) -> list[list]:
        out = []
        for c in chunks:
            out.append(_run_chunk(fn, c))
            if bar is not None:
                bar.update(len(c))
        return out

    def submit(self, fn: Callable, item: Any):
        """Start ``fn(item)`` and return a :class:`concurrent.futures.Future` of its result
        (for a stream of work arriving one item at a time, as the evaluation server's; the
        serial executor runs it now)."""
        from concurrent.futures import Future
        fut: Future = Future()
        try:
            fut.set_result(fn(item))
        except BaseException as exc:  # handed to the caller through the future
            fut.set_exception(exc)
        return fut

    def describe(self) -> str:
        return "in this process"

    def close(self) -> None:
        pass

    def alive(self) -> int:
        """How many workers can run work now (this process: one)."""
        return 1

    def broken(self) -> bool:
        return False

    def abandon(self) -> None:
        """Stop using the executor at once (see :meth:`LocalPool.abandon`)."""
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class LocalPool(Executor):
    """A process pool over the local cores."""

    kind = "local"

    def __init__(self, workers: int):
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor
        self.workers = workers
        ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
        self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                                         initializer=_init_worker, initargs=(os.getpid(),))

    def _run(self, fn, chunks, bar) -> list[list]:
        from concurrent.futures import FIRST_COMPLETED, wait
        if len(chunks) <= 1:          # one chunk: a worker would only add the round trip
            return super()._run(fn, chunks, bar)
        futures = [self._pool.submit(_run_chunk, fn, c) for c in chunks]
        if bar is not None:
            pending = set(futures)
            sizes = {f: len(c) for f, c in zip(futures, chunks)}
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                bar.update(sum(sizes[f] for f in done))
        return [f.result() for f in futures]

    def submit(self, fn: Callable, item: Any):
        return self._pool.submit(fn, item)

    def describe(self) -> str:
        return f"local process pool of {self.workers} workers"

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def alive(self) -> int:
        """How many of the pool's worker processes are alive now (0 before the first task)."""
        procs = getattr(self._pool, "_processes", None) or {}
        return sum(1 for p in list(procs.values()) if p.is_alive())

    def broken(self) -> bool:
        """True once a worker died and the pool refuses new work."""
        return bool(getattr(self._pool, "_broken", False))

    def abandon(self) -> None:
        """End the pool now, without waiting: kill its surviving workers (a broken or stuck
        pool's workers may never finish, and :meth:`close` would wait for them for ever)."""
        for proc in list((getattr(self._pool, "_processes", None) or {}).values()):
            try:
                proc.kill()
            except Exception:     # already gone
                pass
        self._pool.shutdown(wait=False, cancel_futures=True)

    def __exit__(self, exc_type, *rest) -> None:
        """On Ctrl-C the workers (which ignore SIGINT, so print no traceback) are ended
        at once instead of finishing their work."""
        if exc_type is not None and issubclass(exc_type, KeyboardInterrupt):
            for proc in list((getattr(self._pool, "_processes", None) or {}).values()):
                proc.terminate()
            self._pool.shutdown(wait=False, cancel_futures=True)
            return
        self.close()


class DaskCluster(Executor):
    """A Dask distributed cluster reached through a ``distributed.Client``."""

    kind = "dask"

    def __init__(self, scheduler: Any):
        try:
            import distributed
        except ImportError:
            raise MissingDependency("Dask distributed", "dask", "a scheduler address") from None
        self._own = not isinstance(scheduler, distributed.Client)
        if self._own:
            address = str(scheduler)
            try:
                self.client = distributed.Client(address, timeout=CONNECT_TIMEOUT,
                                                 set_as_default=False)
            except (OSError, TimeoutError, ValueError) as exc:
                raise UsageError(f"cannot connect to the Dask scheduler: {exc}", address) from None
        else:
            self.client = scheduler
        self.address = self.client.scheduler.address
        self.workers = max(1, sum(self.client.nthreads().values()))

    def _run(self, fn, chunks, bar) -> list[list]:
        from distributed import as_completed
        futures = self.client.map(_run_chunk, [fn] * len(chunks), chunks, pure=False)
        if bar is not None:
            sizes = {f.key: len(c) for f, c in zip(futures, chunks)}
            for f in as_completed(futures):
                bar.update(sizes[f.key])
        try:
            return self.client.gather(futures)
        finally:
            for f in futures:
                f.release()

    def submit(self, fn: Callable, item: Any):
        from concurrent.futures import Future
        out: Future = Future()
        remote = self.client.submit(fn, item, pure=False)

        def done(f) -> None:
            try:
                out.set_result(f.result())
            except BaseException as exc:  # handed to the caller through the future
                out.set_exception(exc)
            finally:
                f.release()
        remote.add_done_callback(done)
        return out

    def describe(self) -> str:
        return f"Dask cluster at {self.address} ({self.workers} worker threads)"

    def alive(self) -> int:
        """The cluster's workers the scheduler knows now (0 when it cannot be asked)."""
        try:
            return len(self.client.nthreads())
        except Exception:     # the scheduler is away
            return 0

    def close(self) -> None:
        if self._own:
            self.client.close()


def make_executor(workers: int | None = None, scheduler: Any = None) -> Executor:
    """The executor for ``--workers N`` / ``--scheduler ADDRESS`` (the two exclude each
    other; neither: a local pool over every core)."""
    check_options(workers, scheduler)
    if scheduler is not None:
        return DaskCluster(scheduler)
    n = workers or cpu_count()
    return Executor() if n <= 1 else LocalPool(n)


def check_options(workers: int | None = None, scheduler: Any = None) -> None:
    """The usage errors of ``--workers``/``--scheduler``, without starting anything (for a
    command that has no work to spread but takes the options like its siblings).

    >>> check_options(2), check_options(None, "tcp://h:8786")
    (None, None)
    """
    if scheduler is not None and workers is not None:
        raise InvalidArgument("workers", "give {workers} or {scheduler}, not both (a cluster has its own workers)")
    if workers is not None and workers < 1:
        raise InvalidArgument("workers", f"must be at least 1, got {workers}")


def add_executor_arguments(parser, what: str = "work", *, unused: str | None = None,
                           default_workers: int | None = None, why: str = "") -> None:
    """``--workers N`` and ``--scheduler ADDRESS`` on a subcommand; ``unused``: why a
    command that takes them like its siblings has nothing to run on them (said in the help;
    the command checks them with :func:`check_options`). ``default_workers`` (with ``why``
    for the help) replaces the CPU count as the default; the command passes it to
    :func:`from_args` too."""
    if unused:
        note = f"accepted and checked like the other builds' option, but not used: {unused}"
        parser.add_argument("--workers", type=int, default=None, metavar="N", help=note)
        parser.add_argument("--scheduler", default=None, metavar="ADDRESS", help=note)
        return
    default = "the CPU count" if default_workers is None else f"{default_workers}{', ' + why if why else ''}"
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help=f"local processes for the {what} (default: {default}; 1 = this process)")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="run on a Dask distributed cluster, e.g. tcp://HOST:8786 "
                             f"(needs {DASK_EXTRA})")


def from_args(args, default_workers: int | None = None) -> Executor:
    """The executor a command's ``--workers``/``--scheduler`` ask for; with neither given,
    ``default_workers`` local processes (None: the CPU count)."""
    workers, scheduler = getattr(args, "workers", None), getattr(args, "scheduler", None)
    if workers is None and scheduler is None:
        workers = default_workers
    return make_executor(workers, scheduler)
