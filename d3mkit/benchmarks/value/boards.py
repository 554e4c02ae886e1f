"""Chess board states as data: the 13 square symbols and lossless conversions.

A board is 64 symbols from ``x p P n N b B r R q Q k K`` (``x`` empty, lower case black)
in FEN order: square 0 is a8, square 7 is h8, square 63 is h1. Representations:

* FEN piece placement (``rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR``);
* a 64-character symbol string;
* integer codes in the encoding of the VALUE release (x=0, P=1, N=2, B=3, R=4, Q=5, K=6,
  p=7, n=8, b=9, r=10, q=11, k=12), flat ``(64,)`` or as an 8x8 array whose row 0 is
  rank 8 and column 0 is file a;
* :class:`chess.Board` (python-chess; imported only when used).

Malformed input raises :class:`BoardError` (a ``ValueError``) naming the rank and the
character at fault.

>>> fen = "r1bqk2r/ppppbN1p/2n2np1/4p3/2B1P3/3P4/PPP2PPP/RNBQK2R"
>>> s = fen_to_symbols(fen)
>>> s[:8]
'rxbqkxxr'
>>> symbols_to_fen(s) == fen
True
>>> a = fen_to_array(fen)
>>> a.shape, int(a[0, 0]), int(a[7, 4])
((8, 8), 10, 6)
>>> array_to_fen(a) == fen
True
>>> fen_to_symbols("8/8/8/8/8/8/8/7Z")
Traceback (most recent call last):
...
d3mkit.benchmarks.value.boards.BoardError: rank 1 (field 8 of the FEN): unknown character 'Z' at position 2; expected one of pnbrqkPNBRQK or a digit 1-8
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

#: symbols indexed by their code in the VALUE release encoding
CODE_SYMBOLS = "xPNBRQKpnbrqk"
#: the set P of the paper in its order of presentation
SYMBOLS = "xpPnNbBrRqQkK"
EMPTY = 0
N_CLASSES = 13
START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
EMPTY_FEN = "8/8/8/8/8/8/8/8"

_CODE_OF = {c: i for i, c in enumerate(CODE_SYMBOLS)}
_LUT = np.full(256, 255, dtype=np.uint8)
for _c, _i in _CODE_OF.items():
    _LUT[ord(_c)] = _i
_SYM_BYTES = np.frombuffer(CODE_SYMBOLS.encode(), dtype=np.uint8)


class BoardError(ValueError):
    """A board that is not one: wrong size, unknown symbol or malformed FEN. Where one board
    of many is wrong: ``index`` (its position, from 0), ``square`` (the square, when one is
    named) and ``reason`` (the message without the board's name)."""

    def __init__(self, message: str, *, index: int | None = None, square: str | None = None,
                 reason: str | None = None):
        super().__init__(message)
        self.index, self.square = index, square
        self.reason = message if reason is None else reason


def fen_to_symbols(fen: str) -> str:
    """The 64 symbols of a FEN piece-placement field (a full FEN is cut at its first space).

    >>> fen_to_symbols("8/8/8/8/8/8/8/8") == "x" * 64
    True
    >>> fen_to_symbols("8/8/8/8/8/8/8")
    Traceback (most recent call last):
    ...
    d3mkit.benchmarks.value.boards.BoardError: FEN has 7 ranks, expected 8 separated by '/'
    >>> fen_to_symbols("9/8/8/8/8/8/8/8")
    Traceback (most recent call last):
    ...
    d3mkit.benchmarks.value.boards.BoardError: rank 8 (field 1 of the FEN): unknown character '9' at position 1; expected one of pnbrqkPNBRQK or a digit 1-8
    """
    if not isinstance(fen, str):
        raise BoardError(f"a FEN must be a string, got {type(fen).__name__}")
    placement = fen.strip().split(" ")[0]
    if not placement:
        raise BoardError("FEN is empty")
    ranks = placement.split("/")
    if len(ranks) != 8:
        raise BoardError(f"FEN has {len(ranks)} ranks, expected 8 separated by '/'")
    out = []
    for r, rank in enumerate(ranks):
        where = f"rank {8 - r} (field {r + 1} of the FEN)"
        row = []
        if not rank:
            raise BoardError(f"{where}: empty rank")
        for pos, ch in enumerate(rank, start=1):
            if ch in "12345678":
                row.append("x" * int(ch))
            elif ch in _CODE_OF and ch != "x":
                row.append(ch)
            else:
                raise BoardError(f"{where}: unknown character {ch!r} at position {pos}; "
                                 "expected one of pnbrqkPNBRQK or a digit 1-8")
            width = sum(len(t) for t in row)
            if width > 8:
                raise BoardError(f"{where}: {rank!r} describes more than 8 squares "
                                 f"(character {ch!r} at position {pos} reaches square {width})")
        width = sum(len(t) for t in row)
        if width != 8:
            raise BoardError(f"{where}: {rank!r} describes {width} squares, expected 8")
        out.append("".join(row))
    return "".join(out)


def check_symbols(symbols: str) -> str:
    """``symbols`` if it is 64 characters from P; otherwise a :class:`BoardError`.

    >>> check_symbols("x" * 63)
    Traceback (most recent call last):
    ...
    d3mkit.benchmarks.value.boards.BoardError: a board has 64 squares, got 63 symbols
    """
    if not isinstance(symbols, str):
        raise BoardError(f"a board must be a string of 64 symbols, got {type(symbols).__name__}")
    if len(symbols) != 64:
        raise BoardError(f"a board has 64 squares, got {len(symbols)} symbols")
    for i, ch in enumerate(symbols):
        if ch not in _CODE_OF:
            raise BoardError(f"square {square_name(i)} (symbol {i + 1}): unknown symbol {ch!r}; "
                             f"expected one of {SYMBOLS}")
    return symbols


def square_name(index: int) -> str:
    """Algebraic name of square ``index`` (0 = a8, 63 = h1).

    >>> square_name(0), square_name(7), square_name(56), square_name(63)
    ('a8', 'h8', 'a1', 'h1')
    """
    return "abcdefgh"[index % 8] + str(8 - index // 8)


def symbols_to_fen(symbols: str) -> str:
    """FEN piece placement of 64 symbols.

    >>> symbols_to_fen("x" * 63 + "K")
    '8/8/8/8/8/8/8/7K'
    """
    check_symbols(symbols)
    ranks = []
    for r in range(8):
        row, run = [], 0
        for ch in symbols[8 * r: 8 * r + 8]:
            if ch == "x":
                run += 1
                continue
            if run:
                row.append(str(run))
                run = 0
            row.append(ch)
        if run:
            row.append(str(run))
        ranks.append("".join(row))
    return "/".join(ranks)


def symbols_to_codes(symbols: str) -> np.ndarray:
    """``(64,)`` uint8 codes of 64 symbols (release encoding).

    >>> symbols_to_codes("K" + "x" * 62 + "k")[[0, 63]].tolist()
    [6, 12]
    """
    check_symbols(symbols)
    return _LUT[np.frombuffer(symbols.encode("ascii"), dtype=np.uint8)]


def codes_to_symbols(codes) -> str:
    """64 symbols of ``(64,)`` or ``(8, 8)`` integer codes.

    >>> codes_to_symbols(np.arange(64) % 13)[:13]
    'xPNBRQKpnbrqk'
    """
    a = _check_codes(codes)
    return _SYM_BYTES[a.reshape(64)].tobytes().decode("ascii")


def _check_codes(codes) -> np.ndarray:
    a = np.asarray(codes)
    if a.size != 64 or a.ndim not in (1, 2) or (a.ndim == 2 and a.shape != (8, 8)):
        raise BoardError(f"a board array must have shape (64,) or (8, 8), got {a.shape}")
    if a.dtype.kind not in "iu":
        if a.dtype.kind == "f" and np.all(np.isfinite(a)) and np.all(a == np.round(a)):
            a = a.astype(np.int64)
        else:
            raise BoardError(f"board codes must be integers 0-12, got dtype {a.dtype}")
    bad = np.flatnonzero((a.reshape(64) < 0) | (a.reshape(64) > 12))
    if bad.size:
        i = int(bad[0])
        raise BoardError(f"square {square_name(i)} (row {i // 8}, column {i % 8}): code "
                         f"{int(a.reshape(64)[i])} is not in 0-12")
    return a.astype(np.uint8)


def fen_to_codes(fen: str) -> np.ndarray:
    """``(64,)`` uint8 codes of a FEN placement."""
    return symbols_to_codes(fen_to_symbols(fen))


def fen_to_array(fen: str) -> np.ndarray:
    """8x8 uint8 array (release encoding; row 0 = rank 8, column 0 = file a)."""
    return fen_to_codes(fen).reshape(8, 8)


def array_to_fen(array) -> str:
    """FEN placement of an 8x8 (or flat 64) code array."""
    return symbols_to_fen(codes_to_symbols(array))


def codes_to_fen(codes) -> str:
    return array_to_fen(codes)


def to_chess_board(board):
    """A :class:`chess.Board` (White to move, no castling rights) holding ``board``
    (FEN placement, 64 symbols or a code array).

    >>> to_chess_board(START_FEN).board_fen() == START_FEN
    True
    """
    import chess
    fen = as_fen(board)
    b = chess.Board(None)
    b.set_board_fen(fen)
    return b


def from_chess_board(board) -> str:
    """FEN placement of a :class:`chess.Board` (or :class:`chess.BaseBoard`).

    >>> import chess
    >>> from_chess_board(chess.Board()) == START_FEN
    True
    """
    return board.board_fen()


def as_fen(board) -> str:
    """FEN placement of a board given as FEN, 64 symbols, codes or a python-chess board."""
    if isinstance(board, str):
        if len(board) == 64 and "/" not in board:
            return symbols_to_fen(board)
        return symbols_to_fen(fen_to_symbols(board))
    if hasattr(board, "board_fen"):
        return board.board_fen()
    return array_to_fen(board)


def fens_to_codes(fens: Iterable, *, what: str = "board", labels: Sequence | None = None) -> np.ndarray:
    """``(N, 64)`` uint8 codes of N FEN placements. A bad one raises :class:`BoardError`
    naming it: ``labels[i]`` when given (e.g. ``"row 17"``), else ``"<what> i"`` counted
    from 1.

    >>> fens_to_codes([START_FEN, EMPTY_FEN]).shape
    (2, 64)
    >>> fens_to_codes([START_FEN, "8/8"], what="prediction")
    Traceback (most recent call last):
    ...
    d3mkit.benchmarks.value.boards.BoardError: prediction 2 '8/8': FEN has 2 ranks, expected 8 separated by '/'
    """
    fens = list(fens)
    out = np.empty((len(fens), 64), dtype=np.uint8)
    cache: dict[str, np.ndarray] = {}
    for i, f in enumerate(fens):
        got = cache.get(f) if isinstance(f, str) else None
        if got is None:
            try:
                got = fen_to_codes(f)
            except BoardError as exc:
                name = str(labels[i]) if labels is not None else f"{what} {i + 1}"
                shown = f" {f!r}" if isinstance(f, str) else ""
                raise BoardError(f"{name}{shown}: {exc}", index=i, reason=str(exc)) from None
            if isinstance(f, str):
                cache[f] = got
        out[i] = got
    return out


def codes_to_fens(codes) -> list[str]:
    """FEN placements of ``(N, 64)`` (or ``(N, 8, 8)``) codes."""
    a = np.asarray(codes).reshape(len(codes), 64)
    return [array_to_fen(row) for row in a]


def piece_count(codes) -> np.ndarray:
    """Non-empty squares per board (``|y|`` of the paper) of ``(N, 64)`` codes.

    >>> piece_count(fens_to_codes([START_FEN, EMPTY_FEN])).tolist()
    [32, 0]
    """
    return (np.asarray(codes) != EMPTY).sum(axis=-1)
