"""The transformations of section 4.2 and the Gaussian noise applied after them.

What this module owns: for each transformation its outcomes (how many, their names and
which one, if any, leaves the shape untransformed — the metrics need both) and a table of
every outcome of every shape, ``(10, n_outcomes, 28, 28)`` uint8, so that drawing samples
is one fancy-indexing step; and :func:`add_noise`.

=============  ========  ==============================================  ==========
transform      outcomes  outcome names                                   identity
=============  ========  ==============================================  ==========
rotation       4         ``0``, ``90``, ``180``, ``270`` (degrees, ccw)  ``0``
translation    196       ``r<top>c<left>``: patch corner, 0..13 each     ``r6c6``
resize         14        ``size10`` .. ``size23`` (box side; 5 smaller   ``size15``
                         and 8 larger than the original 15)
diagonals      1         ``diagonals`` (both image diagonals behind)     none
mirror         1         ``mirror`` (left-right flip of the shape)       none
none           1         ``none``                                        ``none``
=============  ========  ==============================================  ==========

Rotation and mirroring act on the shape's 15x15 box in place (rotating the whole 28x28
image would also shift the shape by a pixel, since 28 - 15 is odd). Resizing scales the
box (the segments are redrawn at the new size, one pixel wide; nearest-neighbour
shrinking would drop the middle lines) and keeps its centre near pixel (13, 13). Translation moves the box
to any of the 14 x 14 positions that keep it inside the image; the original position is
one of them.

>>> [(t.name, t.n_outcomes, t.identity_name) for t in TRANSFORMS.values()]
... # doctest: +NORMALIZE_WHITESPACE
[('rotation', 4, '0'), ('translation', 196, 'r6c6'), ('resize', 14, 'size15'),
 ('diagonals', 1, None), ('mirror', 1, None), ('none', 1, 'none')]
>>> get("rotation").untransformed_chance
0.25
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from d3mkit.benchmarks.abstraction import shapes as S

RESIZE_SIZES = tuple(range(S.PATCH - 5, S.PATCH + 9))       # 10..23: 5 smaller, 8 larger
POSITIONS = S.IMAGE - S.PATCH + 1                            # 14
CENTRE = S.ORIGIN[0] + S.PATCH // 2                          # 13


@dataclass(frozen=True)
class Transform:
    """One transformation: its outcome names, the identity outcome and a renderer."""

    name: str
    outcome_names: tuple[str, ...]
    identity: int | None                      # index of the outcome equal to no change
    render: Callable[[int, int], np.ndarray] = field(repr=False, compare=False)  # (shape, outcome)

    @property
    def n_outcomes(self) -> int:
        return len(self.outcome_names)

    @property
    def identity_name(self) -> str | None:
        return None if self.identity is None else self.outcome_names[self.identity]

    @property
    def untransformed_chance(self) -> float:
        """Probability that a uniformly drawn outcome leaves the shape unchanged."""
        return 0.0 if self.identity is None else 1.0 / self.n_outcomes

    def table(self) -> np.ndarray:
        """Every outcome of every shape: ``(10, n_outcomes, 28, 28)`` uint8 (cached)."""
        cached = _TABLES.get(self.name)
        if cached is None:
            cached = np.stack([np.stack([self.render(i, k) for k in range(self.n_outcomes)])
                               for i in range(S.N_SHAPES)])
            cached.flags.writeable = False
            _TABLES[self.name] = cached
        return cached

    def apply(self, shape: np.ndarray, outcome: np.ndarray) -> np.ndarray:
        """Images of ``shape[i]`` under outcome ``outcome[i]`` (vectorised), before noise."""
        return self.table()[np.asarray(shape), np.asarray(outcome)]


_TABLES: dict[str, np.ndarray] = {}


def _rotate(i: int, k: int) -> np.ndarray:
    return S.place(np.rot90(S.patches()[i], k), *S.ORIGIN)


def _translate(i: int, k: int) -> np.ndarray:
    top, left = divmod(k, POSITIONS)
    return S.place(S.patches()[i], top, left)


def _resize(i: int, k: int) -> np.ndarray:
    size = RESIZE_SIZES[k]
    top = CENTRE - (size - 1) // 2
    return S.place(S.render_patch(*S.SEGMENTS[i], size=size), top, top)


def diagonals_image(width: int = S.STROKE) -> np.ndarray:
    """The two diagonals of a 28x28 image at ``MAX_VALUE``, ``width`` pixels wide
    (default the shapes' line width, so the added lines are as salient as the shape's).

    >>> d = diagonals_image()
    >>> int(d[0, 0]), int(d[0, 1]), int(d[0, 27]), int(d[13, 14]), int(d.sum() // 9)
    (9, 0, 9, 9, 56)
    """
    i, j = np.indices((S.IMAGE, S.IMAGE))
    half = width // 2
    on = (np.abs(i - j) <= half) | (np.abs(i + j - (S.IMAGE - 1)) <= half)
    return np.where(on, S.MAX_VALUE, 0).astype(np.uint8)


def _diagonals(i: int, k: int) -> np.ndarray:
    return np.maximum(S.place(S.patches()[i], *S.ORIGIN), diagonals_image())


def _mirror(i: int, k: int) -> np.ndarray:
    return S.place(np.fliplr(S.patches()[i]), *S.ORIGIN)


def _none(i: int, k: int) -> np.ndarray:
    return S.place(S.patches()[i], *S.ORIGIN)


TRANSFORMS: dict[str, Transform] = {
    "rotation": Transform("rotation", ("0", "90", "180", "270"), 0, _rotate),
    "translation": Transform(
        "translation",
        tuple(f"r{t}c{l}" for t in range(POSITIONS) for l in range(POSITIONS)),
        S.ORIGIN[0] * POSITIONS + S.ORIGIN[1], _translate),
    "resize": Transform("resize", tuple(f"size{s}" for s in RESIZE_SIZES),
                        RESIZE_SIZES.index(S.PATCH), _resize),
    "diagonals": Transform("diagonals", ("diagonals",), None, _diagonals),
    "mirror": Transform("mirror", ("mirror",), None, _mirror),
    "none": Transform("none", ("none",), 0, _none),
}


def get(name: str) -> Transform:
    """The transformation called ``name`` (KeyError names the known ones)."""
    try:
        return TRANSFORMS[name]
    except KeyError:
        raise KeyError(f"unknown transformation {name!r} (known: {', '.join(TRANSFORMS)})") from None


def add_noise(images: np.ndarray, level: float, rng: np.random.Generator) -> np.ndarray:
    """Add N(0, level^2) noise per pixel (0-9 scale), clip to [0, 9], round to integers.

    Level 0 returns a copy and draws nothing from ``rng``.

    >>> imgs = np.zeros((2, 28, 28), dtype=np.uint8)
    >>> out = add_noise(imgs, 2, np.random.default_rng(0))
    >>> out.dtype.name, int(out.min()) >= 0, int(out.max()) <= 9, bool((out > 0).any())
    ('uint8', True, True, True)
    >>> bool((add_noise(imgs, 0, np.random.default_rng(0)) == imgs).all())
    True
    """
    if level < 0:
        raise ValueError(f"noise level must be >= 0, got {level}")
    if level == 0:
        return images.copy()
    noisy = images.astype(np.float32) + rng.normal(0.0, level, size=images.shape).astype(np.float32)
    return np.clip(np.rint(noisy), 0, S.MAX_VALUE).astype(np.uint8)
