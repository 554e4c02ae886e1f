"""``d3mkit reproduce NAME [OPTIONS]``: run a reproduction (a paper's tables, the example
problems): ``problems`` or a reproducer of a benchmark's plug-in record
(:func:`d3mkit.benchmarks.plugins.reproducers`).

Each reproducer is a subcommand whose options its record adds (only when that reproducer
is parsed), plus ``--format text|json``: text is the reproducer's own lines (progress, the
files written); json is one document, ``{"reproducer", "exit_code", "written", "checks",
"figures"}`` (:class:`d3mkit.benchmarks.reproduction.Reproduction`), with the same exit code.
"""

from __future__ import annotations

from d3mkit.commands import defer, lazy_parser


def add_parser(sub) -> None:
    p = sub.add_parser("reproduce", help="reproduce a paper's results or the example problems",
                       epilog="examples:\n  d3mkit reproduce problems --check\n"
                              "  d3mkit reproduce abstraction --table 1 --out results\n"
                              "  d3mkit reproduce abstraction --table 1 --out results --from-csv --format json")
    defer(p, _reproducers)   # the names come from the plug-in records: read when reproduce is parsed


def _reproducers(p) -> None:
    from d3mkit.benchmarks.plugins import reproducers
    known = reproducers()
    p.description = "Rerun a paper's results or the example problems. 'd3mkit reproduce NAME --help' lists NAME's options."
    names = p.add_subparsers(dest="reproducer", metavar="NAME", parser_class=lazy_parser(type(p)))
    names.required = True
    for name, record in known.items():
        rp = names.add_parser(name, help=record.description or None, description=record.description or None)
        defer(rp, lambda rp, record=record: _options(rp, record))


def _options(rp, record) -> None:
    from d3mkit.commands.options import add_format
    if record.examples:
        rp.epilog = "examples:\n" + "\n".join(f"  {rp.prog} {e}".rstrip() for e in record.examples)
    record.options(rp)
    if not any("--format" in a.option_strings for a in rp._actions):
        add_format(rp, "the reproducer's lines (progress, files written)")
    rp.set_defaults(func=_run, _reproducer=record)


def _run(args) -> int:
    from d3mkit.benchmarks.reproduction import Reproduction
    result = args._reproducer.run(args)
    if not isinstance(result, Reproduction):     # a plug-in's reproducer that returns its exit code
        result = Reproduction(exit_code=int(result or 0))
    if args.format == "json":
        from d3mkit.commands.show import print_json
        print_json({"reproducer": args.reproducer, **result.to_dict()})
    return result.exit_code
