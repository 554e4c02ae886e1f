"""Building abstraction task roots, scoring them with the custom metrics, bad input."""

import hashlib

import numpy as np
import pandas as pd
import pytest

from d3mkit.benchmarks.abstraction import cli
from d3mkit.benchmarks.abstraction import metrics as M
from d3mkit.benchmarks.abstraction.protocol import Protocol, generate
from d3mkit.cli import main
from d3mkit.scoring.score import score_task_root
from d3mkit.tables import write_table
from d3mkit.taskroot.model import TaskRoot
from d3mkit.validation import validate_task_root

SMALL = Protocol("rotation", transformed=5, n_train=40, n_test=30, noise=2)


def _digest(root):
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.name != "manifest.json":
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return cli.build_task_root(tmp_path_factory.mktemp("abs"), SMALL, seed=3)


@pytest.mark.slow
def test_task_root_is_valid_and_complete(root):
    assert not [i for i in validate_task_root(root) if i.is_error]
    task = TaskRoot.open(root)
    ld = task.learning_data()
    assert list(ld.columns) == ["d3mIndex", "image", "shape"]
    assert len(ld) == 70 and set(ld["shape"]) == {str(i) for i in range(10)}
    train, test = task.split_indices()
    assert len(train) == 40 and len(test) == 30
    meta = pd.read_csv(task.debug_dir / "samples.csv")
    assert list(meta.columns[:7]) == ["d3mIndex", "split", "shape", "transformed", "transform",
                                      "outcome", "noise"]
    assert set(meta["transformed"].astype(str).str.lower()) <= {"true", "false"}
    assert (task.debug_dir / "shapes.png").stat().st_size > 0
    names = [m.get("specifyOther", m["metric"]) for m in task.problem.metrics]
    assert names == ["accuracy", "expectedAccuracyWithoutAbstraction",
                     "chanceCorrectedAccuracy", "heldOutShapeAccuracy"]
    assert "samples.csv" in task.problem.about["problemDescription"]
    assert task.manifest["parameters"]["nOutcomes"] == 4


@pytest.mark.slow
def test_png_round_trip_is_exact(root):
    task = TaskRoot.open(root)
    imgs, ld = cli.load_images(task)
    expected, _ = generate(SMALL, np.random.default_rng(3))
    assert np.array_equal(imgs, expected)


@pytest.mark.slow
def test_same_seed_same_bytes(tmp_path, root):
    again = cli.build_task_root(tmp_path, SMALL, seed=3)
    assert _digest(again) == _digest(root)
    other = cli.build_task_root(tmp_path, SMALL, seed=4)
    assert _digest(other) != _digest(root)


def _score(task, pred_labels):
    _, test = task.split_indices()
    target = task.problem.target_names[0]
    p = task.solution_dir / "predictions.csv"
    write_table(pd.DataFrame({"d3mIndex": test, target: pred_labels}), p)
    return {s.metric: s.value for s in score_task_root(task, p).scores}


def test_scores_of_a_perfect_and_a_memorising_system(root):
    task = TaskRoot.open(root)
    _, test = task.split_indices()
    meta = pd.read_csv(task.debug_dir / "samples.csv").set_index("d3mIndex").loc[[int(i) for i in test]]
    truth = meta["shape"].astype(str).to_numpy()
    perfect = _score(task, truth)
    held = ~meta["trainedTransformed"].to_numpy(bool)
    expected = np.mean(np.where(held, 0.25 + 0.75 * 0.1, 1.0))
    assert perfect["accuracy"] == 1.0
    assert perfect["expectedAccuracyWithoutAbstraction"] == pytest.approx(expected)
    assert perfect["chanceCorrectedAccuracy"] == pytest.approx(1.0)
    assert perfect["heldOutShapeAccuracy"] == 1.0
    # a memoriser: right on what it has seen (identity outcome or shape trained
    # transformed), wrong elsewhere
    known = meta["identity"].to_numpy(bool) | ~held
    wrong = ((meta["shape"].to_numpy() + 1) % 10).astype(str)
    mem = _score(task, np.where(known, truth, wrong))
    assert mem["accuracy"] == pytest.approx(known.mean())
    assert mem["heldOutShapeAccuracy"] == pytest.approx(meta["identity"].to_numpy(bool)[held].mean())
    assert mem["expectedAccuracyWithoutAbstraction"] == perfect["expectedAccuracyWithoutAbstraction"]


def test_metric_functions_reject_undefined_cases():
    with pytest.raises(ValueError):
        M.chance_corrected_accuracy(0.9, 1.0)
    with pytest.raises(ValueError):
        M.held_out_shape_accuracy([1, 2], [1, 2], [True, True])
    with pytest.raises(ValueError):
        M.memorised_share([0.5, 2.0], [False, False])
    with pytest.raises(ValueError):
        M._expected_metric(["1"], ["1"], metadata=pd.DataFrame({"d3mIndex": [0]}))


def test_metric_list_only_holds_defined_metrics():
    names = lambda p: [m.get("specifyOther", m["metric"]) for m in cli.metric_list(p)]
    assert names(Protocol("mirror", transformed=10)) == ["accuracy", "expectedAccuracyWithoutAbstraction"]
    assert names(Protocol("none", transformed=0)) == ["accuracy", "heldOutShapeAccuracy"]
    assert len(names(Protocol("translation", transformed=8))) == 4


@pytest.mark.parametrize("args,flag", [
    (["--transformed", "11"], "--transformed"), (["--transformed", "-1"], "--transformed"),
    (["--transform", "spin"], "--transform"), (["--noise", "-2"], "--noise"),
    (["--n-test", "9"], "--n-test"), (["--test-noise", "-1"], "--test-noise")])
def test_bad_input_exit_1_with_message_and_nothing_written(tmp_path, capsys, args, flag):
    rc = main(["build", "abstraction", "--out", str(tmp_path / "out"), "--quiet", *args])
    err = capsys.readouterr()
    assert rc == 1
    text = err.out + err.err
    assert flag in text and "Traceback" not in text
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_cli_build_prints_the_root(tmp_path, capsys):
    rc = main(["build", "abstraction", "--out", str(tmp_path), "--quiet", "--transform",
               "translation", "--transformed", "2", "--n-train", "20", "--n-test", "10"])
    assert rc == 0
    printed = capsys.readouterr().out.strip()
    assert printed.endswith("abstraction_translation_k2_n20_noise0_s0")
    assert main(["build", "abstraction", "--out", str(tmp_path), "--quiet", "--transform",
                 "translation", "--transformed", "2", "--n-train", "20", "--n-test", "10"]) == 2


@pytest.mark.slow
def test_grid_tool_builds_a_table(tmp_path, capsys):
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location(
        "abstraction_grid", Path(__file__).resolve().parents[2] / "tools" / "abstraction_grid.py")
    grid = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(grid)
    assert grid.main(["--table", "1", "--out", str(tmp_path), "--n-train", "20",
                      "--repetitions", "1", "--n-test", "10"]) == 0
    roots = capsys.readouterr().out.split()
    assert len(roots) == 9
    assert any(r.endswith("abstraction_t1_none_testnoise4_n20_r0") for r in roots)
    for r in roots:
        assert not [i for i in validate_task_root(Path(r)) if i.is_error]
    meta = pd.read_csv(Path(roots[-1]) / (Path(roots[-1]).name + "_debug") / "samples.csv")
    assert set(meta.loc[meta.split == "TRAIN", "noise"]) == {0.0}
    assert set(meta.loc[meta.split == "TEST", "noise"]) == {6.0}
    assert grid.main(["--table", "1", "--out", str(tmp_path), "--n-train", "20",
                      "--repetitions", "1", "--n-test", "10"]) == 2
