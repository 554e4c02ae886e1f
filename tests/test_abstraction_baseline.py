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


def test_learns_untransformed_shapes_and_is_deterministic():
    imgs, meta = generate(Protocol("none", 0, 200, 50, 0), np.random.default_rng(0))
    tr = (meta["split"] == "TRAIN").to_numpy()
    y = meta["shape"].to_numpy()
    a = M.fit_predict(imgs[tr], y[tr], imgs[~tr], epochs=6, seed=1)
    b = M.fit_predict(imgs[tr], y[tr], imgs[~tr], epochs=6, seed=1)
    assert np.array_equal(a, b)
    assert (a == y[~tr]).mean() >= 0.9


def test_baseline_writes_scored_predictions(tmp_path):
    root = cli.build_task_root(tmp_path, Protocol("mirror", 5, 60, 20, 2), seed=0)
    from d3mkit.benchmarks.abstraction.baseline import run_baseline
    from d3mkit.taskroot import TaskRoot
    task = TaskRoot.open(root)
    args = argparse.Namespace(device="cpu", epochs=1, seed=0, abstraction_batch_size=32,
                              abstraction_lr=1e-3)
    report = run_baseline(task, "abstraction-cnn", args)
    names = {s.metric for s in report.scores}
    assert names == {"accuracy", "expectedAccuracyWithoutAbstraction", "chanceCorrectedAccuracy",
                     "heldOutShapeAccuracy"}
    pred = pd.read_csv(task.solution_dir / "predictions.csv")
    assert list(pred.columns) == ["d3mIndex", "shape"] and len(pred) == 20
    assert pred["shape"].between(0, 9).all()
    scores = pd.read_csv(task.solution_dir / "scores.csv")
    assert list(scores.columns) == ["index", "problemID", "metric", "value"]


def test_importing_the_benchmark_does_not_import_torch():
    import subprocess
    code = ("import sys, d3mkit.benchmarks.abstraction.cli, d3mkit.benchmarks.abstraction.metrics, "
            "d3mkit.benchmarks.abstraction.model, d3mkit.benchmarks.abstraction.baseline; "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_reproduce_tool_writes_a_report_beside_the_paper(tmp_path, capsys):
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location(
        "abstraction_reproduce",
        Path(__file__).resolve().parent.parent / "tools" / "abstraction_reproduce.py")
    rep = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rep)
    assert rep.parse_spec("8:1000,2000:r1", 5) == (8, [1000, 2000], 1)
    assert rep.parse_spec("1::r2", 5) == (1, None, 2)
    assert rep.main(["--table", "4:1000:r1", "--epochs", "1", "--n-test", "20",
                     "--out", str(tmp_path)]) == 0
    md = (tmp_path / "abstraction_table4.md").read_text()
    assert "REDUCED" in md and "42.8 ± 3.5" in md          # the paper's Rotated, 1000
    assert "| Moved | 1000 |" in md
    df = pd.read_csv(tmp_path / "abstraction_table4.csv")
    assert len(df) == 5 and df["accuracy"].between(0, 1).all()
    assert np.allclose(df.loc[df["transform"] == "rotation", "expected"], 0.325)
    # re-rendering from the CSV keeps the figures
    assert rep.main(["--table", "4:1000:r1", "--out", str(tmp_path), "--from-csv"]) == 0
    assert (tmp_path / "abstraction_table4.md").read_text().split("## Test")[1] == md.split("## Test")[1]
