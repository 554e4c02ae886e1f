"""``d3mkit reproduce value``: the VALUE paper's Table 1 protocol at a scale that runs here.

What this module owns: :class:`ReproduceConfig` (the options, checked once) and the run:
build a VALUE-synthetic task root (64 square targets), train each ResNet with the
authors' recipe (:func:`~.baseline.train_and_predict`: AdamW lr/weight decay, batch,
ReduceLROnPlateau, Dropout 0.1 head, per-square cross-entropy), decode TEST with argmax
and with sane decoding, and report Table 1's columns - EM (%), C (%), F1, sF1, F1-sF1 and
muC, the latter both by severity (``meanViolationSeverity``, what Table 1 reports) and by
flags (``meanViolatedFlags``) - plus the rule report (eq. 8, Fig. 3) of the first
model's argmax predictions.

    d3mkit reproduce value --n-train 300 --n-test 100 --size 128 --image-size 128 \\
        --epochs 4 --lr 1e-3 --models resnet18 --out results

This is **not** a reproduction of Table 1's numbers: the paper fine-tunes ImageNet-
pretrained models for 2 epochs on 200,000 Blender renders at 224-512 px; here models start
from scratch (or from ``--weights``) on a few hundred Pillow renders on a CPU, so the
numbers only show the protocol running end to end. Writes ``OUT/value_repro.md`` and
``OUT/value_repro_rules.png``.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from d3mkit.benchmarks.config import Config, check_choice, check_int, check_positive, seed_value


@dataclass(frozen=True)
class ReproduceConfig(Config):
    """The options of ``d3mkit reproduce value``.

    >>> ReproduceConfig(models=("resnet18",)).image_size
    128
    >>> ReproduceConfig(models=("vgg",))
    Traceback (most recent call last):
    ...
    d3mkit.core.errors.InvalidArgument: error [usage] models must be one of resnet18, resnet50, resnet101, got 'vgg'
    """

    n_train: int = 300
    n_test: int = 100
    size: int = 128
    image_size: int = 128
    epochs: int = 4
    lr: float = 1e-3
    weight_decay: float = 1e-4
    batch_size: int = 16
    models: tuple[str, ...] = ("resnet18",)
    weights: Path | None = None
    seed: int = 0
    out: Path = Path("results")
    samples: int = 200_000          # random-guesser boards of the rule report (eq. 8)

    def check(self) -> None:
        from d3mkit.benchmarks.value.baseline import MODELS
        check_int("samples", self.samples, minimum=1)
        check_int("n_train", self.n_train, minimum=2)
        check_int("n_test", self.n_test, minimum=1)
        check_int("size", self.size, minimum=16, maximum=4096)
        check_int("image_size", self.image_size, minimum=32, maximum=4096)
        check_int("epochs", self.epochs, minimum=1)
        check_positive("lr", self.lr)
        check_int("batch_size", self.batch_size, minimum=2)
        check_int("seed", self.seed, minimum=0)
        for m in self.models:
            check_choice("models", m, MODELS)
        object.__setattr__(self, "models", tuple(self.models))
        object.__setattr__(self, "out", Path(self.out))


def add_arguments(parser) -> None:
    """The options of ``d3mkit reproduce value``."""
    d = ReproduceConfig()
    parser.add_argument("--n-train", type=int, default=d.n_train)
    parser.add_argument("--n-test", type=int, default=d.n_test)
    parser.add_argument("--size", type=int, default=d.size, help="rendered image side")
    parser.add_argument("--image-size", type=int, default=d.image_size, help="network input side")
    parser.add_argument("--epochs", type=int, default=d.epochs)
    parser.add_argument("--lr", type=float, default=d.lr, help="AdamW learning rate (the paper: 1e-4)")
    parser.add_argument("--weight-decay", type=float, default=d.weight_decay)
    parser.add_argument("--batch-size", type=int, default=d.batch_size, help="(the authors: 32)")
    parser.add_argument("--models", nargs="+", default=list(d.models), help="resnet18 resnet50 resnet101")
    parser.add_argument("--weights", type=Path, default=None, help="initial state_dict for every model")
    parser.add_argument("--seed", type=seed_value, default=0)
    parser.add_argument("--out", type=Path, default=d.out, help="directory for value_repro.md and .png")
    parser.add_argument("--samples", type=int, default=d.samples,
                        help="random boards for f_random of the rule report (default 200000, seed 0)")


def table1_row(model: str, decode: str, y_true, pred, seconds: float) -> dict:
    """One row of Table 1's columns for predicted boards ``pred`` (codes)."""
    from d3mkit.benchmarks.value import metrics as M
    f1, sf1 = M.board_f1(y_true, pred), M.sane_f1(y_true, pred)
    return {"model": model, "decode": decode, "EM": 100 * M.exact_match(y_true, pred),
            "C": 100 * M.contradiction_rate(pred), "F1": f1, "sF1": sf1, "gap": f1 - sf1,
            "muC": M.mean_violation_severity(pred), "muCflags": M.mean_violated_flags(pred),
            "seconds": seconds}


def run_protocol(cfg: ReproduceConfig, log=print) -> tuple[list[dict], dict | None, float]:
    """Build, train every model, decode both ways: ``(rows, rule report, build seconds)``."""
    from d3mkit.baselines.common import torch_threads
    from d3mkit.benchmarks.value import cli
    from d3mkit.benchmarks.value.baseline import image_column, load_images, target_boards, train_and_predict
    from d3mkit.benchmarks.value.decode import decode_argmax, decode_sane
    from d3mkit.benchmarks.value.report import random_frequencies, rule_report
    from d3mkit.benchmarks.value.rules import check, severity
    from d3mkit.benchmarks.value.source import ValueBuildConfig
    from d3mkit.taskroot.model import TaskRoot

    rows, rep = [], None
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        root = cli.build_task_root(ValueBuildConfig(
            out=Path(tmp), seed=cfg.seed, force=True, quiet=True, n_train=cfg.n_train, n_test=cfg.n_test,
            random_games=max(10, (cfg.n_train + cfg.n_test) // 20), size=cfg.size, name="value"))
        build_s = time.perf_counter() - t0
        task = TaskRoot.open(root)
        col, media = image_column(task)
        ld = task.learning_data().set_index("d3mIndex")
        train, test = task.split_indices(0, 0)
        targets = list(task.problem.target_names)
        ytr, yte = target_boards(task, ld, train, targets), target_boards(task, ld, test, targets)
        xtr = load_images([media / f for f in ld.loc[train, col]], cfg.image_size)
        xte = load_images([media / f for f in ld.loc[test, col]], cfg.image_size)
        from d3mkit.benchmarks.progress import Progress
        progress = Progress(len(cfg.models))
        log(f"{len(cfg.models)} model(s) to train {progress.start_text()}")
        for model in cfg.models:
            t0 = time.perf_counter()
            with torch_threads(os.cpu_count() or 1):
                probs = train_and_predict(xtr, ytr, xte, arch=model, epochs=cfg.epochs, batch_size=cfg.batch_size,
                                          lr=cfg.lr, weight_decay=cfg.weight_decay, seed=cfg.seed,
                                          weights=cfg.weights, log=lambda m: log(f"  {model} {m}"))
            seconds = time.perf_counter() - t0
            log(f"{progress.step()} {model} trained ({seconds:.0f} s)")
            for decode in ("argmax", "sane"):
                pred = decode_argmax(probs) if decode == "argmax" else decode_sane(probs)[0]
                rows.append(table1_row(model, decode, yte, pred, seconds))
                if decode == "argmax" and rep is None:
                    rep = rule_report(check(pred), severities=severity(pred),
                                      random=random_frequencies(cfg.samples))
    return rows, rep, build_s


def report(cfg: ReproduceConfig, rows: list[dict], rep: dict | None, build_s: float, command: str) -> str:
    """The markdown report."""
    from d3mkit.benchmarks.value.report import to_markdown
    lines = [f"Command: `{command}`", "",
             f"VALUE-synthetic, {cfg.n_train} TRAIN / {cfg.n_test} TEST boards from random legal games "
             f"(seed {cfg.seed}), rendered at {cfg.size} px (build {build_s:.0f} s); "
             f"{'weights ' + str(cfg.weights) if cfg.weights else 'models from scratch'}, {cfg.epochs} epochs, "
             f"AdamW lr {cfg.lr:g}, weight decay {cfg.weight_decay:g}, batch {cfg.batch_size}, ReduceLROnPlateau "
             f"on training F1, input {cfg.image_size} px, CPU ({os.cpu_count()} shared cores). NOT the paper's "
             "setting (pretrained, 200k Blender renders).", "",
             "| model | decode | EM (%) | C (%) | F1 | sF1 | F1-sF1 | muC (severity, as Table 1) | "
             "muC (flags) | train s |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['model']} | {r['decode']} | {r['EM']:.1f} | {r['C']:.1f} | {r['F1']:.3f} | "
                     f"{r['sF1']:.3f} | {r['gap']:.3f} | {r['muC']:.3f} | {r['muCflags']:.3f} | "
                     f"{r['seconds']:.0f} |")
    if rep is not None:
        lines += ["", "Rule report of the first model's argmax predictions:", "", to_markdown(rep)]
    return "\n".join(lines) + "\n"


def command_line(cfg: ReproduceConfig) -> str:
    """The command that reruns ``cfg``.

    >>> command_line(ReproduceConfig(epochs=2, out=Path("r")))
    'd3mkit reproduce value --n-train 300 --n-test 100 --size 128 --image-size 128 --epochs 2 --lr 0.001 --weight-decay 0.0001 --batch-size 16 --models resnet18 --seed 0 --out r'
    """
    parts = ["d3mkit reproduce value", f"--n-train {cfg.n_train}", f"--n-test {cfg.n_test}",
             f"--size {cfg.size}", f"--image-size {cfg.image_size}", f"--epochs {cfg.epochs}",
             f"--lr {cfg.lr:g}", f"--weight-decay {cfg.weight_decay:g}", f"--batch-size {cfg.batch_size}",
             "--models " + " ".join(cfg.models)]
    if cfg.weights:
        parts.append(f"--weights {cfg.weights}")
    parts += [f"--seed {cfg.seed}", f"--out {cfg.out}"]
    return " ".join(parts)


def figures(rows: list[dict]) -> list:
    """Table 1's columns of every (model, decode) row as
    :class:`~d3mkit.benchmarks.reproduction.Figure` records: ours only (this small run is
    not the paper's setting, so its numbers are not compared with Table 1's)."""
    from d3mkit.benchmarks.reproduction import Figure
    columns = {"EM": "EM (%)", "C": "C (%)", "F1": "F1", "sF1": "sF1", "gap": "F1-sF1",
               "muC": "muC (severity)", "muCflags": "muC (flags)"}
    return [Figure(f"{r['model']}, {r['decode']}", label, r[key]) for r in rows
            for key, label in columns.items()]


def run(args):
    """``d3mkit reproduce value``: run the protocol, write the report and the chart; a
    :class:`~d3mkit.benchmarks.reproduction.Reproduction` (both files, Table 1's columns)."""
    from d3mkit.benchmarks.reproduction import Reproduction
    from d3mkit.baselines.common import require_torch
    from d3mkit.benchmarks.value.report import plot
    from d3mkit.core.errors import UsageError
    cfg = ReproduceConfig.from_args(args)
    require_torch()
    rows, rep, build_s = run_protocol(cfg, log=lambda m: print(m, flush=True))
    try:
        cfg.out.mkdir(parents=True, exist_ok=True)
        (cfg.out / "value_repro.md").write_text(report(cfg, rows, rep, build_s, command_line(cfg)),
                                                encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write the report: {exc.strerror or exc}", str(cfg.out)) from None
    written = [cfg.out / "value_repro.md"]
    if rep is not None:
        plot(rep, cfg.out / "value_repro_rules.png", title="VALUE-synthetic small run: argmax predictions")
        written.append(cfg.out / "value_repro_rules.png")
    print((cfg.out / "value_repro.md").read_text(encoding="utf-8"), end="")
    print(cfg.out / "value_repro.md")
    return Reproduction(written=written, figures=figures(rows))
