"""The paper's CNN and the abstraction-cnn baseline (tiny CPU runs)."""

import argparse
import sys

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")

from d3mkit.benchmarks.abstraction import cli, model as M  # noqa: E402
from d3mkit.benchmarks.abstraction.protocol import Protocol, generate  # noqa: E402


@pytest.fixture(autouse=True)
def one_thread():
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def test_architecture_matches_the_paper():
    net = M.make_model()
    kinds = [type(m).__name__ for m in net]
    assert kinds == ["Conv2d", "ReLU", "MaxPool2d", "Conv2d", "ReLU", "MaxPool2d", "Dropout",
                     "Flatten", "Linear", "ReLU", "Linear", "ReLU", "Linear"]
    assert net[0].kernel_size == (5, 5) and net[3].kernel_size == (3, 3)
    assert net[6].p == pytest.approx(0.1)
    assert [net[i].out_features for i in (8, 10, 12)] == [128, 50, 10]
    out = net(torch.zeros(4, 1, 28, 28))
    assert out.shape == (4, 10)
    # Keras' initialisation: Glorot-uniform weights, zero biases
    w = net[8].weight
    assert net[8].bias.abs().max().item() == 0
    assert w.abs().max().item() <= (6 / (375 + 128)) ** 0.5 + 1e-6
    assert M.BATCH_SIZE == 200 and M.LR == 1e-3


@pytest.mark.slow
def test_learns_untransformed_shapes_and_is_deterministic():
    imgs, meta = generate(Protocol("none", 0, 200, 50, 0), np.random.default_rng(0))
    tr = (meta["split"] == "TRAIN").to_numpy()
    y = meta["shape"].to_numpy()
    a = M.fit_predict(imgs[tr], y[tr], imgs[~tr], epochs=6, batch_size=20, seed=1)
    b = M.fit_predict(imgs[tr], y[tr], imgs[~tr], epochs=6, batch_size=20, seed=1)
    assert np.array_equal(a, b)
    assert (a == y[~tr]).mean() >= 0.9


@pytest.mark.slow
def test_baseline_writes_scored_predictions(tmp_path):
    root = cli.build_task_root(tmp_path, Protocol("mirror", 5, 60, 20, 2), seed=0)
    from d3mkit.benchmarks.abstraction.baseline import CNNConfig, run_baseline
    from d3mkit.taskroot.model import TaskRoot
    task = TaskRoot.open(root)
    report = run_baseline(task, "abstraction-cnn", CNNConfig(device="cpu", epochs=1,
                                                              abstraction_batch_size=32))
    names = {s.metric for s in report.scores}
    assert names == {"accuracy", "expectedAccuracyWithoutAbstraction", "chanceCorrectedAccuracy",
                     "heldOutShapeAccuracy"}
    pred = pd.read_csv(task.solution_dir / "predictions.csv")
    assert list(pred.columns) == ["d3mIndex", "shape"] and len(pred) == 20
    assert pred["shape"].between(0, 9).all()
    scores = pd.read_csv(task.solution_dir / "scores.csv")
    assert list(scores.columns) == ["index", "problemID", "metric", "value"]


@pytest.mark.slow
def test_importing_the_benchmark_does_not_import_torch():
    import subprocess
    code = ("import sys, d3mkit.benchmarks.abstraction.cli, d3mkit.benchmarks.abstraction.metrics, "
            "d3mkit.benchmarks.abstraction.model, d3mkit.benchmarks.abstraction.baseline; "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_baseline_config_refuses_bad_options():
    from d3mkit.benchmarks.abstraction.baseline import CNNConfig
    from d3mkit.core.errors import UsageError
    ok = CNNConfig.from_args(argparse.Namespace(epochs=None, seed=3, device="cpu",
                                                abstraction_batch_size=None))
    assert (ok.epochs_or(10), ok.abstraction_batch_size, ok.abstraction_lr, ok.seed) == \
        (10, 200, 1e-3, 3)
    for bad in ({"epochs": 0}, {"abstraction_batch_size": 0}, {"abstraction_lr": float("nan")}):
        with pytest.raises(UsageError):
            CNNConfig.from_args(argparse.Namespace(**bad))


@pytest.mark.slow
def test_reproduce_writes_a_report_beside_the_paper(tmp_path, capsys):
    from d3mkit.benchmarks.abstraction import reproduce as R
    from d3mkit.cli import main
    from d3mkit.core.errors import UsageError
    out = tmp_path / "res"
    assert main(["reproduce", "abstraction", "--table", "1", "--n-train", "250",
                 "--repetitions", "1", "--epochs", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out               # a k/N count with an ETA as each network finishes
    assert "9 run(s) to train [0/9]" in printed and "[1/9, " in printed and "left]" in printed
    assert "[9/9, " in printed
    md = (out / "abstraction_table1.md").read_text()
    assert "REDUCED" in md and "40.4 ± 8.4" in md            # the paper's Rotated, 250
    assert "| Moved | 250 |" in md and "of 9 cells within two" in md
    df = pd.read_csv(out / "abstraction_table1.csv")
    assert len(df) == 9 and df["accuracy"].between(0, 1).all()
    assert (df["nTest"] == 250).all()
    assert np.allclose(df.loc[df["transform"] == "rotation", "expected"], 0.325)
    # re-rendering from the CSV keeps the figures; --resume trains nothing new
    assert main(["reproduce", "abstraction", "--table", "1", "--out", str(out), "--from-csv"]) == 0
    assert (out / "abstraction_table1.md").read_text().split("## Test")[1] == md.split("## Test")[1]
    assert main(["reproduce", "abstraction", "--table", "1", "--n-train", "250", "--repetitions",
                 "1", "--out", str(out), "--resume"]) == 0
    assert len(pd.read_csv(out / "abstraction_table1.csv")) == 9
    with pytest.raises(UsageError):
        R.ReproduceConfig(table=1, n_train=(300,))
    assert main(["reproduce", "abstraction", "--table", "14", "--out", str(out)]) == 2
