"""``d3mkit info PATH [--format json]``: what a task root (or a datasetDoc/problemDoc) holds."""

from __future__ import annotations

import argparse
from pathlib import Path

EXAMPLES = """examples:
  d3mkit info out/wine
  d3mkit info out/wine --format json
  d3mkit info out/wine/wine_problem/problemDoc.json
"""


def add_parser(sub) -> None:
    p = sub.add_parser("info", help="describe a task root: rows, columns, targets, splits, metrics, media",
                       epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", type=Path, help="a task root, a dataset or problem directory, or a D3M document")
    from d3mkit.commands.options import add_format
    add_format(p, "a description")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from d3mkit.importing.info import format_text, info
    d = info(args.path)
    if args.format == "json":
        from d3mkit.commands.show import print_json
        print_json(d)
    else:
        print("\n".join(format_text(d)))
    return 0
