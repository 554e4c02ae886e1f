"""``d3mkit systems [--format json]``: every registered AutoML system, whether it can run
here, its version and the task types it handles; ``d3mkit systems install NAME`` prepares
what a system needs (docs/systems.md)."""

from __future__ import annotations

import sys

from d3mkit.core.errors import UsageError


def add_parser(sub) -> None:
    p = sub.add_parser("systems", help="list the AutoML systems d3mkit run can start; install one",
                       epilog="examples:\n  d3mkit systems\n  d3mkit systems --format json\n"
                              "  d3mkit systems install autogluon")
    p.add_argument("action", nargs="?", choices=["list", "install"], default="list",
                   help="list (the default) or install NAME")
    p.add_argument("name", nargs="?", help="the system to install")
    from d3mkit.commands.options import add_format
    add_format(p, "a table")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from d3mkit.systems.plugins import get, plugin_issues, systems
    if args.action == "install":
        if not args.name:
            raise UsageError("systems install needs a system name (d3mkit systems lists them)")
        system = get(args.name)
        if system.install is None:
            why = system.why_not_ready()
            if why:
                raise UsageError(f"{system.name} has no install step: {why}")
            print(f"{system.name}: nothing to install (ready)", file=sys.stderr)
            return 0
        system.install(lambda line: print(line, file=sys.stderr))
        why = system.why_not_ready()
        print(f"{system.name}: {'ready' if why is None else 'not ready: ' + why}", file=sys.stderr)
        return 0 if why is None else 1
    if args.name:
        raise UsageError(f"unexpected {args.name!r}: write 'd3mkit systems install {args.name}'")
    records = [s.describe() for s in systems().values()]
    if args.format == "json":
        from d3mkit.commands.show import print_json
        print_json(records)
        return 0
    rows = [("NAME", "READY", "VERSION", "TASKS")]
    for r in records:
        rows.append((r["name"], "yes" if r["ready"] else "no", r["version"] or "-",
                     ", ".join(t.replace("classification/", "").replace("regression/", "regression-")
                               for t in r["tasks"]) or "any"))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    for row, rec in zip(rows, [None] + records):
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[-1])
        if rec is not None and not rec["ready"]:
            print(f"    not ready: {rec['not_ready']}")
    print("command:TEMPLATE runs any program ({train} {test} {problem} {out}); see docs/systems.md")
    for i in plugin_issues():
        print(i.format(), file=sys.stderr)
    return 0
