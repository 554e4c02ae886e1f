"""VALUE data: PGN reading, random games, the renderer, `d3mkit build value` and bad input."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from d3mkit.benchmarks.value import games, render
from d3mkit.benchmarks.value.boards import fens_to_codes
from d3mkit.benchmarks.value.layout import SQUARES, frame_to_codes
from d3mkit.benchmarks.value.metrics import NAMES as METRIC_NAMES
from d3mkit.benchmarks.value.rules import check, sane
from d3mkit.cli import main
from d3mkit.validation import validate_task_root

REPO = Path(__file__).resolve().parents[2]


def test_sample_pgn_positions_after_every_half_move():
    pos = list(games.pgn_positions(games.SAMPLE_PGN))
    text = games.SAMPLE_PGN.read_text()
    assert text.count("[Event ") == 6
    assert len(pos) >= 6 * 10
    assert sane(check(fens_to_codes(pos))).all()
    two = games.pgn_text_positions("1. e4 e5 2. Nf3 *")
    assert two == ["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR",
                   "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR",
                   "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"]


def test_max_games_limits_the_pgn_read():
    assert len(list(games.pgn_positions(games.SAMPLE_PGN, max_games=1))) == 60


def test_duplicates_are_kept():
    pos = games.pgn_text_positions("1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 *")
    assert pos[0] == pos[4]


def test_random_games_are_seeded():
    a = games.random_game_positions(3, np.random.default_rng(5), 30)
    b = games.random_game_positions(3, np.random.default_rng(5), 30)
    c = games.random_game_positions(3, np.random.default_rng(6), 30)
    assert a == b and a != c


def test_bad_pgn_is_named(tmp_path):
    from d3mkit.core.errors import D3MKitError
    p = tmp_path / "bad.pgn"
    p.write_text('[Event "x"]\n\n1. e4 e5 2. Ke3 *\n')
    with pytest.raises(D3MKitError) as e:
        list(games.pgn_positions(p))
    assert "game 1" in str(e.value) and "bad.pgn" in str(e.value)


def test_render_is_deterministic_and_boxes_cover_pieces():
    fen = "r3k2r/pppq1ppp/2n1bn2/3pp3/3PP3/2N1BN2/PPPQ1PPP/R3K2R"
    img1, boxes1, p1 = render.render_board(fen, render.image_rng(3, 0), size=96)
    img2, boxes2, p2 = render.render_board(fen, render.image_rng(3, 0), size=96)
    img3, _, p3 = render.render_board(fen, render.image_rng(3, 1), size=96)
    assert img1.tobytes() == img2.tobytes() and boxes1 == boxes2 and p1 == p2
    assert img1.tobytes() != img3.tobytes()
    assert img1.size == (96, 96) and img1.mode == "RGB"
    assert sorted(b[1] for b in boxes1) == [i for i, c in enumerate(fens_to_codes([fen])[0]) if c]
    for sym, sq, x0, y0, x1, y1 in boxes1:
        assert 0 <= x0 < x1 <= 96 and 0 <= y0 < y1 <= 96


def test_a1_is_nearest_the_camera():
    for az in render.AZIMUTH:
        for el in render.ELEVATION:
            cam = render.Camera(az, el, 512)
            corners = np.array([[-4, -4, 0], [4, -4, 0], [-4, 4, 0], [4, 4, 0]], float)
            _, depth = cam.project(corners)
            assert depth.argmin() == 0


@pytest.mark.slow
def test_parallel_render_equals_serial(tmp_path):
    fens = games.random_game_positions(1, np.random.default_rng(1), 10)
    a = render.render_many(fens, [tmp_path / f"a{i}.jpg" for i in range(10)], seed=4, size=64, workers=1)
    b = render.render_many(fens, [tmp_path / f"b{i}.jpg" for i in range(10)], seed=4, size=64, workers=2)
    assert a == b
    for i in range(10):
        assert (tmp_path / f"a{i}.jpg").read_bytes() == (tmp_path / f"b{i}.jpg").read_bytes()


def _build(tmp_path, *extra):
    return main(["build", "value", "--out", str(tmp_path), "--seed", "3", "--quiet",
                 "--n-train", "6", "--n-test", "3", "--size", "64", "--workers", "1", *extra])


@pytest.mark.slow
def test_build_value_task_root(tmp_path, capsys):
    assert _build(tmp_path, "--random-games", "2") == 0
    root = tmp_path / "value"
    assert capsys.readouterr().out.strip() == str(root)
    assert [i for i in validate_task_root(root) if i.is_error] == []
    ld = pd.read_csv(root / "value_dataset/tables/learningData.csv", dtype=str, keep_default_na=False)
    assert list(ld.columns) == ["d3mIndex", "image", *SQUARES]
    assert SQUARES[:3] == ("a8", "b8", "c8") and SQUARES[-1] == "h1" and len(set(SQUARES)) == 64
    assert len(ld) == 9 and all((root / "value_dataset/media" / f).is_file() for f in ld.image)
    debug = pd.read_csv(root / "value_debug/boards.csv")
    codes = fens_to_codes(debug.board)                 # FEN kept in _debug, same boards
    assert (frame_to_codes(ld) == codes).all() and sane(check(codes)).all()
    assert set(np.unique(ld[list(SQUARES)].to_numpy())) <= set("xpPnNbBrRqQkK")
    ddoc = json.loads((root / "value_dataset/datasetDoc.json").read_text())
    cols = {c["colName"]: c for c in ddoc["dataResources"][1]["columns"]}
    assert cols["image"]["refersTo"] == {"resID": "0", "resObject": "item"}
    assert cols["e4"]["role"] == ["suggestedTarget"] and cols["e4"]["colType"] == "categorical"
    pdoc = json.loads((root / "value_problem/problemDoc.json").read_text())
    assert pdoc["about"]["taskType"] == "classification" and pdoc["about"]["taskSubType"] == "multiClass"
    targets = pdoc["inputs"]["data"][0]["targets"]
    assert [t["colName"] for t in targets] == list(SQUARES) and targets[63]["colIndex"] == 65
    assert all(m["applicabilityToTarget"] == "allTargets" for m in pdoc["inputs"]["performanceMetrics"])
    assert [m.get("specifyOther", m["metric"]) for m in pdoc["inputs"]["performanceMetrics"]] == \
        ["accuracy", "exactMatch", "boardF1", "saneF1", "contradictionRate", "meanViolationSeverity",
         "meanViolatedFlags"]
    splits = pd.read_csv(root / "value_problem/dataSplits.csv")
    assert (splits.type == "TRAIN").sum() == 6 and (splits.type == "TEST").sum() == 3
    manifest = json.loads((root / "value_debug/manifest.json").read_text())
    assert manifest["benchmark"] == "value" and manifest["seed"] == 3
    assert manifest["parameters"]["source"] == "random-games"
    boxes = pd.read_csv(root / "value_debug/boxes.csv")
    assert len(boxes) == sum((codes != 0).sum(axis=1))


@pytest.mark.slow
def test_same_seed_same_bytes_and_pgn_source(tmp_path):
    assert _build(tmp_path / "a", "--pgn", str(games.SAMPLE_PGN)) == 0
    assert _build(tmp_path / "b", "--pgn", str(games.SAMPLE_PGN)) == 0
    for f in sorted((tmp_path / "a/value").rglob("*")):
        if f.is_file():
            assert f.read_bytes() == (tmp_path / "b/value" / f.relative_to(tmp_path / "a/value")).read_bytes(), f


def _score(root, pred, capsys, fmt="json"):
    rc = main(["score", "--problem", str(root / "value_problem"), "--predictions", str(pred),
               "--datasets", str(root / "value_dataset"), "--format", fmt])
    out = capsys.readouterr()
    return rc, (json.loads(out.out) if rc == 0 and fmt == "json" else None), out.err


@pytest.mark.slow
def test_scoring_64_square_targets_through_d3mkit_score_and_bad_row(tmp_path, capsys):
    assert _build(tmp_path, "--random-games", "2") == 0
    capsys.readouterr()
    root = tmp_path / "value"
    ld = pd.read_csv(root / "value_dataset/tables/learningData.csv", dtype=str, keep_default_na=False)
    test = ld.iloc[6:].drop(columns="image")
    good = tmp_path / "pred.csv"
    test[["d3mIndex", *SQUARES[::-1]]].to_csv(good, index=False)     # column order is free
    rc, out, _ = _score(root, good, capsys)
    assert rc == 0
    got = {s["metric"]: s["value"] for s in out["scores"]}
    assert got == {"accuracy": 1.0, "exactMatch": 1.0, "boardF1": 1.0, "saneF1": 1.0,
                   "contradictionRate": 0.0, "meanViolationSeverity": 0.0, "meanViolatedFlags": 0.0}
    # one wrong square: per-square accuracy drops by 1/(3*64), exact match by 1/3
    wrong = test.copy()
    sq = next(s for s in SQUARES if wrong.iloc[0][s] == "x")
    wrong.iloc[0, list(wrong.columns).index(sq)] = "K"        # a second white king
    wrong.to_csv(good, index=False)
    got = {s["metric"]: s["value"] for s in _score(root, good, capsys)[1]["scores"]}
    assert got["accuracy"] == pytest.approx(1 - 1 / (3 * 64))
    assert got["exactMatch"] == pytest.approx(2 / 3) and got["contradictionRate"] == pytest.approx(1 / 3)
    assert got["meanViolatedFlags"] >= 1 / 3 and got["meanViolationSeverity"] >= 1 / 3
    bad = test.copy()
    bad.iloc[1, list(bad.columns).index("e4")] = "Z"
    bad.to_csv(good, index=False)
    rc, _, err = _score(root, good, capsys, fmt="csv")
    assert rc == 1 and f"predicted board d3mIndex {test.d3mIndex.iloc[1]}, square e4" in err


@pytest.mark.slow
def test_per_square_standard_metric_and_fen_target_problems(tmp_path, capsys):
    """A per-target standard metric scores each square; a problem whose one target is the
    FEN placement is still scored by the VALUE metrics (people score FEN files too)."""
    assert _build(tmp_path, "--random-games", "2") == 0
    capsys.readouterr()
    root = tmp_path / "value"
    ld = pd.read_csv(root / "value_dataset/tables/learningData.csv", dtype=str, keep_default_na=False)
    pdoc = json.loads((root / "value_problem/problemDoc.json").read_text())
    pdoc["inputs"]["performanceMetrics"] = [{"metric": "accuracy"}]
    (root / "value_problem/problemDoc.json").write_text(json.dumps(pdoc))
    pred = tmp_path / "pred.csv"
    ld.iloc[6:].drop(columns="image").to_csv(pred, index=False)
    rc, out, _ = _score(root, pred, capsys)
    assert rc == 0 and len(out["scores"]) == 64 and {s["metric"] for s in out["scores"]} == {"accuracy"}
    # the FEN layout: learningData with one board column as the target
    debug = pd.read_csv(root / "value_debug/boards.csv")
    ld_fen = ld[["d3mIndex", "image"]].assign(board=debug.board)
    ld_fen.to_csv(root / "value_dataset/tables/learningData.csv", index=False)
    ddoc = json.loads((root / "value_dataset/datasetDoc.json").read_text())
    cols = ddoc["dataResources"][1]["columns"][:2]
    cols.append({"colIndex": 2, "colName": "board", "colType": "categorical", "role": ["suggestedTarget"]})
    ddoc["dataResources"][1]["columns"] = cols
    (root / "value_dataset/datasetDoc.json").write_text(json.dumps(ddoc))
    pdoc["inputs"]["data"][0]["targets"] = [{"targetIndex": 0, "resID": "learningData", "colIndex": 2,
                                             "colName": "board"}]
    pdoc["inputs"]["performanceMetrics"] = [{"metric": "other", "specifyOther": m,
                                             "applicabilityToTarget": "allTargets"} for m in METRIC_NAMES]
    (root / "value_problem/problemDoc.json").write_text(json.dumps(pdoc))
    ld_fen.iloc[6:][["d3mIndex", "board"]].to_csv(pred, index=False)
    rc, out, _ = _score(root, pred, capsys)
    assert rc == 0 and {s["metric"]: s["value"] for s in out["scores"]}["exactMatch"] == 1.0
    fen = ld_fen.iloc[6:][["d3mIndex", "board"]].copy()
    fen.iloc[1, 1] = "8/8/8/8/8/8/8/kK7"
    fen.to_csv(pred, index=False)
    rc, _, err = _score(root, pred, capsys, fmt="csv")
    assert rc == 1 and f"predicted board d3mIndex {fen.d3mIndex.iloc[1]}" in err and "rank 1" in err


@pytest.mark.parametrize("args, code, words", [
    (["--n-train", "0"], 2, "--n-train"),
    (["--size", "8"], 2, "--size"),
    (["--pgn", "/nonexistent.pgn"], 2, "not found"),
])
def test_build_bad_arguments(tmp_path, capsys, args, code, words):
    rc = main(["build", "value", "--out", str(tmp_path), "--quiet", *args])
    assert rc == code
    assert words in capsys.readouterr().err
    assert not (tmp_path / "value").exists()


@pytest.mark.slow
def test_build_value_detection_scores_truth_as_ap_one(tmp_path, capsys):
    rc = main(["build", "value-detection", "--out", str(tmp_path), "--seed", "3", "--quiet",
               "--n-train", "5", "--n-test", "2", "--size", "64", "--workers", "1", "--random-games", "1"])
    assert rc == 0
    root = tmp_path / "value_detection"
    capsys.readouterr()
    assert [i for i in validate_task_root(root) if i.is_error] == []
    pdoc = json.loads((root / "value_detection_problem/problemDoc.json").read_text())
    assert pdoc["about"]["taskType"] == "objectDetection"
    assert pdoc["inputs"]["performanceMetrics"] == [{"metric": "objectDetectionAP"}]
    ld = pd.read_csv(root / "value_detection_dataset/tables/learningData.csv")
    assert list(ld.columns) == ["d3mIndex", "image", "bounding_box"]
    xyxy = np.array([[float(v) for v in b.split(",")] for b in ld.bounding_box])
    assert (xyxy[:, 2] > xyxy[:, 0]).all() and (xyxy[:, 3] > xyxy[:, 1]).all()
    splits = pd.read_csv(root / "value_detection_problem/dataSplits.csv")
    assert list(splits.columns) == ["d3mIndex", "image", "type", "repeat", "fold"]
    assert (splits.type == "TEST").sum() == 2 and len(splits) == 7
    pred = tmp_path / "pred.csv"
    ld[ld.d3mIndex >= 5].to_csv(pred, index=False)
    assert main(["score", "--problem", str(root / "value_detection_problem"), "--predictions", str(pred),
                 "--datasets", str(root / "value_detection_dataset"), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scores"][0]["metric"] == "objectDetectionAP" and out["scores"][0]["value"] == 1.0
    # same seed and options: the same images as `build value`
    assert main(["build", "value", "--out", str(tmp_path), "--seed", "3", "--quiet",
                 "--n-train", "5", "--n-test", "2", "--size", "64", "--workers", "1", "--random-games", "1"]) == 0
    a = (root / "value_detection_dataset/media/CV_0000004.jpg").read_bytes()
    assert a == (tmp_path / "value/value_dataset/media/CV_0000004.jpg").read_bytes()


@pytest.mark.slow
def test_release_importer_on_a_fixture_in_the_release_layout(tmp_path, capsys):
    from d3mkit.benchmarks.value.boards import fen_to_array
    fens = games.random_game_positions(1, np.random.default_rng(2), 12)[:7]
    rel = tmp_path / "release"
    rel.mkdir()
    # written by hand in the release layout: CV_%07d.jpg + labels JSON of 8x8 arrays
    from PIL import Image
    for i in range(7):
        Image.new("RGB", (24, 24), (i * 30, 10, 10)).save(rel / f"CV_{i:07d}.jpg", quality=90)
    (rel / "labels.json").write_text(json.dumps({str(i): fen_to_array(f).tolist() for i, f in enumerate(fens)}))
    rc = main(["build", "value", "--out", str(tmp_path / "o"), "--quiet", "--n-train", "4", "--n-test", "2",
               "--from-release", str(rel)])
    assert rc == 0
    root = tmp_path / "o/value"
    assert pd.read_csv(root / "value_debug/boards.csv").board.tolist() == fens[:6]
    assert (root / "value_dataset/media/CV_0000005.jpg").read_bytes() == (rel / "CV_0000005.jpg").read_bytes()
    assert json.loads((root / "value_debug/manifest.json").read_text())["parameters"]["source"] == "release"
    assert [i for i in validate_task_root(root) if i.is_error] == []
    # a malformed label: 8x7 array under key "3"
    bad = json.loads((rel / "labels.json").read_text())
    bad["3"] = [row[:7] for row in bad["3"]]
    (rel / "labels.json").write_text(json.dumps(bad))
    rc = main(["build", "value", "--out", str(tmp_path / "p"), "--quiet", "--n-train", "4", "--n-test", "2",
               "--from-release", str(rel)])
    err = capsys.readouterr().err
    assert rc == 1 and "key '3'" in err and "(8, 8)" in err
    bad["3"] = fen_to_array(fens[3]).tolist()
    bad["3"][0][0] = 13
    (rel / "labels.json").write_text(json.dumps(bad))
    assert main(["build", "value", "--out", str(tmp_path / "p"), "--quiet", "--n-train", "4", "--n-test", "2",
                 "--from-release", str(rel)]) == 1
    assert "code 13" in capsys.readouterr().err
    (rel / "CV_0000001.jpg").unlink()
    bad["3"][0][0] = 0
    (rel / "labels.json").write_text(json.dumps(bad))
    assert main(["build", "value", "--out", str(tmp_path / "p"), "--quiet", "--n-train", "4", "--n-test", "2",
                 "--from-release", str(rel)]) == 1
    assert "CV_0000001.jpg is missing" in capsys.readouterr().err
    assert not (tmp_path / "p/value").exists()


def _write_release(rel, fens, split_at, boxes=True):
    """A small mock of the published layout: train/ and test/ image folders,
    labels/{train,test}_labels.json (8x8 arrays) and per-split bounding boxes."""
    from PIL import Image

    from d3mkit.benchmarks.value.boards import fen_to_array
    from d3mkit.benchmarks.value.release import piece_squares
    (rel / "labels").mkdir(parents=True)
    # the authors shuffle indices before splitting: TEST indices are not the last ones
    keys = [5, 1, 9, 3, 7, 2, 8][:len(fens)]
    for split, part in (("train", range(split_at)), ("test", range(split_at, len(fens)))):
        (rel / split).mkdir()
        labels, bb = {}, {}
        for i in part:
            Image.new("RGB", (32, 32), (i * 30, 10, 10)).save(rel / split / f"CV_{keys[i]:07d}.jpg", quality=90)
            labels[str(keys[i])] = fen_to_array(fens[i]).tolist()
            bb[str(keys[i])] = {name: [sq, 2 * sq, sq + 5, 2 * sq + 9] for name, sq in piece_squares(fens[i]).items()}
        (rel / "labels" / f"{split}_labels.json").write_text(json.dumps(labels))
        if boxes:
            (rel / "labels" / f"{split}_bounding_boxes.json").write_text(json.dumps(bb))
    return keys


@pytest.mark.slow
def test_release_reader_on_a_mock_of_the_published_layout(tmp_path, capsys):
    fens = games.random_game_positions(1, np.random.default_rng(4), 12)[:7]
    rel = tmp_path / "data"
    keys = _write_release(rel, fens, 4)
    rc = main(["build", "value", "--out", str(tmp_path / "o"), "--quiet", "--n-train", "3", "--n-test", "2",
               "--from-release", str(rel)])
    assert rc == 0, capsys.readouterr().err
    root = tmp_path / "o/value"
    boards = pd.read_csv(root / "value_debug/boards.csv")
    # the official split, each part in index order: train keys 5,1,9,3 -> 1,3,5; test 7,2,8 -> 2,7
    train_keys = sorted(keys[:4])[:3]
    test_keys = sorted(keys[4:])[:2]
    assert boards.releaseIndex.tolist() == train_keys + test_keys
    assert boards.split.tolist() == ["TRAIN"] * 3 + ["TEST"] * 2
    assert boards.board.tolist() == [fens[keys.index(k)] for k in train_keys + test_keys]
    splits = pd.read_csv(root / "value_problem/dataSplits.csv")
    assert splits.type.tolist() == boards.split.tolist()
    ld = pd.read_csv(root / "value_dataset/tables/learningData.csv", dtype=str, keep_default_na=False)
    assert (frame_to_codes(ld) == fens_to_codes(boards.board)).all()
    assert (root / f"value_dataset/media/CV_{test_keys[0]:07d}.jpg").read_bytes() == \
        (rel / "test" / f"CV_{test_keys[0]:07d}.jpg").read_bytes()
    assert [i for i in validate_task_root(root) if i.is_error] == []
    box = pd.read_csv(root / "value_debug/boxes.csv")
    codes = fens_to_codes(boards.board)
    assert len(box) == int((codes != 0).sum())
    from d3mkit.benchmarks.value.layout import SQUARES
    sq = [SQUARES.index(s) for s in box.square]
    assert (box.x_min == sq).all() and (box.y_max == 2 * np.array(sq) + 9).all()
    assert all(codes[d, s] == fens_to_codes(["8/8/8/8/8/8/8/8"])[0, 0] + "xPNBRQKpnbrqk".index(sym)
               for d, s, sym in zip(box.d3mIndex, sq, box.symbol))
    # the same release as an objectDetection problem, from its own boxes
    assert main(["build", "value-detection", "--out", str(tmp_path / "d"), "--quiet", "--n-train", "3",
                 "--n-test", "2", "--from-release", str(rel)]) == 0
    capsys.readouterr()
    # asking for more than a split holds names the split and the file
    assert main(["build", "value", "--out", str(tmp_path / "p"), "--quiet", "--n-train", "5", "--n-test", "2",
                 "--from-release", str(rel)]) == 2
    err = capsys.readouterr().err
    assert "train_labels.json labels 4 images but --n-train = 5" in err
    # a box that is not 2 or 4 numbers names the file and key
    bb = json.loads((rel / "labels/test_bounding_boxes.json").read_text())
    key = next(iter(bb))
    bb[key][next(iter(bb[key]))] = [1, 2, 3]
    (rel / "labels/test_bounding_boxes.json").write_text(json.dumps(bb))
    assert main(["build", "value", "--out", str(tmp_path / "p"), "--quiet", "--n-train", "3", "--n-test", "2",
                 "--from-release", str(rel)]) == 1
    err = capsys.readouterr().err
    assert "test_bounding_boxes.json" in err and f"key '{key}'" in err
    # without a labels file of the layout: a usage error naming it
    (rel / "labels/test_labels.json").unlink()
    assert main(["build", "value", "--out", str(tmp_path / "p"), "--quiet", "--from-release", str(rel)]) == 2
    assert "labels/test_labels.json" in capsys.readouterr().err
    assert not (tmp_path / "p/value").exists()


def test_release_box_points_become_boxes_with_the_authors_sizes(tmp_path):
    from d3mkit.benchmarks.value.release import read_boxes
    p = tmp_path / "bb_all.json"
    p.write_text(json.dumps({"4": {"K0": [100, 300], "k0": [50, 60]}}))
    got = read_boxes(p, {4: "k7/8/8/8/8/8/8/7K"})
    assert got == {4: [("k", 0, 35.0, -10.0, 65.0, 68.0), ("K", 63, 85.0, 230.0, 115.0, 308.0)]}


def test_release_labels_as_list_and_fen_strings(tmp_path):
    from d3mkit.benchmarks.value.release import read_labels
    p = tmp_path / "labels.json"
    p.write_text(json.dumps(["8/8/8/8/8/8/8/k6K", "4k3/8/8/8/8/8/8/4K3"]))
    assert read_labels(p) == {0: "8/8/8/8/8/8/8/k6K", 1: "4k3/8/8/8/8/8/8/4K3"}
    p.write_text(json.dumps({"CV_0000004.jpg": "8/8/8/8/8/8/8/k6K"}))
    assert read_labels(p) == {4: "8/8/8/8/8/8/8/k6K"}


def test_sample_pgn_is_what_the_generator_writes(tmp_path):
    games.write_random_pgn(tmp_path / "s.pgn", 6, seed=2026, max_plies=60)
    assert (tmp_path / "s.pgn").read_bytes() == games.SAMPLE_PGN.read_bytes()


@pytest.mark.slow
def test_render_is_the_same_whatever_blas_kernel_the_cpu_picks():
    """OpenBLAS chooses its kernel by CPU; a rendering must not depend on it (the committed
    problems/value images once differed between an AVX-512 and an AVX2 kernel)."""
    code = ("import hashlib, io, sys\n"
            "from d3mkit.benchmarks.value.render import render_board, image_rng\n"
            "h = hashlib.sha256()\n"
            "for i in range(12):\n"
            "    img, boxes, _ = render_board('rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR', image_rng(0, i), 96)\n"
            "    h.update(img.tobytes()); h.update(repr(boxes).encode())\n"
            "print(h.hexdigest())\n")
    outs = set()
    for core in ("Sandybridge", "Haswell", "SkylakeX"):
        env = {**__import__("os").environ, "OPENBLAS_CORETYPE": core}
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        assert run.returncode == 0, run.stderr
        outs.add(run.stdout.strip())
    assert len(outs) == 1, outs


@pytest.mark.slow
def test_release_counts_come_from_its_label_files(tmp_path, capsys):
    """Without --n-train/--n-test the published layout's own label files give the counts
    (was: 'labels 4 images but --n-train = 200'; issue 32)."""
    fens = games.random_game_positions(1, np.random.default_rng(4), 12)[:7]
    rel = tmp_path / "data"
    _write_release(rel, fens, 4)
    rc = main(["build", "value", "--out", str(tmp_path / "o"), "--quiet", "--from-release", str(rel)])
    assert rc == 0, capsys.readouterr().err
    boards = pd.read_csv(tmp_path / "o/value/value_debug/boards.csv")
    assert boards.split.tolist() == ["TRAIN"] * 4 + ["TEST"] * 3
    assert [i for i in validate_task_root(tmp_path / "o/value") if i.is_error] == []
