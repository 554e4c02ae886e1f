"""``d3mkit baseline TASK_ROOT --model abstraction-cnn``: the paper's CNN on a task root.

What this module owns: :class:`CNNConfig` (the training options, validated once when
built from the command line), reading the TRAIN and TEST images of an abstraction task
root, training :func:`~.model.fit_predict` (CUDA when present, CPU otherwise; 10 passes,
batch 200, Adam 0.001 as the paper's notebook) and writing
``<name>_solution/predictions.csv`` scored by d3mkit's scorer (accuracy and the custom
metrics of the problemDoc).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from d3mkit.benchmarks.abstraction import model as M


@dataclass(frozen=True)
class CNNConfig:
    """Training options of the abstraction CNN; :meth:`problems` lists what is wrong."""

    epochs: int = M.EPOCHS
    batch_size: int = M.BATCH_SIZE
    lr: float = M.LR
    seed: int = 0
    device: str = "auto"

    def problems(self) -> list[str]:
        out = []
        if self.epochs < 1:
            out.append(f"--epochs must be at least 1, got {self.epochs}")
        if self.batch_size < 1:
            out.append(f"--abstraction-batch-size must be at least 1, got {self.batch_size}")
        if not (0 < self.lr and math.isfinite(self.lr)):
            out.append(f"--abstraction-lr must be a number > 0, got {self.lr}")
        return out

    @classmethod
    def from_args(cls, args) -> "CNNConfig":
        """The config of ``d3mkit baseline`` options; a UsageError when one is invalid."""
        from d3mkit.errors import UsageError
        epochs = getattr(args, "epochs", None)
        cfg = cls(epochs=M.EPOCHS if epochs is None else int(epochs),
                  batch_size=int(getattr(args, "abstraction_batch_size", M.BATCH_SIZE)),
                  lr=float(getattr(args, "abstraction_lr", M.LR)),
                  seed=int(getattr(args, "seed", 0) or 0),
                  device=getattr(args, "device", "auto") or "auto")
        problems = cfg.problems()
        if problems:
            raise UsageError("; ".join(problems))
        return cfg


def add_baseline_arguments(parser) -> None:
    parser.add_argument("--abstraction-batch-size", type=int, default=M.BATCH_SIZE,
                        help=f"abstraction-cnn: minibatch size (default {M.BATCH_SIZE}, "
                             f"as the paper's notebook)")
    parser.add_argument("--abstraction-lr", type=float, default=M.LR,
                        help=f"abstraction-cnn: Adam learning rate (default {M.LR:g})")


def run_baseline(task, model: str, args):
    return run(task, model, CNNConfig.from_args(args))


def run(task, model: str, cfg: CNNConfig):
    """Train on the task root's TRAIN rows, predict its TEST rows, write and score."""
    import time

    from d3mkit.baselines.common import choose_device, require_torch, write_solution
    from d3mkit.benchmarks.abstraction.cli import load_images

    require_torch()
    device = choose_device(cfg.device)
    target = task.problem.target_names[0]
    train_idx, test_idx = task.split_indices(0, 0)
    x_train, ld_train = load_images(task, train_idx)
    x_test, _ = load_images(task, test_idx)
    y_train = ld_train[target].astype(int).to_numpy()
    t0 = time.perf_counter()
    pred = M.fit_predict(x_train, y_train, x_test, epochs=cfg.epochs,
                         batch_size=cfg.batch_size, lr=cfg.lr, seed=cfg.seed, device=device)
    seconds = time.perf_counter() - t0
    predictions = pd.DataFrame({"d3mIndex": test_idx, target: pred.astype(np.int64).astype(str)})
    info = {**asdict(cfg), "device": device, "batchSize": cfg.batch_size,
            "trainSeconds": round(seconds, 2), "nTrain": len(train_idx), "nTest": len(test_idx),
            "architecture": "conv5x5(30)-pool-conv3x3(15)-pool-dropout0.1-"
                            "dense128-dense50-dense10, glorot-uniform init"}
    info.pop("batch_size")
    return write_solution(task, predictions, model=model, info=info)
