"""Shapes, transformations and the sampling protocol of the abstraction benchmark,
pinned pixel-exactly to the construction of the paper's notebook."""

import hashlib

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from d3mkit.benchmarks.abstraction import shapes as S
from d3mkit.benchmarks.abstraction import transforms as T
from d3mkit.benchmarks.abstraction.protocol import Protocol, generate

# The ten shapes, rows/columns 7..21 of the 28x28 frame ('#' = 9, '.' = 0); nothing else
# in the frame is set. Drawn by hand from the notebook's SetOfShapes.
SHAPES_ART = """
###############  ###############  ###############  ###############  ###############
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#

###############  ###############  ###############  ###############  ###############
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
###############  ###############  ###############  ###############  ###############
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
#..............  .......#.......  #......#.......  #.............#  #......#......#
"""

# sha256 of every outcome table, (10, n_outcomes, 28, 28) uint8, computed once from the
# notebook's own Shape class (rotate, move(r, c) for r, c in 7..20, resize(5..27), flip,
# setDiagonals) and checked equal to ours.
TABLE_SHA256 = {
    "rotation": "0cb9c4b9cd0a963fd22a8d04ac50271b76e0e00296c732d1ea7f0194176c57b6",
    "translation": "585f0dfd6069b236ec9ce1c8a81e91e30e8ace2379a05dc073db4ab9327e5b3d",
    "resize": "7fc4bdaf64f9c17afe19f6e34bac01742297346ca65c8467f72f61b6473f9100",
    "mirror": "8c649bebc0c01c8b02870b4201e3e57bf9bd7d650886f491b220122c5d4a671b",
    "diagonals": "a49827948a8fb2458eb13af03ff93f2e3a8e926aa1b68c75513b2f362ca6ea34",
    "none": "19ac5be3a27596a09849ea9aea7c744be7fe3478d8fe610dce5a2c2802097fd1",
}


def art_images() -> np.ndarray:
    blocks = [b for b in SHAPES_ART.strip("\n").split("\n\n")]
    out = np.zeros((10, 28, 28), dtype=np.uint8)
    for half, block in enumerate(blocks):
        rows = block.splitlines()
        assert len(rows) == 15
        for j in range(5):
            for r, line in enumerate(rows):
                cells = line[j * 17:j * 17 + 15]
                out[5 * half + j, 7 + r, 7:22] = [9 if ch == "#" else 0 for ch in cells]
    return out


def test_the_ten_shapes_pixel_exact():
    assert np.array_equal(S.originals(), art_images())
    assert [S.lines_of(i) for i in (0, 4, 6)] == ["H:top V:left", "H:top V:left,middle,right",
                                                  "H:top,middle V:middle"]


@pytest.mark.parametrize("name", sorted(TABLE_SHA256))
def test_every_outcome_table_pinned(name):
    table = np.ascontiguousarray(T.get(name).table(), dtype=np.uint8)
    assert hashlib.sha256(table.tobytes()).hexdigest() == TABLE_SHA256[name]


@pytest.mark.parametrize("name,n,identities", [
    ("rotation", 4, ("0",)), ("translation", 196, ("r14c14",)),
    ("resize", 23, ("size14", "size15")), ("diagonals", 1, ()), ("mirror", 1, ()),
    ("none", 1, ("none",))])
def test_outcome_counts_and_identities_are_the_pixel_identical_ones(name, n, identities):
    t = T.get(name)
    assert t.n_outcomes == n and t.identity_names == identities
    assert t.untransformed_chance == pytest.approx(len(identities) / n)
    table = t.table()
    assert table.shape == (10, n, 28, 28) and table.dtype == np.uint8
    same = (table == S.originals()[:, None]).all(axis=(2, 3))          # (10, n)
    assert (np.nonzero(same.any(axis=0))[0] == np.array(t.identities, dtype=int)).all()
    assert same[:, list(t.identities)].all()


def test_rotation_turns_the_frame_about_pixel_14():
    # rows/columns 1..27 are symmetric about 14: rotating that sub-frame clockwise is the
    # notebook's rotate() (verticals -> horizontals, horizontals -> reversed verticals)
    table = T.get("rotation").table()
    for i in range(10):
        sub = S.originals()[i][1:, 1:]
        for k in range(4):
            assert np.array_equal(table[i, k][1:, 1:], np.rot90(sub, -k))
            assert not table[i, k][0].any() and not table[i, k][:, 0].any()
    # no shape is invariant under a turn
    assert not (table[:, 1:] == table[:, :1]).all(axis=(2, 3)).any()


def test_translation_moves_the_centre_over_7_to_20():
    t = T.get("translation")
    table = t.table()
    for k, name in enumerate(t.outcome_names):
        r, c = (int(x) for x in name[1:].split("c"))
        assert 7 <= r <= 20 and 7 <= c <= 20
        assert np.array_equal(table[:, k], np.roll(S.originals(), (r - 14, c - 14), axis=(1, 2)))
    assert len({table[3, k].tobytes() for k in range(196)}) == 196


def test_resize_draws_23_sizes_with_12_distinct_extents():
    t = T.get("resize")
    table = t.table()
    for i in range(10):
        assert len({table[i, k].tobytes() for k in range(23)}) == 12
        for k, size in enumerate(T.RESIZE_SIZES):
            h = size // 2
            rows, cols = np.nonzero(table[i, k])
            assert (rows.min(), rows.max(), cols.min(), cols.max()) == (14 - h, 14 + h, 14 - h, 14 + h)
    # size 5: shape 9 (top and middle lines, all verticals) in a 5x5 box at rows/cols 12..16
    small = table[9, T.RESIZE_SIZES.index(5)][12:17, 12:17]
    assert (small > 0).astype(int).tolist() == [[1, 1, 1, 1, 1], [1, 0, 1, 0, 1],
                                                [1, 1, 1, 1, 1], [1, 0, 1, 0, 1],
                                                [1, 0, 1, 0, 1]]


def test_mirror_is_upside_down_and_diagonals_are_added():
    m = T.get("mirror").table()[:, 0]
    assert np.array_equal(m[:, 1:], S.originals()[:, 1:][:, ::-1])     # about row 14
    assert not (m[:, None] == S.originals()[None]).all(axis=(2, 3)).any()
    d = T.get("diagonals").table()[:, 0]
    eye = np.eye(28, dtype=bool)
    assert np.array_equal(d, np.where(eye | eye[:, ::-1], 9, S.originals()))


def test_noise_is_clipped_to_10_and_truncated():
    rng = np.random.default_rng(0)
    nine = np.full((100, 28, 28), 9, dtype=np.uint8)
    small = T.add_noise(nine, 0.1, rng)
    # truncation: 9 + e becomes 8 whenever e < 0 (rounding would keep 9 almost always)
    assert set(np.unique(small).tolist()) == {8, 9}
    assert 0.45 < (small == 8).mean() < 0.55
    big = T.add_noise(np.full((50, 28, 28), 5, np.uint8), 6, rng)
    assert big.min() == 0 and big.max() == 10
    grey = np.full((200, 28, 28), 5, dtype=np.uint8)
    out = T.add_noise(grey, 1, rng).astype(float)
    assert abs(out.mean() - 4.5) < 0.05                      # E[floor(5 + N(0, 1))] = 4.5
    with pytest.raises(ValueError):
        T.add_noise(grey, -1, rng)


def test_same_seed_same_bytes_and_other_seed_differs():
    p = Protocol("translation", transformed=5, n_train=50, n_test=20, noise=2)
    a, ma = generate(p, np.random.default_rng(7))
    b, mb = generate(p, np.random.default_rng(7))
    c, _ = generate(p, np.random.default_rng(8))
    assert a.tobytes() == b.tobytes() and ma.equals(mb)
    assert a.tobytes() != c.tobytes()


def test_test_set_defaults_to_the_training_size_and_labels_follow_the_notebook():
    p = Protocol("rotation", transformed=8, n_train=1000, noise=2)
    assert p.n_test == 1000
    _, meta = generate(p, np.random.default_rng(0))
    train = meta[meta.split == "TRAIN"]
    assert np.bincount(train["shape"]).tolist() == [100] * 10
    assert (train["transformed"] == (train["shape"] < 8)).all()
    # int(n * K / 10) transformed images cycle over shapes 0..K-1
    counts = np.bincount(generate(Protocol("mirror", 3, 25), np.random.default_rng(0))[1]
                         .query("split == 'TRAIN'")["shape"], minlength=10)
    assert counts.tolist() == [3, 2, 2, 3, 3, 3, 3, 2, 2, 2]


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(transform=st.sampled_from(sorted(T.TRANSFORMS)), k=st.integers(0, 10),
       n_train=st.integers(10, 80), n_test=st.integers(10, 60), seed=st.integers(0, 2**32 - 1),
       only=st.booleans())
def test_protocol_properties(transform, k, n_train, n_test, seed, only):
    p = Protocol(transform, transformed=k, n_train=n_train, n_test=n_test, noise=0,
                 train_transformed_only=only)
    if p.problems():
        assert only and transform == "none"
        return
    imgs, meta = generate(p, np.random.default_rng(seed))
    t = T.get(transform)
    assert len(imgs) == len(meta) == n_train + n_test
    train, test = meta[meta.split == "TRAIN"], meta[meta.split == "TEST"]
    counts = np.bincount(test["shape"], minlength=10)
    assert counts.min() >= 1 and counts.max() - counts.min() <= 1
    assert (np.bincount(train["shape"], minlength=10) >= 1).all()
    # training: shapes >= K untransformed, shapes < K transformed
    assert (train["transformed"] == (train["shape"] < k)).all()
    assert (train["trainedTransformed"] == (train["shape"] < k)).all()
    untouched = train[~train["transformed"]]
    assert np.array_equal(imgs[untouched.index], S.originals()[untouched["shape"]])
    # every image is the table entry its metadata names (noise 0)
    idx = {n: i for i, n in enumerate(t.outcome_names)}
    for part in (train[train["transformed"]], test):
        outs = np.array([idx[o] for o in part["outcome"]], dtype=int)
        assert np.array_equal(imgs[part.index], t.table()[part["shape"], outs])
    assert test["transformed"].all()
    assert (test["identity"] == test["outcome"].isin(t.identity_names)).all()
    if only:
        assert not train.loc[train["transformed"], "identity"].any()


def test_protocol_rejects_bad_input():
    codes = lambda p: {i.code for i in p.problems()}
    assert codes(Protocol("spin")) == {"abstraction.transform"}
    assert codes(Protocol(transformed=11)) == {"abstraction.transformed"}
    assert codes(Protocol(transformed=-1)) == {"abstraction.transformed"}
    assert codes(Protocol(noise=-0.5)) == {"abstraction.noise"}
    assert codes(Protocol(n_test=9)) == {"abstraction.n_test"}
    assert Protocol("rotation", 10, 100, 10, 4).problems() == []
