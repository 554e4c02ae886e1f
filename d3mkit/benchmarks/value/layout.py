"""How a VALUE board is laid out in D3M tables: 64 square columns, or one FEN column.

The task roots ``d3mkit build value`` writes have 64 categorical targets, one per square,
named ``a8, b8, ..., h8, a7, ..., h1`` (:data:`SQUARES`, FEN reading order, so column j is
square j of :mod:`.boards`), each holding one of the 13 symbols ``x p P n N b B r R q Q k K``
(``x`` empty, lower case black). That is the paper's task (64 classifications over 13
symbols) in a form a generic AutoML classifier can learn. People also keep boards as one
FEN piece placement per row (``_debug/boards.csv``, FEN prediction files); every reader
here accepts both:

* :func:`table_to_codes` - ``(N, 64)`` codes from N rows of values with their column
  names: the 64 square columns in any order, or one FEN column;
* :func:`codes_to_columns` - the 64 square columns of ``(N, 64)`` codes;
* :func:`frame_to_codes` - the boards of a DataFrame (square columns if it has all 64,
  else a FEN column).

A bad value is a :class:`~.boards.BoardError` naming the row (``labels[i]``, e.g.
``"d3mIndex 17"``) and the square.

>>> import numpy as np
>>> from d3mkit.benchmarks.value.boards import START_FEN, fens_to_codes
>>> codes = fens_to_codes([START_FEN])
>>> cols = codes_to_columns(codes)
>>> list(cols)[:3], cols["e1"], cols["e8"]
(['a8', 'b8', 'c8'], ['K'], ['k'])
>>> values = np.array([[cols[s][0] for s in SQUARES]], dtype=object)
>>> bool((table_to_codes(values, SQUARES) == codes).all())
True
>>> bool((table_to_codes(np.array([[START_FEN]], dtype=object), ["board"]) == codes).all())
True
>>> table_to_codes(np.array([["K"] * 64], dtype=object)[:, ::-1][:, :63], SQUARES[:63])
Traceback (most recent call last):
...
d3mkit.benchmarks.value.boards.BoardError: a board is 64 square columns (a8 ... h1) or one FEN column; got 63 columns
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from d3mkit.benchmarks.value.boards import (CODE_SYMBOLS, SYMBOLS, BoardError, fens_to_codes,
                                            square_name)

#: the 64 square target names in FEN reading order (index j = square j: a8 ... h8, ..., h1)
SQUARES = tuple(square_name(i) for i in range(64))
#: the FEN placement column of ``_debug/boards.csv`` and of FEN prediction files
FEN_COLUMN = "board"
_INDEX = {s: i for i, s in enumerate(SQUARES)}
_CODE = {c: i for i, c in enumerate(CODE_SYMBOLS)}


def is_square_layout(names: Sequence[str]) -> bool:
    """True when ``names`` are exactly the 64 square names (any order).

    >>> is_square_layout(SQUARES[::-1]), is_square_layout(["board"])
    (True, False)
    """
    return len(names) == 64 and set(names) == set(SQUARES)


def codes_to_columns(codes) -> dict[str, list[str]]:
    """``{square: [symbol per board]}`` for the 64 squares of ``(N, 64)`` codes."""
    a = np.asarray(codes).reshape(-1, 64)
    sym = np.frombuffer(CODE_SYMBOLS.encode(), dtype=np.uint8)[a]
    return {s: list(sym[:, j].tobytes().decode("ascii")) for j, s in enumerate(SQUARES)}


def _labels(n: int, labels, what: str) -> list[str]:
    return [str(x) for x in labels] if labels is not None else [f"{what} {i + 1}" for i in range(n)]


def squares_to_codes(values, names: Sequence[str], *, labels: Sequence | None = None,
                     what: str = "board") -> np.ndarray:
    """``(N, 64)`` codes of ``(N, 64)`` symbols whose columns are the squares ``names``."""
    a = np.asarray(values, dtype=object)
    order = [_INDEX[str(n)] for n in names]
    out = np.empty((len(a), 64), dtype=np.uint8)
    for j, sq in enumerate(order):
        col = a[:, j]
        codes = [_CODE.get(v, 255) if isinstance(v, str) else 255 for v in col]
        out[:, sq] = codes
        bad = [i for i, c in enumerate(codes) if c == 255]
        if bad:
            i = bad[0]
            lab = _labels(len(a), labels, what)[i]
            reason = f"{col[i]!r} is not a square symbol (one of {SYMBOLS}; x is empty)"
            raise BoardError(f"{lab}, square {SQUARES[sq]}: {reason}", index=i, square=SQUARES[sq], reason=reason)
    return out


def table_to_codes(values, names: Sequence[str] | None = None, *, labels: Sequence | None = None,
                   what: str = "board") -> np.ndarray:
    """``(N, 64)`` codes of N rows holding boards: 64 square columns (named ``names``, any
    order; in :data:`SQUARES` order when ``names`` is None) or one FEN column."""
    a = np.asarray(values, dtype=object)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2:
        raise BoardError(f"boards must be a table of rows, got shape {a.shape}")
    if a.shape[1] == 1:
        fens = [str(v) if v is not None else "" for v in a[:, 0]]
        return fens_to_codes(fens, what=what, labels=labels)
    if a.shape[1] == 64:
        names = list(SQUARES) if names is None else [str(n) for n in names]
        if not is_square_layout(names):
            odd = [n for n in names if n not in _INDEX][:3]
            raise BoardError(f"64 board columns must be named a1 ... h8, each once (got {odd or 'repeats'})")
        return squares_to_codes(a, names, labels=labels, what=what)
    raise BoardError(f"a board is 64 square columns (a8 ... h1) or one FEN column; got {a.shape[1]} columns")


def frame_to_codes(df, *, labels: Sequence | None = None, column: str | None = None,
                   what: str = "board") -> np.ndarray:
    """``(N, 64)`` codes of a DataFrame's boards: its 64 square columns when it has them
    all, else the FEN ``column`` (default ``board``)."""
    if column is None and all(s in df.columns for s in SQUARES):
        return squares_to_codes(df[list(SQUARES)].to_numpy(dtype=object), SQUARES, labels=labels, what=what)
    col = column or FEN_COLUMN
    if col not in df.columns:
        raise BoardError(f"no board columns: neither the 64 squares a1 ... h8 nor a FEN column {col!r}")
    return table_to_codes(df[[col]].to_numpy(dtype=object), [col], labels=labels, what=what)
