"""The paper's CNN (section 4.3) in torch, and its training loop.

What this module owns: :func:`make_model` and :func:`fit_predict` (train on images with
0-10 pixel values divided by 9, predict labels). torch is imported inside the
functions, so importing this module does not import torch.

The network of the paper's notebook (cell 1, Keras): 5x5 convolution with 30 filters +
ReLU, 2x2 max-pool, 3x3 convolution with 15 filters + ReLU, 2x2 max-pool, dropout 0.1,
flatten ("valid" convolutions: 28 -> 24 -> 12 -> 10 -> 5, so 375 features), dense 128 +
ReLU, dense 50 + ReLU, dense 10 + softmax (folded into the cross-entropy loss). Training
as the notebook's ``model.fit``: 10 passes, batch 200, reshuffled every pass, Adam with
Keras' defaults (learning rate 0.001, epsilon 1e-7), Keras' initialisation (Glorot
uniform weights, zero biases). Inputs are the pixel values divided by 9 (so noisy
pixels of value 10 become 1.11, as in the notebook).
"""

from __future__ import annotations

import numpy as np

from d3mkit.benchmarks.abstraction import shapes as S

FILTERS = (30, 15)
DROPOUT = 0.1
EPOCHS = 10
BATCH_SIZE = 200
LR = 1e-3
ADAM_EPS = 1e-7      # Keras' default (torch's is 1e-8)


def make_model(filters: tuple[int, int] = FILTERS, dropout: float = DROPOUT):
    """The network as a ``torch.nn.Sequential`` producing 10 logits."""
    from torch import nn
    side = ((S.IMAGE - 4) // 2 - 2) // 2                        # 5
    model = nn.Sequential(
        nn.Conv2d(1, filters[0], 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(filters[0], filters[1], 3), nn.ReLU(), nn.MaxPool2d(2),
        nn.Dropout(dropout), nn.Flatten(),
        nn.Linear(filters[1] * side * side, 128), nn.ReLU(),
        nn.Linear(128, 50), nn.ReLU(),
        nn.Linear(50, S.N_SHAPES),
    )
    for layer in model:
        if isinstance(layer, (nn.Conv2d, nn.Linear)):     # Keras: glorot_uniform, zeros
            nn.init.xavier_uniform_(layer.weight)
            nn.init.zeros_(layer.bias)
    return model


def to_tensor(images: np.ndarray, device: str):
    """uint8 0-10 images ``(n, 28, 28)`` -> float tensor ``(n, 1, 28, 28)``, divided by 9."""
    import torch
    x = torch.from_numpy(np.ascontiguousarray(images, dtype=np.float32) / S.MAX_VALUE)
    return x.unsqueeze(1).to(device)


def fit_predict(train_x: np.ndarray, train_y: np.ndarray, test_x: np.ndarray, *,
                epochs: int = EPOCHS, batch_size: int = BATCH_SIZE, lr: float = LR,
                seed: int = 0, device: str = "cpu", threads: int | None = 1,
                progress=None) -> np.ndarray:
    """Train a fresh network on ``train_x``/``train_y`` (labels 0-9) and return the
    predicted labels of ``test_x``. Same seed and device, same predictions (CPU).

    On the CPU torch runs on ``threads`` threads (default 1: this network is so small
    that a second thread made training 3.5x slower on our shared 2-core machine);
    ``None`` keeps torch's setting."""
    from d3mkit.baselines.common import torch_threads

    with torch_threads(threads if device == "cpu" else None):
        return _fit_predict(train_x, train_y, test_x, epochs, batch_size, lr, seed, device, progress)


def _fit_predict(train_x, train_y, test_x, epochs, batch_size, lr, seed, device, progress):
    import torch
    from torch import nn

    from d3mkit.baselines import ddp
    ctx = ddp.current()          # data-parallel under torchrun; inactive: as before
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = ctx.wrap(make_model().to(device))
    opt = torch.optim.Adam(model.parameters(), lr=lr, eps=ADAM_EPS)
    loss_fn = nn.CrossEntropyLoss()
    x = to_tensor(train_x, device)
    y = torch.as_tensor(np.array(train_y, dtype=np.int64), device=device)
    n = len(x)
    model.train()
    for _ in range(epochs):
        order = torch.as_tensor(ctx.shard(rng.permutation(n)), device=device)
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            opt.zero_grad(set_to_none=True)
            with ctx.autocast(device):
                loss = loss_fn(model(ctx.inputs(x[idx])), y[idx])
            loss.backward()
            opt.step()
        if progress is not None:
            progress(float(loss))
    model = ctx.unwrap(model)
    model.eval()
    out = []
    with torch.no_grad():
        xt = to_tensor(test_x, device)
        for start in range(0, len(xt), 1024):
            out.append(model(xt[start:start + 1024]).argmax(1).cpu().numpy())
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)
