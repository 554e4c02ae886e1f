"""Validation's reading of a plain CSV file (no double quote, no CR, no NUL; UTF-8) with
numpy, without pandas: the columns of :mod:`d3mkit.validation.tablecols`, exactly as the
general reader (:func:`d3mkit.validation.csvread.read_csv_checked`, pandas' C parser) gives
them, or None when the file is not one this reader reads exactly; then the general reader
reads it and gives every message.

The file is split with the tokenizer of :mod:`d3mkit.validation.plaincsv` (a survey, then
windows of whole lines of about 1 MiB: the memory beyond the columns is a few windows).
Every record must have the header's width and no line may be blank (else None: the general
reader reports or skips them). A file of :data:`PARTS_FROM` bytes or more, on a machine of
two cores or more, is read in two parts cut at a newline near its middle, the second in a
thread beside the first (most of the time is in numpy loops, which let the interpreter lock
go), and the parts' columns joined in file order: the same columns as one part gives. Per
column:

* declared ``integer``: int64 when every non-empty cell is an optional ``-`` and 1 to 16
  digits of magnitude below 2**53 (empty cells are missing); anything else is None (pandas'
  typed parse reads ``1.0`` or `` 1`` its own way, or fails and reads the whole file as text);
* declared ``real``: float64 when every non-empty cell is a finite number of digits, ``.``,
  ``e`` and signs (NaN where empty); anything else is None;
* any other column: codes into its distinct texts. The cells of a window are fixed-width
  bytes (``S`` up to :data:`MAX_CELL` bytes; a longer cell is None), kept whole for the
  column and sorted once at the end (``np.unique``), so a column of mostly distinct texts
  (file names) costs its bytes and a code per row, never a Python string per row until
  the distinct values are decoded.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from d3mkit.beside import beside, cpu_count
from d3mkit.spans import Span, middle
from d3mkit.validation.plaincsv import (STEP, _PAD, _byte_at, _count, _fixed, _low_bytes, _marks, _windows,
                                       _words, _zero_bytes, parse_floats, parse_ints)
from d3mkit.validation.columns import int_dtype
from d3mkit.validation.tablecols import Floats, Ints, Texts, small_codes, text_cats

MAX_CELL = 128          # a text cell longer than this sends the file to the general reader
RAW_TEXTS = 4096        # a column of mostly distinct texts and more rows than this keeps their bytes
_EXACT = 2 ** 53


_MULT = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93],
                 dtype=np.uint64)     # odd: each word's term is one-to-one


class _Coded:
    """A text column of short cells (up to 32 bytes) as codes into its distinct texts, in
    order of first appearance. A cell is its zero-padded 64-bit words (no cell holds a zero
    byte, so equal words are equal texts); its key is the sum of the words times odd
    constants (one-to-one for a cell of at most 8 bytes; a trailing zero word adds nothing,
    so a text keys alike in windows of any width). Longer cells' keys found again are
    checked against the words first seen with them, so two texts sharing a key are never
    merged (:meth:`add` is False; the file goes to the general reader).

    A key seen before is found in a table of at least eight slots a key (a multiplicative
    hash of the key; a slot holds one key and its code, the first of those that share it),
    and a key not there by a binary search of the sorted keys."""

    def __init__(self, rows: int):
        self.codes = np.zeros(rows, dtype=np.int32)
        self.keys = np.zeros(0, dtype=np.uint64)       # distinct keys, sorted
        self.key_code = np.zeros(0, dtype=np.int32)    # ... and the code of each
        self.words = np.zeros((0, 1), dtype=np.uint64)  # per code, its text's words
        self.slot_key = self.slot_code = None          # the table of the keys (:meth:`_table`)
        self.shift = np.uint64(0)
        self.at = 0

    def _table(self) -> None:
        bits = max(4, min(16, (8 * len(self.keys) - 1).bit_length()))
        self.shift = np.uint64(64 - bits)
        slots = (self.keys * _MULT[1]) >> self.shift
        slot, first = np.unique(slots, return_index=True)
        self.slot_key = np.zeros(1 << bits, dtype=np.uint64)
        self.slot_code = np.full(1 << bits, -1, dtype=np.int32)
        self.slot_key[slot] = self.keys[first]
        self.slot_code[slot] = self.key_code[first]

    def _seen(self, key: np.ndarray) -> np.ndarray:
        """The code of each key seen before, -1 for the others."""
        h = key * _MULT[1]
        h >>= self.shift
        code = self.slot_code[h]
        code[self.slot_key[h] != key] = -1
        miss = np.flatnonzero(code < 0)
        if len(miss):
            mk = key[miss]
            pos = np.minimum(np.searchsorted(self.keys, mk), len(self.keys) - 1)
            found = self.keys[pos] == mk
            code[miss[found]] = self.key_code[pos[found]]
        return code

    def add(self, b: np.ndarray) -> bool | None:
        """Code the cells ``b`` (``S8`` .. ``S32``); None when the column's texts are mostly
        distinct, over :data:`RAW_TEXTS` of them (the caller keeps bytes instead), False on a
        shared key."""
        nw = b.dtype.itemsize // 8
        w = b.view("<u8").reshape(len(b), nw)
        key = w[:, 0] * _MULT[0]
        for k in range(1, nw):
            key += w[:, k] * _MULT[k]
        if self.words.shape[1] < nw:
            self.words = np.pad(self.words, ((0, 0), (0, nw - self.words.shape[1])))
        W = self.words.shape[1]
        if nw < W:
            w = np.pad(w, ((0, 0), (0, W - nw)))
        if len(self.keys):       # keys seen in earlier windows: no sort
            code = self._seen(key)
            found = code >= 0
            if W > 1 and not (w[found] == self.words[code[found]]).all():
                return False                               # two texts share a key
            rest = np.flatnonzero(~found)
        else:
            code = np.full(len(b), -1, dtype=np.int32)
            rest = np.arange(len(b))
        if len(rest):
            rk = key[rest]
            order = np.argsort(rk, kind="stable")
            sk = rk[order]
            head = np.ones(len(sk), dtype=bool)
            head[1:] = sk[1:] != sk[:-1]
            local = sk[head]                               # the window's new distinct keys
            distinct = len(self.words) + len(local)
            if distinct > RAW_TEXTS and 4 * distinct > self.at + len(b):
                return None                                # mostly distinct texts: keep their bytes
            inv = np.empty(len(rk), dtype=np.intp)
            inv[order] = np.cumsum(head) - 1
            rep = order[head]                              # the first row of each (stable sort)
            rw = w[rest]
            if W > 1 and not (rw == rw[rep][inv]).all():
                return False                               # two texts share a key in this window
            first = np.argsort(rep, kind="stable")         # new texts coded in order of appearance
            newcode = np.empty(len(local), dtype=np.int32)
            newcode[first] = len(self.words) + np.arange(len(local), dtype=np.int32)
            self.words = np.concatenate([self.words, rw[rep[first]]])
            keys = np.concatenate([self.keys, local])
            kc = np.concatenate([self.key_code, newcode])
            o = np.argsort(keys, kind="stable")
            self.keys, self.key_code = keys[o], kc[o]
            self._table()
            code[rest] = newcode[inv]
        self.codes[self.at:self.at + len(b)] = code
        self.at += len(b)
        return True

    def texts(self) -> list[bytes]:
        """The distinct texts' bytes, by code."""
        W = self.words.shape[1]
        return np.ascontiguousarray(self.words).view(f"S{8 * W}").ravel().tolist()

    def cells(self, k: int) -> np.ndarray:
        """The first ``k`` rows' texts as an ``S`` array (each row's bytes)."""
        return np.asarray(self.texts() or [b""])[self.codes[:k]]


_TENS = 10.0 ** np.arange(16)


_DOT, _LOWER, _E = np.uint64(0x2E2E2E2E2E2E2E2E), np.uint64(0x2020202020202020), np.uint64(0x6565656565656565)


def _dots(words: np.ndarray, s: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per cell ``[s, e)``: its number of ``.`` bytes, the position of the dot when it has
    exactly one, and its number of ``e``/``E`` bytes; a word of eight bytes at a time. A cell
    longer than 24 bytes gets no dot (it is not a simple decimal, :func:`_reals`)."""
    n = e - s
    longest = int(n.max()) if len(n) else 0
    ndots = np.zeros(len(s), dtype=np.uint64)
    nexp = np.zeros(len(s), dtype=np.uint64)
    dot = s.astype(np.int64)
    for k in range(-(-min(longest, 24) // 8)):
        w = words[s + 8 * k] & _low_bytes(np.clip(n - 8 * k, 0, 8))
        d = _zero_bytes(w ^ _DOT)
        c = _count(d)
        one = c == 1
        dot[one] += 8 * k + _byte_at(d[one]).astype(np.int64)
        ndots += c
        w |= _LOWER
        w ^= _E
        nexp += _count(_zero_bytes(w))
    if longest > 24:
        ndots[n > 24] = 0
    return ndots, dot, nexp


def _reals(a: np.ndarray, words: np.ndarray, s: np.ndarray, e: np.ndarray, ndots: np.ndarray,
           dot: np.ndarray, nexp: np.ndarray) -> np.ndarray | None:
    """float64 of the number cells ``[s, e)`` of the window ``a`` (``ndots``, ``dot``, ``nexp``:
    :func:`_dots` of these cells), as :func:`~d3mkit.validation.plaincsv.parse_floats` gives them: a cell written
    ``-ddd.ddd`` (one dot, digits on both sides, at most 15 digits) is its digits' integer
    divided by a power of ten (both exact in float64, so the quotient is the correctly
    rounded value); the others (exponents, ...) through ``parse_floats``."""
    simple = (ndots == 1) & (nexp == 0)
    x = np.empty(len(s), dtype=np.float64)
    if simple.any():
        ss, se = s[simple], e[simple]
        d = dot[simple].astype(ss.dtype)                     # each cell's dot
        neg = a[ss] == 45
        s1 = ss + neg
        fl = se - d - 1
        if not ((d > s1).all() and (fl > 0).all() and ((d - s1) + fl).max() <= 15
                and (a[s1] != 45).all() and (a[d + 1] != 45).all()):
            return parse_floats(words, s, e)
        ip = parse_ints(words, s1, d)
        fp = parse_ints(words, d + 1, se) if ip is not None else None
        if fp is None:
            return parse_floats(words, s, e)
        v = (ip * (10 ** fl.astype(np.int64)) + fp).astype(np.float64)
        v /= _TENS[fl]
        np.negative(v, out=v, where=neg)
        x[simple] = v
    if not simple.all():
        rest = parse_floats(words, s[~simple], e[~simple])
        if rest is None:
            return None
        x[~simple] = rest
    return x


class _TextColumn:
    """A text column built window by window: first as codes (:class:`_Coded`, a label
    column's few values); once a window holds mostly distinct or long texts, as the cells'
    bytes (``S`` of the longest cell), sorted once at the end."""

    def __init__(self, rows: int):
        self.coded: _Coded | None = _Coded(rows)
        self.cells: np.ndarray | None = None
        self.rows = rows
        self.at = 0

    def resize(self, rows: int) -> None:
        """Room for ``rows`` rows (the rows added so far kept)."""
        self.rows = rows
        if self.coded is not None:
            self.coded.codes = _resize(self.coded.codes, rows)
        else:
            self.cells = _resize(self.cells, rows)

    def add(self, window: bytes, words: np.ndarray, s: np.ndarray, e: np.ndarray) -> bool:
        n = e - s
        longest = int(n.max()) if len(n) else 0
        if longest > MAX_CELL:
            return False
        b = _fixed(words, s, e) if longest <= 32 else \
            np.array([window[i:j] for i, j in zip(s.tolist(), e.tolist())], dtype=f"S{max(longest, 1)}")
        if self.coded is not None:
            done = self.coded.add(b) if longest <= 32 else None
            if done is False:
                return False
            if done:
                self.at += len(b)
                return True
            seen = self.coded.cells(self.at)
            self.cells = np.zeros(self.rows, dtype=seen.dtype)
            self.cells[:self.at] = seen
            self.coded = None
        if longest > self.cells.dtype.itemsize:           # widen the column, never narrow it
            self.cells = self.cells.astype(f"S{longest}")
        self.cells[self.at:self.at + len(b)] = b
        self.at += len(b)
        return True

    @staticmethod
    def joined(cols: list["_TextColumn"], n: list[int]) -> Texts | None:
        """The column of the first ``n[i]`` rows of each part ``cols[i]``, one after the
        other; None when a text is not UTF-8."""
        if all(c.coded is not None for c in cols):
            index: dict[bytes, int] = {}
            remaps = []
            for c in cols:
                remaps.append(np.asarray([index.setdefault(t, len(index)) for t in c.coded.texts()],
                                         dtype=np.int32))
            codes = [r[c.coded.codes[:k]] if len(r) else c.coded.codes[:k] for c, r, k in zip(cols, remaps, n)]
            for c in cols:
                c.coded = None
            return _coded_column(list(index), codes[0] if len(codes) == 1 else np.concatenate(codes))
        cells = []
        for c, k in zip(cols, n):
            cells.append(c.coded.cells(k) if c.coded is not None else c.cells[:k])
            c.coded = c.cells = None
        return _cells_column(cells[0] if len(cells) == 1 else np.concatenate(cells))


def _coded_column(raw: list[bytes], codes: np.ndarray) -> Texts | None:
    """The :class:`Texts` of ``codes`` into the texts ``raw``: codes into them sorted."""
    order = np.argsort(np.asarray(raw, dtype=object), kind="stable") if raw else np.zeros(0, np.intp)
    rank = np.empty(len(raw), dtype=np.int32)
    rank[order] = np.arange(len(raw), dtype=np.int32)
    codes = rank[codes] if len(raw) else codes
    return _texts(codes, [raw[i] for i in order.tolist()])


def _cells_column(cells: np.ndarray) -> Texts | None:
    """The :class:`Texts` of each row's bytes: kept so when there are many rows (sorted if
    ever asked), else codes into the sorted distinct texts."""
    if len(cells) > RAW_TEXTS:      # many distinct texts: each row's bytes, sorted if ever asked
        return Texts(cells=cells)
    order = np.argsort(cells, kind="stable")
    srt = cells[order]
    first = np.ones(len(srt), dtype=bool)
    first[1:] = srt[1:] != srt[:-1]
    distinct = srt[first].tolist()
    del srt
    codes = np.empty(len(cells), dtype=np.int64)
    codes[order] = np.cumsum(first) - 1
    return _texts(codes, distinct)


def _texts(codes: np.ndarray, distinct: list[bytes]) -> Texts | None:
    """The :class:`Texts` of codes into the sorted distinct texts ``distinct`` (``b""``, an
    empty cell, first when there is one)."""
    try:
        texts = [d.decode("utf-8") for d in distinct]
    except UnicodeDecodeError:     # the survey checked the file; a cut never splits a character
        return None
    empty = 1 if texts and texts[0] == "" else 0      # "" sorts first: an empty cell
    if empty:
        codes -= 1
    return Texts(small_codes(codes, len(texts) - empty), text_cats(texts[empty:]))


class _NotPlain(Exception):
    """The file holds a double quote, a CR, a NUL byte or bytes that are not UTF-8."""


def _plain_windows(fh, step: int = STEP, header: bool = True):
    """The records after the header (all of ``fh`` when ``header`` is False) as blocks of
    whole lines of about ``step`` bytes (:func:`~d3mkit.validation.plaincsv._windows`),
    checked as they are read: :class:`_NotPlain` for a block that holds a double quote, a CR
    or a NUL byte, or a window that is not UTF-8 (a window ends at a newline, so it never
    splits a character). One pass over the file."""
    for window in _windows(fh, step, _check_block, header):
        yield _utf8(window)


def _check_block(block: bytes) -> None:
    if b'"' in block or b"\r" in block or b"\x00" in block:
        raise _NotPlain


#: rows a window holds at the least (by an estimate of 8 bytes a cell): each column costs a
#: few numpy calls per window, so a wide table read in windows of a dozen rows spent most of
#: its time in those calls (1,000 columns x 200 rows: 1.3 CPU s in 17 windows, 0.1 s in one)
WINDOW_ROWS = 1024
#: the largest window a wide table gets (a narrow one stops at STEP)
WIDE_STEP = 16 << 20


def window_bytes(size: int, width: int = 1) -> int:
    """Bytes read per window of a file of ``size`` bytes and ``width`` columns: a sixteenth
    of the file, from 64 KiB to :data:`~d3mkit.validation.plaincsv.STEP` (1 MiB), so that the
    reader's own memory (a few windows) stays a small part of a small file and is bounded for
    a large one; but room for about :data:`WINDOW_ROWS` rows of a wide table (up to
    :data:`WIDE_STEP`).

    >>> window_bytes(10 ** 9), window_bytes(1000), window_bytes(1_400_000, width=1000)
    (1048576, 65536, 8192000)
    """
    narrow = min(STEP, max(1 << 16, size // 16))
    return int(max(narrow, min(WIDE_STEP, width * 8 * WINDOW_ROWS)))


def _utf8(window: bytes) -> bytes:
    if not window.isascii():
        try:
            window.decode("utf-8")
        except UnicodeDecodeError:
            raise _NotPlain from None
    return window


def _resize(a: np.ndarray, n: int, fill=0) -> np.ndarray:
    """``a`` with room for ``n`` rows (a copy when it grows, a view's copy when it shrinks)."""
    if n <= len(a):
        return a[:n].copy() if n < len(a) else a
    out = np.full(n, fill, dtype=a.dtype)
    out[:len(a)] = a
    return out


#: a file at least this large is read in two parts, one in a thread beside the caller's
#: (:func:`d3mkit.beside.beside`): numpy's loops over a window let the interpreter lock go
PARTS_FROM = 8 << 20


def read_plain_columns(path: Path | str, header: list[str], positions: list[int],
                       numeric: dict[str, str]) -> dict | None:
    """The columns at ``positions`` of ``header`` (as :func:`~d3mkit.validation.csvread.read_header`
    read it), keyed by position, or None (see the module docstring). ``numeric`` maps header
    names to ``"integer"`` or ``"real"``. The file is read once; a large one on a machine of
    two cores or more in two parts at a newline near its middle, side by side, joined in
    file order (:func:`_join`). A part's columns are sized from its size and its first
    window's rows (5% over), grown by a quarter if that is short."""
    if len(header) < 2:
        return None
    kinds = {j: numeric.get(header[j]) for j in positions}
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            cut = middle(fh, size) if size >= PARTS_FROM and cpu_count() >= 2 else None
            if cut is None:
                parts = [_scan(fh, size, len(header), kinds, True)]
            else:
                with open(path, "rb") as other, beside(_scan, Span(other, cut, size), size - cut,
                                                       len(header), kinds, False) as job:
                    first = _scan(Span(fh, 0, cut), cut, len(header), kinds, True)
                parts = [first, job.result()]
    except _NotPlain:
        return None
    if any(p is None for p in parts) or sum(p.rows for p in parts) == 0:
        return None                                # not plain, or a header and no rows
    return _join(parts, kinds)


class _Part:
    """The columns of one part of a file, keyed by position: integer values and their empty
    cells' mask, floats, text columns (:class:`_TextColumn`), each with room for at least
    ``rows`` rows, the rows read."""

    def __init__(self):
        self.ints: dict[int, np.ndarray] = {}
        self.ints_na: dict[int, np.ndarray] = {}
        self.floats: dict[int, np.ndarray] = {}
        self.texts: dict[int, _TextColumn] = {}
        self.rows = 0


def _scan(fh, size: int, width: int, kinds: dict[int, str | None], header: bool) -> _Part | None:
    """The columns ``kinds`` (position: ``"integer"``, ``"real"`` or None) of the ``size``
    bytes of ``fh`` (after the header's line when ``header``), or None."""
    part = _Part()
    ints, ints_na, floats, texts = part.ints, part.ints_na, part.floats, part.texts
    positions = list(kinds)
    rows = 0                                       # the room the columns have
    done = 0
    for window in _plain_windows(fh, window_bytes(size, width), header):
        got = len(window)
        window = window + bytes(_PAD)
        buf = np.frombuffer(window, dtype=np.uint8)
        a = buf[:got]
        marks, found = _marks(a, np.int32)
        if a[-1] != 10:
            marks = np.append(marks, np.asarray([got], dtype=marks.dtype))
            found += 1
        if len(marks) != found * width:
            return None                            # a row of another width, or a blank line
        if done + found > rows:
            rows = max(done + found, int(size / max(got / found, 1) * 1.05) + 16 if not rows
                       else int(rows * 1.25) + 16)
            for j in positions:
                if kinds[j] == "integer":
                    ints[j] = _resize(ints.get(j, np.zeros(0, np.int8)), rows)
                    ints_na[j] = _resize(ints_na.get(j, np.zeros(0, bool)), rows)
                elif kinds[j] == "real":
                    floats[j] = _resize(floats.get(j, np.zeros(0)), rows, np.nan)
                elif j in texts:
                    texts[j].resize(rows)
                else:
                    texts[j] = _TextColumn(rows)
        ends = marks[width - 1::width]
        if not (buf[ends] != 44).all():
            return None
        words = _words(buf)
        for j in positions:
            e = marks[j::width]
            s = (np.concatenate(([-1], ends[:-1])).astype(marks.dtype) if j == 0
                 else marks[j - 1::width]) + 1
            if j in texts:
                if not texts[j].add(window, words, s, e):
                    return None
                continue
            full = e > s
            every = bool(full.all())
            cs, ce = (s, e) if every else (s[full], e[full])
            v = (parse_ints(words, cs, ce) if j in ints else
                 _reals(a, words, cs, ce, *_dots(words, cs, ce))) if len(cs) else \
                np.zeros(0, dtype=np.int64 if j in ints else np.float64)
            if v is None:
                return None
            if j in ints:
                if len(v):
                    lo, hi = int(v.min()), int(v.max())
                    if max(-lo, hi) >= _EXACT:
                        return None
                    info = np.iinfo(ints[j].dtype)
                    if lo < info.min or hi > info.max:     # widen the column (kept narrow: a few bytes a row)
                        ints[j] = ints[j].astype(int_dtype(lo, hi))
                target = ints[j][done:done + found]
                if not every:
                    ints_na[j][done:done + found] = ~full
            else:
                target = floats[j][done:done + found]
            if every:
                target[:] = v
            else:
                target[full] = v
        done += found
    part.rows = done
    return part


def _join(parts: list[_Part], kinds: dict[int, str | None]) -> dict | None:
    """The columns of the parts, in file order, keyed by position (a column at a time, each
    part's arrays let go once copied), or None."""
    n = [p.rows for p in parts]
    out: dict = {}
    for j in kinds:
        if j in parts[0].ints:
            values = _cat([p.ints.pop(j) for p in parts], n)
            out[j] = Ints(values, _cat([p.ints_na.pop(j) for p in parts], n))
        elif j in parts[0].floats:
            out[j] = Floats(_cat([p.floats.pop(j) for p in parts], n))
        else:
            col = _TextColumn.joined([p.texts.pop(j) for p in parts], n)
            if col is None:
                return None
            out[j] = col
    return out


def _cat(arrays: list[np.ndarray], n: list[int]) -> np.ndarray:
    """The first ``n[i]`` rows of each array, one after the other (the widest dtype)."""
    if len(arrays) == 1:
        return _resize(arrays[0], n[0])
    return np.concatenate([a[:k] for a, k in zip(arrays, n)])
