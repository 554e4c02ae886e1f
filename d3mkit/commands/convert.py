"""``d3mkit convert DOC --to 4.0.0|3.1.1 [--output F]``: problemDoc schema conversion.

Prints the converted document (byte-stable JSON) or writes it atomically to ``--output``
(an existing file is replaced only with ``--force``). Warnings go to stderr; exit 1 when
the document cannot be converted, 2 for an unreadable path or bad arguments.
"""

from __future__ import annotations

import sys
from pathlib import Path

from d3mkit.docs.convert import VERSIONS
from d3mkit.docs.jsonio import dump_json, load_json, write_text_atomic
from d3mkit.errors import EXIT_INVALID, EXIT_OK, D3MKitError, UsageError, print_issues
from d3mkit.validate.convert import convert_checked


def add_parser(sub) -> None:
    p = sub.add_parser("convert", help="convert a problemDoc between problemSchema 3.1.1 and 4.0.0")
    p.add_argument("doc", type=Path, metavar="DOC", help="problemDoc.json (or a problem directory)")
    p.add_argument("--to", required=True, choices=VERSIONS, help="target problemSchema version")
    p.add_argument("--output", "-o", type=Path, metavar="F", help="write here instead of stdout")
    p.add_argument("--force", action="store_true", help="replace an existing --output file")
    p.set_defaults(func=run)


def run(args) -> int:
    src = args.doc / "problemDoc.json" if args.doc.is_dir() else args.doc
    if args.output is not None:
        if args.output.is_dir():
            raise UsageError("--output is a directory; give a file name", str(args.output))
        if args.output.exists() and not args.force:
            raise UsageError("output exists; use --force to replace it", str(args.output))
    doc = load_json(src)
    out, issues = convert_checked(doc, args.to, str(src))
    if out is None:
        raise D3MKitError(issues, EXIT_INVALID)
    print_issues(issues)
    text = dump_json(out)
    if args.output is None:
        sys.stdout.write(text)
    else:
        try:
            write_text_atomic(args.output, text)
        except OSError as exc:
            raise UsageError(f"cannot write output: {exc.strerror or exc}", str(args.output)) from None
    return EXIT_OK
