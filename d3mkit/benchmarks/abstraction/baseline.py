"""``d3mkit baseline TASK_ROOT --model abstraction-cnn``: the paper's CNN on a task root.

What this module owns: :class:`CNNConfig` (the training options, checked once), reading the TRAIN and TEST images of an abstraction task
root, training :func:`~.model.fit_predict` (CUDA when present, CPU otherwise; 10 passes,
batch 200, Adam 0.001 as the paper's notebook) and writing
``<name>_solution/predictions.csv`` scored by d3mkit's scorer (accuracy and the custom
metrics of the problemDoc).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from d3mkit.benchmarks.abstraction import model as M
from d3mkit.benchmarks.config import BaselineConfig, check_int, check_positive


@dataclass(frozen=True)
class CNNConfig(BaselineConfig):
    """``d3mkit baseline ROOT --model abstraction-cnn``: the shared baseline fields plus
    ``abstraction_batch_size`` (>= 1, default 200) and ``abstraction_lr`` (> 0, default
    0.001); ``epochs`` None means the paper's 10."""

    model: str | None = "abstraction-cnn"
    abstraction_batch_size: int = M.BATCH_SIZE
    abstraction_lr: float = M.LR

    def check(self) -> None:
        super().check()
        check_int("abstraction_batch_size", self.abstraction_batch_size, minimum=1)
        check_positive("abstraction_lr", self.abstraction_lr)


CONFIG = CNNConfig


def add_baseline_arguments(parser) -> None:
    parser.add_argument("--abstraction-batch-size", type=int, default=None,
                        help=f"abstraction-cnn: minibatch size (default {M.BATCH_SIZE}, "
                             f"as the paper's notebook)")
    parser.add_argument("--abstraction-lr", type=float, default=None,
                        help=f"abstraction-cnn: Adam learning rate (default {M.LR:g})")


def run_baseline(task, model: str, cfg: CNNConfig):
    """Train on the task root's TRAIN rows, predict its TEST rows, write and score."""
    import time

    from d3mkit.baselines.common import choose_device, require_torch, write_solution
    from d3mkit.benchmarks.abstraction.cli import load_images

    require_torch()
    device = choose_device(cfg.device)
    epochs = cfg.epochs_or(M.EPOCHS)
    target = task.problem.target_names[0]
    train_idx, test_idx = task.split_indices(0, 0)
    x_train, ld_train = load_images(task, train_idx)
    x_test, _ = load_images(task, test_idx)
    y_train = ld_train[target].astype(int).to_numpy()
    t0 = time.perf_counter()
    pred = M.fit_predict(x_train, y_train, x_test, epochs=epochs,
                         batch_size=cfg.abstraction_batch_size, lr=cfg.abstraction_lr,
                         seed=cfg.seed, device=device)
    seconds = time.perf_counter() - t0
    predictions = pd.DataFrame({"d3mIndex": test_idx, target: pred.astype(np.int64).astype(str)})
    info = {"device": device, "epochs": epochs, "batchSize": cfg.abstraction_batch_size,
            "lr": cfg.abstraction_lr, "seed": cfg.seed, "trainSeconds": round(seconds, 2),
            "nTrain": len(train_idx), "nTest": len(test_idx),
            "architecture": "conv5x5(30)-pool-conv3x3(15)-pool-dropout0.1-"
                            "dense128-dense50-dense10, glorot-uniform init"}
    return write_solution(task, predictions, model=model, info=info)
