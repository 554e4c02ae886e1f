"""Validation's reading of a plain CSV file (no double quote, no CR, no NUL; UTF-8) with
numpy, without pandas: the columns of :mod:`d3mkit.validation.tablecols`, exactly as the
general reader (:func:`d3mkit.validation.csvread.read_csv_checked`, pandas' C parser) gives
them, or None when the file is not one this reader reads exactly; then the general reader
reads it and gives every message.

The file is split with the tokenizer of :mod:`d3mkit.validation.plaincsv` (a survey, then
windows of whole lines of about 1 MiB: the memory beyond the columns is a few windows).
Every record must have the header's width and no line may be blank (else None: the general
reader reports or skips them). Per column:

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

from d3mkit.validation.plaincsv import STEP, _PAD, _fixed, _marks, _windows, _words, parse_floats, parse_ints
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
    merged (:meth:`add` is False; the file goes to the general reader)."""

    def __init__(self, rows: int):
        self.codes = np.zeros(rows, dtype=np.int32)
        self.keys = np.zeros(0, dtype=np.uint64)       # distinct keys, sorted
        self.key_code = np.zeros(0, dtype=np.int32)    # ... and the code of each
        self.words = np.zeros((0, 1), dtype=np.uint64)  # per code, its text's words
        self.at = 0

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
        code = np.full(len(b), -1, dtype=np.int32)
        if len(self.keys):       # keys seen in earlier windows: a binary search, no sort
            pos = np.minimum(np.searchsorted(self.keys, key), len(self.keys) - 1)
            found = self.keys[pos] == key
            code[found] = self.key_code[pos[found]]
            if W > 1 and not (w[found] == self.words[code[found]]).all():
                return False                               # two texts share a key
            rest = np.flatnonzero(~found)
        else:
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
            code[rest] = newcode[inv]
        self.codes[self.at:self.at + len(b)] = code
        self.at += len(b)
        return True

    def texts(self) -> list[bytes]:
        """The distinct texts' bytes, by code."""
        W = self.words.shape[1]
        return np.ascontiguousarray(self.words).view(f"S{8 * W}").ravel().tolist()


_TENS = 10.0 ** np.arange(16)


def _dots(a: np.ndarray, marks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per cell of a window (the cells end at ``marks``, row by row): its number of ``.``
    bytes, the position of one of them, and its number of ``e``/``E`` bytes."""
    at = np.flatnonzero(a == 46)
    cell = np.searchsorted(marks, at)
    where = np.zeros(len(marks), dtype=marks.dtype)
    where[cell] = at
    exp = np.searchsorted(marks, np.flatnonzero((a | 0x20) == 101))
    return np.bincount(cell, minlength=len(marks)), where, np.bincount(exp, minlength=len(marks))


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
            texts = np.asarray(self.coded.texts() or [b""])
            self.cells = np.zeros(self.rows, dtype=texts.dtype)
            self.cells[:self.at] = texts[self.coded.codes[:self.at]]
            self.coded = None
        if longest > self.cells.dtype.itemsize:           # widen the column, never narrow it
            self.cells = self.cells.astype(f"S{longest}")
        self.cells[self.at:self.at + len(b)] = b
        self.at += len(b)
        return True

    def column(self) -> Texts | None:
        if self.coded is not None:
            raw, codes = self.coded.texts(), self.coded.codes
            self.coded = None
            order = np.argsort(np.asarray(raw, dtype=object), kind="stable") if raw else np.zeros(0, np.intp)
            rank = np.empty(len(raw), dtype=np.int32)
            rank[order] = np.arange(len(raw), dtype=np.int32)
            codes = rank[codes] if len(raw) else codes
            distinct = [raw[i] for i in order.tolist()]
        else:
            cells, self.cells = self.cells, None
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
            del order, first, cells
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


def _plain_windows(fh, step: int = STEP):
    """The records after the header as blocks of whole lines of about ``step`` bytes
    (:func:`~d3mkit.validation.plaincsv._windows`), checked as they are read:
    :class:`_NotPlain` for a block that holds a double quote, a CR or a NUL byte, or a window
    that is not UTF-8 (a window ends at a newline, so it never splits a character). One pass
    over the file."""
    for window in _windows(fh, step, _check_block):
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


def read_plain_columns(path: Path | str, header: list[str], positions: list[int],
                       numeric: dict[str, str]) -> dict | None:
    """The columns at ``positions`` of ``header`` (as :func:`~d3mkit.validation.csvread.read_header`
    read it), keyed by position, or None (see the module docstring). ``numeric`` maps header
    names to ``"integer"`` or ``"real"``. The file is read once; the columns are sized from
    the file's size and the first window's rows (5% over), grown by a quarter if that is
    short, and cut to the rows read at the end."""
    width = len(header)
    if width < 2:
        return None
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            return _read(fh, size, header, positions, numeric)
    except _NotPlain:
        return None


def _read(fh, size: int, header: list[str], positions: list[int], numeric: dict[str, str]) -> dict | None:
    width = len(header)
    kinds = {j: numeric.get(header[j]) for j in positions}
    ints: dict[int, np.ndarray] = {}
    ints_na: dict[int, np.ndarray] = {}
    floats: dict[int, np.ndarray] = {}
    texts: dict[int, _TextColumn] = {}
    rows = 0                                       # the room the columns have
    done = 0
    for window in _plain_windows(fh, window_bytes(size, width)):
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
        dots = _dots(a, marks) if floats else None
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
            if j in floats:
                per = [x[j::width] if every else x[j::width][full] for x in dots]
            v = (parse_ints(words, cs, ce) if j in ints else _reals(a, words, cs, ce, *per)) if len(cs) else \
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
    if done == 0:
        return None                                # a header and no rows
    out: dict = {}
    for j in positions:
        if j in ints:
            out[j] = Ints(_resize(ints.pop(j), done), _resize(ints_na.pop(j), done))
        elif j in floats:
            out[j] = Floats(_resize(floats.pop(j), done))
        else:
            texts[j].resize(done)
            col = texts.pop(j).column()
            if col is None:
                return None
            out[j] = col
    return out
