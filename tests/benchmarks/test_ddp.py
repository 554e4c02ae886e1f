"""Data-parallel baselines (d3mkit.baselines.ddp): the sampler's split, the inactive
context changes nothing, and 2 gloo processes on the CPU under torchrun train a tiny
abstraction CNN with rank 0 alone writing the solution."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from d3mkit.baselines import ddp  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def test_shards_cover_the_order_with_equal_lengths():
    order = np.random.default_rng(0).permutation(11)
    parts = [ddp.Context(rank=r, world_size=3).shard(order) for r in range(3)]
    assert {len(p) for p in parts} == {4}                       # padded: same number of steps
    assert set(np.concatenate(parts)) == set(order)
    assert np.array_equal(ddp.Context().shard(order), order)    # one process: the whole order


def test_inactive_context_is_the_identity_on_cpu():
    ctx = ddp.current()
    assert not ctx.active and ctx.is_main
    model = torch.nn.Linear(2, 2)
    assert ctx.wrap(model) is model and ctx.unwrap(model) is model
    x = torch.zeros(1, 1, 2, 2)
    assert ctx.inputs(x) is x and ctx.mean(3) == 3.0
    with ctx.autocast("cpu"):
        assert not torch.is_autocast_enabled()


SCRIPT = """
import sys
import numpy as np
import torch.distributed as dist
from d3mkit.baselines import ddp
from d3mkit.benchmarks.abstraction import model as M
from d3mkit.cli import main

ctx = ddp.init_from_env("cpu")
rng = np.random.default_rng(0)
x, y = rng.integers(0, 10, (48, 28, 28), dtype=np.uint8), rng.integers(0, 10, 48)
pred = M.fit_predict(x, y, x[:16], epochs=2, batch_size=8, seed=0)
every = [None] * ctx.world_size
dist.all_gather_object(every, pred.tolist())
mean_rank = ctx.mean(ctx.rank)
if ctx.is_main:   # gradients were averaged: both replicas hold the same weights
    print("replicas agree:", all(p == every[0] for p in every), flush=True)
    print("mean rank:", mean_rank, flush=True)
sys.exit(main(sys.argv[1:]))   # the command reuses the group and leaves it at the end
"""


@pytest.mark.slow
def test_two_gloo_processes_train_one_model_and_rank_zero_writes(tmp_path):
    from d3mkit.benchmarks.abstraction import cli
    from d3mkit.benchmarks.abstraction.protocol import Protocol
    root = cli.build_task_root(tmp_path, Protocol("mirror", 5, 40, 20, 2), seed=0)
    script = tmp_path / "ddp_run.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(REPO), OMP_NUM_THREADS="1")
    env.pop("WORLD_SIZE", None)
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
           str(script), "baseline", str(root), "--model", "abstraction-cnn", "--device", "cpu",
           "--epochs", "1", "--abstraction-batch-size", "8"]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=240)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "replicas agree: True" in out.stdout and "mean rank: 0.5" in out.stdout
    sol = next(root.glob("*_solution"))
    info = json.loads((sol / "baseline.json").read_text())
    assert info["processes"] == 2 and info["backend"] == "gloo"
    assert out.stdout.count("\naccuracy ") == 1                # only rank 0 reports
    assert len((sol / "predictions.csv").read_text().splitlines()) == 21
