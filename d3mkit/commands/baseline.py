"""``d3mkit baseline TASK_ROOT [--model NAME]``: train a reference baseline, write and
score ``<name>_solution/predictions.csv``."""

from __future__ import annotations

from pathlib import Path

from d3mkit.benchmarks import BASELINES, DEFAULT_MODEL, optional_module
from d3mkit.errors import UsageError


def add_parser(sub) -> None:
    p = sub.add_parser("baseline", help="run a reference baseline on a task root")
    p.add_argument("task_root", type=Path)
    p.add_argument("--model", help="baseline name: " + ", ".join(BASELINES))
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    p.add_argument("--epochs", type=int, default=None, help="training passes (model default if omitted)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quiet", action="store_true")
    seen = set()
    for path in dict.fromkeys(BASELINES.values()):
        mod = optional_module(path)
        if mod is not None and hasattr(mod, "add_baseline_arguments") and path not in seen:
            seen.add(path)
            mod.add_baseline_arguments(p)
    p.set_defaults(func=_run)


def _run(args) -> int:
    from d3mkit.taskroot import TaskRoot
    task = TaskRoot.open(args.task_root)
    model = args.model or DEFAULT_MODEL.get(task.benchmark or "")
    if model is None:
        raise UsageError(f"no default baseline for benchmark {task.benchmark!r}; pass --model "
                         f"({', '.join(BASELINES)})", str(args.task_root))
    if model not in BASELINES:
        raise UsageError(f"unknown model {model!r}; known: {', '.join(BASELINES)}")
    mod = optional_module(BASELINES[model])
    if mod is None:
        raise UsageError(f"baseline {model!r} is not available in this build")
    report = mod.run_baseline(task, model, args)
    for s in report.scores:
        label = s.metric if not s.target else f"{s.metric}[{s.target}]"
        print(f"{label}\t{s.value:.6g}")
    print(task.solution_dir)
    return 0
