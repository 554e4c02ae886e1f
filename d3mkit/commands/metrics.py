"""``d3mkit metrics [--format json]``: every registered metric with its properties and
where it came from."""

from __future__ import annotations

import sys


def add_parser(sub) -> None:
    p = sub.add_parser("metrics", help="list the registered metrics",
                       epilog="examples:\n  d3mkit metrics\n  d3mkit metrics --format json")
    from d3mkit.commands.options import add_format
    add_format(p, "a table")
    p.set_defaults(func=_run)


def _fmt(v: float) -> str:
    return "inf" if v == float("inf") else "-inf" if v == float("-inf") else f"{v:g}"


def _task_types(types) -> str:
    if not types:
        return "any"
    head = ",".join(types[:2])
    return head + (f",+{len(types) - 2}" if len(types) > 2 else "")


def _run(args) -> int:
    from d3mkit.commands.options import plain
    from d3mkit.core.registry import plugin_issues, registry
    reg = registry()
    metrics = [reg[n] for n in sorted(reg, key=lambda n: (not reg[n].standard, n.lower()))]
    issues = plugin_issues()
    if args.format == "json":
        out = {"metrics": [m.describe() for m in metrics],
               "issues": [i.to_dict() for i in issues]}
        from d3mkit.commands.show import print_json
        print_json(out)
        return 0
    rows = [("NAME", "BETTER", "BEST", "WORST", "TASK TYPES", "CONF", "PARAMS", "TARGETS", "SOURCE")]
    for m in metrics:
        rows.append((m.name + ("" if m.standard else " *"), "higher" if m.higher_is_better else "lower",
                     _fmt(m.best), _fmt(m.worst), _task_types(m.task_types),
                     "yes" if m.needs_confidence else "", ",".join(m.params),
                     m.applicability, m.source))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    descriptions = [""] + [m.describe().get("description") or "" for m in metrics]
    for r, text in zip(rows, descriptions):
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1])
        if text:   # what the metric measures, as in --format json
            print(f"    {plain(text)}")
    print("* not a problemSchema 3.1.1 metric name: use {\"metric\": \"other\", \"specifyOther\": NAME}")
    for i in issues:
        print(i.format(), file=sys.stderr)
    return 0
