#!/usr/bin/env python
"""A small-scale run of the VALUE paper's Table 1 protocol on VALUE-synthetic data.

Builds a VALUE-synthetic task root, trains each ResNet from scratch on TRAIN with the
paper's head (Dropout 0.1, in_features -> 64*13) and AdamW, decodes TEST with argmax and
with sane decoding, and reports EM, C, F1, sF1, F1-sF1 and muC as in Table 1, plus the
rule report (eq. 8) of the argmax predictions.

    PYTHONPATH=. python tools/value_repro.py --n-train 300 --n-test 100 --size 128 \
        --image-size 128 --epochs 4 --lr 1e-3 --models resnet18

This is NOT a reproduction of Table 1: the paper fine-tunes ImageNet-pretrained models
for 2 epochs on 200,000 Blender renders at 224-512 px; here models start from scratch on a
few hundred Pillow renders, so the numbers only show the protocol running end to end.
Results go to tools/results/value_repro.md (+ value_repro_rules.png).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-train", type=int, default=300)
    ap.add_argument("--n-test", type=int, default=100)
    ap.add_argument("--size", type=int, default=128, help="rendered image side")
    ap.add_argument("--image-size", type=int, default=128, help="network input side")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--models", nargs="+", default=["resnet18"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=REPO / "tools" / "results")
    args = ap.parse_args(argv)

    import numpy as np
    import torch

    from d3mkit.benchmarks.value import cli
    from d3mkit.benchmarks.value import metrics as M
    from d3mkit.benchmarks.value.baseline import image_column, load_images, target_boards, train_and_predict
    from d3mkit.benchmarks.value.decode import decode_argmax, decode_sane
    from d3mkit.benchmarks.value.report import plot, rule_report, to_markdown
    from d3mkit.benchmarks.value.rules import check, severity
    from d3mkit.taskroot import TaskRoot

    torch.set_num_threads(os.cpu_count() or 1)
    rows, rep = [], None
    with tempfile.TemporaryDirectory() as tmp:
        bargs = argparse.Namespace(out=Path(tmp), seed=args.seed, force=True, quiet=True,
                                   n_train=args.n_train, n_test=args.n_test, pgn=None,
                                   random_games=max(10, (args.n_train + args.n_test) // 20),
                                   from_release=None, size=args.size, max_plies=200, workers=None,
                                   name="value")
        t0 = time.perf_counter()
        task = TaskRoot.open(cli.build_task_root(bargs))
        build_s = time.perf_counter() - t0
        col, media = image_column(task)
        ld = task.learning_data().set_index("d3mIndex")
        train, test = task.split_indices(0, 0)
        targets = list(task.problem.target_names)
        ytr = target_boards(task, ld, train, targets)
        yte = target_boards(task, ld, test, targets)
        xtr = load_images([media / f for f in ld.loc[train, col]], args.image_size)
        xte = load_images([media / f for f in ld.loc[test, col]], args.image_size)
        for model in args.models:
            t0 = time.perf_counter()
            probs = train_and_predict(xtr, ytr, xte, arch=model, epochs=args.epochs,
                                      batch_size=args.batch_size, lr=args.lr, seed=args.seed,
                                      log=lambda m: print(f"  {model} {m}", flush=True))
            train_s = time.perf_counter() - t0
            for decode in ("argmax", "sane"):
                pred = decode_argmax(probs) if decode == "argmax" else decode_sane(probs)[0]
                f1, sf1 = M.board_f1(yte, pred), M.sane_f1(yte, pred)
                rows.append((model, decode, M.exact_match(yte, pred), M.contradiction_rate(pred), f1, sf1,
                             f1 - sf1, M.mean_violation_severity(pred), M.mean_violated_flags(pred),
                             train_s))
                if decode == "argmax" and rep is None:
                    rep = rule_report(check(pred), severities=severity(pred))
    args.out.mkdir(parents=True, exist_ok=True)
    cmd = "PYTHONPATH=. python tools/value_repro.py " + " ".join(argv if argv is not None else sys.argv[1:])
    lines = [f"Command: `{cmd}`", "",
             f"VALUE-synthetic, {args.n_train} TRAIN / {args.n_test} TEST boards from random legal games "
             f"(seed {args.seed}), rendered at {args.size} px (build {build_s:.0f} s); models from scratch, "
             f"{args.epochs} epochs, AdamW lr {args.lr:g}, input {args.image_size} px, CPU "
             f"({os.cpu_count()} shared cores). NOT the paper's setting (pretrained, 200k Blender renders).", "",
             "| model | decode | EM (%) | C (%) | F1 | sF1 | F1-sF1 | muC (severity, as Table 1) | "
             "muC (flags) | train s |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for m, d, em, c, f1, sf1, gap, mu, muf, ts in rows:
        lines.append(f"| {m} | {d} | {100 * em:.1f} | {100 * c:.1f} | {f1:.3f} | {sf1:.3f} | {gap:.3f} | "
                     f"{mu:.3f} | {muf:.3f} | {ts:.0f} |")
    if rep is not None:
        lines += ["", f"Rule report of the first model's argmax predictions:", "", to_markdown(rep)]
        plot(rep, args.out / "value_repro_rules.png", title="VALUE-synthetic small run: argmax predictions")
    text = "\n".join(lines) + "\n"
    (args.out / "value_repro.md").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
