"""Data-parallel baselines (d3mkit.baselines.ddp): the sampler's split and the inactive
context changes nothing."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from d3mkit.baselines import ddp  # noqa: E402


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
    assert ctx.inputs(x) is x
    with ctx.autocast("cpu"):
        assert not torch.is_autocast_enabled()
