"""The ViSudo-PC puzzle generator (paper sections 2.2 and 3, appendix B).

What this module owns: from a :class:`Config` and a :class:`Catalog` of labelled images,
the seeded, deterministic construction of one split's puzzles (:func:`generate`) — label
choice by strategy, image pools, overlap, correct puzzles and their corrupted twins.
It works on label and image *indices* only; pixels are touched by :mod:`.render`.

The rules are those of the paper's published generator (``linqs/visual-sudoku-puzzle-
classification``, ``scripts/datasets.py``, ``puzzles.py``, ``strategies.py``):

* **Pools.** Every label's images (the sources' train and test parts merged) are
  shuffled; the train pool of a label is its first ``train_count x d`` images, the test
  pool the next ``test_count x d``, the valid pool the next ``valid_count x d``. An
  image is never in two pools, and a source with fewer than ``d x (train_count +
  test_count + valid_count)`` images of some label is refused (error naming the label,
  the need and the supply) — nothing is recycled.
* **Overlap** ω: to every (split, label) pool of size ``|I|``, ``int(ω|I|)`` images
  drawn with replacement from it are added, then the pool is shuffled. Correct puzzles
  consume their pool *in order* (so with ω > 0 some images repeat and others are never
  used: fewer distinct images); a corrupted puzzle's replacement image is drawn
  uniformly from the split's pool of the new label.
* **Correct puzzles.** In perCell the cells are filled in row-major order, each with a
  label drawn uniformly from the open labels minus those of its row, column and block
  peers already placed; a dead end restarts the puzzle (the published sampler). With
  exactly d labels (every other strategy) the published generator does the same, which
  for d = 9 needs thousands of restarts per puzzle; we draw a valid layout with
  :func:`.sudoku.random_layouts` instead (every valid layout can occur; the
  probabilities of individual layouts differ from the restart sampler's) and map its
  values to the puzzle's labels. Then each cell takes the next image of its label's
  pool.
* **Corruption.** Each correct puzzle gets one corrupted twin, by *replacement* or
  *substitution* (a fair coin, fixed for the twin). Replacement: a cell not touched
  before gets a different label drawn from the split's label list (the puzzle's own
  labels in perPuzzle) and an image of it; at most ``min(10, d²)`` replacements.
  Substitution: two cells not touched before swap; at most ``min(10, d²//2)`` swaps.
  After the first, another follows while a coin with ``corrupt_chance`` says so. A
  result that is still correct is thrown away and redone with the same kind. One
  departure: a perCell puzzle whose d² labels are all different (possible when the
  sources have at least d² labels, e.g. 4x4 on EMNIST's 37 letters) stays correct under
  every swap — the published generator loops for ever there — so its twin is corrupted
  by replacement.
* **Strategies** (labels are (source, class) pairs, sources in the order given):
  ``basic`` the first d labels of the single source; ``perSplit`` d random labels for
  all three splits; ``perPuzzle`` d random labels per puzzle, test and valid puzzles
  drawing from the labels of the train puzzles; ``perCell`` every cell drawn from all
  labels (test and valid: from the labels that appear in train puzzles, correct or
  corrupted), so a correct puzzle may hold more than d labels and "correct" means no
  duplicate in any row, column or block; ``transfer`` the single source's labels
  shuffled, the first d for train and the next d for test and valid.
* Within a split the 2n puzzles are shuffled (the published generator alternates
  correct and corrupted), so position says nothing about the label.

Same :class:`Config` (seed and split index included), same puzzles: everything is
drawn from ``numpy.random.default_rng([seed, split])``.

>>> cat = Catalog.synthetic(10, 30)
>>> ps = generate(Config(dimension=4, train_count=3, test_count=2, valid_count=2,
...                      sources=("synthetic",)), cat)
>>> len(ps), int(ps.correct.sum()), sorted(set(ps.split))
(14, 7, ['test', 'train', 'valid'])
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from d3mkit.benchmarks.visudo import sudoku
from d3mkit.core.errors import D3MKitError, argument_error

STRATEGIES = ("basic", "perSplit", "perPuzzle", "perCell", "transfer")
SPLITS = ("train", "test", "valid")
KINDS = ("replacement", "substitution")
MAX_ATTEMPTS = 10_000
PUZZLE_CORRUPTION_MAX = 10      # most replacements (or swaps) in one corrupted puzzle


def _bad(code: str, param: str, message: str) -> D3MKitError:
    """An invalid setting (exit 1), located at the :class:`Config` field ``param``."""
    if not param:
        return D3MKitError.single("", code, "", message)
    return argument_error(code, param, message)


MAX_PUZZLES = 1_000_000   # correct puzzles per split: a guard against typos


@dataclass(frozen=True)
class Config:
    """Generation parameters (Table 4 of the paper; defaults from its basic setting)."""

    strategy: str = "basic"
    sources: tuple[str, ...] = ("digits",)
    dimension: int = 4
    train_count: int = 50
    test_count: int = 100
    valid_count: int = 100
    overlap: float = 0.0
    corrupt_chance: float = 0.5
    split: int = 0
    seed: int = 0

    def counts(self) -> dict[str, int]:
        return {"train": self.train_count, "test": self.test_count, "valid": self.valid_count}

    def check(self) -> None:
        """Exit-1 errors for impossible settings (label counts are checked in generate)."""
        if self.strategy not in STRATEGIES:
            raise _bad("visudo.strategy", "strategy",
                       f"unknown strategy {self.strategy!r}; known: {', '.join(STRATEGIES)}")
        sudoku.block_size(self.dimension)
        for k, v in self.counts().items():
            if v < 0:
                raise _bad("visudo.count", f"{k}_count", f"{k} count must be >= 0, got {v}")
            if v > MAX_PUZZLES:
                raise _bad("visudo.count", f"{k}_count",
                           f"{k} count {v} is over the limit of {MAX_PUZZLES:,} correct puzzles per split")
        if self.train_count < 1 or self.test_count < 1:
            raise _bad("visudo.count", "train_count", "train and test counts must be at least 1")
        if not self.overlap >= 0:
            raise _bad("visudo.overlap", "overlap", f"overlap must be >= 0, got {self.overlap}")
        if not 0 <= self.corrupt_chance < 1:
            raise _bad("visudo.corrupt_chance", "corrupt_chance",
                       f"corrupt chance must be in [0, 1), got {self.corrupt_chance}")
        if self.split < 0:
            raise _bad("visudo.split", "split", f"split index must be >= 0, got {self.split}")
        if self.strategy in ("basic", "transfer") and len(self.sources) != 1:
            raise _bad("visudo.sources", "sources",
                       f"the {self.strategy} task uses exactly one source, got "
                       f"{', '.join(self.sources)}")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["sources"] = list(self.sources)
        return d


@dataclass
class Catalog:
    """Every image of the chosen sources, labels made global: label ``g`` is class
    ``label_names[g]`` of source ``sources[label_source[g]]``."""

    sources: tuple[str, ...]
    label_source: np.ndarray
    label_names: tuple[str, ...]
    image_label: np.ndarray
    image_ids: np.ndarray
    images: np.ndarray | None = None

    @classmethod
    def from_sources(cls, srcs: list) -> "Catalog":
        label_source, names, img_label, ids, imgs = [], [], [], [], []
        offset = 0
        for k, s in enumerate(srcs):
            label_source += [k] * len(s.label_names)
            names += list(s.label_names)
            img_label.append(np.asarray(s.labels, dtype=np.int64) + offset)
            ids.append(np.asarray(s.image_ids, dtype=object))
            imgs.append(s.images)
            offset += len(s.label_names)
        return cls(tuple(s.name for s in srcs), np.array(label_source, dtype=np.int64), tuple(names),
                   np.concatenate(img_label), np.concatenate(ids),
                   np.concatenate(imgs) if all(i is not None for i in imgs) else None)

    @classmethod
    def synthetic(cls, n_labels: int, per_label: int, name: str = "synthetic") -> "Catalog":
        """Labels only, no pixels (tests and the speed benchmark)."""
        lab = np.repeat(np.arange(n_labels, dtype=np.int64), per_label)
        ids = np.array([f"{name}:all:{i}" for i in range(len(lab))], dtype=object)
        return cls((name,), np.zeros(n_labels, dtype=np.int64), tuple(str(i) for i in range(n_labels)),
                   lab, ids, None)

    @property
    def n_labels(self) -> int:
        return len(self.label_names)

    def source_labels(self, k: int) -> np.ndarray:
        return np.flatnonzero(self.label_source == k)

    def label_text(self, g: int) -> str:
        return f"{self.sources[self.label_source[g]]}:{self.label_names[g]}"


@dataclass
class PuzzleSet:
    """Generated puzzles, in d3mIndex order (train, then test, then valid)."""

    config: Config
    split: np.ndarray           # (n,) 'train' | 'test' | 'valid'
    correct: np.ndarray         # (n,) bool
    labels: np.ndarray          # (n, d, d) global labels
    images: np.ndarray          # (n, d, d) catalog image indices
    twin: np.ndarray            # (n,) index of the correct puzzle a corrupted one came from, -1
    corruption: np.ndarray      # (n,) '' | 'replacement' | 'substitution'
    n_corruptions: np.ndarray   # (n,) corruptions applied
    label_sets: dict = field(default_factory=dict)   # split -> sorted labels of its puzzles
    stats: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.split)


class _Pool:
    """One (split, label) pool: taken in order by correct puzzles, drawn from uniformly
    by replacements."""

    __slots__ = ("images", "pos")

    def __init__(self, images: np.ndarray):
        self.images, self.pos = images, 0

    def take(self, k: int) -> np.ndarray:
        if self.pos + k > len(self.images):      # cannot happen: pools hold count x d
            raise RuntimeError("image pool exhausted")
        out = self.images[self.pos:self.pos + k]
        self.pos += k
        return out

    def draw(self, rng: np.random.Generator) -> int:
        return int(self.images[rng.integers(len(self.images))])


def make_pools(catalog: Catalog, config: Config, rng: np.random.Generator) -> dict[str, list[np.ndarray]]:
    """split -> per-label arrays of catalog image indices: ``count x d`` images each,
    disjoint across splits, then ``int(overlap x size)`` duplicates added and shuffled.
    A label with too few images is an exit-1 error naming it."""
    d = config.dimension
    counts = config.counts()
    need = d * sum(counts.values())
    have = np.bincount(catalog.image_label, minlength=catalog.n_labels)
    short = np.flatnonzero(have < need)
    if short.size:
        g = int(short[np.argmin(have[short])])
        more = f" (and {short.size - 1} other label(s))" if short.size > 1 else ""
        raise _bad("visudo.images", "sources",
                   f"label {catalog.label_text(g)!r} has {int(have[g])} images but "
                   f"{need} are needed{more}: {d} per correct puzzle x ({counts['train']} "
                   f"train + {counts['test']} test + {counts['valid']} valid), never reused "
                   f"across splits; lower the counts or use a larger source")
    perm = rng.permutation(len(catalog.image_label))
    lab = catalog.image_label[perm]
    grouped = perm[np.argsort(lab, kind="stable")]
    bounds = np.concatenate([[0], np.cumsum(have)])
    pools: dict[str, list[np.ndarray]] = {s: [] for s in SPLITS}
    for g in range(catalog.n_labels):
        imgs = grouped[bounds[g]:bounds[g + 1]]
        used = 0
        for s in SPLITS:
            part = imgs[used:used + counts[s] * d]
            used += counts[s] * d
            if config.overlap > 0 and len(part):
                extra = part[rng.integers(0, len(part), size=int(config.overlap * len(part)))]
                part = rng.permutation(np.concatenate([part, extra]))
            pools[s].append(part)
    return pools


def required_labels(config: Config) -> int:
    d = config.dimension
    return 2 * d if config.strategy == "transfer" else d


def _split_label_sets(config: Config, catalog: Catalog, rng: np.random.Generator) -> dict[str, np.ndarray | None]:
    """Fixed label sets per split (basic, perSplit, transfer); None where per puzzle."""
    d, need = config.dimension, required_labels(config)
    have = catalog.n_labels if config.strategy != "basic" else len(catalog.source_labels(0))
    if have < need:
        raise _bad("visudo.labels", "sources",
                   f"{config.strategy} puzzles of dimension {d} need {need} labels but "
                   f"{', '.join(catalog.sources)} provide{'s' if len(catalog.sources) == 1 else ''} {have}")
    if config.strategy == "basic":
        fixed = catalog.source_labels(0)[:d]
        return {s: fixed for s in SPLITS}
    if config.strategy == "perSplit":
        fixed = np.sort(rng.choice(catalog.n_labels, size=d, replace=False))
        return {s: fixed for s in SPLITS}
    if config.strategy == "transfer":
        shuffled = rng.permutation(catalog.n_labels)
        return {"train": shuffled[:d], "test": shuffled[d:2 * d], "valid": shuffled[d:2 * d]}
    return {s: None for s in SPLITS}


def earlier_peers(d: int) -> list[np.ndarray]:
    """For each cell (row-major), its row/column/block peers that come before it."""
    pp = sudoku.peer_pairs(d)                  # i < j
    return [np.sort(pp[pp[:, 1] == c, 0]) for c in range(d * d)]


def fill_puzzles(sets: np.ndarray, d: int, rng: np.random.Generator) -> np.ndarray:
    """Correct puzzles, one per row of ``sets`` (n, L) (label ids; L >= d): cells in
    row-major order, each drawn uniformly from the puzzle's labels not used by an
    earlier row/column/block peer; a puzzle that reaches a dead end starts over
    (the published generator's ``generatePuzzle``). Vectorised over puzzles.

    >>> g = fill_puzzles(np.tile(np.arange(4), (50, 1)), 4, np.random.default_rng(0))
    >>> g.shape, bool(sudoku.is_correct(g).all())
    ((50, 4, 4), True)
    """
    n, width = sets.shape
    out = np.empty((n, d * d), dtype=np.int64)
    todo = np.arange(n)
    peers = earlier_peers(d)
    for _ in range(MAX_ATTEMPTS):
        if todo.size == 0:
            return out.reshape(n, d, d)
        s = sets[todo]
        lab = np.full((len(todo), d * d), -1, dtype=np.int64)
        dead = np.zeros(len(todo), dtype=bool)
        rows = np.arange(len(todo))
        for c in range(d * d):
            taken = lab[:, peers[c]]
            ok = ~(s[:, :, None] == taken[:, None, :]).any(axis=2)
            dead |= ~ok.any(axis=1)
            score = np.where(ok, rng.random((len(todo), width)), -1.0)
            lab[:, c] = s[rows, np.argmax(score, axis=1)]
        out[todo[~dead]] = lab[~dead]
        todo = todo[dead]
    raise _bad("visudo.labels", "sources", f"no correct puzzle after {MAX_ATTEMPTS} attempts")


def _corrupt(labels: np.ndarray, images: np.ndarray, candidates: np.ndarray, pools: list,
             chance: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, str, int]:
    """A corrupted copy of one correct puzzle (see module docstring)."""
    d = labels.shape[0]
    n = d * d
    kind = KINDS[int(rng.random() < 0.5)]
    if kind == "substitution" and len(np.unique(labels)) == n:
        kind = "replacement"          # no swap of all-different labels breaks a rule
    most = min(PUZZLE_CORRUPTION_MAX, n if kind == "replacement" else n // 2)
    per = 1 if kind == "replacement" else 2
    for _ in range(MAX_ATTEMPTS):
        lab, img = labels.ravel().copy(), images.ravel().copy()
        cells = rng.permutation(n)            # distinct cells, in the order they are touched
        count = 0
        while count < most and (count == 0 or rng.random() < chance):
            if kind == "replacement":
                c = int(cells[count])
                alts = candidates[candidates != lab[c]]
                new = int(alts[rng.integers(len(alts))])
                lab[c], img[c] = new, pools[new].draw(rng)
            else:
                a, b = int(cells[2 * count]), int(cells[2 * count + 1])
                lab[a], lab[b] = lab[b], lab[a]
                img[a], img[b] = img[b], img[a]
            count += 1
        if not sudoku.is_correct(lab.reshape(d, d)):
            return lab.reshape(d, d), img.reshape(d, d), kind, count
    raise _bad("visudo.corruption", "", f"no incorrect puzzle after {MAX_ATTEMPTS} corruption attempts")


def generate(config: Config, catalog: Catalog) -> PuzzleSet:
    """All puzzles of one (configuration, split index) — see the module docstring."""
    config.check()
    d = config.dimension
    rng = np.random.default_rng([config.seed, config.split])
    fixed = _split_label_sets(config, catalog, rng)
    pools = make_pools(catalog, config, rng)
    parts = []
    label_sets: dict[str, list[int]] = {}
    distinct: dict[str, int] = {}
    train_seen = None
    for s in SPLITS:
        n = config.counts()[s]
        split_pools = [_Pool(p) for p in pools[s]]
        avail = np.arange(catalog.n_labels) if s == "train" else train_seen
        if fixed[s] is not None:
            sets = np.broadcast_to(fixed[s], (n, d))
        elif config.strategy == "perPuzzle":
            if len(avail) < d:
                raise _bad("visudo.labels", "sources", f"perPuzzle needs {d} labels, {len(avail)} available")
            sets = avail[np.argsort(rng.random((n, len(avail))), axis=1)[:, :d]]
        else:                                                   # perCell: every label open
            sets = np.broadcast_to(avail, (n, len(avail)))
        if sets.shape[1] == d:          # exactly d labels: a random valid layout, relabelled
            slots = sudoku.random_layouts(n, d, rng)
            labels = np.take_along_axis(np.ascontiguousarray(sets), slots.reshape(n, d * d),
                                        axis=1).reshape(n, d, d)
        else:                           # perCell: the published cell-by-cell draw
            labels = fill_puzzles(np.ascontiguousarray(sets), d, rng)
        images = np.empty(labels.shape, dtype=np.int64)
        for i in range(n):                                      # puzzle by puzzle, in order
            for c, g in enumerate(labels[i].ravel()):
                images[i].flat[c] = split_pools[g].take(1)[0]
        bad_l, bad_i = np.empty_like(labels), np.empty_like(images)
        kinds, ncor = [], []
        for i in range(n):
            cand = np.unique(sets[i]) if config.strategy != "perCell" else avail
            bl, bi, kind, c = _corrupt(labels[i], images[i], cand, split_pools,
                                       config.corrupt_chance, rng)
            bad_l[i], bad_i[i] = bl, bi
            kinds.append(kind)
            ncor.append(c)
        all_l = np.concatenate([labels, bad_l])
        all_i = np.concatenate([images, bad_i])
        if s == "train":
            train_seen = np.unique(all_l) if config.strategy == "perCell" else np.unique(labels)
        correct = np.r_[np.ones(n, bool), np.zeros(n, bool)]
        twin = np.r_[np.full(n, -1), np.arange(n)]
        kind_arr = np.array([""] * n + kinds, dtype=object)
        ncor_arr = np.r_[np.zeros(n, np.int64), np.array(ncor, dtype=np.int64)]
        order = rng.permutation(2 * n)
        where = np.empty(2 * n, dtype=np.int64)
        where[order] = np.arange(2 * n)
        twin = twin[order]
        twin = np.where(twin >= 0, where[np.maximum(twin, 0)], -1)
        parts.append((s, all_l[order], all_i[order], correct[order], twin, kind_arr[order], ncor_arr[order]))
        label_sets[s] = sorted(int(x) for x in np.unique(all_l))
        distinct[s] = int(len(np.unique(all_i)))
    offset, out = 0, []
    for s, l_, i_, c_, t_, k_, n_ in parts:
        out.append((np.full(len(c_), s, dtype=object), l_, i_, c_, np.where(t_ >= 0, t_ + offset, -1), k_, n_))
        offset += len(c_)
    sp, lab, img, cor, tw, kd, nc = (np.concatenate(c) for c in zip(*out))
    stats = {"poolSizes": {s: {catalog.label_text(g): int(len(pools[s][g])) for g in label_sets[s]} for s in SPLITS},
             "distinctImages": distinct,
             "labels": {s: [catalog.label_text(g) for g in label_sets[s]] for s in SPLITS}}
    return PuzzleSet(config, split=sp, correct=cor, labels=lab, images=img, twin=tw, corruption=kd,
                     n_corruptions=nc, label_sets=label_sets, stats=stats)
