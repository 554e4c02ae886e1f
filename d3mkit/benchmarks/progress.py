"""Progress of long work as a ``k/N`` count with the elapsed time and an ETA.

What this module owns: the one form in which ``d3mkit demo`` and the reproducers report
how far they are — ``[k/N, 1 min 5 s, about 2 min left]`` — and how the ETA is estimated
(the mean time of the items done so far times the items left; no ETA before the first).
tqdm bars remain for the builders' per-item work on a terminal; this is for steps that
each take seconds to minutes and print a line when they finish.

>>> ticks = iter([0.0, 10.0, 30.0])
>>> p = Progress(3, clock=lambda: next(ticks))
>>> p.start_text()
'[0/3]'
>>> p.step()
'[1/3, 10 s, about 20 s left]'
>>> p.step()
'[2/3, 30 s, about 15 s left]'
>>> duration(3725)
'1 h 2 min'
"""

from __future__ import annotations

import time


def duration(seconds: float) -> str:
    """``42 s``, ``3 min 5 s``, ``1 h 2 min``."""
    s = int(round(max(0.0, seconds)))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60} min"


class Progress:
    """``total`` items; :meth:`step` after each finished item returns its count text."""

    def __init__(self, total: int, clock=time.perf_counter):
        self.total = int(total)
        self.done = 0
        self._clock = clock
        self._t0 = clock()

    def start_text(self) -> str:
        return f"[{self.done}/{self.total}]"

    def step(self) -> str:
        self.done += 1
        elapsed = self._clock() - self._t0
        left = self.total - self.done
        eta = f", about {duration(elapsed / self.done * left)} left" if left > 0 else ""
        return f"[{self.done}/{self.total}, {duration(elapsed)}{eta}]"
