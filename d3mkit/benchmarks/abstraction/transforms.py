"""The transformations of section 4.2 and the Gaussian noise applied after them.

What this module owns: for each transformation its outcomes — the values the paper's
notebook draws uniformly, their names and which of them leave the image unchanged (the
metrics need that share) — and a table of every outcome of every shape,
``(10, n_outcomes, 28, 28)`` uint8, so that drawing samples is one fancy-indexing step;
and :func:`add_noise`. Every outcome is drawn with probability ``1 / n_outcomes``.

=============  ========  ===============================================  ================
transform      outcomes  outcome names                                    identity
=============  ========  ===============================================  ================
rotation       4         ``0``, ``90``, ``180``, ``270`` (degrees,        ``0``
                         clockwise, quarter turns of the line grid)
translation    196       ``r<row>c<col>``: centre of the box, 7..20 each  ``r14c14``
resize         23        ``size5`` .. ``size27``: box side; the lines     ``size14``,
                         sit at 14 +- size//2, so 12 distinct extents     ``size15``
diagonals      1         ``diagonals`` (both frame diagonals added)       none
mirror         1         ``mirror`` (upside down: top and bottom swap)    none
none           1         ``none``                                         ``none``
=============  ========  ===============================================  ================

All of this is the notebook's ``Shape``: ``randomRotate`` turns 0-3 times,
``randomMove`` draws each middle line from 7..20, ``randomResize`` draws the size from
5..27, ``flip`` reverses the horizontal lines, ``addDiagonals`` sets both diagonals.
Sizes 14 and 15 have the same half-side 7, so resizing leaves the image unchanged with
probability 2/23.

>>> [(t.name, t.n_outcomes, t.identity_names) for t in TRANSFORMS.values()]
... # doctest: +NORMALIZE_WHITESPACE
[('rotation', 4, ('0',)), ('translation', 196, ('r14c14',)),
 ('resize', 23, ('size14', 'size15')), ('diagonals', 1, ()), ('mirror', 1, ()),
 ('none', 1, ('none',))]
>>> get("rotation").untransformed_chance, round(get("resize").untransformed_chance, 4)
(0.25, 0.087)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from d3mkit.benchmarks.abstraction import shapes as S

ROTATIONS = (0, 1, 2, 3)                      # clockwise quarter turns
MOVE_RANGE = tuple(range(7, 21))              # middle-line positions 7..20 on each axis
RESIZE_SIZES = tuple(range(5, 28))            # box sides 5..27


@dataclass(frozen=True)
class Transform:
    """One transformation: its outcome names, the identity outcomes and a renderer."""

    name: str
    outcome_names: tuple[str, ...]
    identities: tuple[int, ...]               # indices of the outcomes equal to no change
    render: Callable[[int, int], np.ndarray] = field(repr=False, compare=False)  # (shape, outcome)

    @property
    def n_outcomes(self) -> int:
        return len(self.outcome_names)

    @property
    def identity_names(self) -> tuple[str, ...]:
        return tuple(self.outcome_names[i] for i in self.identities)

    @property
    def untransformed_chance(self) -> float:
        """Probability that a uniformly drawn outcome leaves the image unchanged."""
        return len(self.identities) / self.n_outcomes

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
    lines = S.SHAPES[i]
    for _ in range(ROTATIONS[k]):
        lines = S.rotate(lines)
    return S.render(lines)


def _translate(i: int, k: int) -> np.ndarray:
    r, c = divmod(k, len(MOVE_RANGE))
    return S.render(S.SHAPES[i], centre=(MOVE_RANGE[r], MOVE_RANGE[c]))


def _resize(i: int, k: int) -> np.ndarray:
    return S.render(S.SHAPES[i], size=RESIZE_SIZES[k])


def _diagonals(i: int, k: int) -> np.ndarray:
    return S.render(S.SHAPES[i], diagonals=True)


def _mirror(i: int, k: int) -> np.ndarray:
    return S.render(S.flip(S.SHAPES[i]))


def _none(i: int, k: int) -> np.ndarray:
    return S.originals()[i].copy()


TRANSFORMS: dict[str, Transform] = {
    "rotation": Transform("rotation", tuple(str(90 * k) for k in ROTATIONS), (0,), _rotate),
    "translation": Transform(
        "translation", tuple(f"r{r}c{c}" for r in MOVE_RANGE for c in MOVE_RANGE),
        (MOVE_RANGE.index(S.CENTRE[0]) * len(MOVE_RANGE) + MOVE_RANGE.index(S.CENTRE[1]),),
        _translate),
    "resize": Transform("resize", tuple(f"size{s}" for s in RESIZE_SIZES),
                        tuple(k for k, s in enumerate(RESIZE_SIZES) if s // 2 == S.SIZE // 2),
                        _resize),
    "diagonals": Transform("diagonals", ("diagonals",), (), _diagonals),
    "mirror": Transform("mirror", ("mirror",), (), _mirror),
    "none": Transform("none", ("none",), (0,), _none),
}


def get(name: str) -> Transform:
    """The transformation called ``name`` (KeyError names the known ones)."""
    try:
        return TRANSFORMS[name]
    except KeyError:
        raise KeyError(f"unknown transformation {name!r} (known: {', '.join(TRANSFORMS)})") from None


def add_noise(images: np.ndarray, level: float, rng: np.random.Generator) -> np.ndarray:
    """Add N(0, level^2) noise per pixel, clip to [0, 10], truncate to integers (the
    notebook's ``addNoise`` followed by its ``astype('int')``); values 0..10, uint8.

    Level 0 returns a copy and draws nothing from ``rng``.

    >>> imgs = np.zeros((2, 28, 28), dtype=np.uint8)
    >>> out = add_noise(imgs, 2, np.random.default_rng(0))
    >>> out.dtype.name, int(out.min()) >= 0, int(out.max()) <= 10, bool((out > 0).any())
    ('uint8', True, True, True)
    >>> bool((add_noise(imgs, 0, np.random.default_rng(0)) == imgs).all())
    True
    """
    if not level >= 0:
        raise ValueError(f"noise level must be >= 0, got {level}")
    if level == 0:
        return images.copy()
    noisy = images.astype(np.float64) + rng.normal(0.0, level, size=images.shape)
    return np.floor(np.clip(noisy, 0, S.CLIP)).astype(np.uint8)
