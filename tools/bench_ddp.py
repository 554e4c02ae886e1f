#!/usr/bin/env python
"""Data-parallel training throughput: the abstraction CNN trained by 1 and by 2 CPU
processes (torchrun, gloo, one torch thread each), in training images per second.

    PYTHONPATH=. python tools/bench_ddp.py [--images 6000] [--epochs 2] [--batch 64]
        [--procs 1,2] [--save]

Each run is ``python -m torch.distributed.run --standalone --nproc-per-node N`` of this
script in worker mode: every process joins the group through
:func:`d3mkit.baselines.ddp.init_from_env` exactly as ``d3mkit baseline`` does and runs
:func:`d3mkit.benchmarks.abstraction.model.fit_predict` on the same synthetic images
(its DistributedSampler split, DDP wrapper and gradient all-reduce); rank 0 times the
training (after a barrier) and reports images/s = epochs x images / seconds. The batch is
per process. The GPU figure (NCCL) needs a GPU machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tools"))

from _bench_data import emit, md_table   # noqa: E402


def worker(args) -> int:
    import numpy as np

    from d3mkit.baselines import ddp
    from d3mkit.benchmarks.abstraction import model as M
    ctx = ddp.init_from_env("cpu")
    rng = np.random.default_rng(0)
    x = rng.integers(0, 10, (args.images, 28, 28), dtype=np.uint8)
    y = rng.integers(0, 10, args.images)
    ctx.barrier()
    t = time.perf_counter()
    M.fit_predict(x, y, x[:1], epochs=args.epochs, batch_size=args.batch, seed=0, device="cpu", threads=1)
    ctx.barrier()
    dt = time.perf_counter() - t
    if ctx.is_main:
        print(json.dumps({"processes": ctx.world_size, "seconds": dt,
                          "images_per_s": args.epochs * args.images / dt}))
    ddp.finish()
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--images", type=int, default=6000)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--procs", default="1,2")
    ap.add_argument("--save", action="store_true")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args)
    env = dict(os.environ, PYTHONPATH=str(REPO), OMP_NUM_THREADS="1")
    rows = []
    base = None
    for n in [int(p) for p in args.procs.split(",")]:
        cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", str(n),
               __file__, "--worker", "--images", str(args.images), "--epochs", str(args.epochs),
               "--batch", str(args.batch)]
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout
        r = json.loads([ln for ln in out.splitlines() if ln.startswith("{")][-1])
        base = base or r["images_per_s"]
        rows.append((f"{n} CPU processes (gloo)" if n > 1 else "1 CPU process (no process group)", f"{r['seconds']:.1f}",
                     f"{r['images_per_s']:.0f}", f"{r['images_per_s'] / base:.2f}x"))
    head = (f"abstraction CNN, {args.images:,} images 28x28, {args.epochs} epochs, batch {args.batch} "
            f"per process; {os.cpu_count()} cores, Python {platform.python_version()}")
    lines = [head, ""] + md_table(["run", "train s", "images/s", "vs 1 process"], rows)
    emit("\n".join(lines) + "\n", "ddp_bench.md", args.save)
    return 0


if __name__ == "__main__":
    sys.exit(main())
