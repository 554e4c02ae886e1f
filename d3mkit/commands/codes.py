"""``d3mkit codes [--format text|json]``: list every issue code d3mkit emits (d3mkit/core/codes.py)."""

from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser("codes", help="list every issue code, its severity and what it means",
                       epilog="examples:\n  d3mkit codes\n  d3mkit codes --format json")
    from d3mkit.commands.options import add_format
    add_format(p, "a table")
    p.set_defaults(func=run)


def run(args) -> int:
    from d3mkit.core.codes import table
    rows = table()
    if args.format == "json":
        from d3mkit.commands.show import print_json
        print_json([{"code": c, "severity": s, "description": d} for c, s, d in rows])
    else:
        w = max(len(c) for c, _, _ in rows)
        for c, s, d in rows:
            print(f"{c:<{w}}  {s:<7}  {d}")
    return 0
