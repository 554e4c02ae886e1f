"""Reproduce the shape of the paper's Table 3 (ViSudo-PC basic task, 4x4, 50 training
puzzles, AuROC mean ± std over splits) with d3mkit's generator and baselines.

For each split index a real task root is built (``d3mkit build visudo`` code path:
basic, 4x4, 50/100/100 correct train/test/valid puzzles, overlap 0, corrupt chance 0.5)
and the three baselines are trained with their defaults; the test AuROC of each is
collected and printed beside the paper's row for the chosen source (Table 3). The
default source is the offline ``digits`` (scikit-learn), not MNIST: differences are
expected and are not hidden.

    PYTHONPATH=$PWD python tools/visudo_reproduce.py [--splits 10] [--source digits]
        [--source-dir DIR] [--out tools/results]

Writes ``<out>/visudo_reproduce[_TAG].csv`` (one row per split and model) and
``<out>/visudo_reproduce[_TAG].md`` (the summary table with the command and timings).
``--overlap W --models nesy,digit --tag overlapW`` gives one point of the paper's Fig. 8.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import pandas as pd

PAPER = {   # Table 3: Baseline-Digit, Baseline-Visual, NeuPSL (mean, std over 10 splits)
    "mnist": {"digit": (0.71, 0.04), "visual": (0.51, 0.02), "nesy": (0.88, 0.02)},
    "emnist": {"digit": (0.69, 0.05), "visual": (0.50, 0.01), "nesy": (0.79, 0.09)},
    "fmnist": {"digit": (0.70, 0.04), "visual": (0.50, 0.03), "nesy": (0.74, 0.04)},
    "kmnist": {"digit": (0.71, 0.03), "visual": (0.50, 0.02), "nesy": (0.65, 0.12)},
}
MODELS = ("digit", "visual", "nesy")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--source", default="digits")
    ap.add_argument("--source-dir", default=None)
    ap.add_argument("--train-count", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=None, help="override every model's default epochs")
    ap.add_argument("--overlap", type=float, default=0.0, help="overlap omega (Table 3 uses 0; Fig. 8 varies it)")
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated subset of digit,visual,nesy")
    ap.add_argument("--tag", default="", help="suffix of the output file names")
    ap.add_argument("--out", type=Path, default=Path("tools/results"))
    args = ap.parse_args(argv)

    from d3mkit.benchmarks.visudo.baseline import DEFAULT_EPOCHS, run_baseline
    from d3mkit.benchmarks.visudo.cli import load_catalog, write_task_root
    from d3mkit.benchmarks.visudo.generator import Config, generate
    from d3mkit.taskroot import TaskRoot

    models = [m.strip() for m in args.models.split(",") if m.strip()]
    if not models or any(m not in MODELS for m in models):
        ap.error(f"--models takes a subset of {','.join(MODELS)}")
    catalog = load_catalog((args.source,), args.source_dir)
    rows = []
    t_all = time.perf_counter()
    cpu0 = time.process_time()
    with tempfile.TemporaryDirectory(prefix="visudo-repro-") as tmp:
        for k in range(args.splits):
            cfg = Config(strategy="basic", sources=(args.source,), dimension=4, train_count=args.train_count,
                         test_count=100, valid_count=100, overlap=args.overlap, corrupt_chance=0.5, split=k,
                         seed=args.seed)
            t = time.perf_counter()
            root = write_task_root(Path(tmp), generate(cfg, catalog), catalog)
            t_build = time.perf_counter() - t
            task = TaskRoot.open(root)
            for model in models:
                t = time.perf_counter()
                ns = SimpleNamespace(device="auto", epochs=args.epochs, seed=k, quiet=True)
                report = run_baseline(task, model, ns)
                vals = {s.metric: s.value for s in report.scores}
                rows.append({"split": k, "model": model, "rocAuc": vals["rocAuc"], "accuracy": vals["accuracy"],
                             "epochs": args.epochs or DEFAULT_EPOCHS[model],
                             "seconds": round(time.perf_counter() - t, 1), "buildSeconds": round(t_build, 1)})
                print(f"split {k} {model:6s} AuROC {vals['rocAuc']:.3f}  accuracy {vals['accuracy']:.3f}",
                      file=sys.stderr, flush=True)
    wall = time.perf_counter() - t_all
    cpu = time.process_time() - cpu0
    df = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = "visudo_reproduce" + (f"_{args.tag}" if args.tag else "")
    df.to_csv(args.out / f"{stem}.csv", index=False)
    paper = PAPER.get(args.source, PAPER["mnist"])
    ref = args.source if args.source in PAPER else "mnist"
    cmd = "PYTHONPATH=$PWD python tools/visudo_reproduce.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    lines = [f"# ViSudo-PC Table 3 reproduction (basic, 4x4, {args.train_count} train puzzles, "
             f"{args.splits} split(s), source {args.source}, overlap {args.overlap:g})", "",
             f"Command: `{cmd.strip()}`  ", f"Wall time {wall:.0f} s, CPU time {cpu:.0f} s, "
             f"machine: {os.cpu_count()} cores (shared, loaded).", "",
             f"| model | d3mkit AuROC (mean ± std) | paper {ref.upper()} row | accuracy (mean) |",
             "|---|---|---|---|"]
    names = {"digit": "Baseline-Digit (cheating)", "visual": "Baseline-Visual", "nesy": "NeSy (NeuPSL in the paper)"}
    for m in models:
        a = df.loc[df.model == m, "rocAuc"].to_numpy()
        acc = df.loc[df.model == m, "accuracy"].to_numpy()
        pm, ps = paper[m]
        lines.append(f"| {names[m]} | {a.mean():.2f} ± {a.std(ddof=0):.2f} | {pm:.2f} ± {ps:.2f} | {acc.mean():.2f} |")
    text = "\n".join(lines) + "\n"
    (args.out / f"{stem}.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
