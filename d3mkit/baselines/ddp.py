"""Data-parallel training (``torch.distributed``) for the torch baselines.

``torchrun --nproc-per-node N -m d3mkit baseline TASK ...`` starts N processes with
``RANK``/``WORLD_SIZE``/``LOCAL_RANK``/``MASTER_ADDR``/``MASTER_PORT`` set;
:func:`init_from_env` (called once by ``d3mkit baseline``) joins them into a process
group — NCCL on CUDA (one GPU per process, ``cuda:LOCAL_RANK``), gloo on the CPU — and
makes the :class:`Context` that :func:`current` returns to the training loops. Without
those variables (or with ``WORLD_SIZE=1``) the context is inactive and every method is
the identity, so one process trains exactly as before.

What a training loop does with it (small edits, the loop stays the loop):

* ``order = ctx.shard(rng.permutation(n))`` — this process's part of the epoch's order,
  cut by :class:`torch.utils.data.DistributedSampler` (padded so every process takes the
  same number of steps; every process draws the same permutation from the same seed);
* ``model = ctx.wrap(model.to(device))`` —
  :class:`~torch.nn.parallel.DistributedDataParallel` (gradients averaged across
  processes at each ``backward``); channels-last on CUDA;
* ``with ctx.autocast(device):`` around the forward pass and ``ctx.inputs(x)`` for an
  image batch — bf16 autocast and channels-last on CUDA only (also in one process: on a
  GPU the numbers change; on the CPU nothing does);
* ``ctx.mean(x)`` for a statistic that steers training (e.g. the metric of a
  ``ReduceLROnPlateau``), so every replica takes the same step;
* ``ctx.unwrap(model)`` for prediction (no collective calls), and only
  ``ctx.is_main`` (rank 0) writes files.

The batch size stays per process (the global batch is N times larger); the learning rate
is not rescaled.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass

import numpy as np

ENV_VARS = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")


@dataclass
class Context:
    rank: int = 0
    world_size: int = 1
    local_rank: int = 0
    device: str = "cpu"
    backend: str | None = None

    @property
    def active(self) -> bool:
        return self.world_size > 1

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    def shard(self, order: np.ndarray) -> np.ndarray:
        """This process's indices of ``order`` (all of it when inactive).

        >>> Context().shard(np.array([3, 1, 2]))
        array([3, 1, 2])
        """
        order = np.asarray(order)
        if not self.active:
            return order
        from torch.utils.data import DistributedSampler
        sampler = DistributedSampler(range(len(order)), num_replicas=self.world_size,
                                     rank=self.rank, shuffle=False, drop_last=False)
        return order[np.fromiter(iter(sampler), dtype=np.int64)]

    def batches(self, n: int, batch_size: int, rng: np.random.Generator):
        """Shuffled index batches of this process's shard of ``range(n)`` — the
        data-parallel form of :func:`d3mkit.baselines.common.batches` (the same batches
        when inactive).

        >>> from d3mkit.baselines.common import batches
        >>> [b.tolist() for b in Context().batches(5, 2, np.random.default_rng(0))]
        [[2, 4], [3, 0], [1]]
        >>> [b.tolist() for b in batches(5, 2, np.random.default_rng(0))]
        [[2, 4], [3, 0], [1]]
        """
        order = self.shard(rng.permutation(n))
        for start in range(0, len(order), batch_size):
            yield order[start:start + batch_size]

    def wrap(self, model):
        """The model (already on its device) in channels-last when on CUDA, and in
        DistributedDataParallel when active."""
        import torch
        dev = next(model.parameters()).device
        if dev.type == "cuda":
            model = model.to(memory_format=torch.channels_last)
        if not self.active:
            return model
        from torch.nn.parallel import DistributedDataParallel
        return DistributedDataParallel(model, device_ids=[dev.index] if dev.type == "cuda" else None)

    @staticmethod
    def unwrap(model):
        return getattr(model, "module", model)

    @staticmethod
    def inputs(x):
        """A 4-D CUDA image batch in channels-last (matching :meth:`wrap`); else ``x``."""
        if getattr(x, "is_cuda", False) and x.dim() == 4:
            import torch
            return x.contiguous(memory_format=torch.channels_last)
        return x

    @staticmethod
    def autocast(device):
        """bf16 autocast when ``device`` is CUDA; nothing on the CPU (results as before)."""
        if not str(device).startswith("cuda"):
            return contextlib.nullcontext()
        import torch
        return torch.autocast("cuda", dtype=torch.bfloat16)

    def mean(self, value: float) -> float:
        """The mean of ``value`` over the processes (``value`` itself when inactive): for
        a statistic that steers training (a scheduler's metric), so every replica takes
        the same decision."""
        if not self.active:
            return float(value)
        import torch
        import torch.distributed as dist
        t = torch.tensor([float(value)], dtype=torch.float64,
                         device=f"cuda:{self.local_rank}" if self.device.startswith("cuda") else "cpu")
        dist.all_reduce(t)
        return float(t.item()) / self.world_size

    def barrier(self) -> None:
        if self.active:
            import torch.distributed as dist
            dist.barrier()

    def close(self) -> None:
        if self.active:
            import torch.distributed as dist
            if dist.is_initialized():
                dist.destroy_process_group()


_CURRENT = Context()


def current() -> Context:
    """The context of this process (inactive unless :func:`init_from_env` joined a group)."""
    return _CURRENT


def launched() -> bool:
    """True when torchrun (or another launcher) asked for more than one process."""
    try:
        return int(os.environ.get("WORLD_SIZE", "1")) > 1
    except ValueError:
        return False


def init_from_env(device: str = "cpu") -> Context:
    """Join the process group torchrun describes; ``device`` is the baseline's choice
    ("cpu" or "cuda"). Returns (and installs as :func:`current`) the context."""
    global _CURRENT
    if not launched():
        _CURRENT = Context(device=device)
        return _CURRENT
    from d3mkit.core.errors import UsageError
    missing = [v for v in ENV_VARS if v not in os.environ]
    if missing:
        raise UsageError(f"WORLD_SIZE > 1 but {', '.join(missing)} not set: launch the baseline "
                         f"with torchrun, which sets them (docs/evaluate.md)")
    import torch
    import torch.distributed as dist
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ["LOCAL_RANK"])
    if device.startswith("cuda"):
        if local >= torch.cuda.device_count():
            raise UsageError(f"LOCAL_RANK {local} but torch sees {torch.cuda.device_count()} GPU(s): "
                             f"use at most one process per GPU")
        torch.cuda.set_device(local)
        device, backend = f"cuda:{local}", "nccl"
    else:
        device, backend = "cpu", "gloo"
    if not dist.is_initialized():
        dist.init_process_group(backend=backend, rank=rank, world_size=world)
    _CURRENT = Context(rank, world, local, device, backend)
    return _CURRENT


def finish() -> None:
    """Leave the process group (end of ``d3mkit baseline``)."""
    global _CURRENT
    _CURRENT.close()
    _CURRENT = Context()
