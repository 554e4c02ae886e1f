"""The ViSudo-PC puzzle generator (paper sections 2.2 and 3, appendix B).

What this module owns: from a :class:`Config` and a :class:`Catalog` of labelled images,
the seeded, deterministic construction of one split's puzzles (:func:`generate`) — label
choice by strategy, image pools, overlap, correct puzzles and their corrupted twins.
It works on label and image *indices* only; pixels are touched by :mod:`.render`.

The rules, as the paper gives them and as implemented:

* **Pools.** All images of the chosen sources (their train and test parts merged) are
  shuffled, partitioned by label, and each label's images are cut into train / test /
  valid pools in proportion to the splits' puzzle counts (so each split's demand per
  image is the same). An image is never in two pools.
* **Overlap** ω: in every (split, label) pool I, ``round(ω|I|)`` images drawn with
  replacement from I are added and the pool is shuffled.
* **Correct puzzles.** A valid label layout (:func:`.sudoku.random_layouts`) is mapped to
  the puzzle's labels; each cell then takes the next image of its label's pool. Pools
  are consumed in order; a pool that runs out is reshuffled and reused (only within its
  split) — counted as ``poolCycles`` in the manifest, and visible in the debug imageIds.
* **Corruption.** Each correct puzzle gets one corrupted twin, made from a copy by
  *replacement* (random cell, alternate label, an image drawn uniformly from the split's
  pool of that label) or *substitution* (swap two random cells), the kind chosen by a
  fair coin; after each corruption a coin with ``corrupt_chance`` decides whether another
  of the same kind follows. A result that is still correct is thrown away and redone.
  Alternate labels come from the puzzle's own label set (from the split's labels in
  perCell, where a puzzle's set is open).
* **Strategies** (labels are (source, class) pairs, sources in the order given):
  ``basic`` first d labels of the single source; ``perSplit`` d random labels for all
  splits; ``perPuzzle`` d random labels per puzzle; ``perCell`` a random label set of
  size k ∈ [d, min(d², available)] per puzzle, each cell re-drawn from the set among the
  labels its row/column/block peers do not use (so more than d labels appear and
  "correct" means no duplicate in any row, column or block); ``transfer`` the first d
  labels for train and the next d for test and valid. In perPuzzle and perCell, test
  and valid puzzles draw only labels used by the correct train puzzles.
* Within a split the 2n puzzles are shuffled, so position says nothing about the label.

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
from d3mkit.errors import D3MKitError

STRATEGIES = ("basic", "perSplit", "perPuzzle", "perCell", "transfer")
SPLITS = ("train", "test", "valid")
KINDS = ("replacement", "substitution")
MAX_ATTEMPTS = 10_000


def _bad(code: str, location: str, message: str) -> D3MKitError:
    return D3MKitError.single("", code, location, message)


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
            raise _bad("visudo.strategy", "--strategy",
                       f"unknown strategy {self.strategy!r}; known: {', '.join(STRATEGIES)}")
        sudoku.block_size(self.dimension)
        for k, v in self.counts().items():
            if v < 0:
                raise _bad("visudo.count", f"--{k}-count", f"{k} count must be >= 0, got {v}")
            if v > MAX_PUZZLES:
                raise _bad("visudo.count", f"--{k}-count",
                           f"{k} count {v} is over the limit of {MAX_PUZZLES:,} correct puzzles per split")
        if self.train_count < 1 or self.test_count < 1:
            raise _bad("visudo.count", "--train-count", "train and test counts must be at least 1")
        if not self.overlap >= 0:
            raise _bad("visudo.overlap", "--overlap", f"overlap must be >= 0, got {self.overlap}")
        if not 0 <= self.corrupt_chance < 1:
            raise _bad("visudo.corrupt_chance", "--corrupt-chance",
                       f"corrupt chance must be in [0, 1), got {self.corrupt_chance}")
        if self.split < 0:
            raise _bad("visudo.split", "--split", f"split index must be >= 0, got {self.split}")
        if self.strategy == "basic" and len(self.sources) != 1:
            raise _bad("visudo.sources", "--sources",
                       f"the basic task uses exactly one source, got {', '.join(self.sources)}")

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


class _Stream:
    """A (split, label) pool consumed in order; reshuffled and reused when exhausted."""

    __slots__ = ("pool", "order", "pos", "cycles", "rng")

    def __init__(self, pool: np.ndarray, rng: np.random.Generator):
        self.pool, self.order, self.pos, self.cycles, self.rng = pool, pool, 0, 0, rng

    def take(self, k: int) -> np.ndarray:
        out = []
        while k > 0:
            if self.pos == len(self.order):
                self.order, self.pos = self.rng.permutation(self.pool), 0
                self.cycles += 1
            m = min(k, len(self.order) - self.pos)
            out.append(self.order[self.pos:self.pos + m])
            self.pos += m
            k -= m
        return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)

    def uniform(self) -> int:
        return int(self.pool[self.rng.integers(len(self.pool))])


def make_pools(catalog: Catalog, config: Config, rng: np.random.Generator) -> dict[str, list[np.ndarray]]:
    """split -> per-label arrays of catalog image indices (disjoint across splits), with
    overlap added."""
    counts = config.counts()
    total = sum(counts.values())
    frac = np.array([counts[s] / total for s in SPLITS])
    perm = rng.permutation(len(catalog.image_label))
    lab = catalog.image_label[perm]
    order = np.argsort(lab, kind="stable")
    grouped = perm[order]
    bounds = np.concatenate([[0], np.cumsum(np.bincount(lab, minlength=catalog.n_labels))])
    pools: dict[str, list[np.ndarray]] = {s: [] for s in SPLITS}
    for g in range(catalog.n_labels):
        imgs = grouped[bounds[g]:bounds[g + 1]]
        n = len(imgs)
        sizes = np.floor(frac * n).astype(np.int64)
        for i in np.argsort(-(frac * n - sizes), kind="stable")[: n - sizes.sum()]:
            sizes[i] += 1                     # largest remainders
        for i, s in enumerate(SPLITS):        # a split that makes puzzles gets >= 1 image
            if counts[s] > 0 and sizes[i] == 0 and sizes.max() > 1:
                sizes[int(np.argmax(sizes))] -= 1
                sizes[i] += 1
        cuts = np.cumsum(sizes)[:-1]
        for s, part in zip(SPLITS, np.split(imgs, cuts)):
            if config.overlap > 0 and len(part):
                extra = part[rng.integers(0, len(part), size=int(round(config.overlap * len(part))))]
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
        raise _bad("visudo.labels", "--sources",
                   f"{config.strategy} puzzles of dimension {d} need {need} labels but "
                   f"{', '.join(catalog.sources)} provide{'s' if len(catalog.sources) == 1 else ''} {have}")
    if config.strategy == "basic":
        fixed = catalog.source_labels(0)[:d]
        return {s: fixed for s in SPLITS}
    if config.strategy == "perSplit":
        fixed = np.sort(rng.choice(catalog.n_labels, size=d, replace=False))
        return {s: fixed for s in SPLITS}
    if config.strategy == "transfer":
        all_ = np.arange(catalog.n_labels)
        return {"train": all_[:d], "test": all_[d:2 * d], "valid": all_[d:2 * d]}
    return {s: None for s in SPLITS}


def per_cell_labels(slots: np.ndarray, avail: np.ndarray, rng: np.random.Generator,
                    peers: np.ndarray) -> np.ndarray:
    """perCell labels for ``n`` puzzles with layouts ``slots`` (n, d, d), vectorised over
    puzzles: each puzzle draws k in [d, min(d*d, len(avail))] labels; its layout's d
    slots take the first d; then every cell, in one random order, is re-drawn uniformly
    among the puzzle's k labels that none of its row/column/block ``peers`` (d*d, P)
    holds — its current label always qualifies, so every step keeps the grid correct."""
    n, d = slots.shape[0], slots.shape[1]
    kmax = min(d * d, len(avail))
    k = rng.integers(d, kmax + 1, size=n)
    chosen = avail[np.argsort(rng.random((n, len(avail))), axis=1)[:, :kmax]]   # (n, kmax)
    in_set = np.arange(kmax)[None, :] < k[:, None]
    lab = np.take_along_axis(chosen[:, :d], slots.reshape(n, d * d), axis=1)
    rows = np.arange(n)
    for c in rng.permutation(d * d):
        taken = lab[:, peers[c]]                                               # (n, P)
        ok = in_set & ~(chosen[:, :, None] == taken[:, None, :]).any(axis=2)
        score = np.where(ok, rng.random((n, kmax)), -1.0)
        lab[:, c] = chosen[rows, np.argmax(score, axis=1)]
    return lab.reshape(n, d, d)


def _corrupt(labels: np.ndarray, images: np.ndarray, candidates: np.ndarray, streams: list,
             chance: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, str, int]:
    """A corrupted copy of one correct puzzle (see module docstring)."""
    d = labels.shape[0]
    n = d * d
    kind = KINDS[int(rng.random() < 0.5)]
    for _ in range(MAX_ATTEMPTS):
        lab, img = labels.ravel().copy(), images.ravel().copy()
        count = 0
        while True:
            if kind == "replacement":
                c = int(rng.integers(n))
                alts = candidates[candidates != lab[c]]
                new = int(alts[rng.integers(len(alts))])
                lab[c], img[c] = new, streams[new].uniform()
            else:
                a = int(rng.integers(n))
                b = int(rng.integers(n - 1))
                b += b >= a
                lab[a], lab[b] = lab[b], lab[a]
                img[a], img[b] = img[b], img[a]
            count += 1
            if rng.random() >= chance:
                break
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
    peers = None
    if config.strategy == "perCell":
        pp = sudoku.peer_pairs(d)
        peers = np.stack([np.concatenate([pp[pp[:, 0] == c, 1], pp[pp[:, 1] == c, 0]]) for c in range(d * d)])
    parts = []
    label_sets: dict[str, list[int]] = {}
    cycles: dict[str, int] = {}
    train_used = None
    for s in SPLITS:
        n = config.counts()[s]
        streams = [_Stream(p, rng) for p in pools[s]]
        avail = np.arange(catalog.n_labels) if s == "train" or train_used is None else train_used
        slots = sudoku.random_layouts(n, d, rng)
        if fixed[s] is not None:
            sets = np.broadcast_to(fixed[s], (n, d))
            labels = np.take_along_axis(sets, slots.reshape(n, d * d), axis=1).reshape(n, d, d)
        elif config.strategy == "perPuzzle":
            if len(avail) < d:
                raise _bad("visudo.labels", "--sources", f"perPuzzle needs {d} labels, {len(avail)} available")
            sets = avail[np.argsort(rng.random((n, len(avail))), axis=1)[:, :d]]
            labels = np.take_along_axis(sets, slots.reshape(n, d * d), axis=1).reshape(n, d, d)
        else:
            if len(avail) < d:
                raise _bad("visudo.labels", "--sources", f"perCell needs {d} labels, {len(avail)} available")
            labels = per_cell_labels(slots, avail, rng, peers)
        labels = np.ascontiguousarray(labels, dtype=np.int64)
        images = np.empty(labels.shape, dtype=np.int64)
        flat_l, flat_i = labels.reshape(-1), images.reshape(-1)
        for g in np.unique(flat_l):
            pos = np.flatnonzero(flat_l == g)
            if len(streams[g].pool) == 0:
                raise _bad("visudo.images", "--sources",
                           f"no {s} images of label {catalog.label_text(g)!r}: the source has too few "
                           f"images of that label for three disjoint pools")
            flat_i[pos] = streams[g].take(len(pos))
        if s == "train":
            train_used = np.unique(labels)
        # corrupted twins
        bad_l, bad_i = np.empty_like(labels), np.empty_like(images)
        kinds, ncor = [], []
        split_avail = np.unique(labels) if config.strategy != "perCell" else avail
        for i in range(n):
            cand = np.unique(labels[i]) if config.strategy != "perCell" else split_avail
            bl, bi, kind, c = _corrupt(labels[i], images[i], cand, streams, config.corrupt_chance, rng)
            bad_l[i], bad_i[i] = bl, bi
            kinds.append(kind)
            ncor.append(c)
        all_l = np.concatenate([labels, bad_l])
        all_i = np.concatenate([images, bad_i])
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
        cycles[s] = int(sum(st.cycles for st in streams))
    offset, out = 0, []
    for s, l_, i_, c_, t_, k_, n_ in parts:
        out.append((np.full(len(c_), s, dtype=object), l_, i_, c_, np.where(t_ >= 0, t_ + offset, -1), k_, n_))
        offset += len(c_)
    sp, lab, img, cor, tw, kd, nc = (np.concatenate(c) for c in zip(*out))
    stats = {"poolSizes": {s: {catalog.label_text(g): int(len(pools[s][g])) for g in label_sets[s]} for s in SPLITS},
             "poolCycles": cycles,
             "labels": {s: [catalog.label_text(g) for g in label_sets[s]] for s in SPLITS}}
    return PuzzleSet(config, split=sp, correct=cor, labels=lab, images=img, twin=tw, corruption=kd,
                     n_corruptions=nc, label_sets=label_sets, stats=stats)
