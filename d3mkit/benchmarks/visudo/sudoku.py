"""Sudoku label layouts and correctness checks, vectorised over batches of grids.

What this module owns: the arithmetic of d x d Sudoku grids (d a perfect square) —

* :func:`block_size` checks the dimension (an integer square root, at least 4);
* :func:`random_layouts` draws ``n`` valid layouts with values ``0..d-1`` in one go:
  a small bank of grids filled by randomized backtracking (so layouts are not all
  variants of one pattern), then per grid a random relabelling, band/stack and
  row/column-within-band permutations and an optional transpose — all operations that
  keep a grid valid;
* :func:`is_correct` says, for a batch of grids with arbitrary integer labels, whether
  no row, column or block holds a label twice (the ViSudo-PC rule, which is also the
  rule of the perCell task where more than d labels appear);
* :func:`groups` and :func:`peer_pairs` expose the row/column/block structure
  (used by the NeSy baseline's soft constraint).

>>> g = base_grid(4)
>>> g.tolist()
[[0, 1, 2, 3], [2, 3, 0, 1], [1, 2, 3, 0], [3, 0, 1, 2]]
>>> bool(is_correct(g))
True
>>> bad = g.copy(); bad[0, 0] = 1
>>> bool(is_correct(bad))
False
>>> grids = random_layouts(5, 9, np.random.default_rng(0))
>>> grids.shape, bool(is_correct(grids).all())
((5, 9, 9), True)
"""

from __future__ import annotations

import math

import numpy as np

from d3mkit.core.errors import argument_error

MIN_DIMENSION = 4


def block_size(d: int) -> int:
    """The block side ``sqrt(d)``; exit-1 error when ``d`` is not a perfect square >= 4.

    >>> block_size(9)
    3
    """
    try:
        d = int(d)
    except (TypeError, ValueError):
        raise argument_error("visudo.dimension", "dimension",
                                 f"dimension must be an integer, got {d!r}") from None
    b = math.isqrt(d) if d >= 0 else 0
    if d < MIN_DIMENSION or b * b != d:
        raise argument_error("visudo.dimension", "dimension",
                                 f"dimension {d} has no integer square root >= 2 "
                                 f"(Sudoku blocks are sqrt(d) x sqrt(d)); use 4, 9, 16, ...")
    return b


def base_grid(d: int) -> np.ndarray:
    """A fixed valid layout: ``(b * (r % b) + r // b + c) % d``."""
    b = block_size(d)
    r, c = np.indices((d, d))
    return ((b * (r % b) + r // b + c) % d).astype(np.int64)


def groups(grids: np.ndarray) -> np.ndarray:
    """``(..., 3d, d)``: the d rows, then the d columns, then the d blocks (row-major)."""
    g = np.asarray(grids)
    d = g.shape[-1]
    b = math.isqrt(d)
    lead = g.shape[:-2]
    rows = g
    cols = np.swapaxes(g, -1, -2)
    blocks = g.reshape(*lead, b, b, b, b)
    blocks = np.swapaxes(blocks, -3, -2).reshape(*lead, d, d)
    return np.concatenate([rows, cols, blocks], axis=-2)


def is_correct(grids: np.ndarray) -> np.ndarray:
    """True where no row, column or block of a grid repeats a label (batch or single).

    >>> is_correct(np.array([[[0, 1, 2, 3], [2, 3, 0, 1], [1, 0, 3, 2], [3, 2, 1, 0]]])).tolist()
    [True]
    """
    s = np.sort(groups(grids), axis=-1)
    return ~(s[..., 1:] == s[..., :-1]).any(axis=(-1, -2))


def duplicate_groups(grid: np.ndarray) -> list[tuple[str, int]]:
    """The (kind, number) of every row/column/block of one grid holding a label twice.

    >>> g = base_grid(4); g[0, 0] = g[0, 1]
    >>> duplicate_groups(g)
    [('row', 0), ('column', 0), ('block', 0)]
    """
    g = np.asarray(grid)
    d = g.shape[-1]
    s = np.sort(groups(g), axis=-1)
    bad = (s[:, 1:] == s[:, :-1]).any(axis=-1)
    kinds = ("row", "column", "block")
    return [(kinds[i // d], i % d) for i in np.flatnonzero(bad).tolist()]


def cell_groups(d: int) -> np.ndarray:
    """``(3d, d)`` flat cell indices of each row, column and block."""
    return groups(np.arange(d * d).reshape(d, d))


def peer_pairs(d: int) -> np.ndarray:
    """``(P, 2)`` distinct cell pairs ``i < j`` that share a row, column or block.

    >>> len(peer_pairs(4)), len(peer_pairs(9))
    (56, 810)
    """
    g = cell_groups(d)
    i, j = np.triu_indices(d, k=1)
    pairs = np.stack([g[:, i].ravel(), g[:, j].ravel()], axis=1)
    pairs = np.sort(pairs, axis=1)
    return np.unique(pairs, axis=0)


def _backtrack_fill(d: int, rng: np.random.Generator, max_steps: int = 200_000) -> np.ndarray | None:
    """One valid grid by randomized depth-first filling (bit masks); None if the step
    budget runs out (then the caller falls back to :func:`base_grid`)."""
    b = math.isqrt(d)
    full = (1 << d) - 1
    row = [0] * d
    col = [0] * d
    blk = [0] * d
    grid = [0] * (d * d)
    orders = [rng.permutation(d).tolist() for _ in range(d * d)]
    choice = [0] * (d * d)
    pos, steps = 0, 0
    while 0 <= pos < d * d:
        steps += 1
        if steps > max_steps:
            return None
        r, c = divmod(pos, d)
        k = (r // b) * b + c // b
        if choice[pos] > 0:            # undo the previous value of this cell
            v = grid[pos]
            row[r] &= ~(1 << v)
            col[c] &= ~(1 << v)
            blk[k] &= ~(1 << v)
        used = row[r] | col[c] | blk[k]
        placed = False
        order = orders[pos]
        while choice[pos] < d:
            v = order[choice[pos]]
            choice[pos] += 1
            if not (used >> v) & 1:
                grid[pos] = v
                row[r] |= 1 << v
                col[c] |= 1 << v
                blk[k] |= 1 << v
                placed = True
                break
        if placed:
            pos += 1
        else:
            choice[pos] = 0
            pos -= 1
    assert used | full == full
    return np.array(grid, dtype=np.int64).reshape(d, d)


def seed_bank(d: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """``(k, d, d)`` valid grids filled by randomized backtracking (d <= 9), else
    copies of :func:`base_grid` (which the permutations of :func:`random_layouts` vary)."""
    out = []
    for _ in range(k):
        g = _backtrack_fill(d, rng) if d <= 9 else None
        out.append(base_grid(d) if g is None else g)
    return np.stack(out)


def _block_permutation(n: int, b: int, rng: np.random.Generator) -> np.ndarray:
    """``(n, d)`` line orders that permute bands (stacks) and lines within each."""
    bands = np.argsort(rng.random((n, b)), axis=1)
    inner = np.argsort(rng.random((n, b, b)), axis=2)
    i = np.arange(b * b)
    return bands[:, i // b] * b + inner[:, i // b, i % b]


def random_layouts(n: int, d: int, rng: np.random.Generator, *, bank_every: int = 16) -> np.ndarray:
    """``(n, d, d)`` valid Sudoku layouts with values ``0..d-1`` (see module docstring).

    One backtracking grid is drawn per ``bank_every`` layouts; each layout is a random
    symmetry of a random bank grid.
    """
    b = block_size(d)
    if n <= 0:
        return np.zeros((0, d, d), dtype=np.int64)
    bank = seed_bank(d, max(1, -(-n // bank_every)), rng)
    pick = rng.integers(0, len(bank), size=n)
    rows = _block_permutation(n, b, rng)
    cols = _block_permutation(n, b, rng)
    flip = rng.random(n) < 0.5
    relabel = np.argsort(rng.random((n, d)), axis=1)
    g = bank[pick]
    g = np.where(flip[:, None, None], np.swapaxes(g, 1, 2), g)
    a = np.arange(n)[:, None, None]
    g = g[a, rows[:, :, None], cols[:, None, :]]
    g = np.take_along_axis(relabel, g.reshape(n, -1), axis=1).reshape(n, d, d)
    return np.ascontiguousarray(g)
