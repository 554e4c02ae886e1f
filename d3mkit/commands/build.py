"""``d3mkit build BENCHMARK --out DIR ...``: write task roots, print each path."""

from __future__ import annotations

from d3mkit.benchmarks import BUILDERS, add_build_arguments, optional_module


def add_parser(sub) -> None:
    p = sub.add_parser("build", help="turn a benchmark into D3M task roots")
    bench = p.add_subparsers(dest="benchmark", metavar="BENCHMARK", parser_class=type(p))
    bench.required = True
    for name, path in BUILDERS.items():
        mod = optional_module(path)
        if mod is None:
            continue
        bp = bench.add_parser(name, help=(mod.__doc__ or "").strip().splitlines()[0] if mod.__doc__ else None)
        add_build_arguments(bp)
        mod.add_build_arguments(bp)
        bp.set_defaults(func=_run, _builder=mod)


def _run(args) -> int:
    for root in args._builder.build(args):
        print(root)
    return 0
