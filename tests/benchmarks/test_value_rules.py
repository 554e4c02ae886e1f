"""VALUE boards, rule checker and metrics: conversions, a per-board reference checker
compared with the vectorised one, metric values and bad input."""

import chess
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from d3mkit.benchmarks.value import boards as B
from d3mkit.benchmarks.value import metrics as M
from d3mkit.benchmarks.value import rules as R

rng = np.random.default_rng(7)


def reference_flags(symbols: str) -> list[bool]:
    """The rules of eq. 2 written square by square, one board at a time."""
    def count(ch):
        return symbols.count(ch)

    def sq(i):  # (rank 1-8, file 0-7)
        return 8 - i // 8, i % 8

    out = {}
    for colour, up in (("black", str.lower), ("white", str.upper)):
        p, n, b, r, q, k = (count(up(c)) for c in "pnbrqk")
        out[f"i/{colour}"] = k != 1
        out[f"iii/{colour}"] = p + q + n + b + r > 15
        out[f"iv/{colour}"] = p > 8
        out[f"v/{colour}"] = any(ch == up("p") and sq(i)[0] in (1, 8) for i, ch in enumerate(symbols))
        out[f"vi/{colour}"] = p == 8 and (q > 1 or b > 2 or n > 2 or r > 2)
        extra = max(0, q - 1) + max(0, b - 2) + max(0, n - 2) + max(0, r - 2)
        out[f"vii/{colour}"] = p < 8 and extra > 8 - p
        bs = [i for i, ch in enumerate(symbols) if ch == up("b")]
        colours = {(sq(i)[0] + sq(i)[1]) % 2 for i in bs}   # a1: rank 1 + file 0 = odd... parity
        out[f"viii/{colour}"] = p == 8 and b == 2 and len(colours) == 1
    ks = [sq(i) for i, ch in enumerate(symbols) if ch == "k"]
    Ks = [sq(i) for i, ch in enumerate(symbols) if ch == "K"]
    out["ii"] = any(max(abs(a[0] - c[0]), abs(a[1] - c[1])) == 1 for a in ks for c in Ks)
    return [out[f] for f in R.FLAGS]


def random_symbols(n, p_empty=0.6, seed=0):
    g = np.random.default_rng(seed)
    probs = np.full(13, (1 - p_empty) / 12)
    probs[0] = p_empty
    codes = g.choice(13, size=(n, 64), p=probs)
    return codes


# --- boards ------------------------------------------------------------------------------
def test_round_trips_through_every_representation():
    g = chess.Board()
    fens = []
    for i in range(60):
        moves = list(g.legal_moves)
        if not moves:
            break
        g.push(moves[int(rng.integers(len(moves)))])
        fens.append(g.board_fen())
    codes = B.fens_to_codes(fens)
    for fen, c in zip(fens, codes):
        assert B.array_to_fen(B.fen_to_array(fen)) == fen
        assert B.symbols_to_fen(B.fen_to_symbols(fen)) == fen
        assert B.from_chess_board(B.to_chess_board(c)) == fen
        assert B.codes_to_symbols(c) == B.fen_to_symbols(fen)


def test_release_encoding_and_orientation():
    a = B.fen_to_array(B.START_FEN)
    assert a[0].tolist() == [10, 8, 9, 11, 12, 9, 8, 10]     # rank 8: r n b q k b n r
    assert a[7].tolist() == [4, 2, 3, 5, 6, 3, 2, 4]         # rank 1: R N B Q K B N R
    assert a[6].tolist() == [1] * 8 and a[1].tolist() == [7] * 8
    board = B.to_chess_board(a)
    assert board.piece_at(chess.A1).symbol() == "R" and board.piece_at(chess.E8).symbol() == "k"


@pytest.mark.slow
@given(st.lists(st.sampled_from(B.SYMBOLS), min_size=64, max_size=64))
@settings(max_examples=60, deadline=None)
def test_any_board_round_trips(sym):
    s = "".join(sym)
    fen = B.symbols_to_fen(s)
    assert B.fen_to_symbols(fen) == s
    assert B.codes_to_symbols(B.fen_to_array(fen)) == s


@pytest.mark.parametrize("fen, words", [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP", ["7 ranks"]),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNZ", ["rank 1", "'Z'", "position 8"]),
    ("rnbqkbnr/ppppXppp/8/8/8/8/PPPPPPPP/RNBQKBNR", ["rank 7", "'X'", "position 5"]),
    ("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", ["rank 7", "7 squares"]),
    ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR", ["rank 6", "'9'"]),
    ("rnbqkbnr/pppppppp/44p/8/8/8/PPPPPPPP/RNBQKBNR", ["rank 6", "more than 8"]),
    ("", ["empty"]),
])
def test_malformed_fen_names_rank_and_character(fen, words):
    with pytest.raises(B.BoardError) as e:
        B.fen_to_symbols(fen)
    for w in words:
        assert w in str(e.value)


def test_wrong_size_and_unknown_symbols():
    with pytest.raises(B.BoardError, match="64 squares, got 65"):
        B.symbols_to_codes("x" * 65)
    with pytest.raises(B.BoardError, match="square c8.*'z'"):
        B.symbols_to_codes("xxz" + "x" * 61)
    with pytest.raises(B.BoardError, match=r"shape \(64,\) or \(8, 8\)"):
        B.codes_to_symbols(np.zeros(63, int))
    with pytest.raises(B.BoardError, match="code 13"):
        B.codes_to_symbols(np.full(64, 13))
    with pytest.raises(B.BoardError, match="row 17"):
        B.fens_to_codes(["8/8/8/8/8/8/8/8", "8/8/x"], labels=["row 16", "row 17"])


# --- rules ---------------------------------------------------------------------------------
def test_vectorised_checker_equals_reference_on_random_boards():
    for seed, p_empty in ((1, 0.5), (2, 0.75), (3, 0.88), (4, 0.0)):
        codes = random_symbols(300, p_empty, seed)
        flags = R.check(codes)
        ref = np.array([reference_flags(B.codes_to_symbols(c)) for c in codes])
        assert flags.shape == (300, 15)
        assert (flags == ref).all()


def test_checker_equals_reference_on_constructed_edge_cases():
    cases = [
        "pppppppp/8/8/8/8/8/8/8",           # black pawns on rank 8
        "4k3/pppppppp/2b2b2/8/8/8/PPPPPPPP/4K3",   # bishops c6, f6: different colours? c6 light, f6 dark
        "4k3/pppppppp/1b1b4/8/8/8/PPPPPPPP/4K3",   # b6 and d6: same colour
        "4k3/pppppppp/qq6/8/8/8/PPPPPPPP/4K3",     # two queens with 8 pawns
        "4k3/ppppppp1/qqq5/8/8/8/PPPPPPPP/4K3",    # 7 pawns, 2 extra queens > 1 missing pawn
        "4k3/pppppp2/qqq5/8/8/8/PPPPPPPP/4K3",     # 6 pawns, 2 extra queens = 2 missing: ok
        "8/8/8/3kK3/8/8/8/8", "8/8/3k4/4K3/8/8/8/8", "8/8/3k4/5K2/8/8/8/8",
        "kk6/8/8/8/8/8/8/KK6", "rnbqkbnr/pppppppp/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR",
    ]
    codes = B.fens_to_codes(cases)
    flags = R.check(codes)
    ref = np.array([reference_flags(B.fen_to_symbols(f)) for f in cases])
    assert (flags == ref).all()
    named = {c: R.violated(flags, i) for i, c in enumerate(cases)}
    assert "v/black" in named[cases[0]]
    assert R.violated(flags, 1) == [] and R.violated(flags, 2) == ["viii/black"]
    assert R.violated(flags, 3) == ["vi/black"] and R.violated(flags, 4) == ["vii/black"]
    assert R.violated(flags, 5) == []
    assert R.violated(flags, 6) == ["ii"] and R.violated(flags, 7) == ["ii"] and R.violated(flags, 8) == []
    assert "iii/black" in R.violated(flags, 10) and "iv/black" in R.violated(flags, 10)


def test_legal_positions_are_sane():
    g = np.random.default_rng(11)
    fens = []
    for _ in range(5):
        b = chess.Board()
        for _ in range(120):
            moves = list(b.legal_moves)
            if not moves:
                break
            b.push(moves[int(g.integers(len(moves)))])
            fens.append(b.board_fen())
    assert R.sane(R.check(B.fens_to_codes(fens))).all()


def test_derived_views_agree_with_flags():
    codes = random_symbols(200, 0.7, 9)
    f = R.check(codes)
    r = R.by_rule(f)
    k = R.by_kind(f)
    assert r.shape == (200, 8)
    assert (r.any(axis=1) == ~R.sane(f)).all()
    assert ((k["counting"] | k["localizing"]) == ~R.sane(f)).all()
    assert (R.violation_counts(f) >= r.sum(axis=1)).all()
    assert R.check(codes.reshape(200, 8, 8)).tolist() == f.tolist()


# --- metrics --------------------------------------------------------------------------------
def test_metrics_perfect_and_worst():
    t = B.fens_to_codes([B.START_FEN] * 3)
    assert M.exact_match(t, t) == 1.0 and M.board_f1(t, t) == 1.0 and M.sane_f1(t, t) == 1.0
    empty = np.zeros_like(t)
    assert M.exact_match(t, empty) == 0.0 and M.board_f1(t, empty) == 0.0
    assert M.contradiction_rate(empty) == 1.0 and M.mean_violated_flags(empty) == 2.0
    assert M.mean_violation_severity(empty) == 2.0          # both kings missing: |0-1| + |0-1|


def test_metric_f1_matches_definition():
    t = random_symbols(50, 0.6, 21)
    p = t.copy()
    p[:, :10] = random_symbols(50, 0.6, 22)[:, :10]
    f1 = M.f1_per_board(t, p)
    for i in range(50):
        hit = sum(1 for a, b in zip(t[i], p[i]) if a == b and a != 0)
        denom = (t[i] != 0).sum() + (p[i] != 0).sum()
        assert f1[i] == pytest.approx(hit / denom)
    s = R.sane(R.check(p))
    assert M.sane_f1(t, p) == pytest.approx(2 * np.mean(f1 * s))
    assert M.sane_f1(t, p) <= M.board_f1(t, p) + 1e-12
    assert 0 <= M.contradiction_rate(p) <= 1


def test_registered_metrics_take_fen_columns_and_name_bad_rows():
    from d3mkit.scoring.registry import get_metric
    truth = np.array([[B.START_FEN], ["4k3/8/8/8/8/8/8/4K3"]], dtype=object)
    pred = np.array([[B.START_FEN], ["4k3/8/8/8/8/8/8/4Q3"]], dtype=object)
    assert get_metric("exactMatch")(truth, pred) == 0.5
    assert get_metric("contradictionRate")(truth, pred) == 0.5
    assert get_metric("meanViolatedFlags")(truth, pred) == 0.5
    assert get_metric("meanViolationSeverity")(truth, pred) == 0.5
    assert get_metric("boardF1")(truth, pred) == pytest.approx((1 + 0.5) / 2)
    assert get_metric("saneF1")(truth, pred) == pytest.approx(0.5)
    bad = np.array([[B.START_FEN], ["4k3/8/8/8/8/8/8/4Q2"]], dtype=object)
    with pytest.raises(ValueError, match=r"predicted board 2 .*rank 1"):
        get_metric("boardF1")(truth, bad)


def analyze_reference(codes_8x8) -> list[int]:
    """The authors' released severity count (``Rules.analyze``), transcribed loop by loop
    on one 8x8 board in the release encoding (an independent check of ``R.severity``)."""
    from collections import Counter
    from itertools import combinations
    arr = np.asarray(codes_8x8).reshape(8, 8)
    names = dict(enumerate(B.CODE_SYMBOLS))
    cnt = Counter(names[int(v)] for v in arr.ravel())
    an = [0] * 8
    an[0] = abs(cnt["k"] - 1) + abs(cnt["K"] - 1)
    kings = [tuple(x) for x in np.argwhere(arr == 12)] + [tuple(x) for x in np.argwhere(arr == 6)]
    an[1] = sum(abs(a[0] - b[0]) < 2 and abs(a[1] - b[1]) < 2 for a, b in combinations(kings, 2))
    black = sum(v for k, v in cnt.items() if k.islower() and k != "x")
    white = sum(v for k, v in cnt.items() if k.isupper())
    an[2] = max(0, black - 16) + max(0, white - 16)
    an[3] = max(0, cnt["p"] - 8) + max(0, cnt["P"] - 8)
    an[4] = sum(v in (1, 7) for v in np.append(arr[0], arr[-1]))
    for p, q, b, n, r in (("p", "q", "b", "n", "r"), ("P", "Q", "B", "N", "R")):
        extra = max(0, cnt[q] - 1) + max(0, cnt[b] - 2) + max(0, cnt[n] - 2) + max(0, cnt[r] - 2)
        if cnt[p] == 8:
            an[5] += extra
            if cnt[b] == 2:
                x, y = np.where(arr == B.CODE_SYMBOLS.index(b))
                an[7] += int((x[0] + y[0]) % 2 == (x[-1] + y[-1]) % 2)
        elif cnt[p] < 8:
            an[6] += max(0, extra - (8 - cnt[p]))
    return an


def test_severity_equals_the_authors_analyze_count():
    rng = np.random.default_rng(3)
    boards = [rng.integers(0, 13, 64) for _ in range(150)]               # uniform guesses
    for p_empty in (0.5, 0.75, 0.9):                                      # sparser boards
        boards += list(random_symbols(150, p_empty=p_empty, seed=int(p_empty * 100)))
    boards += [B.fen_to_codes(f) for f in (B.START_FEN, "kKK5/8/8/8/8/8/8/P6P",
                                           "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKNBR",
                                           "k7/8/8/8/8/8/QQQQQQQQ/QQQQQQQK")]
    codes = np.stack(boards).astype(np.uint8)
    got = R.severity(codes)
    want = np.array([analyze_reference(b) for b in codes])
    assert (got == want).all()
    assert got[-2].tolist() == [0, 0, 0, 0, 0, 0, 0, 1]          # 8 pawns, bishops on one colour
    assert got[-1, 6] == 14 - 8                   # 14 extra queens, 8 missing pawns to explain them
