"""``d3mkit convert DOC --to 4.0.0|3.1.1 [--out F]``: problemDoc or datasetDoc schema
conversion; ``d3mkit convert TREE --to 4.0.0|3.1.1 --out DIR``: every document of a task
root (or views tree) and the table columns that change with them.

Prints the converted document (byte-stable JSON), or writes it atomically to ``--out`` and
prints the path written (``--format json``: ``{"to", "out", "document", "issues"}``, the
document null when written to ``--out``) (an existing file or directory is replaced only with ``--force``).
Warnings go to stderr; exit 1 when a document cannot be converted, 2 for an unreadable path
or bad arguments.
"""

from __future__ import annotations

from pathlib import Path

from d3mkit.core.errors import EXIT_INVALID, EXIT_OK, D3MKitError, OutputExists, UsageError, print_issues

TARGETS = ("3.1.1", "3.1.2", "4.0.0")

EXAMPLES = """examples:
  d3mkit convert out/wine/wine_problem/problemDoc.json --to 4.0.0 --out p4.json
  d3mkit convert out/wine --to 4.0.0 --out wine-4.0.0
"""


def add_parser(sub) -> None:
    p = sub.add_parser("convert", help="convert problemDocs/datasetDocs (or a whole task root) "
                                       "between the D3M 3.1 and 4.0.0 schemas", epilog=EXAMPLES)
    p.add_argument("doc", type=Path, metavar="DOC",
                   help="problemDoc.json, datasetDoc.json, a problem or dataset directory, or a task "
                        "root / views tree (with --out)")
    p.add_argument("--to", required=True, choices=TARGETS,
                   help="target version: 4.0.0, or 3.1.1/3.1.2 (problems become 3.1.1, datasets 3.1.2)")
    p.add_argument("--out", type=Path, metavar="F|DIR",
                   help="one document: the file to write instead of printing it; a task root or tree: "
                        "the new directory to write")
    p.add_argument("--force", action="store_true", help="replace an existing --out file or directory")
    from d3mkit.commands.options import add_format
    add_format(p, "the converted document, or the path written")
    p.set_defaults(func=run)


def _single(path: Path) -> Path | None:
    if path.is_dir():
        for name in ("problemDoc.json", "datasetDoc.json"):
            if (path / name).is_file():
                return path / name
        return None
    return path


def run(args) -> int:
    from d3mkit.io.atomic import check_output_file, write_text    # here: 'd3mkit --help' imports this module
    from d3mkit.documents.convert_dataset import convert_dataset
    from d3mkit.taskroot.writer import convert_tree
    from d3mkit.validation.convert import convert_checked
    from d3mkit.documents.jsonio import dump_json, load_json

    from d3mkit.commands.options import must_exist
    must_exist(args.doc)
    src = _single(args.doc)
    if src is None:   # a task root or views tree
        if args.out is None:
            raise UsageError("a task root or tree needs --out DIR (the new directory)", str(args.doc))
        return _done(args, convert_tree(args.doc, args.to, args.out, force=args.force))
    if args.out is not None:
        check_output_file(args.out, "out")
        if args.out.exists() and not args.force:
            raise OutputExists(args.out)
    doc = load_json(src)
    if isinstance(doc, dict) and "dataResources" in doc:
        to = "4.0.0" if args.to == "4.0.0" else "3.1.2"
        out, issues, rewrites = convert_dataset(doc, to, str(src))
        if out is not None and rewrites:
            cols = ", ".join(f"{r}.{c}" for r, c, _ in rewrites)
            from d3mkit.core.errors import error
            raise D3MKitError(issues + [error(
                "convert.table_values", "dataResources",
                f"the values of {cols} change too (bounding boxes <-> polygons); convert the task root: "
                f"d3mkit convert TASK_ROOT --to {args.to} --out DIR", str(src))], EXIT_INVALID)
    else:
        out, issues = convert_checked(doc, "4.0.0" if args.to == "4.0.0" else "3.1.1", str(src))
    if out is None:
        raise D3MKitError(issues, EXIT_INVALID)
    text = dump_json(out)
    if args.out is None:
        return _done(args, issues, document=out, text=text)
    try:
        write_text(args.out, text)
    except OSError as exc:
        raise UsageError(f"cannot write output: {exc.strerror or exc}", str(args.out)) from None
    return _done(args, issues)


def _done(args, issues, document=None, text=None) -> int:
    """The warnings on stderr; then the converted document (no --out) or the path written,
    or with --format json ``{"to", "out", "document", "issues"}``."""
    from d3mkit.commands.show import issue_dict, print_json, write
    print_issues(issues)
    if args.format == "json":
        print_json({"to": args.to, "out": None if args.out is None else str(args.out),
                    "document": document, "issues": [issue_dict(i) for i in issues]})
    elif text is not None:
        write(text)
    else:
        print(args.out)
    return EXIT_OK
