"""``d3mkit run SYSTEM ROOT --out DIR``: train an AutoML system on the TRAIN view and predict
the TEST view of every (repeat, fold) of a task root, under time, memory and core limits;
write ``DIR/SYSTEM/PROBLEMID/repeat_R/fold_F/predictions.csv`` and ``pipeline.json``
(docs/systems.md)."""

from __future__ import annotations

import sys
from pathlib import Path

from d3mkit.commands import seed_value
from d3mkit.core.errors import UsageError


def add_limit_arguments(p) -> None:
    """The budget options ``run`` and ``benchmark`` share."""
    p.add_argument("--time-limit", type=float, default=600.0, metavar="S",
                   help="seconds per fold for fit + predict (default 600); killed at the limit + "
                        "a grace of 1 s + 10%% (at most 10 s)")
    p.add_argument("--memory-limit", type=int, default=None, metavar="MB",
                   help="resident memory of the system's process tree (default: none)")
    p.add_argument("--cores", type=int, default=1, metavar="N",
                   help="threads for BLAS/OpenMP and the system's n_jobs (default 1)")
    p.add_argument("--seed", type=seed_value, default=0, help="the seed each system is given (default 0)")
    p.add_argument("--folds", choices=["all", "first"], default="all",
                   help="every (repeat, fold) of dataSplits (default), or the first only")


def options_from(args):
    from d3mkit.systems.plugins import Options
    if not args.time_limit > 0:
        raise UsageError(f"--time-limit must be a positive number of seconds, got {args.time_limit}")
    if args.memory_limit is not None and args.memory_limit < 1:
        raise UsageError(f"--memory-limit must be at least 1 MB, got {args.memory_limit}")
    if args.cores < 1:
        raise UsageError(f"--cores must be at least 1, got {args.cores}")
    return Options(seed=args.seed, time_limit=args.time_limit, cores=args.cores, memory_limit=args.memory_limit)


def add_parser(sub) -> None:
    p = sub.add_parser("run", help="run an AutoML system on a task root's folds (TRAIN -> TEST predictions)",
                       epilog="examples:\n  d3mkit run random-forest out/wine --out runs\n"
                              "  d3mkit run constant out/wine --out runs --folds first\n"
                              "  d3mkit run 'command:python fit.py {train} {test} {problem} {out}' out/wine --out runs\n"
                              "  d3mkit evaluate --problems out --submissions runs --out board")
    p.add_argument("system", help="a name from 'd3mkit systems', or command:TEMPLATE")
    p.add_argument("task_root", type=Path)
    p.add_argument("--out", type=Path, required=True, help="runs directory (DIR/SYSTEM/PROBLEMID/...)")
    add_limit_arguments(p)
    p.add_argument("--name", default=None, help="the system's directory name under --out (default: its name; "
                                                "'command' for command:TEMPLATE)")
    p.add_argument("--resume", action="store_true", help="keep the folds a previous run finished")
    p.add_argument("--force", action="store_true", help="run every fold again over a previous run")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    from d3mkit.commands.options import add_format
    add_format(p, "a line per fold")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from d3mkit.commands.options import must_exist
    from d3mkit.systems.plugins import get
    from d3mkit.systems.runner import run_system
    must_exist(args.task_root)
    from d3mkit.io.paths import outside_reason
    if outside_reason(args.task_root, args.out) is None:
        raise UsageError("--out must be outside the task root", str(args.out))
    options = options_from(args)
    system = get(args.system)
    if args.name is not None and (not args.name or "/" in args.name or args.name.startswith(".")):
        raise UsageError(f"--name must be a plain directory name, got {args.name!r}")
    results = run_system(system, args.task_root, args.out, options, folds=args.folds, resume=args.resume,
                         force=args.force, label=args.name,
                         progress=not args.quiet and sys.stderr.isatty())
    if args.format == "json":
        from d3mkit.commands.show import print_json
        print_json({"system": args.name or system.name, "out": str(args.out),
                    "folds": [r.to_dict() for r in results]})
    elif not args.quiet:
        for r in results:
            t = f"fit {r.fit_seconds:.2f} s" if r.fit_seconds is not None else f"wall {r.wall_seconds:.2f} s"
            print(f"{r.problem_id} repeat {r.repeat} fold {r.fold}: {r.status} ({t}, peak {r.peak_memory_mb:.0f} MB"
                  f"{', reused' if r.reused else ''}){': ' + r.error if r.error else ''}")
        print(Path(args.out) / (args.name or system.name) / results[0].problem_id)
    return 0 if all(r.status == "ok" for r in results) else 1
