"""The ten shapes: definition, rendering on the 28x28 frame, contact sheet.

What this module owns: the shapes as data and the one renderer every transformation
uses. The construction is the paper's own (its published notebook, cell 2): a shape is
a subset of a 3x3 grid of *full-length* lines — three horizontal lines (top, middle,
bottom) and three vertical lines (left, middle, right) — in a square box of side
``size`` (default :data:`SIZE` = 15) centred at pixel (row, column) = :data:`CENTRE`
= (14, 14). With half-side ``h = size // 2`` the horizontal lines sit on rows
``cy - h, cy, cy + h`` and run over the columns ``cx - h .. cx + h`` (both ends
included); the vertical lines sit on columns ``cx - h, cx, cx + h`` over the rows
``cy - h .. cy + h``. Lines are one pixel wide, value :data:`LINE` = 9 on 0.

The ten shapes combine the horizontals {top} (shapes 0-4) or {top, middle} (shapes 5-9)
with the verticals {left}, {middle}, {left, middle}, {left, right}, {left, middle,
right}, in that order — the notebook's ``SetOfShapes``.

>>> originals().shape, sorted(np.unique(originals()).tolist())
((10, 28, 28), [0, 9])
>>> [lines_of(i) for i in (0, 9)]
['H:top V:left', 'H:top,middle V:left,middle,right']
>>> rows, cols = np.nonzero(originals()[0]); [int(x) for x in (rows.min(), rows.max(), cols.min(), cols.max())]
[7, 21, 7, 21]
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

IMAGE = 28            # frame side (as MNIST)
SIZE = 15             # side of a shape's box at its original size
CENTRE = (14, 14)     # (row, column) of the middle lines at the original position
LINE = 9              # value of a line pixel
MAX_VALUE = LINE      # images are divided by this before a network sees them (paper: /9)
CLIP = 10             # noisy pixels are clipped to [0, CLIP] (so values run 0..10)
N_SHAPES = 10

_HORIZONTAL = ((True, False, False), (True, True, False))
_VERTICAL = ((True, False, False), (False, True, False), (True, True, False),
             (True, False, True), (True, True, True))
# SHAPES[i] = (horizontal lines top/middle/bottom, vertical lines left/middle/right)
SHAPES: tuple[tuple[tuple[bool, bool, bool], tuple[bool, bool, bool]], ...] = tuple(
    (h, v) for h in _HORIZONTAL for v in _VERTICAL)
_NAMES = (("top", "middle", "bottom"), ("left", "middle", "right"))


def lines_of(i: int) -> str:
    """Shape ``i`` in words, e.g. ``'H:top V:left,right'`` for shape 3."""
    h, v = SHAPES[i]
    word = lambda flags, names: ",".join(n for f, n in zip(flags, names) if f) or "-"
    return f"H:{word(h, _NAMES[0])} V:{word(v, _NAMES[1])}"


def rotate(lines):
    """One quarter turn clockwise of ``(horizontal, vertical)``: the left/middle/right
    verticals become the top/middle/bottom horizontals and the top/middle/bottom
    horizontals the right/middle/left verticals (the notebook's ``rotate``).

    >>> rotate(((True, False, False), (False, False, True)))
    ((False, False, True), (False, False, True))
    """
    h, v = lines
    return tuple(v), tuple(h[::-1])


def flip(lines):
    """Upside down: top and bottom horizontals swap, verticals stay (notebook ``flip``).

    >>> flip(((True, True, False), (True, False, False)))
    ((False, True, True), (True, False, False))
    """
    h, v = lines
    return tuple(h[::-1]), tuple(v)


def render(lines, size: int = SIZE, centre: tuple[int, int] = CENTRE,
           diagonals: bool = False) -> np.ndarray:
    """The 28x28 uint8 image of ``lines = (horizontal, vertical)`` in a box of side
    ``size`` centred at ``centre``; ``diagonals`` adds both frame diagonals (value 9).

    ``size`` may be 1..27 and the centre anywhere that keeps the box inside the frame.

    >>> img = render(SHAPES[3], size=5, centre=(7, 20))
    >>> [(int(r), int(c)) for r, c in zip(*np.nonzero(img))][:6]
    [(5, 18), (5, 19), (5, 20), (5, 21), (5, 22), (6, 18)]
    """
    h_flags, v_flags = lines
    half = size // 2
    cy, cx = centre
    if not (0 <= cy - half and cy + half < IMAGE and 0 <= cx - half and cx + half < IMAGE):
        raise ValueError(f"a box of size {size} centred at {centre} leaves the "
                         f"{IMAGE}x{IMAGE} frame")
    rows = (cy - half, cy, cy + half)
    cols = (cx - half, cx, cx + half)
    img = np.zeros((IMAGE, IMAGE), dtype=np.uint8)
    for k in range(3):
        if h_flags[k]:
            img[rows[k], cols[0]:cols[2] + 1] = LINE
        if v_flags[k]:
            img[rows[0]:rows[2] + 1, cols[k]] = LINE
    if diagonals:
        i = np.arange(IMAGE)
        img[i, i] = LINE
        img[i, IMAGE - 1 - i] = LINE
    return img


_ORIGINALS: np.ndarray | None = None


def originals() -> np.ndarray:
    """The ten untransformed images: ``(10, 28, 28)`` uint8, values 0 or 9 (read-only)."""
    global _ORIGINALS
    if _ORIGINALS is None:
        arr = np.stack([render(s) for s in SHAPES])
        arr.flags.writeable = False
        _ORIGINALS = arr
    return _ORIGINALS


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
        pix = (255 - img.astype(np.float64) * 255 / LINE).round().astype(np.uint8)
        tile = Image.fromarray(np.kron(pix, np.ones((scale, scale), dtype=np.uint8)))
        sheet.paste(tile, (x, y + label_h))
        draw.rectangle([x - 1, y + label_h - 1, x + cell, y + label_h + cell], outline=128)
        draw.text((x + cell // 2 - 3, y), str(i), fill=0)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(path, format="PNG")
    return path
