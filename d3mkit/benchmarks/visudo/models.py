"""The three ViSudo-PC reference networks (torch, imported lazily).

What this module owns: the architectures of paper section 4.1 —

* :func:`digit_mlp` — Baseline-Digit: dense 16, 512, 256 (ReLU) and one output, on the
  d*d cell labels (label ranks scaled to [0, 1]) (the paper writes "softmax" on a single output; we use a sigmoid
  through the binary cross-entropy, the only reading that gives a probability);
* :func:`visual_cnn` — Baseline-Visual: three 3x3 convolutions (8, 16, 16 channels — the
  paper leaves them open; small so that CPU training stays cheap —
  ReLU), each followed by a 2x2 max-pool with stride 2, on the whole puzzle image,
  then the same MLP;
* :func:`nesy_model` — the NeSy baseline: a cell classifier (5x5 convolutions with 6
  and 16 channels, each with a 2x2 pool, giving 256 features; dense 120, 84; softmax over
  ``n_classes``) applied to every cell, and a differentiable Sudoku constraint:
  ``dup`` = sum over all cell pairs sharing a row, column or block of the probability
  that both cells hold the same class. P(correct) = sigmoid(a - softplus(w) * dup), with
  ``a`` and ``w`` learnt. Training (see :mod:`.baseline`) minimises the binary
  cross-entropy of that probability plus ``DUP_WEIGHT`` x the mean ``dup`` of the
  puzzles labelled correct — the Sudoku rule as a soft constraint on those puzzles.
  Only puzzle labels are used; the classifier learns cell classes (up to a
  permutation) because only a consistent labelling keeps correct puzzles free of
  duplicates (a soft form of NeuPSL's Sudoku rules). Without the constraint term the
  uniform classifier is a saddle point where the loss stays at log 2.
"""

from __future__ import annotations

import numpy as np


def _mlp(nn, n_in: int):
    return nn.Sequential(nn.Linear(n_in, 16), nn.ReLU(), nn.Linear(16, 512), nn.ReLU(),
                         nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 1))


def digit_mlp(n_in: int):
    """Baseline-Digit on ``n_in`` = d*d cell-label features; outputs a logit."""
    import torch.nn as nn
    return _mlp(nn, n_in)


CHANNELS = (8, 16, 16)


def visual_cnn(d: int):
    """Baseline-Visual for (B, 1, 28d, 28d) puzzles in [0, 1]; outputs a logit."""
    import torch.nn as nn
    side = 28 * d
    layers, ch = [], 1
    for out in CHANNELS:
        layers += [nn.Conv2d(ch, out, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2, 2)]
        ch, side = out, side // 2
    return nn.Sequential(*layers, nn.Flatten(), _mlp(nn, ch * side * side))


def cell_classifier(n_classes: int):
    """(N, 1, 28, 28) -> (N, n_classes) logits (the MNIST-addition network)."""
    import torch.nn as nn
    return nn.Sequential(nn.Conv2d(1, 6, 5), nn.MaxPool2d(2, 2), nn.ReLU(),
                         nn.Conv2d(6, 16, 5), nn.MaxPool2d(2, 2), nn.ReLU(), nn.Flatten(),
                         nn.Linear(256, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                         nn.Linear(84, n_classes))


def nesy_model(d: int, n_classes: int, pairs: np.ndarray):
    """(B, d*d, 28, 28) cells -> (B,) logit of "correct" (see module docstring)."""
    import torch
    import torch.nn as nn

    class SudokuNeSy(nn.Module):
        def __init__(self):
            super().__init__()
            self.cells = cell_classifier(n_classes)
            self.register_buffer("pi", torch.as_tensor(pairs[:, 0], dtype=torch.long))
            self.register_buffer("pj", torch.as_tensor(pairs[:, 1], dtype=torch.long))
            self.a = nn.Parameter(torch.tensor(1.0))
            self.w = nn.Parameter(torch.tensor(0.5413))     # softplus(0.5413) = 1

        def probabilities(self, x):
            b, k = x.shape[:2]
            logits = self.cells(x.reshape(b * k, 1, 28, 28))
            return torch.softmax(logits, dim=-1).reshape(b, k, -1)

        def duplicates(self, p):
            return (p[:, self.pi] * p[:, self.pj]).sum(dim=(-1, -2))

        def forward(self, x, with_dup: bool = False):
            dup = self.duplicates(self.probabilities(x))
            logit = self.a - nn.functional.softplus(self.w) * dup
            return (logit, dup) if with_dup else logit

    return SudokuNeSy()
