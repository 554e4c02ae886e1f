"""ViSudo-PC baselines: each trains one epoch on a tiny task root and writes predictions
with a confidence column, scored (rocAuc, accuracy) through the registry."""

import json

import pandas as pd
import pytest

torch = pytest.importorskip("torch")

from d3mkit.cli import main  # noqa: E402


@pytest.fixture(scope="module")
def task_root(tmp_path_factory):
    out = tmp_path_factory.mktemp("vsb")
    assert main(["build", "visudo", "--out", str(out), "--sources", "digits", "--n-train", "4",
                 "--n-test", "3", "--n-valid", "2", "--quiet", "--seed", "1"]) == 0
    return out / "visudo_basic_digits_d4_n4_o0_s0"


@pytest.mark.slow
@pytest.mark.parametrize("model", ["digit", "visual", "nesy"])
def test_baseline_one_epoch(task_root, model, capsys):
    torch.set_num_threads(1)
    assert main(["baseline", str(task_root), "--model", model, "--epochs", "1", "--device", "cpu",
                 "--quiet"]) == 0
    out = capsys.readouterr()
    assert "\nrocAuc " in out.out and "\naccuracy " in out.out
    name = task_root.name
    sol = task_root / f"{name}_solution"
    pred = pd.read_csv(sol / "predictions.csv")
    assert list(pred.columns) == ["d3mIndex", "label", "confidence"]
    splits = pd.read_csv(task_root / f"{name}_problem" / "dataSplits.csv")
    assert sorted(pred["d3mIndex"]) == sorted(splits.loc[splits.type == "TEST", "d3mIndex"])
    if model != "digit":
        assert info_valid(sol) == 4                          # the validData puzzles
    assert pred["confidence"].between(0.5, 1.0).all() and set(pred["label"]) <= {0, 1}
    scores = pd.read_csv(sol / "scores.csv")
    assert list(scores["metric"]) == ["rocAuc", "accuracy"] and scores["value"].between(0, 1).all()
    info = json.loads((sol / "baseline.json").read_text())
    assert info["model"].startswith(f"visudo-{model}") and info["cheating"] == (model == "digit")
    if model == "digit":
        assert "CHEATING" in out.err and "CHEATING" in info["description"] and "CHEATING" in info["model"]


def info_valid(sol):
    return json.loads((sol / "baseline.json").read_text())["validPuzzles"]


@pytest.mark.slow     # trains twice (seconds); the fast subset keeps the nesy constraint test below
def test_baseline_is_deterministic(task_root, capsys):
    torch.set_num_threads(1)
    sol = task_root / f"{task_root.name}_solution" / "predictions.csv"
    runs = []
    for _ in range(2):
        assert main(["baseline", str(task_root), "--model", "nesy", "--epochs", "1", "--device", "cpu",
                     "--quiet", "--seed", "5"]) == 0
        runs.append(sol.read_bytes())
    assert runs[0] == runs[1]


def test_nesy_constraint_scores_duplicates():
    import numpy as np

    from d3mkit.benchmarks.visudo.models import nesy_model
    from d3mkit.benchmarks.visudo.sudoku import base_grid, peer_pairs
    net = nesy_model(4, 4, peer_pairs(4))
    g = base_grid(4).ravel()
    p = torch.nn.functional.one_hot(torch.as_tensor(g), 4).float()[None]
    assert float(net.duplicates(p)) == 0.0
    bad = g.copy()
    bad[0] = bad[1]       # cell (0,0) now repeats (0,1) [row and block: one pair] and (2,0) [column]
    q = torch.nn.functional.one_hot(torch.as_tensor(bad), 4).float()[None]
    assert float(net.duplicates(q)) == 2.0
    assert np.isclose(float(net.duplicates(torch.full((1, 16, 4), 0.25))), 56 / 4)


@pytest.mark.slow
def test_reproduce_visudo_writes_table3_and_figure8(tmp_path):
    out = tmp_path / "res"
    args = ["reproduce", "visudo", "--source", "digits", "--splits", "1", "--n-train", "3",
            "--n-test", "3", "--n-valid", "2", "--epochs", "1", "--overlaps", "0,1",
            "--models", "digit,nesy", "--out", str(out)]
    assert main(args) == 0
    t3 = (out / "visudo_table3.md").read_text()
    assert "0.71 ± 0.04" in t3 and "0.88 ± 0.02" in t3 and "stand-in for NeuPSL" in t3
    f8 = (out / "visudo_figure8.md").read_text()
    assert "ω = 0" in f8 and "ω = 1" in f8 and "no numbers given" in f8
    df = pd.read_csv(out / "visudo_overlap.csv")
    assert len(df) == 4 and df["rocAuc"].between(0, 1).all()
    assert (df.loc[df.overlap == 0, "distinctTrainImages"] == 48).all()
    assert (df.loc[df.overlap == 1, "distinctTrainImages"] < 48).all()
    assert main([*args, "--resume"]) == 0 and len(pd.read_csv(out / "visudo_overlap.csv")) == 4
    assert main(["reproduce", "visudo", "--models", "cnn", "--out", str(out)]) == 2


@pytest.mark.slow
def test_reproduce_visudo_figure7_per_split_over_source_combinations(tmp_path):
    out = tmp_path / "res"
    args = ["reproduce", "visudo", "--figure", "7", "--source", "digits,digits+glyphs",
            "--splits", "1", "--n-train", "3", "--n-test", "3", "--n-valid", "2",
            "--epochs", "1", "--models", "digit,nesy", "--out", str(out)]
    assert main(args) == 0
    df = pd.read_csv(out / "visudo_figure7.csv")
    assert df["sources"].tolist() == ["digits", "digits", "digits+glyphs", "digits+glyphs"]
    assert df["rocAuc"].between(0, 1).all()
    # perSplit: four labels drawn from the combination's pooled labels, one set per split
    for name, labels in zip(df["sources"], df["labels"]):
        drawn = labels.split()
        assert len(drawn) == 4 and all(x.split(":")[0] in name.split("+") for x in drawn)
    f7 = (out / "visudo_figure7.md").read_text()
    assert "`digits+glyphs`" in f7 and "perSplit" in f7 and "no numbers given" in f7
    assert "--figure 7" in f7
    assert not (out / "visudo_overlap.csv").exists()
    assert main([*args, "--resume"]) == 0 and len(pd.read_csv(out / "visudo_figure7.csv")) == 4
    assert main([*args[:-2], "--from-csv", "--out", str(out)]) == 0
    # a combination is only for Figure 7; the basic task takes one source
    assert main(["reproduce", "visudo", "--source", "digits+glyphs", "--out", str(out)]) == 2
