"""The ``value`` part of ``d3mkit demo``: a tiny VALUE-synthetic problem end to end.

Builds 40 TRAIN / 20 TEST boards from random legal games rendered at 128 px, validates
the task root, trains the ResNet-18 baseline briefly on the CPU (torch threads = CPU
count), writes and scores predictions.csv with argmax decoding, scores sane decoding of
the same probabilities, and prints EM, F1, sF1, C and muC; the rule report goes to
``rule_report.md`` (its path is printed; ``d3mkit demo --verbose`` prints it too). Without
torch it stops after validating, saying so. The numbers
of so small a run say only that everything is wired; they are not a VALUE result.
"""

from __future__ import annotations

import os
from pathlib import Path

N_TRAIN, N_TEST, SIZE, IMAGE_SIZE, EPOCHS = 40, 20, 128, 96, 3


def run_demo(out: Path, device: str, echo) -> None:
    from d3mkit.benchmarks.value import cli
    from d3mkit.benchmarks.value.source import ValueBuildConfig
    from d3mkit.benchmarks.value import metrics as M
    from d3mkit.benchmarks.value.report import to_markdown, write_report
    from d3mkit.taskroot.model import TaskRoot
    from d3mkit.benchmarks import echo_validation, missing

    root = cli.build_task_root(ValueBuildConfig(out=Path(out), seed=0, force=True, quiet=True, n_train=N_TRAIN,
                                                n_test=N_TEST, random_games=8, size=SIZE, max_plies=120,
                                                name="value"))
    task = TaskRoot.open(root)
    echo(f"   packaged {root}: {N_TRAIN} TRAIN + {N_TEST} TEST VALUE-synthetic images at {SIZE} px "
         f"(Pillow renderer, not the paper's Blender scene), 64 square targets a8 ... h1")
    echo_validation(root, echo)
    why = missing("torch", "baselines")
    if why:
        echo(f"   baseline: skipped, {why}")
        return
    from d3mkit.baselines.common import choose_device, torch_threads, write_solution
    from d3mkit.benchmarks.value.baseline import (image_column, load_images, prediction_frame,
                                                  target_boards, train_and_predict)
    from d3mkit.benchmarks.value.decode import decode_argmax, decode_sane

    dev = choose_device(device)
    col, media = image_column(task)
    ld = task.learning_data().set_index("d3mIndex")
    train, test = task.split_indices(0, 0)
    targets = list(task.problem.target_names)          # the 64 squares a8 ... h1
    ytr = target_boards(task, ld, train, targets)
    yte = target_boards(task, ld, test, targets)
    echo(f"   training ResNet-18 from scratch, {EPOCHS} epochs on {dev} (a minute or so on a CPU) ...")
    with torch_threads(os.cpu_count() or 1):
        probs = train_and_predict(load_images([media / f for f in ld.loc[train, col]], IMAGE_SIZE), ytr,
                                  load_images([media / f for f in ld.loc[test, col]], IMAGE_SIZE),
                                  arch="resnet18", epochs=EPOCHS, batch_size=10, lr=1e-3, device=dev,
                                  seed=0, log=lambda m: echo(f"     {m}"))
    arg = decode_argmax(probs)
    san, stats = decode_sane(probs)
    report = write_solution(task, prediction_frame(test, arg, targets),
                            model="resnet18", info={"epochs": EPOCHS, "imageSize": IMAGE_SIZE, "lr": 1e-3,
                                                    "decode": "argmax", "demo": True})
    echo(f"   baseline ResNet-18 from scratch, {EPOCHS} epochs at {IMAGE_SIZE} px, AdamW lr 1e-3 "
         f"(demo; the paper's recipe uses 1e-4), {dev}:")
    echo("     decode   square acc  EM      F1      sF1     C       muC (severity, paper)  muC (flags)")
    by = {s.metric: s.value for s in report.scores}
    echo(f"     argmax   {by['accuracy']:.4f}      {by['exactMatch']:.4f}  {by['boardF1']:.4f}  "
         f"{by['saneF1']:.4f}  {by['contradictionRate']:.4f}  {by['meanViolationSeverity']:.4f}"
         f"                 {by['meanViolatedFlags']:.4f}   (scored by d3mkit score)")
    echo(f"     sane     {float((yte == san).mean()):.4f}      {M.exact_match(yte, san):.4f}  "
         f"{M.board_f1(yte, san):.4f}  {M.sane_f1(yte, san):.4f}  {M.contradiction_rate(san):.4f}  "
         f"{M.mean_violation_severity(san):.4f}                 {M.mean_violated_flags(san):.4f}   "
         f"({stats['repaired']} repaired, {stats['unrepaired']} not)")
    rep = write_report(arg, task.solution_dir, title="VALUE demo: ResNet-18 argmax predictions")
    echo(f"   rule report of the argmax predictions: {task.solution_dir / 'rule_report.md'} (and .png)")
    for line in to_markdown(rep).splitlines():
        echo(f"     {line}", detail=True)
