"""The ten shapes: definition, rendering, the properties the paper asks of them, contact sheet.

What this module owns: the shapes as data (each exactly 3 horizontal and 3 vertical line
segments on a 3x3 lattice), their 15x15 pixel patch (one-pixel lines, value
:data:`MAX_VALUE` = 9 on 0; any other size for resizing), their untransformed 28x28
images (patch at :data:`ORIGIN`), the property checks and the PNG contact sheet.

Lines are one pixel wide, as thin as the paper's pixel-level discussion of noise
suggests: with 3-pixel strokes our CNN, trained on clean shapes, still recognised 94% of
level-4-noise test images where the paper reports 22-31%; with 1-pixel lines it is 39%.

The shapes were chosen (once, by a search over all 729 lattice shapes with one segment per
row and column) so that

* no shape equals any of its rotations by 90, 180 or 270 degrees, nor its mirror image;
* no rotation or mirror image of a shape equals another shape;
* every two shapes differ in at least 13 pixels of the patch even after rotating or
  mirroring either of them (they are pairwise distinguishable);
* every shape is one connected stroke figure.

``tests/test_abstraction_shapes.py`` checks all four on the rendered pixels.

>>> patches().shape, int(patches().max()), sorted(np.unique(patches()).tolist())
((10, 15, 15), 9, [0, 9])
>>> originals().shape
(10, 28, 28)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

IMAGE = 28            # image side (as MNIST)
PATCH = 15            # side of a shape's bounding box at its original size
STROKE = 1            # line width in pixels
ORIGIN = (6, 6)       # (top, left) of the patch in an untransformed image
MAX_VALUE = 9         # pixel values 0..9 as in the paper (scaled to [0, 1] for networks)
N_SHAPES = 10

# (horizontal segments, vertical segments). Horizontal segment r spans lattice columns
# (a, b) on lattice row r; vertical segment c spans lattice rows (a, b) on lattice column c.
# Lattice coordinate k sits at pixel 7*k of the 15x15 patch (0, 7, 14).
SEGMENTS: tuple[tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]], ...] = (
    (((0, 1), (0, 1), (0, 2)), ((0, 2), (0, 2), (0, 2))),
    (((0, 1), (1, 2), (0, 1)), ((0, 1), (0, 2), (0, 1))),
    (((0, 1), (0, 1), (1, 2)), ((0, 1), (0, 2), (1, 2))),
    (((0, 1), (1, 2), (0, 1)), ((0, 2), (0, 1), (0, 2))),
    (((0, 1), (1, 2), (0, 2)), ((1, 2), (0, 2), (0, 1))),
    (((0, 1), (0, 2), (0, 1)), ((0, 1), (0, 2), (1, 2))),
    (((0, 1), (0, 1), (1, 2)), ((0, 1), (1, 2), (0, 2))),
    (((0, 1), (0, 1), (1, 2)), ((0, 2), (1, 2), (1, 2))),
    (((0, 1), (1, 2), (0, 2)), ((0, 1), (0, 2), (0, 2))),
    (((0, 1), (0, 1), (0, 2)), ((0, 2), (0, 1), (1, 2))),
)


def lattice_positions(size: int = PATCH, stroke: int = STROKE) -> tuple[int, int, int]:
    """Pixel of lattice coordinates 0, 1, 2 in a ``size`` box (first, middle, last line).

    >>> lattice_positions(), lattice_positions(10), lattice_positions(23)
    ((0, 7, 14), (0, 4, 9), (0, 11, 22))
    """
    return 0, (size - stroke) // 2, size - stroke


def render_patch(horizontal, vertical, size: int = PATCH) -> np.ndarray:
    """A ``size`` x ``size`` uint8 patch with the given segments drawn at ``MAX_VALUE``
    (resizing redraws the lines at the new size, so they stay one pixel wide).

    >>> p = render_patch([(0, 2), (0, 1), (1, 2)], [(0, 2), (0, 1), (1, 2)])
    >>> int(p[0, 14]), int(p[14, 0]), int(p[7, 7]), int(p[3, 3])
    (9, 9, 9, 0)
    """
    p = np.zeros((size, size), dtype=np.uint8)
    pos, w = lattice_positions(size), STROKE
    for r, (a, b) in enumerate(horizontal):
        p[pos[r]:pos[r] + w, pos[a]:pos[b] + w] = MAX_VALUE
    for c, (a, b) in enumerate(vertical):
        p[pos[a]:pos[b] + w, pos[c]:pos[c] + w] = MAX_VALUE
    return p


_PATCHES: np.ndarray | None = None


def patches() -> np.ndarray:
    """The ten shapes at their original size: ``(10, 15, 15)`` uint8, values 0 or 9."""
    global _PATCHES
    if _PATCHES is None:
        arr = np.stack([render_patch(h, v) for h, v in SEGMENTS])
        arr.flags.writeable = False
        _PATCHES = arr
    return _PATCHES


def place(patch: np.ndarray, top: int, left: int) -> np.ndarray:
    """A blank ``IMAGE`` x ``IMAGE`` image with ``patch`` pasted at (top, left)."""
    img = np.zeros((IMAGE, IMAGE), dtype=np.uint8)
    h, w = patch.shape
    img[top:top + h, left:left + w] = patch
    return img


def originals() -> np.ndarray:
    """The ten untransformed 28x28 images: ``(10, 28, 28)`` uint8."""
    return np.stack([place(p, *ORIGIN) for p in patches()])


def dihedral(patch: np.ndarray) -> list[np.ndarray]:
    """The patch rotated by 90, 180, 270 degrees and mirrored (with its three rotations)."""
    out = [np.rot90(patch, k) for k in (1, 2, 3)]
    m = np.fliplr(patch)
    out += [np.rot90(m, k) for k in range(4)]
    return out


def min_distance(ps: np.ndarray | None = None) -> int:
    """Fewest differing pixels between a shape and any rotation/mirror image of another.

    >>> min_distance()
    13
    """
    ps = patches() if ps is None else ps
    best = None
    for i in range(len(ps)):
        for j in range(len(ps)):
            if i == j:
                continue
            for v in [ps[j]] + dihedral(ps[j]):
                d = int(np.count_nonzero(ps[i] != v))
                best = d if best is None else min(best, d)
    return int(best)


def contact_sheet(path: Path | str, scale: int = 4) -> Path:
    """Write a PNG showing the ten shapes (labels 0-9) in two rows of five."""
    from PIL import Image, ImageDraw

    imgs = originals()
    cell = IMAGE * scale
    pad, label_h = 6, 14
    sheet = Image.new("L", (5 * (cell + pad) + pad, 2 * (cell + pad + label_h) + pad), 255)
    draw = ImageDraw.Draw(sheet)
    for i, img in enumerate(imgs):
        r, c = divmod(i, 5)
        x = pad + c * (cell + pad)
        y = pad + r * (cell + pad + label_h)
        pix = (255 - img.astype(np.float64) * 255 / MAX_VALUE).round().astype(np.uint8)
        tile = Image.fromarray(np.kron(pix, np.ones((scale, scale), dtype=np.uint8)))
        sheet.paste(tile, (x, y + label_h))
        draw.rectangle([x - 1, y + label_h - 1, x + cell, y + label_h + cell], outline=128)
        draw.text((x + cell // 2 - 3, y), str(i), fill=0)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(path, format="PNG")
    return path
