"""The VALUE sanity rules (paper eq. 2), checked on N boards at once.

For each colour (black shown; white the same with upper case):

====  ==========  =====================================================================
rule  kind        statement
====  ==========  =====================================================================
i     counting    exactly one king: ``|k| = 1``
ii    localizing  no k on a square adjacent to a K (one flag per board, not per colour)
iii   counting    ``|p|+|q|+|n|+|b|+|r| <= 15``
iv    counting    ``|p| <= 8``
v     localizing  no p on rank 1 or rank 8
vi    counting    ``|p| = 8`` implies ``|q|<=1, |b|<=2, |n|<=2, |r|<=2``
vii   counting    ``|p| < 8`` implies ``max(0,|q|-1)+max(0,|b|-2)+max(0,|n|-2)+max(0,|r|-2) <= 8-|p|``
viii  localizing  ``|p| = 8`` and ``|b| = 2`` implies the two b stand on squares of different colour
====  ==========  =====================================================================

:func:`check` returns an ``(N, 15)`` boolean array, True where a board violates a
(rule, colour); the columns are :data:`FLAGS`. Everything else (sane, violation counts,
per-rule and counting/localizing frequencies) is derived from that one array. No Python
loop runs per board.

Two ways to count "the number of rule violations" of eq. 7 (muC):

* flags (:func:`violation_counts`): how many of the 15 (rule, colour) yes/no flags a
  board violates - d3mkit's reading of the paper's text;
* severity (:func:`severity`, ``(N, 8)`` per rule): how the authors' released analysis
  (``Rules.analyze`` in their baselines' ``utils/rule.py``) counts - every missing or
  extra king, every adjacent pair among all kings, every piece of a colour beyond 16,
  every pawn beyond 8, every pawn on rank 1 or 8, every extra promoted piece (rules vi and
  vii) adds one; rule viii adds one per colour. This is the count whose means fit Table
  1's muC and the magnitudes of eq. 8's adjusted likelihoods (Fig. 3).

>>> from d3mkit.benchmarks.value.boards import fens_to_codes, START_FEN
>>> flags = check(fens_to_codes([START_FEN, "8/8/8/8/8/8/8/8", "8/8/8/8/8/8/8/kK6"]))
>>> sane(flags).tolist()
[True, False, False]
>>> violated(flags, 1), violated(flags, 2)
(['i/black', 'i/white'], ['ii'])
"""

from __future__ import annotations

import numpy as np

from d3mkit.benchmarks.value.boards import BoardError

RULES = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii")
COUNTING = ("i", "iii", "iv", "vi", "vii")
LOCALIZING = ("ii", "v", "viii")
#: the 15 (rule, colour) flags in column order; rule ii is one flag per board
FLAGS = ("i/black", "i/white", "ii", "iii/black", "iii/white", "iv/black", "iv/white",
         "v/black", "v/white", "vi/black", "vi/white", "vii/black", "vii/white",
         "viii/black", "viii/white")
FLAG_RULE = tuple(f.split("/")[0] for f in FLAGS)
RULE_TEXT = {
    "i": "exactly one king",
    "ii": "kings not on adjacent squares",
    "iii": "at most 15 pieces besides the king",
    "iv": "at most 8 pawns",
    "v": "no pawn on rank 1 or 8",
    "vi": "8 pawns: at most 1 queen, 2 bishops, 2 knights, 2 rooks",
    "vii": "fewer than 8 pawns: promoted extras <= missing pawns",
    "viii": "8 pawns and 2 bishops: bishops on different colours",
}

# codes (release encoding): white P N B R Q K = 1..6, black p n b r q k = 7..12
WHITE = {"p": 1, "n": 2, "b": 3, "r": 4, "q": 5, "k": 6}
BLACK = {"p": 7, "n": 8, "b": 9, "r": 10, "q": 11, "k": 12}
# dark squares: a1 (row 7, column 0) is dark, so (row + column) odd
_DARK = ((np.arange(64) // 8 + np.arange(64) % 8) % 2 == 1)
BACK_RANKS = (np.arange(64) < 8) | (np.arange(64) >= 56)
_DARK_IDX = np.flatnonzero(_DARK)
_BACK_IDX = np.flatnonzero(BACK_RANKS)
CHUNK = 1 << 16          # boards per pass (bounds the temporary arrays)


def as_codes(boards) -> np.ndarray:
    """``(N, 64)`` integer codes from ``(N, 64)`` or ``(N, 8, 8)`` input (checked)."""
    a = np.asarray(boards)
    if a.ndim == 3 and a.shape[1:] == (8, 8):
        a = a.reshape(len(a), 64)
    if a.ndim != 2 or a.shape[1] != 64:
        raise BoardError(f"boards must have shape (N, 64) or (N, 8, 8), got {a.shape}")
    if a.dtype.kind not in "iu":
        raise BoardError(f"board codes must be integers 0-12, got dtype {a.dtype}")
    if a.size and (a.min() < 0 or a.max() > 12):
        bad = np.argwhere((a < 0) | (a > 12))[0]
        raise BoardError(f"board {bad[0] + 1}, square index {bad[1]}: code {int(a[bad[0], bad[1]])} "
                         "is not in 0-12")
    return a


def counts(codes: np.ndarray) -> np.ndarray:
    """``(N, 13)`` number of squares holding each code.

    >>> counts(np.array([[0] * 62 + [6, 12]])).tolist()[0][6::6]
    [1, 1]
    """
    return np.stack([np.count_nonzero(codes == c, axis=1) for c in range(13)], axis=1)


def _adjacent(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per board: some True of ``a`` (N, 8, 8) is a king-move away from a True of ``b``."""
    n = len(b)
    pad = np.zeros((n, 10, 10), dtype=bool)
    pad[:, 1:9, 1:9] = b
    near = np.zeros((n, 8, 8), dtype=bool)
    for dr in (0, 1, 2):
        for dc in (0, 1, 2):
            if dr == 1 and dc == 1:
                continue
            near |= pad[:, dr:dr + 8, dc:dc + 8]
    return (a & near).reshape(n, 64).any(axis=1)


def _colour_flags(codes, c, side, back, dark) -> list[np.ndarray]:
    p, n, b, r, q, k = (c[:, side[x]] for x in "pnbrqk")
    f_i = k != 1
    f_iii = (p + q + n + b + r) > 15
    f_iv = p > 8
    f_v = (back == side["p"]).any(axis=1)
    f_vi = (p == 8) & ((q > 1) | (b > 2) | (n > 2) | (r > 2))
    excess = (np.maximum(0, q - 1) + np.maximum(0, b - 2) + np.maximum(0, n - 2)
              + np.maximum(0, r - 2))
    f_vii = (p < 8) & (excess > 8 - p)
    dark_b = np.count_nonzero(dark == side["b"], axis=1)
    f_viii = (p == 8) & (b == 2) & (dark_b != 1)
    return [f_i, f_iii, f_iv, f_v, f_vi, f_vii, f_viii]


def check(boards) -> np.ndarray:
    """``(N, 15)`` bool: True where board n violates flag j (columns :data:`FLAGS`).

    >>> from d3mkit.benchmarks.value.boards import fens_to_codes
    >>> f = check(fens_to_codes(["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
    ...                          "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNP"]))
    >>> f.sum(axis=1).tolist()
    [0, 2]
    >>> violated(f, 1)
    ['iv/white', 'v/white']
    """
    codes = as_codes(boards)
    n = len(codes)
    if n == 0:
        return np.zeros((0, len(FLAGS)), dtype=bool)
    if n > CHUNK:
        return np.concatenate([check(codes[i:i + CHUNK]) for i in range(0, n, CHUNK)])
    c = counts(codes)
    back, dark = codes[:, _BACK_IDX], codes[:, _DARK_IDX]
    black = _colour_flags(codes, c, BLACK, back, dark)
    white = _colour_flags(codes, c, WHITE, back, dark)
    grid = codes.reshape(n, 8, 8)
    f_ii = _adjacent(grid == BLACK["k"], grid == WHITE["k"])
    cols = [black[0], white[0], f_ii]
    for j in range(1, 7):
        cols += [black[j], white[j]]
    return np.column_stack(cols)


def sane(flags: np.ndarray) -> np.ndarray:
    """``(N,)`` True where a board violates no rule."""
    return ~np.asarray(flags).any(axis=1)


def violation_counts(flags: np.ndarray) -> np.ndarray:
    """``(N,)`` number of violated (rule, colour) flags per board (0-15)."""
    return np.asarray(flags).sum(axis=1)


def by_rule(flags: np.ndarray) -> np.ndarray:
    """``(N, 8)`` True where a board violates rule R for either colour (columns :data:`RULES`)."""
    f = np.asarray(flags)
    return np.column_stack([f[:, [j for j, r in enumerate(FLAG_RULE) if r == rule]].any(axis=1)
                            for rule in RULES]) if len(f) else np.zeros((0, len(RULES)), bool)


def by_kind(flags: np.ndarray) -> dict[str, np.ndarray]:
    """``{"counting": (N,), "localizing": (N,)}``: violates any rule of that kind."""
    r = by_rule(flags)
    return {"counting": r[:, [RULES.index(x) for x in COUNTING]].any(axis=1),
            "localizing": r[:, [RULES.index(x) for x in LOCALIZING]].any(axis=1)}


def violated(flags: np.ndarray, row: int) -> list[str]:
    """Names of the flags board ``row`` violates."""
    return [FLAGS[j] for j in np.flatnonzero(np.asarray(flags)[row])]


def severity(boards) -> np.ndarray:
    """``(N, 8)`` integer severity per rule (columns :data:`RULES`), counted as the
    authors' released ``Rules.analyze`` counts (see the module docstring).

    >>> from d3mkit.benchmarks.value.boards import fens_to_codes, START_FEN
    >>> severity(fens_to_codes([START_FEN])).tolist()
    [[0, 0, 0, 0, 0, 0, 0, 0]]
    >>> severity(fens_to_codes(["kKK5/8/8/8/8/8/8/P6P"])).tolist()   # 2 white kings in a row
    [[1, 2, 0, 0, 2, 0, 0, 0]]
    """
    codes = as_codes(boards)
    n = len(codes)
    out = np.zeros((n, len(RULES)), dtype=np.int64)
    if n == 0:
        return out
    if n > CHUNK:
        return np.concatenate([severity(codes[i:i + CHUNK]) for i in range(0, n, CHUNK)])
    c = counts(codes).astype(np.int64)
    for side in (BLACK, WHITE):
        p, nn, b, r, q, k = (c[:, side[x]] for x in "pnbrqk")
        pieces = c[:, list(side.values())].sum(axis=1)
        out[:, 0] += np.abs(k - 1)
        out[:, 2] += np.maximum(0, pieces - 16)
        out[:, 3] += np.maximum(0, p - 8)
        extra = (np.maximum(0, q - 1) + np.maximum(0, b - 2) + np.maximum(0, nn - 2)
                 + np.maximum(0, r - 2))
        out[:, 5] += np.where(p == 8, extra, 0)
        out[:, 6] += np.where(p < 8, np.maximum(0, extra - (8 - p)), 0)
        dark_b = np.count_nonzero(codes[:, _DARK_IDX] == side["b"], axis=1)
        out[:, 7] += (p == 8) & (b == 2) & (dark_b != 1)
    back = codes[:, _BACK_IDX]
    out[:, 4] = np.count_nonzero((back == BLACK["p"]) | (back == WHITE["p"]), axis=1)
    grid = codes.reshape(n, 8, 8)
    kings = (grid == BLACK["k"]) | (grid == WHITE["k"])
    pad = np.zeros((n, 10, 10), dtype=np.int64)
    pad[:, 1:9, 1:9] = kings
    near = sum(pad[:, dr:dr + 8, dc:dc + 8] for dr in (0, 1, 2) for dc in (0, 1, 2)
               if not (dr == 1 and dc == 1))
    out[:, 1] = (near * kings).reshape(n, 64).sum(axis=1) // 2     # each pair seen twice
    return out


def check_one(board) -> list[str]:
    """Flags violated by one board (FEN, symbols, codes or python-chess board).

    >>> check_one("kK6/8/8/8/8/8/8/8")
    ['ii']
    """
    from d3mkit.benchmarks.value.boards import as_fen, fen_to_codes
    codes = fen_to_codes(as_fen(board))[None, :]
    return violated(check(codes), 0)
