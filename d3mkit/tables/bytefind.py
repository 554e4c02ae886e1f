"""Finding one byte near many positions of a table file's bytes, eight bytes at a time:
what import's chunked path (:mod:`d3mkit.importing.scan`) uses to find where an index
field starts or ends on each line of a block. Kept under :mod:`d3mkit.tables`, which owns
every byte-level look at a table file.
"""

from __future__ import annotations

import numpy as np


def words_of(buf: np.ndarray) -> np.ndarray:
    """Little-endian uint64 loads at every byte offset of ``buf`` (a view, no copy)."""
    return np.ndarray(shape=(len(buf) - 7,), dtype="<u8", buffer=buf, offset=0, strides=(1,))


def _low_bytes(n: np.ndarray) -> np.ndarray:
    """Masks of the low ``n`` (0..8) bytes of a uint64."""
    table = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)
    return table[n]


_U = np.uint64


_SEVEN = _U(0x7F7F7F7F7F7F7F7F)
_HIGH = _U(0x8080808080808080)
_ONES = _U(0x0101010101010101)
_PLACE = _U(0x0001020304050607)     # byte j holds 7 - j: see _byte_at
_56, _7 = _U(56), _U(7)


def _zero_bytes(x: np.ndarray) -> np.ndarray:
    """Per uint64, 1 in each byte that is zero and 0 in the others (exact: no carry crosses
    a byte)."""
    t = x & _SEVEN
    t += _SEVEN
    t |= x
    np.invert(t, out=t)
    t &= _HIGH
    t >>= _7
    return t


def _count(ones: np.ndarray) -> np.ndarray:
    """The number of bytes holding 1 (:func:`_zero_bytes`) per uint64."""
    return (ones * _ONES) >> _56


def _byte_at(ones: np.ndarray) -> np.ndarray:
    """The index of the byte holding 1, for a uint64 with exactly one such byte: its
    product with :data:`_PLACE` carries that index into the top byte."""
    return (ones * _PLACE) >> _56


def first_byte(words: np.ndarray, at: np.ndarray, byte: int, span: int = 3) -> np.ndarray | None:
    """Per position of ``at``, the position of the first ``byte`` at or after it, looked for
    in the ``span`` words (8 bytes each) from it; None when one is not found there."""
    out = np.full(len(at), -1, dtype=np.int64)
    rest = np.arange(len(at))
    pattern = _U(0x0101010101010101 * byte)
    for k in range(span):
        f = _zero_bytes(words[at[rest] + 8 * k] ^ pattern)
        found = f != 0
        f = f[found]
        f &= ~f + _U(1)                      # the lowest flagged byte alone
        out[rest[found]] = at[rest[found]] + 8 * k + _byte_at(f).astype(np.int64)
        rest = rest[~found]
        if not len(rest):
            return out
    return None


def last_byte(words: np.ndarray, end: np.ndarray, byte: int, span: int = 3) -> np.ndarray | None:
    """Per position of ``end``, the position of the last ``byte`` before it, looked for in
    the ``span`` words before it (``words`` must reach ``8 * span`` bytes before the first
    ``end``); None when one is not found there."""
    out = np.full(len(end), -1, dtype=np.int64)
    rest = np.arange(len(end))
    pattern = _U(0x0101010101010101 * byte)
    for k in range(1, span + 1):
        f = _zero_bytes(words[end[rest] - 8 * k] ^ pattern).byteswap()   # the last byte first
        found = f != 0
        f = f[found]
        f &= ~f + _U(1)
        out[rest[found]] = end[rest[found]] - 8 * (k - 1) - 1 - _byte_at(f).astype(np.int64)
        rest = rest[~found]
        if not len(rest):
            return out
    return None
