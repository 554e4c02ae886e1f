"""``d3mkit build BENCHMARK --out DIR ...``: write task roots, print each path."""

from __future__ import annotations

from d3mkit.benchmarks import BUILDERS, add_build_arguments, module_summary, optional_module
from d3mkit.commands import defer, lazy_parser


def add_parser(sub) -> None:
    """One sub-parser per builder, listed with its module's docstring line read from the
    source; a builder's module (numpy, pandas, ...) is imported and its options added only
    when that builder is parsed, so ``d3mkit --help`` and ``d3mkit build --help`` stay fast."""
    p = sub.add_parser("build", help="turn a benchmark into D3M task roots")
    bench = p.add_subparsers(dest="benchmark", metavar="BENCHMARK", parser_class=lazy_parser(type(p)))
    bench.required = True
    for name, path in BUILDERS.items():
        summary = module_summary(path)
        if summary is None and optional_module(path) is None:
            continue
        bp = bench.add_parser(name, help=summary)
        defer(bp, lambda bp, path=path: _builder_arguments(bp, path))


def _builder_arguments(bp, path: str) -> None:
    mod = optional_module(path)
    add_build_arguments(bp)
    mod.add_build_arguments(bp)
    bp.set_defaults(func=_run, _builder=mod)


def _run(args) -> int:
    for root in args._builder.build(args):
        print(root)
    return 0
