"""The abstraction part of ``d3mkit demo``: build, validate, train the CNN, score.

What this module owns: :func:`run_demo` — one small problem (mirroring, the first 8 of 10
shapes mirrored in training — upside down, as the paper — noise 2, 1000 training and
1000 test images), validated, the paper's CNN trained for 10 passes with batch 200
(CUDA when present), and accuracy plus the three
custom metrics scored by d3mkit's scorer, each explained in a line.
"""

from __future__ import annotations

from pathlib import Path

from d3mkit.benchmarks.abstraction.protocol import Protocol

DEMO = Protocol("mirror", transformed=8, n_train=1000, noise=2)


def run_demo(out: Path, device: str, echo) -> None:
    import time

    from d3mkit.benchmarks.abstraction.cli import build_task_root
    from d3mkit.taskroot.model import TaskRoot
    from d3mkit.benchmarks import echo_validation, missing

    t0 = time.perf_counter()
    root = build_task_root(out, DEMO, seed=0, name="abstraction_demo", force=True)
    task = TaskRoot.open(root)
    train, test = task.split_indices()
    echo(f"   built {root} in {time.perf_counter() - t0:.1f} s: {DEMO.transform}, shapes 0-7 "
         f"transformed in training, noise {DEMO.noise:g}; TRAIN {len(train)}, TEST {len(test)} "
         f"(all transformed); shapes in {task.debug_dir / 'shapes.png'}")
    echo_validation(root, echo)
    why = missing("torch", "baselines")
    if why:
        echo(f"   baseline: skipped, {why}")
        return
    from d3mkit.benchmarks.abstraction.baseline import CNNConfig, run_baseline
    t1 = time.perf_counter()
    report = run_baseline(task, "abstraction-cnn", CNNConfig(device=device))
    echo(f"   abstraction-cnn, 10 passes ({time.perf_counter() - t1:.1f} s):")
    notes = {"accuracy": f"all {len(test)} test images",
             "expectedAccuracyWithoutAbstraction": "what memorising the training images gives",
             "chanceCorrectedAccuracy": "0 = memoriser, 1 = perfect",
             "heldOutShapeAccuracy": "shapes 8-9, never seen mirrored: the abstraction test"}
    from d3mkit.scoring.display import score_table
    for s, line in zip([None, *report.scores], score_table(report.scores)):
        echo(f"     {line}" + (f"   ({notes[s.metric]})" if s is not None and s.metric in notes else ""))
