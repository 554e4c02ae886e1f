"""``d3mkit benchmark --systems A,B --problems DIR --out BOARD``: every AutoML system on every
task root under DIR (local pool or ``--scheduler``), then ``d3mkit evaluate``'s outputs into
BOARD/evaluation (docs/systems.md)."""

from __future__ import annotations

import sys
from pathlib import Path

from d3mkit.core.errors import UsageError


def add_parser(sub) -> None:
    from d3mkit.commands.run import add_limit_arguments
    p = sub.add_parser("benchmark", help="run AutoML systems on every task root, then evaluate them",
                       epilog="examples:\n  d3mkit benchmark --systems constant,random-forest --problems out "
                              "--out board --time-limit 60\n"
                              "  d3mkit benchmark --systems constant,mine=command:./fit.sh {train} {test} {out} "
                              "--problems roots --out board --scheduler tcp://HOST:8786\n"
                              "(board/evaluation/leaderboard.html; board/systems.csv: time and memory; "
                              "a re-run reuses finished folds)")
    p.add_argument("--systems", required=True,
                   help="comma-separated system names or LABEL=command:TEMPLATE (d3mkit systems lists them)")
    p.add_argument("--problems", type=Path, required=True, help="directory holding the task roots")
    p.add_argument("--out", type=Path, required=True, help="the board directory (runs/, evaluation/, runs.csv, systems.csv)")
    add_limit_arguments(p)
    from d3mkit.io.executor import add_executor_arguments
    add_executor_arguments(p, "runs", default_workers=None)
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                   help="evaluate's bootstrap resamples (default 1000; 0: no intervals or comparisons)")
    p.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    from d3mkit.commands.options import add_format
    add_format(p, "a summary and the board's files")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from d3mkit.commands.options import must_exist
    from d3mkit.commands.run import options_from
    from d3mkit.systems.board import find_roots, parse_systems, run_benchmark
    from d3mkit.systems.plugins import get
    must_exist(args.problems)
    if not args.problems.is_dir():
        raise UsageError("--problems is not a directory", str(args.problems), code="usage.path")
    from d3mkit.io.paths import outside_reason
    if outside_reason(args.problems, args.out) is None or outside_reason(args.out, args.problems) is None:
        raise UsageError("--out must be outside --problems (and not hold it)", str(args.out))
    options = options_from(args)
    systems = parse_systems(args.systems)
    if not systems:
        raise UsageError("--systems names no system")
    labels = [label for label, _ in systems]
    if len(set(labels)) != len(labels):
        raise UsageError(f"--systems names a system twice ({', '.join(labels)}); give command: systems a "
                         f"LABEL=command:... each")
    for _, spec in systems:
        get(spec)      # an unknown name or a bad template: a usage error before any work
    if not find_roots(args.problems):
        raise UsageError("no task root under --problems (a directory with <name>_problem/problemDoc.json "
                         "and <name>_dataset/)", str(args.problems))
    if args.bootstrap < 0:
        raise UsageError(f"--bootstrap must be 0 or more, got {args.bootstrap}")
    from d3mkit.io.beside import cpu_count
    from d3mkit.evaluate.campaign import Params
    from d3mkit.io.executor import check_options, from_args
    check_options(args.workers, args.scheduler)
    with from_args(args, default_workers=max(1, cpu_count() // options.cores)) as ex:
        rows, camp = run_benchmark(systems, args.problems, args.out, options, ex, folds=args.folds,
                                   progress=not args.quiet and sys.stderr.isatty(),
                                   evaluate_params=Params(bootstrap=args.bootstrap, seed=args.seed))
        where = ex.describe()
    from collections import Counter
    counts = Counter(r["status"] for r in rows)
    files = {name: str(args.out / name) for name in ("runs.csv", "systems.csv")}
    files["leaderboard.html"] = str(args.out / "evaluation" / "leaderboard.html")
    files["scores.csv"] = str(args.out / "evaluation" / "scores.csv")
    if args.format == "json":
        from d3mkit.commands.show import print_json
        print_json({"out": str(args.out), "folds": dict(counts), "reused": sum(bool(r["reused"]) for r in rows),
                    "executor": where, "files": files})
    elif not args.quiet:
        print(f"{len(rows)} fold runs: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) +
              f" ({sum(bool(r['reused']) for r in rows)} reused; {where})", file=sys.stderr)
        print("\n".join(files.values()))
    return 0
