"""Pixels of puzzles: tiling cell images into a grid and writing PNGs.

What this module owns: :func:`tile` (a puzzle's d x d cell images side by side, no
guide lines — a cell is exactly the 28x28 block at ``(28 r, 28 c)``, as in the paper's
Fig. 1 without its expository lines), :func:`untile` (the inverse, used by the
baselines), :func:`save_png` (deterministic bytes: same array, same file) and
:func:`write_puzzle` (one puzzle's files: the job the build runs on the executor).

>>> px = np.arange(4 * 28 * 28, dtype=np.uint8).reshape(4, 28, 28)
>>> grid = tile(np.array([[0, 1], [2, 3]]), px)
>>> grid.shape, bool((untile(grid, 2) == px).all())
((56, 56), True)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

CELL = 28


def tile(cell_indices: np.ndarray, pixels: np.ndarray) -> np.ndarray:
    """``(28 d, 28 d)`` uint8 image of a puzzle whose cells show ``pixels[cell_indices]``."""
    d = cell_indices.shape[0]
    cells = pixels[cell_indices]                       # (d, d, 28, 28)
    return np.ascontiguousarray(cells.transpose(0, 2, 1, 3).reshape(d * CELL, d * CELL))


def untile(grid: np.ndarray, d: int) -> np.ndarray:
    """``(d*d, 28, 28)``: the cells of a tiled puzzle image, row-major."""
    g = np.asarray(grid)
    return g.reshape(d, CELL, d, CELL).transpose(0, 2, 1, 3).reshape(d * d, CELL, CELL)


def save_png(arr: np.ndarray, path: Path | str) -> None:
    from PIL import Image
    Image.fromarray(np.asarray(arr, dtype=np.uint8)).save(path, format="PNG", compress_level=6)


def write_puzzle(job) -> None:
    """Write one puzzle's PNG files; ``job = (cells, puzzle_path, cell_paths)`` with
    ``cells`` the ``(d, d, 28, 28)`` uint8 cell images and ``cell_paths`` the row-major
    paths of the cell files (empty: the grid only). A module-level function of its
    arguments alone, so it runs on any executor worker (:mod:`d3mkit.io.executor`) with the
    same bytes."""
    cells, puzzle_path, cell_paths = job
    d = cells.shape[0]
    flat = cells.reshape(d * d, CELL, CELL)
    save_png(tile(np.arange(d * d).reshape(d, d), flat), puzzle_path)
    for k, path in enumerate(cell_paths):
        save_png(flat[k], path)


def load_png(path: Path | str) -> np.ndarray:
    """A puzzle image as gray uint8 (through :func:`d3mkit.io.images.read_image`)."""
    from d3mkit.io.images import read_image
    return np.asarray(read_image(path, "L"), dtype=np.uint8)
