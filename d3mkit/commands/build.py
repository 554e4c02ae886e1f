"""``d3mkit build BENCHMARK --out DIR ...``: write task roots, print each path
(``--format json``: ``{"benchmark", "roots": [PATH, ...]}``)."""

from __future__ import annotations

from d3mkit.commands import defer, lazy_parser


def add_parser(sub) -> None:
    """The benchmarks are listed when ``build`` is parsed (not for ``d3mkit --help``), from
    their plug-in records (:mod:`d3mkit.benchmarks.plugins`, light modules); a benchmark's
    own options, and its builder's imports (numpy, pandas, ...), only when that benchmark
    is parsed, so ``d3mkit build --help`` stays fast."""
    p = sub.add_parser("build", help="turn a benchmark into D3M task roots",
                       epilog="examples:\n  d3mkit build tabular --dataset wine --out out\n"
                              "  d3mkit build visudo --out out --sources digits --n-train 4 --n-test 4\n\n"
                              "'d3mkit build BENCHMARK --help' lists a benchmark's options.")
    p.hint = _hint
    defer(p, _benchmarks)


def _benchmarks(p) -> None:
    from d3mkit.benchmarks.plugins import benchmarks, plugin_issues
    from d3mkit.core.errors import print_issues
    print_issues(plugin_issues())    # a third-party benchmark that could not be loaded: why it is absent
    bench = p.add_subparsers(dest="benchmark", metavar="BENCHMARK", parser_class=lazy_parser(type(p)))
    bench.required = True
    for name, record in benchmarks().items():
        if record.build is None:
            continue
        bp = bench.add_parser(name, help=record.description)
        defer(bp, lambda bp, record=record: _builder_arguments(bp, record))


def _hint(message: str) -> str:
    """A benchmark name that is a value of some benchmark's option (``build wine``: wine
    is a ``--dataset`` of the tabular benchmark) gets the command that was meant."""
    import argparse
    import re
    m = re.search(r"invalid choice: '([^']*)'", message)
    if not m:
        return ""
    from d3mkit.benchmarks.plugins import benchmarks
    for name, record in benchmarks().items():
        if record.build_options is None:
            continue
        probe = argparse.ArgumentParser(add_help=False)
        try:
            record.build_options(probe)
        except Exception:   # a benchmark whose options need what is not installed: no hint from it
            continue
        for action in probe._actions:
            if action.choices and m.group(1) in action.choices and action.option_strings:
                return (f" ({m.group(1)} is a {action.option_strings[-1]} of the {name} benchmark: "
                        f"d3mkit build {name} {action.option_strings[-1]} {m.group(1)} --out DIR)")
    return ""


def _builder_arguments(bp, record) -> None:
    from d3mkit.benchmarks import add_build_arguments
    from d3mkit.commands.options import add_format
    add_build_arguments(bp)
    add_format(bp, "each task root written, one a line")
    if record.build_options is not None:
        record.build_options(bp)
    if not bp.epilog:     # the example in problems/, else the options a build cannot do without
        needed = [f"{_long(a)} {a.metavar or a.dest.upper()}" for a in bp._actions
                  if a.required and a.option_strings and a.dest != "out"]
        bp.epilog = f"example:\n  {bp.prog} --out out {' '.join(record.example or needed)}"
    bp.set_defaults(func=_run, _builder=record.build)


def _long(action) -> str:
    return next((o for o in action.option_strings if o.startswith("--")), action.option_strings[0])


def _run(args) -> int:
    roots = list(args._builder(args))
    if args.format == "json":
        from d3mkit.commands.show import print_json
        print_json({"benchmark": args.benchmark, "roots": [str(r) for r in roots]})
    else:
        for root in roots:
            print(root)
    return 0
