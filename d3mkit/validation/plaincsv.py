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
from pathlib import Path

import numpy as np

from d3mkit.validation.columns import Categorical, code_dtype

STEP = 1 << 20           # bytes read and split per numpy step (bounds the temporaries)
MAX_TEXT = 32            # text cells longer than this send the file to the general reader
_PAD = 32                # zero bytes after the data, so an 8-byte load never runs past it
_LO = np.uint64(0x3030303030303030)


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


_MULTIPLIERS = [_U(m) for m in (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                                 0xD6E8FEB86659FD93, 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53,
                                 0x27D4EB2F165667C5, 0x94D049BB133111EB)]   # odd 64-bit constants


def _small_codes(key: np.ndarray, distinct: np.ndarray) -> np.ndarray | None:
    """Each key's position in ``distinct`` (sorted, few) through a table indexed by a
    multiplicative hash that is one-to-one on ``distinct``; None when no such hash is
    found quickly (then a binary search does it)."""
    k = len(distinct)
    if k == 0 or k > 1024:
        return None
    bits = min(20, max(4, int(2 * k * k).bit_length()))
    shift = _U(64 - bits)
    for mult in _MULTIPLIERS:
        slots = (distinct * mult) >> shift
        ordered = np.sort(slots)
        if not (ordered[1:] == ordered[:-1]).any():
            table = np.zeros(1 << bits, dtype=np.intp)
            table[slots] = np.arange(k)
            h = key * mult
            h >>= shift
            return table[h]
    return None


_NUMBER_BYTES = np.zeros(256, dtype=bool)
_NUMBER_BYTES[list(b"0123456789.eE+-")] = True
_NUMBER_BYTES[0] = True                   # the padding of a fixed-width cell


def _fixed(words: np.ndarray, s: np.ndarray, e: np.ndarray) -> np.ndarray | None:
    """The cells ``[s, e)`` as a numpy bytes array (``S8`` to ``S32``: no cell holds a zero
    byte, so the padding is exact), or None when one is longer than :data:`MAX_TEXT`."""
    n = e - s
    longest = int(n.max()) if len(n) else 0
    if longest > MAX_TEXT:
        return None
    nw = max(1, -(-longest // 8))
    m = np.empty((len(s), nw), dtype="<u8")
    for k in range(nw):
        m[:, k] = words[s + 8 * k] & _low_bytes(np.clip(n - 8 * k, 0, 8))
    return m.view(f"S{8 * nw}").ravel()


def parse_floats(words: np.ndarray, s: np.ndarray, e: np.ndarray) -> np.ndarray | None:
    """float64 of the cells ``[s, e)``, or None unless every cell is a finite number written
    with digits, ``.``, ``e``/``E`` and signs only (what pandas and numpy read alike)."""
    b = _fixed(words, s, e)
    if b is None or not len(b) or (e - s).min() < 1:
        return None
    if not _NUMBER_BYTES[b.view(np.uint8)].all():
        return None
    try:
        with np.errstate(all="ignore"):
            x = b.astype(np.float64)
    except ValueError:
        return None
    return x if np.isfinite(x).all() else None


def text_cells(buf: bytearray, words: np.ndarray, s: np.ndarray, e: np.ndarray, ascii: bool) -> np.ndarray:
    """The cells ``[s, e)`` as an object array of strings."""
    b = _fixed(words, s, e) if ascii else None
    if b is not None:
        return b.astype("U").astype(object)
    out = np.empty(len(s), dtype=object)
    out[:] = [buf[i:j].decode("utf-8") for i, j in zip(s.tolist(), e.tolist())]
    return out


class _Texts:
    """A text column built window by window: each cell's code into the distinct texts in
    order of first appearance (:meth:`add`), sorted at the end (:meth:`categorical`). A
    cell of at most 8 bytes is its own key (its bytes, zero-padded: no cell holds a zero
    byte); longer ones (up to :data:`MAX_TEXT`) are hashed, and every row is checked
    against its key's text, so two texts sharing a key are never merged."""

    def __init__(self, rows: int):
        self.codes = np.zeros(rows, dtype=np.int8)   # widened as the distinct texts grow
        self.texts: list[str] = []
        self.by_key: dict[int, int] = {}
        self.at = 0

    def add(self, buf: bytes, words: np.ndarray, s: np.ndarray, e: np.ndarray) -> bool:
        """Code the cells ``[s, e)`` of ``buf``; False when a cell is too long, two texts
        share a key, or a window holds mostly distinct texts (free text, which the general
        reader hashes faster than a Python loop over the distinct values)."""
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
        if len(distinct) > 4096 and 4 * len(distinct) > len(s):
            return False          # mostly distinct texts: pandas' parser hashes them faster
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
        if code_dtype(len(self.texts)) != self.codes.dtype:
            self.codes = self.codes.astype(code_dtype(len(self.texts)))
        self.codes[self.at:self.at + len(s)] = glob[local]
        self.at += len(s)
        return True

    def categorical(self) -> Categorical:
        texts = np.empty(len(self.texts), dtype=object)
        texts[:] = self.texts
        order = np.argsort(texts.astype(str), kind="stable") if len(texts) else np.zeros(0, np.intp)
        remap = np.empty(len(order), dtype=self.codes.dtype)
        remap[order] = np.arange(len(order))
        return Categorical(remap[self.codes], texts[order])


def _survey(fh) -> tuple[int, bool, bool] | None:
    """The first pass over a file: ``(newlines, ends with a newline, ASCII)``, or None when
    it holds a double quote, a CR or a NUL byte, or bytes that are not UTF-8."""
    newlines, ascii, last = 0, True, b""
    dec = codecs.getincrementaldecoder("utf-8")()
    try:
        for block in iter(lambda: fh.read(STEP), b""):
            if b'"' in block or b"\r" in block or b"\x00" in block:
                return None
            newlines += block.count(b"\n")
            ascii = ascii and block.isascii()
            if not ascii:
                dec.decode(block)
            last = block[-1:]
        dec.decode(b"", final=True)
    except UnicodeDecodeError:
        return None
    return newlines, last == b"\n", ascii


def _windows(fh, step: int = STEP, check=None, header: bool = True):
    """The records after the header (all of ``fh`` when ``header`` is False: a part of a
    file that starts at a record), as blocks of whole lines of about ``step`` bytes (the
    last may lack its newline); ``check(block)``, when given, sees each block as it is read
    (and may raise)."""
    carry = b""
    for block in iter(lambda: fh.read(step), b""):
        if check is not None:
            check(block)
        data = carry + block
        if header:
            cut = data.find(b"\n") + 1
            if cut == 0:
                carry = data
                continue
            data, header = data[cut:], False
        cut = data.rfind(b"\n") + 1
        if cut:
            yield data[:cut]
        carry = data[cut:]
    if carry and not header:
        yield carry


def read_plain(path: Path | str, header: list[str], cols: list[str], int_cols=(), category_cols=(),
               float_cols=()) -> dict | None:
    """The columns ``cols`` of a plain CSV file whose header is ``header`` (as
    :func:`d3mkit.validation.csvread.read_header` read it), in file order, or None when the
    file is not one this tokenizer reads exactly (see the module docstring). ``int_cols``
    become int64 when every cell is an integer, ``float_cols`` float64 when every cell is a
    finite number (:func:`parse_floats`), ``category_cols`` :class:`Categorical`, every other
    column (and any of those that does not parse) an object array of strings. The file is
    read twice in blocks of :data:`STEP` bytes (a survey, then the parse), so the memory
    beyond the columns is a few blocks."""
    width = len(header)
    if width < 2:
        return None
    with open(path, "rb") as fh:
        survey = _survey(fh)
        if survey is None:
            return None
        newlines, final_newline, ascii = survey
        rows = newlines - 1 + (not final_newline)
        if newlines == 0 or rows <= 0:
            return None
        fh.seek(0)
        wanted = [(j, name) for j, name in enumerate(header) if name in cols]
        ints = {name: np.zeros(rows, dtype=np.int64) for _, name in wanted if name in int_cols}
        floats = {name: np.zeros(rows) for _, name in wanted if name in float_cols and name not in ints}
        texts = {name: _Texts(rows) for _, name in wanted if name in category_cols and name not in ints}
        strings = {name: np.empty(rows, dtype=object) for _, name in wanted
                   if name not in ints and name not in floats and name not in texts}
        done = 0
        for window in _windows(fh):
            got = len(window)
            window = window + bytes(_PAD)         # zero-padded: 8-byte loads stay inside
            buf = np.frombuffer(window, dtype=np.uint8)
            a = buf[:got]
            marks, found = _marks(a, np.int32)
            if a[-1] != 10:                       # the last record has no newline: it ends at the end
                marks = np.append(marks, np.asarray([got], dtype=marks.dtype))
                found += 1
            if len(marks) != found * width or done + found > rows:
                return None                       # a row of another width, or a blank line
            ends = marks[width - 1::width]
            if not (buf[ends] != 44).all():
                return None
            words = _words(buf)
            for j, name in wanted:
                e = marks[j::width]
                s = (np.concatenate(([-1], ends[:-1])).astype(marks.dtype) if j == 0
                     else marks[j - 1::width]) + 1
                if name in ints or name in floats:
                    v = parse_ints(words, s, e) if name in ints else parse_floats(words, s, e)
                    if v is None:                 # not all numbers: read again with the column as text
                        return read_plain(path, header, cols, tuple(c for c in int_cols if c != name),
                                          category_cols, tuple(c for c in float_cols if c != name))
                    (ints if name in ints else floats)[name][done:done + len(v)] = v
                elif name in texts:
                    if not texts[name].add(window, words, s, e):
                        return None
                else:
                    strings[name][done:done + len(s)] = text_cells(window, words, s, e, ascii)
            done += found
    if done != rows:
        return None
    return {name: texts[name].categorical() if name in texts else
            ints.get(name, floats.get(name, strings.get(name))) for _, name in wanted}
