"""``d3mkit split PROBLEM_DIR``: (re)write the splits file a problemDoc names."""

from __future__ import annotations

from pathlib import Path

from d3mkit.errors import UsageError


def add_parser(sub) -> None:
    p = sub.add_parser("split", help="write dataSplits.csv from a problemDoc's dataSplits section",
                       epilog="examples:\n  d3mkit split out/wine/wine_problem\n"
                              "  d3mkit split problems/p --datasets datasets/ --force")
    p.add_argument("problem_dir", type=Path, help="problem directory, its problemDoc.json or the task root")
    p.add_argument("--datasets", type=Path, action="append", default=[],
                   help="where to look for the dataset when it is not in the same task root (repeatable)")
    p.add_argument("--force", action="store_true", help="replace a splits file with different content")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from d3mkit.splits import regenerate, summary
    for d in args.datasets:
        if not d.is_dir():
            raise UsageError("--datasets needs an existing directory", str(d))
    done = regenerate(args.problem_dir, tuple(args.datasets), force=args.force)
    if done.changed:
        print(f"wrote {done.path}: {len(done.splits)} rows ({done.spec.describe()})")
    else:
        print(f"{done.path}: up to date, {len(done.splits)} rows ({done.spec.describe()})")
    for line in summary(done.splits):
        print(f"  {line}")
    return 0
