"""``d3mkit reproduce NAME [ARGS...]``: run a reproduction (a paper's tables, the example
problems): ``problems`` or a reproducer of a benchmark's plug-in record
(:func:`d3mkit.benchmarks.plugins.reproducers`)."""

from __future__ import annotations

import argparse

from d3mkit.commands import defer


def add_parser(sub) -> None:
    p = sub.add_parser("reproduce", help="reproduce a paper's results or the example problems",
                       epilog="examples:\n  d3mkit reproduce problems --check\n"
                              "  d3mkit reproduce abstraction --table 1 --out results")
    defer(p, _reproducers)   # the names come from the plug-in records: read when reproduce is parsed
    p.set_defaults(func=_run, _parser_class=type(p))


def _reproducers(p) -> None:
    from d3mkit.benchmarks.plugins import reproducers
    known = reproducers()
    p.description = ("Reproducers: " + "; ".join(f"{n} ({r.description})" if r.description else n
                                                  for n, r in known.items())
                     + ". 'd3mkit reproduce NAME --help' lists NAME's options.")
    p.add_argument("name", metavar="NAME", choices=list(known), help=", ".join(known))
    p.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)


def _run(args) -> int:
    from d3mkit.benchmarks.plugins import reproducers
    record = reproducers()[args.name]
    parser = args._parser_class(prog=f"d3mkit reproduce {args.name}", description=record.description or None)
    record.options(parser)
    inner = parser.parse_args(args.rest)
    args._parser = inner._parser    # errors name this reproducer's options (cli.flag_namer)
    return int(record.run(inner) or 0)
