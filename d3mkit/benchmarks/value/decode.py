"""From per-square probabilities to boards: argmax, or the most probable *sane* board.

:func:`decode_argmax` takes each square's most probable symbol. :func:`decode_sane`
(``--decode sane``) runs, per board, a best-first (uniform-cost) search over repairs of
the argmax board: a repair replaces some squares by one of their ``top_k`` next most
probable symbols at a cost of ``log p(argmax) - log p(alternative)``; states are popped in
order of total cost, so the first sane board popped is the most probable sane board among
those repairs (squares are changed in increasing square order, so every set of changes is
reached once). Children of a state are checked with the vectorised rule checker in one
call. When ``max_expansions`` states were expanded without finding a sane board, the
search falls back to a greedy repair (repeatedly the single-square change that most
lowers the number of violated flags, the most probable among equals); a board that is
still not sane is returned as it is and counted in the statistics.

>>> import numpy as np
>>> p = np.full((1, 64, 13), 0.01)
>>> p[0, :, 0] = 0.9                     # all squares most likely empty ...
>>> p[0, 4, [0, 12]] = 0.3, 0.6           # a black king on e8 is likely,
>>> p[0, 60, [0, 6]] = 0.5, 0.45          # a white king on e1 nearly as likely as empty
>>> decode_argmax(p)[0, [4, 60]].tolist()
[12, 0]
>>> boards, stats = decode_sane(p)
>>> boards[0, [4, 60]].tolist(), stats["repaired"]
([12, 6], 1)
"""

from __future__ import annotations

import heapq

import numpy as np

from d3mkit.benchmarks.value.rules import check, sane


def decode_argmax(probs: np.ndarray) -> np.ndarray:
    """``(N, 64)`` codes: most probable symbol per square of ``(N, 64, 13)`` probabilities."""
    return np.asarray(probs).argmax(axis=2).astype(np.uint8)


def _repair(logp: np.ndarray, top_k: int, max_expansions: int, max_changes: int):
    base = logp.argmax(axis=1)
    board = base.astype(np.uint8)
    if sane(check(board[None]))[0]:
        return board, 0, True
    order = np.argsort(-logp, axis=1)[:, 1:top_k + 1]             # (64, k) alternatives
    cost = logp[np.arange(64), base][:, None] - np.take_along_axis(logp, order, axis=1)
    # candidate moves sorted by square then cost: (square, alt code, cost)
    sq = np.repeat(np.arange(64), top_k)
    alt = order.ravel()
    cst = cost.ravel()
    heap = [(0.0, 0, -1, ())]          # (cost, tie, last square changed, changes)
    tie = 1
    expansions = 0
    while heap and expansions < max_expansions:
        c, _, last, changes = heapq.heappop(heap)
        if changes and changes[-1][0] < 0:          # marked sane when pushed
            b = board.copy()
            for s, a in changes[:-1]:
                b[s] = a
            return b, len(changes) - 1, True
        expansions += 1
        if len(changes) >= max_changes:
            continue
        sel = np.flatnonzero(sq > last)
        if not len(sel):
            continue
        kids = np.repeat(board[None], len(sel), axis=0)
        for s, a in changes:
            kids[:, s] = a
        kids[np.arange(len(sel)), sq[sel]] = alt[sel]
        ok = sane(check(kids))
        for j, k in enumerate(sel):
            ch = changes + ((int(sq[k]), int(alt[k])),)
            if ok[j]:
                ch = ch + ((-1, -1),)
            heapq.heappush(heap, (c + float(cst[k]), tie, int(sq[k]), ch))
            tie += 1
    return board, 0, False


def distance(codes: np.ndarray) -> np.ndarray:
    """``(N,)`` graded distance from sanity: 0 exactly for sane boards, and lowered by a
    single change wherever one change can help (|k|-1 kings, pieces over 15, pawns over
    8, pawns on back ranks, extra promoted pieces, adjacent king pairs, rule viii)."""
    from d3mkit.benchmarks.value.rules import BACK_RANKS, BLACK, WHITE, counts
    c = counts(codes).astype(np.int64)
    d = np.zeros(len(codes), dtype=np.int64)
    for side in (BLACK, WHITE):
        p, n, b, r, q, k = (c[:, side[x]] for x in "pnbrqk")
        d += np.abs(k - 1) + np.maximum(0, p + n + b + r + q - 15) + np.maximum(0, p - 8)
        d += ((codes == side["p"]) & BACK_RANKS).sum(axis=1)
        extra = np.maximum(0, q - 1) + np.maximum(0, b - 2) + np.maximum(0, n - 2) + np.maximum(0, r - 2)
        d += np.where(p == 8, extra, np.maximum(0, extra - (8 - np.minimum(p, 8))))
    flags = check(codes)
    d += flags[:, 2] + flags[:, 13] + flags[:, 14]          # ii, viii
    return d


def _greedy(logp: np.ndarray, board: np.ndarray, max_steps: int = 64):
    """Fallback: repeatedly apply the single-square change that most lowers
    :func:`distance` (ties: the most probable change) until sane or no change helps."""
    violation_counts = distance
    b = board.copy()
    n_changes = 0
    sq = np.repeat(np.arange(64), 13)
    code = np.tile(np.arange(13), 64)
    for _ in range(max_steps):
        now = int(violation_counts(b[None])[0])
        if now == 0:
            return b, n_changes, True
        kids = np.repeat(b[None], len(sq), axis=0)
        kids[np.arange(len(sq)), sq] = code
        v = violation_counts(kids)
        cost = logp[sq, b[sq]] - logp[sq, code]
        better = v < now
        if not better.any():
            break
        pick = np.lexsort((cost, v))[0]
        b[sq[pick]] = code[pick]
        n_changes += 1
    return b, n_changes, bool(violation_counts(b[None])[0] == 0)


def decode_sane(probs: np.ndarray, *, top_k: int = 3, max_expansions: int = 400,
                max_changes: int = 4) -> tuple[np.ndarray, dict]:
    """``(N, 64)`` codes, each the most probable sane repair of the argmax board found
    within the search budget (else the greedy repair), and statistics ``{"boards",
    "already_sane", "repaired", "unrepaired", "greedy", "mean_changes"}``."""
    p = np.asarray(probs, dtype=np.float64)
    logp = np.log(np.clip(p, 1e-12, None))
    out = np.empty((len(p), 64), dtype=np.uint8)
    already = repaired = failed = changed = greedy = 0
    for i in range(len(p)):
        if distance(logp[i].argmax(axis=1)[None])[0] <= 3 * max_changes:
            b, n_changes, ok = _repair(logp[i], top_k, max_expansions, max_changes)
        else:                       # too far from sane for a short repair: go greedy
            b, n_changes, ok = logp[i].argmax(axis=1).astype(np.uint8), 0, False
        if not ok:
            b, n_changes, ok = _greedy(logp[i], b)
            greedy += ok
        out[i] = b
        if not ok:
            failed += 1
        elif n_changes == 0:
            already += 1
        else:
            repaired += 1
            changed += n_changes
    return out, {"boards": len(p), "already_sane": already, "repaired": repaired,
                 "unrepaired": failed, "greedy": greedy, "mean_changes": changed / repaired if repaired else 0.0}
