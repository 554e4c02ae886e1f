"""``d3mkit baseline TASK_ROOT --model resnet18|resnet50|resnet101``: the VALUE recipe on CPU or GPU.

A ResNet (:mod:`.model`, from scratch or ``--weights FILE``, a torchvision-format
state_dict; nothing is downloaded) with its classifier replaced by ``Dropout(0.1) ->
Linear(in_features, 8*8*13)``, trained with cross-entropy per square on the TRAIN images
as the authors' released training code does: AdamW (lr 1e-4, eps 1e-8, weight decay
1e-4), batch 32, ``ReduceLROnPlateau(mode="max", factor=0.1)`` stepped after each epoch
with that epoch's training F1 (with its default patience of 10 it never lowers the rate
within the paper's 2 epochs), ``--epochs`` passes (default 2, as in the paper). Images are
resized to ``--image-size`` (224 on CPU, 512 on GPU by default) and normalised with the
ImageNet mean and standard deviation on [0, 1] (the authors normalise raw 0-255 values
with their dataset's statistics; ImageNet's suit pretrained torchvision weights). TEST boards are decoded per square
(``--decode argmax``) or as the most probable sane board (``--decode sane``,
:mod:`.decode`); predictions.csv and scores.csv are written through the scorer, with
the per-square probabilities (``probabilities.npy``, float16), ``baseline.json`` and the
rule report (``rule_report.{md,json,png}``) beside them.

Options are added to the shared ``d3mkit baseline`` parser only when no other baseline
declared the same flag first; defaults are resolved here.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.benchmarks.config import BaselineConfig, check_choice, check_int, check_positive
from d3mkit.core.errors import D3MKitError, InvalidArgument, error

MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)
DEFAULT_EPOCHS = 2
DEFAULT_BATCH = 32
DEFAULT_WEIGHT_DECAY = 1e-4
MODELS = ("resnet18", "resnet50", "resnet101")
DECODERS = ("argmax", "sane")


def add_baseline_arguments(parser) -> None:
    # The baseline parser is shared by every benchmark: a flag another baseline already
    # declared is left to it, and a later declaration of one of ours replaces ours
    # ("resolve") instead of crashing the command. Defaults are resolved in run_baseline.
    for container in [parser, *getattr(parser, "_action_groups", [])]:
        container.conflict_handler = "resolve"

    def add(flag, **kw):
        if flag not in parser._option_string_actions:
            parser.add_argument(flag, **kw)
    add("--image-size", type=int, default=None, help="VALUE: input side (default 224 on CPU, 512 on GPU)")
    add("--batch-size", type=int, default=None, help="VALUE: batch size (default 32, as the authors)")
    add("--lr", type=float, default=None, help="VALUE: AdamW learning rate (default 1e-4)")
    add("--weight-decay", type=float, default=None, help="VALUE: AdamW weight decay (default 1e-4, as the authors)")
    add("--decode", choices=["argmax", "sane"], default=None,
        help="VALUE: per-square argmax, or the most probable sane board (default argmax)")
    add("--weights", type=Path, default=None,
        help="VALUE: initial state_dict file, e.g. torchvision's ResNet weights (nothing is downloaded)")
    add("--threads", type=int, default=None, help="torch CPU threads (default: the CPU count)")


def image_column(task) -> tuple[str, Path]:
    """(learningData column holding the image file names, the image collection directory)."""
    for col, res in task.dataset.media_columns().items():
        return col, task.dataset.resource_path(res)
    raise D3MKitError(error("value.no_images", "", "learningData has no column referring to an image collection",
                            str(task.dataset.path)))


def load_images(paths, size: int) -> np.ndarray:
    """``(N, 3, size, size)`` uint8 array of RGB images resized (bilinear)."""
    from PIL import Image

    from d3mkit.io.images import read_image
    out = np.empty((len(paths), 3, size, size), dtype=np.uint8)
    for i, p in enumerate(paths):
        im = read_image(p, "RGB")          # the one owner of untrusted images (caps, one-line errors)
        if im.size != (size, size):
            im = im.resize((size, size), Image.BILINEAR)
        out[i] = np.asarray(im).transpose(2, 0, 1)
    return out


def _normalise(torch, batch_u8, device):
    x = torch.from_numpy(batch_u8).to(device).float().div_(255.0)
    mean = torch.from_numpy(MEAN).to(device).view(1, 3, 1, 1)
    std = torch.from_numpy(STD).to(device).view(1, 3, 1, 1)
    return (x - mean) / std


def train_and_predict(train_x, train_y, test_x, *, arch="resnet18", epochs=DEFAULT_EPOCHS,
                      batch_size=DEFAULT_BATCH, lr=1e-4, weight_decay=DEFAULT_WEIGHT_DECAY, device="cpu",
                      seed=0, weights=None, log=None):
    """Train a :class:`~.model.BoardNet` with the authors' optimiser and schedule and
    return ``(N_test, 64, 13)`` probabilities."""
    from d3mkit.baselines.common import batches, require_torch, seed_everything
    torch = require_torch()
    from d3mkit.benchmarks.value.metrics import board_f1
    from d3mkit.benchmarks.value.model import BoardNet, load_weights
    rng = seed_everything(seed)
    model = BoardNet(arch).to(device)
    if weights is not None:
        load_weights(model, weights)
    from d3mkit.baselines import ddp
    ctx = ddp.current()          # data-parallel under torchrun; inactive: as before
    model = ctx.wrap(model)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, eps=1e-8, weight_decay=weight_decay)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="max", factor=0.1)
    loss_fn = torch.nn.CrossEntropyLoss()
    y = torch.from_numpy(train_y.astype(np.int64))
    for ep in range(epochs):
        model.train()
        total, seen = 0.0, 0
        seen_idx, seen_pred = [], []
        for idx in ctx.batches(len(train_x), batch_size, rng):
            if len(idx) < 2:       # BatchNorm needs more than one sample
                continue
            xb = _normalise(torch, train_x[idx], device)
            with ctx.autocast(device):
                logits = model(ctx.inputs(xb))
                loss = loss_fn(logits, y[idx].to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
            seen += len(idx)
            seen_idx.append(idx)
            seen_pred.append(logits.detach().argmax(dim=1).cpu().numpy())
        train_f1 = (board_f1(train_y[np.concatenate(seen_idx)], np.concatenate(seen_pred))
                    if seen_idx else 0.0)
        train_f1 = ctx.mean(train_f1)   # every replica steps its schedule alike
        sched.step(train_f1)       # as the authors: plateau of the epoch's training F1
        if log and ctx.is_main:
            log(f"epoch {ep + 1}/{epochs}: loss {total / max(seen, 1):.4f}, train F1 {train_f1:.4f}, "
                f"lr {opt.param_groups[0]['lr']:.2e}")
    model = ctx.unwrap(model)
    model.eval()
    probs = []
    with torch.no_grad():
        for idx in batches(len(test_x), batch_size):
            xb = _normalise(torch, test_x[idx], device)
            probs.append(torch.softmax(model(xb), dim=1).transpose(1, 2).cpu().numpy())
    return np.concatenate(probs) if probs else np.zeros((0, 64, 13), np.float32)


def target_boards(task, ld: pd.DataFrame, index, targets: list[str]) -> np.ndarray:
    """``(N, 64)`` codes of the rows ``index`` of learningData ``ld`` (indexed by d3mIndex):
    the 64 square targets, or one FEN target. A bad value names its d3mIndex and square."""
    from d3mkit.benchmarks.value.layout import table_to_codes
    labels = [f"learningData d3mIndex {i}" for i in index]
    try:
        return table_to_codes(ld.loc[index, targets].to_numpy(dtype=object), targets, labels=labels)
    except D3MKitError:   # a ValueError too: an input problem already stated
        raise
    except ValueError as exc:  # BoardError: the targets do not hold boards
        where = "64 square targets" if len(targets) == 64 else f"target {', '.join(targets[:3])}"
        raise D3MKitError(error("value.target", where, f"not a VALUE task root: {exc}",
                                str(task.dataset.resource_path(task.dataset.learning_data)))) from None


def prediction_frame(index, boards: np.ndarray, targets: list[str]) -> pd.DataFrame:
    """predictions.csv rows: d3mIndex and the problem's targets (64 squares or one FEN)."""
    from d3mkit.benchmarks.value.boards import codes_to_fens
    from d3mkit.benchmarks.value.layout import codes_to_columns, is_square_layout
    if is_square_layout(targets):
        cols = codes_to_columns(boards)
        return pd.DataFrame({"d3mIndex": list(index), **{t: cols[t] for t in targets}})
    return pd.DataFrame({"d3mIndex": list(index), targets[0]: codes_to_fens(boards)})


@dataclass(frozen=True)
class ValueBaselineConfig(BaselineConfig):
    """``d3mkit baseline ROOT --model resnet18|resnet50|resnet101``: the shared baseline
    fields plus the VALUE recipe's options, checked once. None means the default:
    ``image_size`` 224 on CPU / 512 on GPU, ``epochs`` 2, ``batch_size`` 32, ``threads``
    the CPU count.

    >>> ValueBaselineConfig(lr=1e-3).weight_decay
    0.0001
    >>> ValueBaselineConfig(image_size=8)
    Traceback (most recent call last):
    ...
    d3mkit.core.errors.InvalidArgument: error [usage] image_size must be at least 32, got 8
    """

    model: str | None = "resnet18"
    image_size: int | None = None
    lr: float = 1e-4
    weight_decay: float = DEFAULT_WEIGHT_DECAY
    decode: str = "argmax"
    weights: Path | None = None
    threads: int | None = None

    def check(self) -> None:
        super().check()
        check_choice("model", self.model, MODELS)
        check_int("image_size", self.image_size, minimum=32, maximum=4096, optional=True)
        check_positive("lr", self.lr)
        if isinstance(self.weight_decay, bool) or not isinstance(self.weight_decay, (int, float)) \
                or not math.isfinite(self.weight_decay) or self.weight_decay < 0:
            raise InvalidArgument("weight_decay", f"must be a finite number >= 0, got {self.weight_decay!r}")
        check_choice("decode", self.decode, DECODERS)
        check_int("threads", self.threads, minimum=1, optional=True)
        if self.weights is not None:
            object.__setattr__(self, "weights", Path(self.weights))


CONFIG = ValueBaselineConfig


def run_baseline(task, model: str, cfg: ValueBaselineConfig):
    """Train on the task root's TRAIN images, predict TEST, write and score the solution."""
    from d3mkit.baselines.common import choose_device, require_torch, torch_threads, write_solution
    from d3mkit.benchmarks.value.decode import decode_argmax, decode_sane
    require_torch()
    if not isinstance(cfg, ValueBaselineConfig):        # an argparse namespace from older callers
        cfg = ValueBaselineConfig.from_args(cfg, model=model)
    elif cfg.model != model:
        cfg = cfg.replace(model=model)
    device = choose_device(cfg.device)
    size = cfg.image_size or (512 if device == "cuda" else 224)
    epochs = cfg.epochs_or(DEFAULT_EPOCHS)
    batch_size = cfg.batch_size_or(DEFAULT_BATCH)
    lr, wd, decode = cfg.lr, cfg.weight_decay, cfg.decode
    log = None if cfg.quiet else (lambda m: print(m, flush=True))

    targets = list(task.problem.target_names)
    col, media = image_column(task)
    ld = task.learning_data().set_index("d3mIndex")
    train, test = task.split_indices(0, 0)
    train_y = target_boards(task, ld, train, targets)
    t0 = time.perf_counter()
    train_x = load_images([task.item_path(media, f) for f in ld.loc[train, col]], size)
    test_x = load_images([task.item_path(media, f) for f in ld.loc[test, col]], size)
    t1 = time.perf_counter()
    with torch_threads(cfg.threads or os.cpu_count() or 1):
        probs = train_and_predict(train_x, train_y, test_x, arch=model, epochs=epochs,
                                  batch_size=batch_size, lr=lr, weight_decay=wd, device=device, seed=cfg.seed,
                                  weights=cfg.weights, log=log)
    t2 = time.perf_counter()
    stats = None
    if decode == "sane":
        boards, stats = decode_sane(probs)
    else:
        boards = decode_argmax(probs)
    t3 = time.perf_counter()
    task.solution_dir.mkdir(parents=True, exist_ok=True)
    np.save(task.solution_dir / "probabilities.npy", probs.astype(np.float16))
    predictions = prediction_frame(test, boards, targets)
    info = {"architecture": model, "epochs": epochs, "imageSize": size, "batchSize": batch_size,
            "lr": lr, "weightDecay": wd, "optimizer": "AdamW (eps 1e-8)",
            "schedule": "ReduceLROnPlateau(mode=max, factor=0.1) on the epoch's training F1", "dropout": 0.1, "decode": decode, "device": device,
            "weights": str(cfg.weights) if cfg.weights else None,
            "seed": cfg.seed, "nTrain": len(train), "nTest": len(test),
            "seconds": {"loadImages": round(t1 - t0, 2), "trainPredict": round(t2 - t1, 2),
                        "decode": round(t3 - t2, 2)}}
    if stats is not None:
        info["saneDecoding"] = stats
    report = write_solution(task, predictions, model=model, info=info)
    from d3mkit.benchmarks.value.report import write_report
    write_report(boards, task.solution_dir, title=f"VALUE {model} ({decode} decoding): rule report")
    return report
