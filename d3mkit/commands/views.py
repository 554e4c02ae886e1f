"""``d3mkit views TASK_ROOT --out DIR``: write the TRAIN/TEST/SCORE blind-evaluation views;
``--format json`` prints ``{"out", "repeat", "fold", "views": {"TRAIN": {"path", "contents"},
...}}``."""

from __future__ import annotations

from pathlib import Path


def add_parser(sub) -> None:
    p = sub.add_parser("views", help="write the D3M TRAIN/TEST/SCORE views of a task root",
                       epilog="example:\n  d3mkit views out/wine --out views")
    p.add_argument("task_root", type=Path)
    p.add_argument("--out", type=Path, required=True, help="directory to create (TRAIN/, TEST/, SCORE/)")
    p.add_argument("--force", action="store_true", help="replace an existing --out")
    p.add_argument("--repeat", type=int, default=0, help="which repeat of the splits file (default 0)")
    p.add_argument("--fold", type=int, default=0, help="which fold of the splits file (default 0)")
    from d3mkit.commands.options import add_format
    add_format(p, "each directory written, one a line")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from d3mkit.taskroot.views import write_views
    written = write_views(args.task_root, args.out, force=args.force, repeat=args.repeat, fold=args.fold)
    listed = {view: sorted(p for p in path.iterdir()) for view, path in written.items()}
    if args.format == "json":
        from d3mkit.commands.show import print_json
        print_json({"out": str(args.out), "repeat": args.repeat, "fold": args.fold,
                    "views": {view: {"path": str(written[view]), "contents": [str(p) for p in paths]}
                              for view, paths in listed.items()}})
        return 0
    for paths in listed.values():
        for sub in paths:
            print(sub)
    return 0
