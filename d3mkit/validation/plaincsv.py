"""An exact numpy tokenizer for plain CSV files: no double quote, no carriage return.

RFC 4180 makes such a file simple: every ``\\n`` ends a record and every ``,`` ends a
field, so a table is found by locating those two bytes (numpy, in steps of 4 MiB) and
checking that each record has the header's number of fields. :func:`read_plain` does only
that case and returns None for anything else (quotes, CR line endings, NUL bytes, bytes
that are not UTF-8, blank lines, rows of another width, a file without rows, a one-column
header); the caller then reads the file with the general reader
(:func:`d3mkit.validation.csvread.read_strings`, pandas' C parser), which gives every
message. The values are what that reader gives: cells as written (empty cells stay
``""``), integer columns as int64 when every cell is an optional ``-`` and 1-16 digits
(otherwise their strings), text columns hashed once (one 64-bit key per cell, built from
up to 32 bytes with numpy; a key shared by two different texts is detected and sends the
file to the general reader).
"""

from __future__ import annotations

import codecs
import os
from pathlib import Path

import numpy as np

from d3mkit.validation.columns import Categorical

STEP = 1 << 22           # bytes scanned per numpy step (bounds the temporaries)
MAX_TEXT = 32            # text cells longer than this send the file to the general reader
_PAD = 32                # zero bytes after the data, so an 8-byte load never runs past it
_LO = np.uint64(0x3030303030303030)


def _valid_utf8(buf: bytearray, end: int) -> bool:
    if buf.isascii():        # the whole buffer: its zero padding is ASCII too (no copy)
        return True
    dec = codecs.getincrementaldecoder("utf-8")()
    try:
        for o in range(0, end, STEP):
            dec.decode(buf[o:min(o + STEP, end)], final=o + STEP >= end)
    except UnicodeDecodeError:
        return False
    return True


def _marks(a: np.ndarray, dtype) -> tuple[np.ndarray, int]:
    """Positions of every ``\\n`` and ``,`` of ``a``, in order, and how many are ``\\n``."""
    parts = []
    newlines = 0
    for o in range(0, len(a), STEP):
        c = a[o:o + STEP]
        nl = c == 10
        newlines += int(np.count_nonzero(nl))
        np.logical_or(nl, c == 44, out=nl)
        m = np.flatnonzero(nl).astype(dtype)
        m += o
        parts.append(m)
    return (np.concatenate(parts) if parts else np.zeros(0, dtype)), newlines


def _words(buf: np.ndarray) -> np.ndarray:
    """Little-endian uint64 loads at every byte offset of ``buf`` (a view, no copy)."""
    return np.ndarray(shape=(len(buf) - 7,), dtype="<u8", buffer=buf, offset=0, strides=(1,))


def _low_bytes(n: np.ndarray) -> np.ndarray:
    """Masks of the low ``n`` (0..8) bytes of a uint64."""
    table = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)
    return table[n]


_U = np.uint64


def _digits8(w: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, bool]:
    """The numbers written by the first ``n`` (1..8) bytes of each word (``w`` is
    overwritten), and whether those bytes are all digits: the classic eight-digit SWAR
    parse, the text left-padded with ``0``."""
    x = w
    x <<= ((8 - n) * 8).astype(np.uint64)
    x |= _LO & _low_bytes(8 - n)
    hi = _U(0xF0F0F0F0F0F0F0F0)
    ok = bool(((x & hi) == _LO).all())
    t = x + _U(0x0606060606060606)
    t &= hi
    ok = ok and bool((t == _LO).all())
    x -= _LO
    np.right_shift(x, _U(8), out=t)
    x *= _U(10)
    x += t
    np.right_shift(x, _U(16), out=t)
    t &= _U(0x000000FF000000FF)
    t *= _U(1 + (10000 << 32))
    x &= _U(0x000000FF000000FF)
    x *= _U(100 + (1000000 << 32))
    x += t
    x >>= _U(32)
    return x, ok


def parse_ints(words: np.ndarray, s: np.ndarray, e: np.ndarray) -> np.ndarray | None:
    """int64 of the cells ``[s, e)``, or None unless every cell is an optional ``-`` and
    1 to 16 digits."""
    w = words[s]
    neg = (w & _U(0xFF)) == _U(45)
    any_neg = bool(neg.any())
    if any_neg:
        s = s + neg
        w = words[s]
    n = e - s
    if not len(n) or n.min() < 1 or n.max() > 16:
        return None
    long = n > 8
    any_long = bool(long.any())
    first = np.where(long, n - 8, n) if any_long else n     # the digits of the high part
    hi, ok = _digits8(w, first)
    if not ok:
        return None
    out = hi.view(np.int64)
    if any_long:
        lo, ok = _digits8(words[s[long] + first[long]], np.full(int(long.sum()), 8))
        if not ok:
            return None
        out[long] = out[long] * 100000000 + lo.view(np.int64)
    if any_neg:
        np.negative(out, out=out, where=neg)
    return out


def _small_codes(key: np.ndarray, distinct: np.ndarray) -> np.ndarray | None:
    """Each key's position in ``distinct`` (sorted, few) through a table indexed by a
    multiplicative hash that is one-to-one on ``distinct``; None when no such hash is
    found quickly (then a binary search does it)."""
    k = len(distinct)
    if k == 0 or k > 1024:
        return None
    bits = min(20, max(4, int(2 * k * k).bit_length()))
    shift = _U(64 - bits)
    rng = np.random.default_rng(k)
    for mult in rng.integers(1, 2 ** 63, size=8, dtype=np.uint64) | _U(1):
        slots = (distinct * mult) >> shift
        if len(np.unique(slots)) == k:
            table = np.zeros(1 << bits, dtype=np.intp)
            table[slots] = np.arange(k)
            h = key * mult
            h >>= shift
            return table[h]
    return None


class _Texts:
    """A text column built window by window: each cell's code into the distinct texts in
    order of first appearance (:meth:`add`), sorted at the end (:meth:`categorical`). A
    cell of at most 8 bytes is its own key (its bytes, zero-padded: no cell holds a zero
    byte); longer ones (up to :data:`MAX_TEXT`) are hashed, and every row is checked
    against its key's text, so two texts sharing a key are never merged."""

    def __init__(self, rows: int):
        self.codes = np.zeros(rows, dtype=np.int32)
        self.texts: list[str] = []
        self.by_key: dict[int, int] = {}
        self.at = 0

    def add(self, buf: bytes, words: np.ndarray, s: np.ndarray, e: np.ndarray) -> bool:
        """Code the cells ``[s, e)`` of ``buf``; False when a cell is too long or two texts
        share a key."""
        n = e - s
        longest = int(n.max()) if len(n) else 0
        if longest > MAX_TEXT:
            return False
        parts = []
        key = np.zeros(len(s), dtype=np.uint64)
        for k in range(0, longest, 8):
            w = words[s + k] if k else words[s]
            w &= _low_bytes(np.clip(n - k, 0, 8))
            if longest <= 8:
                key = w
                break
            parts.append(w)
            key ^= w
            key *= _U(0x9E3779B97F4A7C15)
            key += _U(k + 1)
        if longest > 8:
            key ^= n.astype(np.uint64) * _U(0xC2B2AE3D27D4EB4F)
        distinct = np.sort(key)
        if len(distinct):
            distinct = distinct[np.concatenate(([True], distinct[1:] != distinct[:-1]))]
        local = _small_codes(key, distinct)
        if local is None:
            local = np.searchsorted(distinct, key)
        rep = np.zeros(len(distinct), dtype=np.intp)
        rep[local] = np.arange(len(local))                        # a row of each key
        if parts and (not (n == n[rep][local]).all() or any(not (w == w[rep][local]).all() for w in parts)):
            return False                                          # two texts share a key here
        glob = np.empty(len(distinct), dtype=np.int32)
        for i, (kv, r) in enumerate(zip(distinct.tolist(), rep.tolist())):
            text = buf[int(s[r]):int(e[r])].decode("utf-8")
            code = self.by_key.setdefault(kv, len(self.texts))
            if code == len(self.texts):
                self.texts.append(text)
            elif self.texts[code] != text:
                return False                                      # ... or across windows
            glob[i] = code
        self.codes[self.at:self.at + len(s)] = glob[local]
        self.at += len(s)
        return True

    def categorical(self) -> Categorical:
        texts = np.empty(len(self.texts), dtype=object)
        texts[:] = self.texts
        order = np.argsort(texts.astype(str), kind="stable") if len(texts) else np.zeros(0, np.intp)
        remap = np.empty(len(order), dtype=np.int32)
        remap[order] = np.arange(len(order))
        return Categorical(remap[self.codes], texts[order])


def read_plain(path: Path | str, header: list[str], cols: list[str], int_cols=(), category_cols=()
               ) -> dict | None:
    """The columns ``cols`` of a plain CSV file whose header is ``header`` (as
    :func:`d3mkit.validation.csvread.read_header` read it), in file order, or None when the
    file is not one this tokenizer reads exactly (see the module docstring). ``int_cols``
    become int64 when every cell is an integer, ``category_cols`` :class:`Categorical`,
    every other column an object array of strings. The file is read whole; its records
    are split and parsed in windows of about :data:`STEP` bytes, so the temporaries stay
    small."""
    width = len(header)
    if width < 2:
        return None
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        raw = bytearray(size + _PAD)          # zero-padded: 8-byte loads stay inside
        if fh.readinto(memoryview(raw)[:size]) != size or fh.read(1):
            return None                       # the file changed under us: the general reader
    if raw.find(b'"', 0, size) >= 0 or raw.find(b"\r", 0, size) >= 0 or raw.find(b"\x00", 0, size) >= 0:
        return None
    start = raw.find(b"\n", 0, size) + 1
    if start == 0 or start == size or not _valid_utf8(raw, size):
        return None
    rows = raw.count(b"\n", start, size) + (raw[size - 1] != 10)
    buf = np.frombuffer(raw, dtype=np.uint8)
    words = _words(buf)
    wanted = [(j, name) for j, name in enumerate(header) if name in cols]
    ints = {name: np.zeros(rows, dtype=np.int64) for _, name in wanted if name in int_cols}
    texts = {name: _Texts(rows) for _, name in wanted if name not in int_cols}
    offsets = np.int32 if size < 2 ** 31 - 64 else np.int64
    done = 0
    w0 = start
    while w0 < size:
        w1 = raw.rfind(b"\n", w0, min(w0 + STEP, size)) + 1
        if w1 == 0:                           # no newline in this step: a long record (or the last)
            nl = raw.find(b"\n", w0, size)
            w1 = size if nl < 0 else nl + 1
        a = buf[w0:w1]
        marks, newlines = _marks(a, offsets)
        if a[-1] != 10:                       # the last record has no newline: it ends at the end
            marks = np.append(marks, np.asarray([len(a)], dtype=marks.dtype))
            newlines += 1
            a = buf[w0:w1 + 1]                # its terminator is the padding's zero
        if len(marks) != newlines * width:
            return None                       # a row of another width, or a blank line
        ends = marks[width - 1::width]
        if not (a[ends] != 44).all():
            return None
        for j, name in wanted:
            e = marks[j::width] + w0
            s = (np.concatenate(([-1], ends[:-1])).astype(marks.dtype) if j == 0
                 else marks[j - 1::width]) + (1 + w0)
            if name in ints:
                v = parse_ints(words, s, e)
                if v is None:                 # not all integers: read again with the column as text
                    return read_plain(path, header, cols, tuple(c for c in int_cols if c != name),
                                      category_cols)
                ints[name][done:done + len(v)] = v
            elif not texts[name].add(raw, words, s, e):
                return None
        done += newlines
        w0 = w1
    if done != rows:
        return None
    out = {}
    for _, name in wanted:
        if name in ints:
            out[name] = ints[name]
        else:
            cat = texts[name].categorical()
            out[name] = cat if name in category_cols else np.asarray(cat)
    return out
