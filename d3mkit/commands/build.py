"""``d3mkit build BENCHMARK --out DIR ...``: write task roots, print each path."""

from __future__ import annotations

from d3mkit.commands import defer, lazy_parser


def add_parser(sub) -> None:
    """The benchmarks are listed when ``build`` is parsed (not for ``d3mkit --help``), from
    their plug-in records (:mod:`d3mkit.benchmarks.plugins`, light modules); a benchmark's
    own options, and its builder's imports (numpy, pandas, ...), only when that benchmark
    is parsed, so ``d3mkit build --help`` stays fast."""
    p = sub.add_parser("build", help="turn a benchmark into D3M task roots")
    defer(p, _benchmarks)


def _benchmarks(p) -> None:
    from d3mkit.benchmarks.plugins import benchmarks, plugin_issues
    from d3mkit.errors import print_issues
    print_issues(plugin_issues())    # a third-party benchmark that could not be loaded: why it is absent
    bench = p.add_subparsers(dest="benchmark", metavar="BENCHMARK", parser_class=lazy_parser(type(p)))
    bench.required = True
    for name, record in benchmarks().items():
        if record.build is None:
            continue
        bp = bench.add_parser(name, help=record.description)
        defer(bp, lambda bp, record=record: _builder_arguments(bp, record))


def _builder_arguments(bp, record) -> None:
    from d3mkit.benchmarks import add_build_arguments
    add_build_arguments(bp)
    if record.build_options is not None:
        record.build_options(bp)
    bp.set_defaults(func=_run, _builder=record.build)


def _run(args) -> int:
    for root in args._builder(args):
        print(root)
    return 0
