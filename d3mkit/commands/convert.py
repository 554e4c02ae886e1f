"""``d3mkit convert DOC --to 4.0.0|3.1.1 [--output F]``: problemDoc or datasetDoc schema
conversion; ``d3mkit convert TREE --to 4.0.0|3.1.1 --out DIR``: every document of a task
root (or views tree) and the table columns that change with them.

Prints the converted document (byte-stable JSON) or writes it atomically to ``--output``
(an existing file is replaced only with ``--force``). Warnings go to stderr; exit 1 when
a document cannot be converted, 2 for an unreadable path or bad arguments.
"""

from __future__ import annotations

import sys
from pathlib import Path

from d3mkit.atomic import check_output_file, write_text
from d3mkit.errors import EXIT_INVALID, EXIT_OK, D3MKitError, UsageError, print_issues

TARGETS = ("3.1.1", "3.1.2", "4.0.0")


def add_parser(sub) -> None:
    p = sub.add_parser("convert", help="convert problemDocs/datasetDocs (or a whole task root) "
                                       "between the D3M 3.1 and 4.0.0 schemas")
    p.add_argument("doc", type=Path, metavar="DOC",
                   help="problemDoc.json, datasetDoc.json, a problem or dataset directory, or a task "
                        "root / views tree (with --out)")
    p.add_argument("--to", required=True, choices=TARGETS,
                   help="target version: 4.0.0, or 3.1.1/3.1.2 (problems become 3.1.1, datasets 3.1.2)")
    p.add_argument("--output", "-o", type=Path, metavar="F", help="one document: write here instead of stdout")
    p.add_argument("--out", type=Path, metavar="DIR", help="a task root or tree: the new directory to write")
    p.add_argument("--force", action="store_true", help="replace an existing --output file or --out directory")
    p.set_defaults(func=run)


def _single(path: Path) -> Path | None:
    if path.is_dir():
        for name in ("problemDoc.json", "datasetDoc.json"):
            if (path / name).is_file():
                return path / name
        return None
    return path


def run(args) -> int:
    from d3mkit.docs.convert_dataset import convert_dataset
    from d3mkit.package import convert_tree
    from d3mkit.validation.convert import convert_checked
    from d3mkit.docs.jsonio import dump_json, load_json

    src = _single(args.doc)
    if src is None:   # a task root or views tree
        if args.out is None:
            raise UsageError("a task root or tree needs --out DIR (the new directory)", str(args.doc))
        if args.output is not None:
            raise UsageError("--output is for one document; a tree is written to --out DIR", str(args.doc))
        print_issues(convert_tree(args.doc, args.to, args.out, force=args.force))
        print(args.out)
        return EXIT_OK
    if args.out is not None:
        raise UsageError("--out is for a task root or tree; one document goes to --output F", str(args.doc))
    if args.output is not None:
        check_output_file(args.output, "--output")
        if args.output.exists() and not args.force:
            raise UsageError("output exists; use --force to replace it", str(args.output))
    doc = load_json(src)
    if isinstance(doc, dict) and "dataResources" in doc:
        to = "4.0.0" if args.to == "4.0.0" else "3.1.2"
        out, issues, rewrites = convert_dataset(doc, to, str(src))
        if out is not None and rewrites:
            cols = ", ".join(f"{r}.{c}" for r, c, _ in rewrites)
            from d3mkit.errors import error
            raise D3MKitError(issues + [error(
                "convert.table_values", "dataResources",
                f"the values of {cols} change too (bounding boxes <-> polygons); convert the task root: "
                f"d3mkit convert TASK_ROOT --to {args.to} --out DIR", str(src))], EXIT_INVALID)
    else:
        out, issues = convert_checked(doc, "4.0.0" if args.to == "4.0.0" else "3.1.1", str(src))
    if out is None:
        raise D3MKitError(issues, EXIT_INVALID)
    print_issues(issues)
    text = dump_json(out)
    if args.output is None:
        sys.stdout.write(text)
    else:
        try:
            write_text(args.output, text)
        except OSError as exc:
            raise UsageError(f"cannot write output: {exc.strerror or exc}", str(args.output)) from None
    return EXIT_OK
