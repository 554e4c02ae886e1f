"""``d3mkit validate PATH... [--datasets DIR] [--format text|json] [--strict]``.

Exit 0 valid, 1 invalid (warnings count only with ``--strict``), 2 usage error or an
unreadable PATH. The report goes to stdout; nothing is written.
"""

from __future__ import annotations

import sys
from pathlib import Path

from d3mkit.errors import EXIT_INVALID, EXIT_OK, UsageError


def add_parser(sub) -> None:
    p = sub.add_parser("validate", help="validate problemDoc/datasetDoc/dataSplits/learningData",
                       description="Validate D3M documents: JSON syntax, schema, problem <-> dataset, "
                                   "dataset files, dataSplits. PATH may be a document, a problem or "
                                   "dataset directory, a task root or any tree containing them.")
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    p.add_argument("--datasets", action="append", type=Path, default=[], metavar="DIR",
                   help="where to look for a problem's dataset by datasetID (repeatable)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--strict", action="store_true", help="warnings make the documents invalid too")
    p.add_argument("--list-codes", action="store_true", help="print the issue codes and exit")
    p.set_defaults(func=run)


def _codes(fmt: str) -> int:
    from d3mkit.validate.codes import table
    rows = table()
    if fmt == "json":
        import json
        print(json.dumps([{"code": c, "severity": s, "description": d} for c, s, d in rows], indent=2))
    else:
        w = max(len(c) for c, _, _ in rows)
        for c, s, d in rows:
            print(f"{c:<{w}}  {s:<7}  {d}")
    return EXIT_OK


def run(args) -> int:
    if args.list_codes:
        return _codes(args.format)
    if not args.paths:
        raise UsageError("validate needs at least one PATH (or --list-codes)")
    from d3mkit.validate import validate_paths
    report = validate_paths(args.paths, args.datasets)
    out = report.to_json(args.strict) + "\n" if args.format == "json" else report.to_text(args.strict)
    sys.stdout.write(out)
    return EXIT_OK if report.valid(args.strict) else EXIT_INVALID
