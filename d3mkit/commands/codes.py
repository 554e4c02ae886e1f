"""``d3mkit codes [--format text|json]``: list every issue code d3mkit emits (d3mkit/codes.py)."""

from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser("codes", help="list every issue code, its severity and what it means",
                       epilog="examples:\n  d3mkit codes\n  d3mkit codes --format json")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(func=run)


def run(args) -> int:
    from d3mkit.codes import table
    rows = table()
    if args.format == "json":
        import json
        print(json.dumps([{"code": c, "severity": s, "description": d} for c, s, d in rows], indent=2))
    else:
        w = max(len(c) for c, _, _ in rows)
        for c, s, d in rows:
            print(f"{c:<{w}}  {s:<7}  {d}")
    return 0
