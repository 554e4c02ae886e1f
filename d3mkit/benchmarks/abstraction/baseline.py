"""``d3mkit baseline TASK_ROOT --model abstraction-cnn``: the paper's CNN on a task root.

What this module owns: reading the TRAIN and TEST images of an abstraction task root,
training :func:`~.model.fit_predict` (CUDA when present, CPU otherwise; ``--epochs``
default 10 as in the paper) and writing ``<name>_solution/predictions.csv`` scored by
d3mkit's scorer (accuracy and the custom metrics of the problemDoc).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from d3mkit.benchmarks.abstraction import model as M


def add_baseline_arguments(parser) -> None:
    parser.add_argument("--abstraction-batch-size", type=int, default=M.BATCH_SIZE,
                        help=f"abstraction-cnn: minibatch size (default {M.BATCH_SIZE})")
    parser.add_argument("--abstraction-lr", type=float, default=M.LR,
                        help=f"abstraction-cnn: Adam learning rate (default {M.LR:g})")


def run_baseline(task, model: str, args):
    import time

    from d3mkit.baselines.common import choose_device, require_torch, write_solution
    from d3mkit.benchmarks.abstraction.cli import load_images
    from d3mkit.errors import UsageError

    require_torch()
    device = choose_device(getattr(args, "device", "auto"))
    epochs = M.EPOCHS if getattr(args, "epochs", None) is None else int(args.epochs)
    if epochs < 1:
        raise UsageError(f"--epochs must be at least 1, got {epochs}")
    batch = int(getattr(args, "abstraction_batch_size", M.BATCH_SIZE))
    lr = float(getattr(args, "abstraction_lr", M.LR))
    seed = int(getattr(args, "seed", 0) or 0)
    if batch < 1:
        raise UsageError(f"--abstraction-batch-size must be at least 1, got {batch}")
    if not 0 < lr < float("inf"):
        raise UsageError(f"--abstraction-lr must be a number > 0, got {lr}")
    target = task.problem.target_names[0]
    train_idx, test_idx = task.split_indices(0, 0)
    x_train, ld_train = load_images(task, train_idx)
    x_test, _ = load_images(task, test_idx)
    y_train = ld_train[target].astype(int).to_numpy()
    t0 = time.perf_counter()
    pred = M.fit_predict(x_train, y_train, x_test, epochs=epochs, batch_size=batch, lr=lr,
                         seed=seed, device=device)
    seconds = time.perf_counter() - t0
    predictions = pd.DataFrame({"d3mIndex": test_idx, target: pred.astype(np.int64).astype(str)})
    return write_solution(task, predictions, model=model,
                          info={"device": device, "epochs": epochs, "batchSize": batch,
                                "lr": lr, "seed": seed, "trainSeconds": round(seconds, 2),
                                "nTrain": len(train_idx), "nTest": len(test_idx),
                                "architecture": "conv5x5(30)-pool-conv3x3(15)-pool-dropout0.1-"
                                                "dense128-dense50-dense10"})
