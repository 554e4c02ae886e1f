"""Running one piece of work in a thread beside the caller's, for the second core.

What this module owns: :func:`beside`, the one way d3mkit overlaps two pieces of work in one
process. It is worth it only where both sides spend their time outside the interpreter lock
(file writes and reads, ``hashlib`` on large buffers, numpy on large arrays, pandas' C parser
while it tokenizes): ``d3mkit import table`` writes learningData while the splits and the
documents are made, and a task root's sha256 digests are taken while it is validated.

The work is joined when the block ends, whatever happens in it: its files are complete (or
its exception raised) before the caller goes on, so nothing writes into a directory that is
being removed. An exception in the block wins over one in the work; an exception in the work
alone is raised from the block's end.

>>> with beside(sum, [1, 2, 3]) as job:
...     pass
>>> job.result()
6
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator


def cpu_count() -> int:
    """The cores this process may use (its affinity set where the OS tells): whether a
    second thread has a core of its own."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


class Job:
    """The work started by :func:`beside`: :meth:`result` once its block has ended."""

    def __init__(self, fn: Callable[..., Any], args: tuple, kwargs: dict):
        self._value: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(fn, args, kwargs), name="d3mkit-beside",
                                        daemon=True)

    def _run(self, fn, args, kwargs) -> None:
        try:
            self._value = fn(*args, **kwargs)
        except BaseException as exc:       # handed to the caller's thread by join()
            self._error = exc

    def join(self) -> None:
        """Wait for the work (a Ctrl-C while waiting waits on, then is raised)."""
        interrupted = None
        while self._thread.is_alive():
            try:
                self._thread.join()
            except KeyboardInterrupt as exc:
                interrupted = exc
        if interrupted is not None:
            raise interrupted

    def result(self) -> Any:
        """The work's return value (its exception raised)."""
        self.join()
        if self._error is not None:
            raise self._error
        return self._value


@contextmanager
def beside(fn: Callable[..., Any], *args, **kwargs) -> Iterator[Job]:
    """Run ``fn(*args, **kwargs)`` in a thread while the block runs; joined at the block's
    end, its exception raised there (module docstring)."""
    job = Job(fn, args, kwargs)
    job._thread.start()
    try:
        yield job
    except BaseException:
        job.join()
        raise
    job.result()


_END = object()


@contextmanager
def ahead(iterable) -> Iterator[Iterator]:
    """The items of ``iterable`` with the next one taken in a thread (:func:`beside`'s) while
    the caller works on the one it has: for a reader whose ``next()`` spends its time outside
    the interpreter lock (pandas' C parser reading a chunk). One item is held ahead; when the
    block ends, early or not, the one being read is waited for and dropped; the reader's
    exception is raised where its item is taken.

    >>> with ahead(iter(range(4))) as items:
    ...     [i * i for i in items]
    [0, 1, 4, 9]
    """
    it = iter(iterable)
    pending: list[Job] = []

    def start() -> None:
        job = Job(next, (it, _END), {})
        job._thread.start()
        pending.append(job)

    def items():
        while True:
            item = pending.pop().result()
            if item is _END:
                return
            start()
            yield item

    start()
    try:
        yield items()
    finally:
        for job in pending:
            job.join()
