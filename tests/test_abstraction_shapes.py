"""Shapes, transformations and the sampling protocol of the abstraction benchmark."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from d3mkit.benchmarks.abstraction import shapes as S
from d3mkit.benchmarks.abstraction import transforms as T
from d3mkit.benchmarks.abstraction.protocol import Protocol, generate


def test_ten_shapes_three_horizontal_three_vertical_segments():
    assert len(S.SEGMENTS) == 10
    for h, v in S.SEGMENTS:
        assert len(h) == 3 and len(v) == 3
        for a, b in list(h) + list(v):
            assert 0 <= a < b <= 2
    ps = S.patches()
    assert ps.shape == (10, 15, 15)
    assert set(np.unique(ps).tolist()) == {0, S.MAX_VALUE}
    # every shape fills its 15x15 box (so translation has exactly 14 positions per axis)
    for p in ps:
        rows, cols = np.nonzero(p)
        assert rows.min() == 0 and cols.min() == 0 and rows.max() == 14 and cols.max() == 14


def test_no_shape_is_invariant_under_rotation():
    for p in S.patches():
        for k in (1, 2, 3):
            assert not np.array_equal(np.rot90(p, k), p)
    table = T.get("rotation").table()
    for i in range(10):
        for k in (1, 2, 3):
            assert not np.array_equal(table[i, k], table[i, 0])


def test_no_rotation_of_a_shape_equals_any_original_shape():
    table = T.get("rotation").table()            # (10, 4, 28, 28)
    originals = S.originals()
    rotated = table[:, 1:].reshape(-1, 28 * 28)
    flat = originals.reshape(10, -1)
    equal = (rotated[:, None, :] == flat[None, :, :]).all(axis=2)
    assert not equal.any()
    # and the rotations of different shapes never coincide either
    allrot = table.reshape(40, -1)
    same = (allrot[:, None, :] == allrot[None, :, :]).all(axis=2)
    assert same.sum() == 40


def test_mirror_images_are_new_shapes_too():
    m = T.get("mirror").table()[:, 0].reshape(10, -1)
    flat = S.originals().reshape(10, -1)
    assert not (m[:, None, :] == flat[None, :, :]).all(axis=2).any()


def test_shapes_are_pairwise_distinguishable():
    flat = S.originals().reshape(10, -1).astype(int)
    d = (flat[:, None, :] != flat[None, :, :]).sum(axis=2)
    off = d[~np.eye(10, dtype=bool)]
    assert off.min() >= 13
    assert S.min_distance() >= 13


def test_connected_shapes():
    from collections import deque
    for p in S.patches():
        pts = set(zip(*np.nonzero(p)))
        start = next(iter(pts))
        seen, q = {start}, deque([start])
        while q:
            y, x = q.popleft()
            for n in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                if n in pts and n not in seen:
                    seen.add(n)
                    q.append(n)
        assert seen == pts


@pytest.mark.parametrize("name,n,identity", [
    ("rotation", 4, "0"), ("translation", 196, "r6c6"), ("resize", 14, "size15"),
    ("diagonals", 1, None), ("mirror", 1, None), ("none", 1, "none")])
def test_outcome_counts_and_identity(name, n, identity):
    t = T.get(name)
    assert t.n_outcomes == n and t.identity_name == identity
    table = t.table()
    assert table.shape == (10, n, 28, 28) and table.dtype == np.uint8
    assert table.max() <= S.MAX_VALUE
    orig = S.originals()
    same = (table == orig[:, None]).all(axis=(2, 3))          # (10, n)
    if identity is None:
        assert not same.any()
    else:
        assert same[:, t.identity].all()
        others = np.delete(same, t.identity, axis=1)
        assert not others.any()
    # all outcomes of one shape are different images
    for i in range(10):
        flat = table[i].reshape(n, -1)
        assert len({r.tobytes() for r in flat}) == n


def test_resize_has_five_smaller_and_eight_larger_sizes():
    sizes = np.array(T.RESIZE_SIZES)
    assert (sizes < S.PATCH).sum() == 5 and (sizes > S.PATCH).sum() == 8
    table = T.get("resize").table()
    for i in range(10):
        for k, size in enumerate(T.RESIZE_SIZES):               # the shape's box is size x size
            rows, cols = np.nonzero(table[i, k])
            assert rows.max() - rows.min() + 1 == size and cols.max() - cols.min() + 1 == size
            assert abs((rows.min() + rows.max()) / 2 - 13.5) <= 1


def test_translation_and_rotation_preserve_the_shape():
    for name in ("translation", "rotation", "mirror"):
        table = T.get(name).table()
        ink = (table > 0).sum(axis=(2, 3))
        assert (ink == ink[:, :1]).all()
    tr = T.get("translation")
    k = tr.outcome_names.index("r0c13")
    img = tr.table()[3, k]
    assert np.array_equal(img[0:15, 13:28], S.patches()[3])


def test_resized_shapes_keep_all_their_lines():
    table = T.get("resize").table()
    for i in range(10):
        h, v = S.SEGMENTS[i]
        for k, size in enumerate(T.RESIZE_SIZES):
            assert (table[i, k] > 0).sum() == (S.render_patch(h, v, size) > 0).sum()
            # three distinct line rows and columns survive at every size
            patch = S.render_patch(h, v, size)
            assert len(set(S.lattice_positions(size))) == 3
            assert patch[list(S.lattice_positions(size)), :].any(axis=1).all()


def test_diagonals_drawn_behind_the_shape():
    d = T.get("diagonals").table()[:, 0]
    orig = S.originals()
    assert (d >= orig).all()
    assert (d[:, np.arange(28), np.arange(28)] == S.MAX_VALUE).all()


def test_noise_level_is_the_standard_deviation():
    rng = np.random.default_rng(0)
    grey = np.full((200, 28, 28), 4, dtype=np.uint8)       # away from the clipping bounds
    for level in (1, 2):
        out = T.add_noise(grey, level, rng).astype(float) - 4
        assert abs(out.std() - np.sqrt(level ** 2 + 1 / 12)) < 0.05
    with pytest.raises(ValueError):
        T.add_noise(grey, -1, rng)
    big = T.add_noise(np.zeros((10, 28, 28), np.uint8), 6, rng)
    assert big.min() == 0 and big.max() == 9


def test_same_seed_same_bytes_and_other_seed_differs():
    p = Protocol("translation", transformed=5, n_train=50, n_test=20, noise=2)
    a, ma = generate(p, np.random.default_rng(7))
    b, mb = generate(p, np.random.default_rng(7))
    c, _ = generate(p, np.random.default_rng(8))
    assert a.tobytes() == b.tobytes() and ma.equals(mb)
    assert a.tobytes() != c.tobytes()


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
    # every shape in both sets, balanced within one
    for part in (train, test):
        counts = np.bincount(part["shape"], minlength=10)
        assert counts.min() >= 1 and counts.max() - counts.min() <= 1
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
    assert (test["identity"] == (test["outcome"] == (t.identity_name or "\0"))).all()
    if only and t.identity is not None:
        assert not train.loc[train["transformed"], "identity"].any()


def test_protocol_rejects_bad_input():
    codes = lambda p: {i.code for i in p.problems()}
    assert codes(Protocol("spin")) == {"abstraction.transform"}
    assert codes(Protocol(transformed=11)) == {"abstraction.transformed"}
    assert codes(Protocol(transformed=-1)) == {"abstraction.transformed"}
    assert codes(Protocol(noise=-0.5)) == {"abstraction.noise"}
    assert codes(Protocol(n_test=9)) == {"abstraction.n_test"}
    assert Protocol("rotation", 10, 100, 10, 4).problems() == []
