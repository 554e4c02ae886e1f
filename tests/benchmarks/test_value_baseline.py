"""VALUE baseline: the ResNets, sane decoding, a one-epoch CPU run, weights files, the
rule report and its command line."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")

from d3mkit.benchmarks.value import decode as D          # noqa: E402
from d3mkit.benchmarks.value import report as REP        # noqa: E402
from d3mkit.benchmarks.value.boards import START_FEN, fens_to_codes   # noqa: E402
from d3mkit.benchmarks.value.layout import SQUARES, frame_to_codes   # noqa: E402
from d3mkit.benchmarks.value import rules as R                       # noqa: E402
from d3mkit.benchmarks.value.rules import FLAGS, check, sane          # noqa: E402
from d3mkit.cli import main                                          # noqa: E402

torch.set_num_threads(1)


@pytest.mark.slow
def test_resnets_shapes_and_head():
    from d3mkit.benchmarks.value.model import BasicBlock, BoardNet, Bottleneck
    m18 = BoardNet("resnet18")
    assert isinstance(m18.backbone.layer1[0], BasicBlock)
    head = m18.backbone.fc
    assert isinstance(head[0], torch.nn.Dropout) and head[0].p == 0.1
    assert head[1].in_features == 512 and head[1].out_features == 64 * 13
    m50 = BoardNet("resnet50")
    assert isinstance(m50.backbone.layer4[2], Bottleneck) and m50.backbone.fc[1].in_features == 2048
    assert [len(getattr(m50.backbone, f"layer{i}")) for i in range(1, 5)] == [3, 4, 6, 3]
    m101 = BoardNet("resnet101")
    assert [len(getattr(m101.backbone, f"layer{i}")) for i in range(1, 5)] == [3, 4, 23, 3]
    n = sum(p.numel() for p in m101.backbone.parameters()) - sum(p.numel() for p in m101.backbone.fc.parameters())
    assert n == 42_500_160          # torchvision's resnet101 without its fc: 44,549,160 - 2,049,000
    m18.eval()
    with torch.no_grad():
        assert m18(torch.zeros(2, 3, 64, 64)).shape == (2, 13, 64)


@pytest.mark.slow
def test_weights_file_round_trip_and_errors(tmp_path):
    from d3mkit.benchmarks.value.model import BoardNet, load_weights
    from d3mkit.core.errors import UsageError
    torch.manual_seed(0)
    a = BoardNet("resnet18")
    torch.save(a.state_dict(), tmp_path / "full.pt")
    torch.save({k[len("backbone."):]: v for k, v in a.state_dict().items()
                if not k.startswith("backbone.fc")}, tmp_path / "plain.pt")
    b = BoardNet("resnet18")
    assert load_weights(b, tmp_path / "full.pt") == []
    assert torch.equal(a.backbone.conv1.weight, b.backbone.conv1.weight)
    c = BoardNet("resnet18")
    missing = load_weights(c, tmp_path / "plain.pt")
    assert missing and all(k.startswith("backbone.fc") for k in missing)
    (tmp_path / "junk.pt").write_bytes(b"not a torch file")
    with pytest.raises(UsageError, match="could not read"):
        load_weights(c, tmp_path / "junk.pt")
    with pytest.raises(UsageError, match="shape"):
        load_weights(BoardNet("resnet50"), tmp_path / "plain.pt")


def test_sane_decoding_finds_the_most_probable_sane_board():
    truth = fens_to_codes([START_FEN, "4k3/8/8/8/8/8/8/4K3"])
    probs = np.full((2, 64, 13), 0.002)
    probs[np.arange(2)[:, None], np.arange(64)[None], truth] = 0.9
    # board 0: the white king's square leans to an empty square; board 1: a queen beats the king
    probs[0, 60, [6, 0]] = 0.40, 0.45
    probs[1, 60, [6, 5]] = 0.30, 0.50
    arg = D.decode_argmax(probs)
    assert not sane(check(arg)).any()
    boards, stats = D.decode_sane(probs)
    assert (boards == truth).all()
    assert stats["repaired"] == 2 and stats["unrepaired"] == 0


@pytest.mark.slow
def test_sane_decoding_always_returns_sane_boards_on_noise():
    g = np.random.default_rng(0)
    probs = g.dirichlet(np.ones(13) * 0.5, size=(4, 64))
    boards, stats = D.decode_sane(probs)
    assert sane(check(boards)).all()
    assert stats["boards"] == 4


def test_distance_is_zero_exactly_on_sane_boards():
    g = np.random.default_rng(1)
    codes = g.choice(13, size=(400, 64), p=[0.7] + [0.3 / 12] * 12)
    assert ((D.distance(codes) == 0) == sane(check(codes))).all()


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory):
    out = tmp_path_factory.mktemp("vb")
    assert main(["build", "value", "--out", str(out), "--seed", "0", "--quiet", "--n-train", "8",
                 "--n-test", "4", "--size", "64", "--workers", "1", "--random-games", "2"]) == 0
    return out / "value"


@pytest.mark.slow
@pytest.mark.parametrize("decode", ["argmax", "sane"])
def test_one_epoch_cpu_baseline_writes_scored_solution(tiny_root, capsys, decode):
    rc = main(["baseline", str(tiny_root), "--model", "resnet18", "--epochs", "1", "--device", "cpu",
               "--image-size", "32", "--batch-size", "4", "--threads", "1", "--decode", decode, "--quiet"])
    out = capsys.readouterr().out
    assert rc == 0
    sol = tiny_root / "value_solution"
    pred = pd.read_csv(sol / "predictions.csv", dtype=str, keep_default_na=False)
    assert list(pred.columns) == ["d3mIndex", *SQUARES] and len(pred) == 4
    scores = pd.read_csv(sol / "scores.csv")
    assert list(scores.metric) == ["accuracy", "exactMatch", "boardF1", "saneF1", "contradictionRate",
                                   "meanViolationSeverity", "meanViolatedFlags"]
    assert "boardF1" in out
    assert (sol / "rule_report.png").is_file() and (sol / "probabilities.npy").is_file()
    info = json.loads((sol / "baseline.json").read_text())
    assert info["decode"] == decode and info["epochs"] == 1 and info["imageSize"] == 32
    assert info["weightDecay"] == 1e-4 and "ReduceLROnPlateau" in info["schedule"]
    if decode == "sane":
        assert scores.set_index("metric").loc["contradictionRate", "value"] == 0.0
        assert sane(check(frame_to_codes(pred))).all()
    # the report command reads the 64-square predictions file (and names a bad square by d3mIndex)
    assert REP.main([str(sol / "predictions.csv"), "--out", str(sol / "r"), "--samples", "500"]) == 0
    assert "meanViolationSeverity" in capsys.readouterr().out
    pred.loc[2, "c3"] = "?"
    pred.to_csv(sol / "bad.csv", index=False)
    assert REP.main([str(sol / "bad.csv"), "--samples", "500"]) == 1
    assert f"row 4 (d3mIndex {pred.d3mIndex[2]}), square c3" in capsys.readouterr().err


@pytest.mark.slow
def test_malformed_training_board_names_its_d3mindex(tiny_root, tmp_path, capsys):
    import shutil
    root = tmp_path / "value"
    shutil.copytree(tiny_root, root)
    shutil.rmtree(root / "value_solution", ignore_errors=True)
    ld_path = root / "value_dataset/tables/learningData.csv"
    ld = pd.read_csv(ld_path, dtype=str, keep_default_na=False)
    ld.loc[5, "g2"] = "Z"
    ld.to_csv(ld_path, index=False)
    rc = main(["baseline", str(root), "--epochs", "1", "--device", "cpu", "--image-size", "32", "--quiet"])
    err = capsys.readouterr().err
    assert rc == 1 and f"learningData d3mIndex {ld.d3mIndex[5]}, square g2" in err


def test_report_frequencies_and_adjusted_likelihood():
    codes = fens_to_codes([START_FEN, "8/8/8/8/8/8/8/kK6", "8/8/8/8/8/8/8/8", START_FEN])
    rnd = REP.random_frequencies(5000, 1)
    rep = REP.rule_report(check(codes), random=rnd, severities=R.severity(codes))
    assert rep["n"] == 4 and rep["contradictionRate"] == 0.5
    # severity: the empty board misses both kings (2), kK6 has one adjacent pair (1)
    assert rep["meanViolationSeverity"] == pytest.approx(3 / 4) and rep["meanViolatedFlags"] == 3 / 4
    assert rep["rule"]["i"]["severity"] == 0.5 and rep["rule"]["ii"]["severity"] == 0.25
    assert rep["rule"]["i"]["adjustedSeverity"] == pytest.approx(0.5 / rnd["severity"]["i"])
    # a random board violates rule i about 8 times (|k|-1 + |K|-1 with about 4.9 kings each)
    assert 6 < rnd["severity"]["i"] < 10 and rnd["kindSeverity"]["counting"] > 20
    assert rep["rule"]["i"]["frequency"] == 0.25 and rep["rule"]["ii"]["frequency"] == 0.25
    assert rep["rule"]["i"]["adjusted"] == pytest.approx(0.25 / rnd["rule"]["i"])
    assert rep["kind"]["counting"]["count"] == 1 and rep["kind"]["localizing"]["count"] == 1
    assert rep["kind"]["counting"]["violations"] == 2
    assert set(rep["flag"]) == set(FLAGS)
    md = REP.to_markdown(rep)
    assert "| ii | localizing |" in md and "5000 boards, seed 1" in md


def test_random_guesser_frequency_of_rule_i_matches_the_binomial():
    # P(|k| = 1) for 64 squares each k with probability 1/13
    p_one = 64 * (1 / 13) * (12 / 13) ** 63
    rnd = REP.random_frequencies(20000, 2)
    both_ok = p_one ** 2
    assert rnd["rule"]["i"] == pytest.approx(1 - both_ok, abs=0.01)
    assert rnd["flag"]["i/black"] == pytest.approx(1 - p_one, abs=0.01)


@pytest.mark.slow
def test_report_cli_writes_files_and_names_bad_row(tmp_path, capsys):
    df = pd.DataFrame({"d3mIndex": range(20), "board": [START_FEN] * 20})
    df.loc[3, "board"] = "8/8/8/8/8/8/8/kK6"
    p = tmp_path / "predictions.csv"
    df.to_csv(p, index=False)
    assert REP.main([str(p), "--out", str(tmp_path / "r"), "--samples", "2000"]) == 0
    assert "| ii | localizing |" in capsys.readouterr().out
    for f in ("rule_report.md", "rule_report.json", "rule_report.png"):
        assert (tmp_path / "r" / f).stat().st_size > 0
    df.loc[15, "board"] = "8/8/8/8/8/8/8/k7K"
    df.to_csv(p, index=False)
    assert REP.main([str(p), "--samples", "2000"]) == 1
    err = capsys.readouterr().err
    assert "row 17, column board" in err and "rank 1" in err and "reaches square 9" in err


def test_shared_baseline_parser_tolerates_other_benchmarks_flags():
    import argparse
    from d3mkit.benchmarks.value.baseline import add_baseline_arguments
    p = argparse.ArgumentParser()
    p.add_argument("--batch-size", type=int, default=64)      # declared before ours: kept
    add_baseline_arguments(p)
    p.add_argument("--lr", type=float, default=0.5)           # declared after ours: no crash
    args = p.parse_args(["--decode", "sane"])
    assert args.batch_size == 64 and args.lr == 0.5 and args.decode == "sane" and args.image_size is None


@pytest.mark.slow
def test_reproduce_value_runs_the_table1_protocol_small(tmp_path, capsys):
    rc = main(["reproduce", "value", "--n-train", "8", "--n-test", "3", "--size", "48", "--image-size", "32",
               "--epochs", "1", "--batch-size", "4", "--samples", "2000", "--out", str(tmp_path)])
    assert rc == 0
    md = (tmp_path / "value_repro.md").read_text()
    assert "| resnet18 | argmax |" in md and "| resnet18 | sane |" in md
    assert "muC (severity, as Table 1)" in md and "P_severity (paper)" in md
    assert md.startswith("Command: `d3mkit reproduce value --n-train 8")
    assert (tmp_path / "value_repro_rules.png").stat().st_size > 0
    printed = capsys.readouterr().out                 # a k/N count as each model finishes
    assert "1 model(s) to train [0/1]" in printed and "[1/1, " in printed and "resnet18 trained" in printed
    assert main(["reproduce", "value", "--models", "vgg16", "--out", str(tmp_path)]) == 2
    assert "--models must be one of" in capsys.readouterr().err
