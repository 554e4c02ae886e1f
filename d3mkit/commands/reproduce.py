"""``d3mkit reproduce NAME [ARGS...]``: run a reproduction (a paper's tables, the example
problems) that lives in the package, ``d3mkit.benchmarks.REPRODUCERS[NAME]``."""

from __future__ import annotations

import argparse

from d3mkit.benchmarks import REPRODUCERS


def add_parser(sub) -> None:
    p = sub.add_parser("reproduce", help="reproduce a paper's results or the example problems",
                       description="Reproducers: " + ", ".join(REPRODUCERS) +
                       ". 'd3mkit reproduce NAME --help' lists NAME's options.")
    p.add_argument("name", metavar="NAME", choices=sorted(REPRODUCERS), help=", ".join(REPRODUCERS))
    p.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    p.set_defaults(func=_run, _parser_class=type(p))


def _run(args) -> int:
    from d3mkit.benchmarks import optional_module
    from d3mkit.errors import UsageError
    mod = optional_module(REPRODUCERS[args.name])
    if mod is None:
        raise UsageError(f"reproducer {args.name!r} is not available in this build")
    doc = (mod.__doc__ or "").strip().splitlines()
    parser = args._parser_class(prog=f"d3mkit reproduce {args.name}", description=doc[0] if doc else None)
    mod.add_arguments(parser)
    return int(mod.run(parser.parse_args(args.rest)) or 0)
