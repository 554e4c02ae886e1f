"""The word-at-a-time byte searches of :mod:`d3mkit.tables.bytefind` against a plain
Python search, on random lines whose fields are 0 to 30 bytes long."""

from __future__ import annotations

import numpy as np
import pytest

from d3mkit.tables.bytefind import first_byte, last_byte, words_of as _words

BEFORE = 24


def _block(seed: int) -> tuple[bytes, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    lines = []
    for _ in range(300):
        fields = ["".join(rng.choice(list("ab9-. x"), size=int(rng.integers(0, 31)))) for _ in range(3)]
        lines.append(",".join(fields) + "\n")
    text = "".join(lines).encode()
    ends = np.flatnonzero(np.frombuffer(text, np.uint8) == 10)
    starts = np.concatenate(([0], ends[:-1] + 1))
    return text, starts, ends


@pytest.mark.parametrize("seed", range(5))
def test_first_and_last_byte_match_a_python_search(seed):
    text, starts, ends = _block(seed)
    buf = np.zeros(BEFORE + len(text) + 8, dtype=np.uint8)
    buf[BEFORE:BEFORE + len(text)] = np.frombuffer(text, np.uint8)
    words = _words(buf)
    first = [text.index(b",", s) for s in starts.tolist()]
    last = [text.rindex(b",", 0, e) for e in ends.tolist()]
    for span in (1, 2, 3, 4):
        got = first_byte(words, starts + BEFORE, ord(","), span)
        if all(f - s < 8 * span for f, s in zip(first, starts.tolist())):
            assert (got - BEFORE).tolist() == first
        else:
            assert got is None
        got = last_byte(words, ends + BEFORE, ord(","), span)
        if all(e - f <= 8 * span for f, e in zip(last, ends.tolist())):
            assert (got - BEFORE).tolist() == last
        else:
            assert got is None
