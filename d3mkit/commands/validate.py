"""``d3mkit validate PATH... [--datasets DIR] [--format text|json] [--strict]``;
``d3mkit validate --verify-digests ROOT...`` also checks each task root's files against the
digests its manifest recorded (:mod:`d3mkit.taskroot.digests`);
``d3mkit validate PREDICTIONS... --problem P [--targets T]`` checks predictions files as
``d3mkit score`` reads them (every issue, no scores). Every check comes from the registry
(:func:`d3mkit.validation.checks.load_checks`), the predictions check included.

Exit 0 valid, 1 invalid (warnings count only with ``--strict``), 2 usage error, an
unreadable PATH, or anything under it that could not be read (a directory that cannot be
listed, a file that cannot be opened): never a silent pass. The report goes to stdout; nothing is written.
"""

from __future__ import annotations

from pathlib import Path

from d3mkit.core.errors import EXIT_INVALID, EXIT_OK, EXIT_USAGE, UsageError


def add_parser(sub) -> None:
    p = sub.add_parser("validate", help="validate problemDoc/datasetDoc/dataSplits/learningData",
                       epilog="examples:\n  d3mkit validate out/wine\n  d3mkit validate problems/ --summary\n"
                              "  d3mkit validate preds.csv --problem out/wine --format json",
                       description="Validate D3M documents: JSON syntax, schema, problem <-> dataset, "
                                   "dataset files, dataSplits. PATH may be a document, a problem or "
                                   "dataset directory, a task root or any tree containing them.")
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    p.add_argument("--datasets", action="append", type=Path, default=[], metavar="DIR",
                   help="where to look for a problem's dataset by datasetID (repeatable)")
    from d3mkit.commands.options import add_format
    add_format(p, "one line per document and issue")
    p.add_argument("--strict", action="store_true", help="warnings make the documents invalid too")
    p.add_argument("--summary", action="store_true",
                   help="text format: list only the documents that fail, with their counts (for many roots)")
    p.add_argument("--verify-digests", action="store_true",
                   help="also check every file of each task root PATH against the sha256 digests its "
                        "_debug/manifest.json recorded: each changed, missing or unexpected file is an error")
    p.add_argument("--list-codes", action="store_true", help="print the issue codes and exit")
    p.add_argument("--problem", type=Path, metavar="P",
                   help="the PATHs are predictions files of this problem (directory, problemDoc.json "
                        "or task root): check them exactly as 'd3mkit score' reads them, without scoring")
    p.add_argument("--targets", type=Path, metavar="T",
                   help="with --problem: targets.csv holding the truth (default: the problem's dataset)")
    p.add_argument("--repeat", type=int, default=0, help="with --problem: dataSplits repeat (default 0)")
    p.add_argument("--fold", type=int, default=0, help="with --problem: dataSplits fold (default 0)")
    p.set_defaults(func=run)


def _codes(fmt: str) -> int:
    """``--list-codes``: the same table as ``d3mkit codes``."""
    from argparse import Namespace

    from d3mkit.commands.codes import run as codes
    return codes(Namespace(format=fmt))


def run(args) -> int:
    if args.list_codes:
        return _codes(args.format)
    if not args.paths:
        raise UsageError("validate needs at least one PATH (or --list-codes)")
    from d3mkit.core.errors import print_issues
    from d3mkit.validation.plugins import load_checks
    from d3mkit.validation.run import validate_paths, validate_predictions
    checks = load_checks()
    print_issues(checks.issues)    # a third-party check that could not be loaded: why it did not run
    if args.problem is not None:
        if args.verify_digests:
            raise UsageError("--verify-digests checks task roots, not predictions files (drop --problem)")
        report = validate_predictions(args.paths, args.problem, datasets=args.datasets, checks=checks,
                                      targets=args.targets, repeat=args.repeat, fold=args.fold)
    else:
        if args.targets is not None:
            raise UsageError("--targets needs --problem (it is the truth of predictions files)")
        report = validate_paths(args.paths, args.datasets, checks=checks)
        if args.verify_digests:
            from d3mkit.taskroot.model import verify_task_root
            for path in args.paths:
                manifest, issues = verify_task_root(path)
                report.add(manifest, "digests", issues)
    from d3mkit.commands.show import write
    write(report.to_json(args.strict) + "\n" if args.format == "json"
          else report.to_text(args.strict, summary=args.summary))
    if any(i.code == "file.unreadable" for i in report.issues()):
        return EXIT_USAGE    # a file that could not be read was not validated: never a pass
    return EXIT_OK if report.valid(args.strict) else EXIT_INVALID
