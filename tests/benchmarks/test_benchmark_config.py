"""Typed benchmark configurations (d3mkit.benchmarks.config) and the tabular baseline that
takes one (``d3mkit baseline ROOT`` on a ``build tabular`` task root)."""

import argparse
import dataclasses

import pytest

from d3mkit.benchmarks.config import BaselineConfig, BuildConfig
from d3mkit.benchmarks.tabular import TabularBaselineConfig, build_task_root
from d3mkit.cli import main
from d3mkit.core.errors import UsageError


@pytest.mark.parametrize("fields, message", [
    ({"epochs": 0}, "^error \\[usage\\] epochs must be at least 1, got 0"),
    ({"epochs": -3}, "epochs must be at least 1"),
    ({"epochs": 2.5}, "epochs must be an integer"),
    ({"epochs": True}, "epochs must be an integer"),
    ({"seed": -1}, "seed must be at least 0"),
    ({"device": "tpu"}, "device must be one of auto, cpu, cuda"),
    ({"batch_size": 0}, "batch_size must be at least 1"),
])
def test_baseline_config_checks_each_shared_field(fields, message):
    with pytest.raises(UsageError, match=message):
        BaselineConfig(**fields)


def test_configs_are_frozen_and_built_from_argparse():
    cfg = BaselineConfig.from_args(argparse.Namespace(epochs=None, seed=3, device="cpu", other=1))
    assert (cfg.epochs, cfg.seed, cfg.device) == (None, 3, "cpu")
    assert cfg.epochs_or(7) == 7 and cfg.replace(epochs=2).epochs_or(7) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.seed = 4
    with pytest.raises(UsageError):
        cfg.replace(seed=-2)
    assert BuildConfig(out="x", seed=1).to_dict() == {"out": "x", "seed": 1, "force": False, "quiet": False}


def test_subclass_adds_its_own_checks():
    assert TabularBaselineConfig().model == "logistic-regression"
    with pytest.raises(UsageError, match="max_iter must be at least 1"):
        TabularBaselineConfig(max_iter=0)
    with pytest.raises(UsageError, match="epochs"):
        TabularBaselineConfig(epochs=0)


@pytest.mark.slow
def test_tabular_baseline_command(tmp_path, capsys):
    root = build_task_root(tmp_path, "iris")
    assert main(["baseline", str(root)]) == 0
    out = capsys.readouterr().out
    assert "accuracy  " in out and (root / "iris_solution" / "predictions.csv").is_file()
    assert main(["baseline", str(root), "--model", "mean"]) == 0
    for bad in (["--epochs", "0"], ["--max-iter", "0"]):
        assert main(["baseline", str(root), *bad]) == 2
        err = capsys.readouterr().err
        assert f"{bad[0]} must be at least 1" in err, err
