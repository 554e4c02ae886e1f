"""``d3mkit baseline TASK_ROOT [--model NAME]``: train a reference baseline, write and
score ``<name>_solution/predictions.csv``."""

from __future__ import annotations

from pathlib import Path

from d3mkit.commands import defer, seed_value
from d3mkit.errors import UsageError


def add_parser(sub) -> None:
    p = sub.add_parser("baseline", help="run a reference baseline on a task root")
    p.add_argument("task_root", type=Path)
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    p.add_argument("--epochs", type=int, default=None, help="training passes (model default if omitted)")
    p.add_argument("--seed", type=seed_value, default=0)
    p.add_argument("--quiet", action="store_true")
    defer(p, _model_arguments)   # the models and their options: read when baseline is parsed
    p.set_defaults(func=_run)


def _model_arguments(p) -> None:
    """``--model`` (every benchmark's baselines, from the plug-in records) and each
    model's own options (its module imported now, as ``baseline`` is being parsed)."""
    from d3mkit.benchmarks.plugins import baselines
    models = baselines()
    p.add_argument("--model", help="baseline name: " + ", ".join(models))
    done = set()
    for _, record in models.values():
        if record.options is not None and id(record.options) not in done:
            done.add(id(record.options))
            record.options(p)


def _run(args) -> int:
    from d3mkit.taskroot import TaskRoot
    from d3mkit.benchmarks.plugins import baselines, get
    task = TaskRoot.open(args.task_root)
    models = baselines()
    built_by = get(task.benchmark) if task.benchmark else None
    model = args.model or (built_by.default_model if built_by is not None else None)
    if model is None:
        why = (f"benchmark {task.benchmark!r} has no default baseline" if task.benchmark else
               f"{task.debug_dir.name}/manifest.json (which names the benchmark) is missing")
        raise UsageError(f"{why}; pass --model ({', '.join(models)})", str(args.task_root))
    if model not in models:
        raise UsageError(f"unknown model {model!r}; known: {', '.join(models)}")
    owner, record = models[model]
    if task.benchmark and task.benchmark != owner.name:
        fits = list(built_by.baselines) if built_by is not None else []
        raise UsageError(f"--model {model} is a baseline for {owner.name}, but this task root was built by "
                         f"'d3mkit build {task.benchmark}' (its models: {', '.join(fits) or 'none'})",
                         str(args.task_root))
    from d3mkit.benchmarks.config import BaselineConfig
    BaselineConfig.from_args(args, model=model)   # the checks every baseline shares, before training
    _check_metadata(task)
    if task.solution_dir.exists() and not task.solution_dir.is_dir():
        raise UsageError("the solution path exists and is not a directory", str(task.solution_dir))
    config = record.config(args, model=model) if record.config is not None else args
    from d3mkit.baselines import ddp
    if ddp.launched():   # torchrun --nproc-per-node N: join the process group first
        from d3mkit.baselines.common import choose_device
        ddp.init_from_env(choose_device(getattr(args, "device", "auto")))
    try:
        report = record.run(task, model, config)
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
