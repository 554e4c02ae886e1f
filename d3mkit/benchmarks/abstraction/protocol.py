"""The training protocol of sections 5.1-5.3: seeded, vectorised train/test samples.

What this module owns: :class:`Protocol` (transformation, K, sizes, noise, whether
transformed training images may show an identity outcome) with its checks, and
:func:`generate`, which returns the images of both sets and one metadata row per image.
The sets are built as the paper's notebook builds them
(``testWithDifferentSampleAmountWithLimitedAmount`` and its siblings):

* Training set (``n_train`` images): ``int(n_train * K / 10)`` images cycle over shapes
  ``0..K-1``, each transformed with a uniformly drawn outcome; the other images cycle
  over shapes ``K..9`` untransformed; then the order is shuffled. With
  ``train_transformed_only`` (our option, not the paper's) transformed training images
  never show an identity outcome, so shapes ``0..K-1`` are seen only in a changed form;
  without it a quarter of the "rotated" training images are not rotated at all, as in
  the paper.
* Test set (``n_test`` images, by default as many as ``n_train`` — the notebook draws
  both from sets of the same size): all ten shapes cycled, every image transformed with
  a uniformly drawn outcome (identity included), shuffled.
* Noise of ``noise`` (standard deviation) on both sets, after the transformation:
  :func:`~.transforms.add_noise` (clip to [0, 10], truncate). ``test_noise`` gives the
  test set a different level: Table 1's noise rows train on clean originals and test on
  noisy ones.

The metadata columns (``samples.csv`` of a task root) are ``d3mIndex, split, shape,
transformed, transform, outcome, noise, identity, untransformedChance,
trainedTransformed``: ``transformed`` says a transformation was applied (true for every
test row), ``outcome`` names the drawn parameter, ``identity`` says the drawn outcome
leaves the image unchanged, ``untransformedChance`` is the probability of that under the
row's draw (identity outcomes / outcomes, 0 when no identity can be drawn; 1 for
untransformed rows) and ``trainedTransformed`` says the row's shape appears transformed
in training (shape < K). These last three let the metrics work from the test rows alone.

Every random draw comes from the one ``numpy.random.Generator`` passed in, in a fixed
order (train order, train outcomes, test order, test outcomes, train noise, test noise).

>>> p = Protocol("rotation", transformed=2, n_train=20, noise=2)
>>> imgs, meta = generate(p, np.random.default_rng(0))
>>> imgs.shape, list(meta["split"].value_counts().sort_index())
((40, 28, 28), [20, 20])
>>> sorted(meta.loc[meta.split == "TEST", "shape"].tolist()) == sorted(list(range(10)) * 2)
True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from d3mkit.benchmarks.abstraction import shapes as S
from d3mkit.benchmarks.abstraction.transforms import TRANSFORMS, add_noise, get
from d3mkit.core.errors import EXIT_INVALID, ArgumentError, Issue

MAX_IMAGES = 1_000_000   # one task root; a guard against typos such as --n-train 99999999999

PAPER_K = (0, 2, 5, 8, 10)
PAPER_NOISE = (0, 2, 4, 6)
METADATA_COLUMNS = ["d3mIndex", "split", "shape", "transformed", "transform", "outcome",
                    "noise", "identity", "untransformedChance", "trainedTransformed"]


@dataclass(frozen=True)
class Protocol:
    """One problem of the paper's grid (see the module docstring); ``n_test`` defaults
    to ``n_train``."""

    transform: str = "rotation"
    transformed: int = 0                 # K: shapes 0..K-1 appear transformed in training
    n_train: int = 1000
    n_test: int | None = None            # None: as many as n_train (the paper)
    noise: float = 0.0
    train_transformed_only: bool = False
    test_noise: float | None = None      # noise of the test set when it differs (Table 1)

    def __post_init__(self):
        if self.n_test is None:
            object.__setattr__(self, "n_test", self.n_train)

    @property
    def noise_test(self) -> float:
        return self.noise if self.test_noise is None else self.test_noise

    def problems(self) -> list[Issue]:
        """Every reason this protocol cannot be generated (empty when it can), each naming
        the field at fault as its location."""
        problem = self.problem()
        return [] if problem is None else problem.issues

    def problem(self) -> ArgumentError | None:
        """Every reason this protocol cannot be generated as one
        :class:`~d3mkit.core.errors.ArgumentError` (exit 1; the CLI names the options), or None."""
        out = []
        if self.transform not in TRANSFORMS:
            out.append(("abstraction.transform", "{transform}",
                             f"unknown transformation {self.transform!r} "
                             f"(one of {', '.join(TRANSFORMS)})"))
        if not 0 <= self.transformed <= S.N_SHAPES:
            out.append(("abstraction.transformed", "{transformed}",
                             f"K must be between 0 and {S.N_SHAPES} (the paper uses "
                             f"{', '.join(map(str, PAPER_K))}), got {self.transformed}"))
        for field, level in (("noise", self.noise), ("test_noise", self.test_noise)):
            if level is None:
                continue
            if not (level >= 0 and np.isfinite(level)):
                out.append(("abstraction.noise", "{" + field + "}",
                                 f"noise level must be a number >= 0 (the paper uses 2, 4, 6), "
                                 f"got {level}"))
        if self.n_train < S.N_SHAPES:
            out.append(("abstraction.n_train", "{n_train}",
                             f"the training set must hold every shape: n_train >= "
                             f"{S.N_SHAPES}, got {self.n_train}"))
        if self.n_test < S.N_SHAPES:
            out.append(("abstraction.n_test", "{n_test}",
                             f"the test set must hold every shape: n_test >= "
                             f"{S.N_SHAPES}, got {self.n_test}"))
        if self.n_train + self.n_test > MAX_IMAGES:
            out.append(("abstraction.size", "{n_train}/{n_test}",
                             f"at most {MAX_IMAGES:,} images in one task root (the paper's largest "
                             f"set is far smaller), got {self.n_train + self.n_test:,}"))
        if (self.train_transformed_only and self.transform in TRANSFORMS
                and len(get(self.transform).identities) == get(self.transform).n_outcomes):
            out.append(("abstraction.train_transformed_only", "{train_transformed_only}",
                             f"transformation {self.transform!r} has no outcome other than "
                             f"the identity"))
        return ArgumentError(out, EXIT_INVALID) if out else None

    def as_dict(self) -> dict:
        return asdict(self)


def train_labels(n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """The notebook's training labels, shuffled: ``int(n * k / 10)`` images cycling over
    shapes ``0..k-1`` and the rest cycling over shapes ``k..9``.

    >>> np.bincount(train_labels(23, 5, np.random.default_rng(1))).tolist()
    [3, 2, 2, 2, 2, 3, 3, 2, 2, 2]
    """
    n_trans = int(n * k / S.N_SHAPES) if k < S.N_SHAPES else n
    labels = np.r_[np.arange(n_trans) % max(k, 1),
                   k + np.arange(n - n_trans) % max(S.N_SHAPES - k, 1)]
    return rng.permutation(labels.astype(np.int64))


def eval_labels(n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` labels cycling over the ten shapes, shuffled.

    >>> np.bincount(eval_labels(23, np.random.default_rng(1))).tolist()
    [3, 3, 3, 2, 2, 2, 2, 2, 2, 2]
    """
    return rng.permutation(np.arange(n, dtype=np.int64) % S.N_SHAPES)


def draw_outcomes(n: int, n_outcomes: int, exclude: tuple[int, ...],
                  rng: np.random.Generator) -> np.ndarray:
    """``n`` uniform outcome indices in ``0..n_outcomes-1``, skipping those in ``exclude``.

    >>> o = draw_outcomes(1000, 23, (9, 10), np.random.default_rng(0))
    >>> len(set(o.tolist())), bool(np.isin(o, [9, 10]).any())
    (21, False)
    """
    allowed = np.setdiff1d(np.arange(n_outcomes), np.asarray(exclude, dtype=np.int64))
    return allowed[rng.integers(0, len(allowed), size=n)]


def generate(p: Protocol, rng: np.random.Generator) -> tuple[np.ndarray, pd.DataFrame]:
    """Images ``(n_train + n_test, 28, 28)`` uint8 (0-10) and their metadata, TRAIN rows
    first then TEST rows; ``d3mIndex`` is the row number."""
    t = get(p.transform)
    none = get("none")
    k = p.transformed

    tr_shape = train_labels(p.n_train, k, rng)
    tr_trans = tr_shape < k
    exclude = t.identities if p.train_transformed_only else ()
    tr_out_all = draw_outcomes(p.n_train, t.n_outcomes, exclude, rng)
    tr_out = np.where(tr_trans, tr_out_all, 0)
    te_shape = eval_labels(p.n_test, rng)
    te_out = draw_outcomes(p.n_test, t.n_outcomes, (), rng)

    tr_img = np.where(tr_trans[:, None, None], t.apply(tr_shape, tr_out),
                      none.apply(tr_shape, np.zeros_like(tr_shape)))
    te_img = t.apply(te_shape, te_out)
    tr_img = add_noise(tr_img, p.noise, rng)
    te_img = add_noise(te_img, p.noise_test, rng)

    names = np.asarray(t.outcome_names, dtype=object)
    ident = np.asarray(t.identities, dtype=np.int64)
    tr_chance = 0.0 if p.train_transformed_only else t.untransformed_chance
    meta = pd.DataFrame({
        "d3mIndex": np.arange(p.n_train + p.n_test, dtype=np.int64),
        "split": np.r_[np.full(p.n_train, "TRAIN", dtype=object), np.full(p.n_test, "TEST", dtype=object)],
        "shape": np.r_[tr_shape, te_shape].astype(np.int64),
        "transformed": np.r_[tr_trans, np.ones(p.n_test, dtype=bool)],
        "transform": np.r_[np.where(tr_trans, t.name, "none").astype(object),
                           np.full(p.n_test, t.name, dtype=object)],
        "outcome": np.r_[np.where(tr_trans, names[tr_out], "none").astype(object), names[te_out]],
        "noise": np.r_[np.full(p.n_train, float(p.noise)), np.full(p.n_test, float(p.noise_test))],
        "identity": np.r_[np.where(tr_trans, np.isin(tr_out, ident), True), np.isin(te_out, ident)],
        "untransformedChance": np.r_[np.where(tr_trans, tr_chance, 1.0),
                                     np.full(p.n_test, t.untransformed_chance)],
        "trainedTransformed": np.r_[tr_shape < k, te_shape < k],
    }, columns=METADATA_COLUMNS)
    return np.concatenate([tr_img, te_img]), meta
