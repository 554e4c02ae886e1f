"""``d3mkit split PROBLEM_DIR``: (re)write the splits file a problemDoc names; ``--format
json`` prints ``{"path", "changed", "rows", "method", "folds": [{"repeat", "fold", "train",
"test"}]}``."""

from __future__ import annotations

from pathlib import Path

from d3mkit.core.errors import UsageError


def add_parser(sub) -> None:
    p = sub.add_parser("split", help="write dataSplits.csv from a problemDoc's dataSplits section",
                       epilog="examples:\n  d3mkit split out/wine/wine_problem\n"
                              "  d3mkit split problems/p --datasets datasets/ --force")
    p.add_argument("problem_dir", type=Path, help="problem directory, its problemDoc.json or the task root")
    p.add_argument("--datasets", type=Path, action="append", default=[],
                   help="where to look for the dataset when it is not in the same task root (repeatable)")
    p.add_argument("--force", action="store_true", help="replace a splits file with different content")
    from d3mkit.commands.options import add_format
    add_format(p, "the file and its TRAIN/TEST counts per repeat and fold")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from d3mkit.taskroot.splits.read import folds, summary
    from d3mkit.taskroot.splits.regenerate import regenerate
    for d in args.datasets:
        if not d.is_dir():
            raise UsageError("--datasets needs an existing directory", str(d))
    done = regenerate(args.problem_dir, tuple(args.datasets), force=args.force)
    if args.format == "json":
        from d3mkit.commands.show import print_json
        print_json({"path": str(done.path), "changed": done.changed, "rows": len(done.splits),
                    "method": done.spec.describe(),
                    "folds": [{"repeat": int(r), "fold": int(f), "train": len(tr), "test": len(te)}
                              for r, f, tr, te in folds(done.splits)]})
        return 0
    if done.changed:
        print(f"wrote {done.path}: {len(done.splits)} rows ({done.spec.describe()})")
    else:
        print(f"{done.path}: up to date, {len(done.splits)} rows ({done.spec.describe()})")
    for line in summary(done.splits):
        print(f"  {line}")
    return 0
