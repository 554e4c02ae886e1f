"""``d3mkit baseline TASK_ROOT [--model NAME]``: train a reference baseline, write and
score ``<name>_solution/predictions.csv``."""

from __future__ import annotations

from pathlib import Path

from d3mkit.commands import defer, seed_value

from d3mkit.benchmarks import BASELINES, DEFAULT_MODEL, optional_module
from d3mkit.errors import UsageError


def add_parser(sub) -> None:
    p = sub.add_parser("baseline", help="run a reference baseline on a task root")
    p.add_argument("task_root", type=Path)
    p.add_argument("--model", help="baseline name: " + ", ".join(BASELINES))
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    p.add_argument("--epochs", type=int, default=None, help="training passes (model default if omitted)")
    p.add_argument("--seed", type=seed_value, default=0)
    p.add_argument("--quiet", action="store_true")
    defer(p, _model_arguments)   # the baselines' own options: imported when baseline is parsed
    p.set_defaults(func=_run)


def _model_arguments(p) -> None:
    for path in dict.fromkeys(BASELINES.values()):
        mod = optional_module(path)
        if mod is not None and hasattr(mod, "add_baseline_arguments"):
            mod.add_baseline_arguments(p)


def _run(args) -> int:
    from d3mkit.taskroot import TaskRoot
    task = TaskRoot.open(args.task_root)
    model = args.model or DEFAULT_MODEL.get(task.benchmark or "")
    if model is None:
        why = (f"benchmark {task.benchmark!r} has no default baseline" if task.benchmark else
               f"{task.debug_dir.name}/manifest.json (which names the benchmark) is missing")
        raise UsageError(f"{why}; pass --model ({', '.join(BASELINES)})", str(args.task_root))
    if model not in BASELINES:
        raise UsageError(f"unknown model {model!r}; known: {', '.join(BASELINES)}")
    model_bench = BASELINES[model].split(".")[2]
    if task.benchmark and task.benchmark != model_bench:
        fits = [m for m, p in BASELINES.items() if p.split(".")[2] == task.benchmark]
        raise UsageError(f"--model {model} is a baseline for {model_bench}, but this task root was built by "
                         f"'d3mkit build {task.benchmark}' (its models: {', '.join(fits) or 'none'})",
                         str(args.task_root))
    from d3mkit.benchmarks.config import BaselineConfig
    BaselineConfig.from_args(args, model=model)   # the checks every baseline shares, before training
    _check_metadata(task)
    if task.solution_dir.exists() and not task.solution_dir.is_dir():
        raise UsageError("the solution path exists and is not a directory", str(task.solution_dir))
    mod = optional_module(BASELINES[model])
    if mod is None:
        raise UsageError(f"baseline {model!r} is not available in this build")
    config_cls = getattr(mod, "CONFIG", None)
    config = config_cls.from_args(args, model=model) if config_cls is not None else args
    from d3mkit.baselines import ddp
    if ddp.launched():   # torchrun --nproc-per-node N: join the process group first
        from d3mkit.baselines.common import choose_device
        ddp.init_from_env(choose_device(getattr(args, "device", "auto")))
    try:
        report = mod.run_baseline(task, model, config)
        main_process = ddp.current().is_main
    finally:
        ddp.finish()
    if not main_process:   # rank 0 wrote and prints the solution
        return 0
    for s in report.scores:
        label = s.metric if not s.target else f"{s.metric}[{s.target}]"
        print(f"{label}\t{s.value:.6g}")
    print(task.solution_dir)
    return 0


def _check_metadata(task) -> None:
    """Fail before training when a metric of the problem needs a ``_debug`` file that is
    not there (the scorer would only find out after the model was trained)."""
    from d3mkit.errors import D3MKitError, error
    from d3mkit.registry import resolve
    for i, entry in enumerate(task.problem.metrics):
        try:
            metric = resolve(entry)
        except D3MKitError:
            continue  # an unknown metric is reported by the scorer
        f = metric.metadata_file
        if f and not (task.debug_dir / f).is_file():
            raise D3MKitError(error("metric.metadata", f"inputs.performanceMetrics[{i}]",
                                    f"metric {metric.name!r} needs {task.debug_dir.name}/{f}, "
                                    f"which is not there", str(task.debug_dir / f)))
