"""``d3mkit baseline TASK_ROOT [--model NAME]``: train a reference baseline, write and
score ``<name>_solution/predictions.csv``."""

from __future__ import annotations

from pathlib import Path

from d3mkit.commands import defer, seed_value
from d3mkit.core.errors import D3MKitError, UsageError


EXAMPLES = """examples:
  d3mkit baseline out/wine
  d3mkit baseline out/shapes --epochs 2 --format json

An option that the chosen model does not use is refused (the model's own options are
prefixed with its benchmark, e.g. --abstraction-lr)."""


def add_parser(sub) -> None:
    p = sub.add_parser("baseline", help="run a reference baseline on a task root", epilog=EXAMPLES,
                       description="Train a reference baseline on the task root's TRAIN rows, write "
                                   "<name>_solution/predictions.csv (and scores.csv, baseline.json), "
                                   "and print its scores.")
    p.add_argument("task_root", type=Path)
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    p.add_argument("--epochs", type=int, default=None, help="training passes (model default if omitted)")
    p.add_argument("--seed", type=seed_value, default=0)
    from d3mkit.commands.options import add_format
    add_format(p, "a metric/value table and the solution path")
    p.add_argument("--quiet", action="store_true")
    defer(p, _model_arguments)   # the models and their options: read when baseline is parsed
    p.set_defaults(func=_run)


def _model_arguments(p) -> None:
    """``--model`` (every benchmark's baselines, from the plug-in records) and each
    model's own options (its module imported now, as ``baseline`` is being parsed),
    remembering which record declared which option (``_owners``: dest -> the options
    functions), so an option the chosen model does not use is refused
    (:func:`_check_model_options`) instead of silently ignored."""
    from d3mkit.benchmarks.plugins import baselines
    models = baselines()
    p.add_argument("--model", help="baseline name (default: the benchmark's; random-forest on a tabular "
                                   "task root of no benchmark, e.g. an imported one): "
                                   + ", ".join([*models, *SYSTEM_MODELS]))
    owners: dict[str, set[str]] = {}
    done = set()
    for _, record in models.values():
        key = _options_key(record)
        if record.options is not None and key not in done:
            done.add(key)
            before = set(map(id, p._actions))
            record.options(p)
            for a in p._actions:
                if id(a) not in before:
                    owners.setdefault(a.dest, set()).add(key)
    p.set_defaults(_owners=owners, _defaults={d: p.get_default(d) for d in owners})


def _options_key(record) -> str:
    """Which options function a baseline record has (records may share one)."""
    return getattr(record.options, "target", None) or str(id(record.options))


#: AutoML systems (d3mkit.systems) that are a baseline of any tabular task root; the first is
#: the default of a tabular root whose benchmark has none (d3mkit import, a D3M seed root)
SYSTEM_MODELS = ("random-forest", "constant")

#: the shared options' defaults: a value other than these was given on the command line
COMMON_DEFAULTS = {"device": "auto", "epochs": None, "seed": 0, "batch_size": None}


def _check_model_options(args, model: str, record) -> None:
    """An option given on the command line that ``model`` does not use is a usage error:
    one only other baselines declared, or a shared one its record lists in ``unused``
    (``--epochs`` means nothing to logistic regression)."""
    owners, defaults = getattr(args, "_owners", {}), getattr(args, "_defaults", {})
    from d3mkit.commands.options import flag_table
    flags = flag_table(getattr(args, "_parser", None))
    key = _options_key(record) if record.options is not None else None
    unused = list(record.unused)
    given = [d for d, keys in owners.items() if key not in keys and getattr(args, d, None) != defaults.get(d)]
    given += [d for d in unused if d not in given and getattr(args, d, None) not in (None, COMMON_DEFAULTS.get(d))]
    if given:
        own = sorted(flags.get(d, d) for d, keys in owners.items() if key in keys and d not in unused)
        raise UsageError(f"{', '.join(flags.get(d, d) for d in given)}: not used by model {model!r} "
                         f"(its own options: {', '.join(own) or 'none'}; see 'd3mkit baseline --help')")


def _run(args) -> int:
    from d3mkit.taskroot.model import TaskRoot
    from d3mkit.benchmarks.plugins import baselines, get
    task = TaskRoot.open(args.task_root)
    models = baselines()
    built_by = get(task.benchmark) if task.benchmark else None
    model = args.model or (built_by.default_model if built_by is not None else None)
    if model is None and _tabular(task):
        model = SYSTEM_MODELS[0]
    if model in SYSTEM_MODELS and model not in models:
        return _run_system(args, task, model)
    if model is None:
        why = (f"benchmark {task.benchmark!r} has no default baseline" if task.benchmark else
               f"{task.debug_dir.name}/manifest.json (which names the benchmark) is missing")
        raise UsageError(f"{why}; pass --model ({', '.join(models)})", str(args.task_root))
    if model not in models:
        from d3mkit.core.errors import close_match
        match = close_match(model, models)
        hint = f"did you mean {match!r}? " if match else ""
        raise UsageError(f"unknown model {model!r}; {hint}known: {', '.join(models)}")
    owner, record = models[model]
    if task.benchmark and task.benchmark != owner.name:
        fits = [*built_by.baselines] if built_by is not None else []
        fits += list(SYSTEM_MODELS) if _tabular(task) else []
        made = (f"built by 'd3mkit build {task.benchmark}'" if built_by is not None else
                f"made by 'd3mkit import'" if task.benchmark == "import" else
                f"made by {task.benchmark!r}, which is not a benchmark of this d3mkit")
        raise UsageError(f"--model {model} is a baseline for task roots built by 'd3mkit build {owner.name}', "
                         f"but this task root was {made} (its models: {', '.join(fits) or 'none'})",
                         str(args.task_root))
    from d3mkit.benchmarks.config import BaselineConfig
    BaselineConfig.from_args(args, model=model)   # the checks every baseline shares, before training
    _check_metadata(task)
    if task.solution_dir.exists() and not task.solution_dir.is_dir():
        raise UsageError("the solution path exists and is not a directory", str(task.solution_dir))
    _check_model_options(args, model, record)
    # the arguments and the task root are checked first; then what this machine lacks (a
    # module or a data file): one line, exit 3, still before any work
    record.check_requires(task.root)
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
    from d3mkit.commands.show import print_json, print_scores
    if args.format == "json":
        print_json({"model": model, "solution": str(task.solution_dir), **report.to_dict()})
    else:
        print_scores(report.scores)
        print(task.solution_dir)
    return 0


def _tabular(task) -> bool:
    """The task root is one the built-in systems handle: a classification or regression
    problem whose dataset is tables only."""
    from d3mkit.systems.plugins import TABULAR
    try:
        p = task.problem
        tables = all(r.is_table for r in task.dataset.resources)
    except D3MKitError:
        return False
    return tables and f"{p.task_type}/{p.task_subtype}" in TABULAR


def _run_system(args, task, model: str) -> int:
    """``--model random-forest|constant``: the built-in system, in this process, on the TRAIN
    and TEST views of repeat 0, fold 0 (as ``d3mkit run`` hands them over); predictions
    written and scored into ``<name>_solution/``."""
    unused = [flag for dest, flag, default in (("epochs", "--epochs", None), ("device", "--device", "auto"))
              if getattr(args, dest, default) != default]
    unused += [f"--{d.replace('_', '-')}" for d in getattr(args, "_owners", {})
               if getattr(args, d, None) != getattr(args, "_defaults", {}).get(d)]
    if unused:
        raise UsageError(f"{', '.join(unused)}: not used by model {model!r} (its own options: none; "
                         f"see 'd3mkit baseline --help')")
    _check_metadata(task)
    if task.solution_dir.exists() and not task.solution_dir.is_dir():
        raise UsageError("the solution path exists and is not a directory", str(task.solution_dir))
    from d3mkit.baselines.common import write_solution
    from d3mkit.io.beside import cpu_count
    from d3mkit.systems.child import fit_predict
    from d3mkit.systems.handover import sandbox
    from d3mkit.systems.plugins import Options, get
    from d3mkit.systems.runner import check_accepts
    system = get(model)
    check_accepts(system, task)
    options = Options(seed=args.seed, cores=cpu_count())
    with sandbox(task.root, 0, 0) as box:
        frame, fit_s, predict_s = fit_predict(system, box.paths["train"], box.paths["test"], box.paths["problem"],
                                              options)
    report = write_solution(task, frame, model=model,
                            info={"system": model, "version": system.version(), "repeat": 0, "fold": 0,
                                  "seed": args.seed, "fit_seconds": round(fit_s, 3),
                                  "predict_seconds": round(predict_s, 3)})
    from d3mkit.commands.show import print_json, print_scores
    if args.format == "json":
        print_json({"model": model, "solution": str(task.solution_dir), **report.to_dict()})
    else:
        print_scores(report.scores)
        print(task.solution_dir)
    return 0


def _check_metadata(task) -> None:
    """Fail before training when a metric of the problem needs a ``_debug`` file that is
    not there (the scorer would only find out after the model was trained)."""
    from d3mkit.core.errors import D3MKitError, error
    from d3mkit.core.registry import resolve
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
