"""``d3mkit score --problem P --predictions F [--datasets DIR | --targets T]``: check a
predictions file against the truth and print (or write, ``--out``) its scores."""

from __future__ import annotations

import sys
from pathlib import Path

from d3mkit.core.errors import D3MKitError, UsageError

EXAMPLES = """examples:
  d3mkit score --problem out/wine --predictions out/wine/wine_solution/predictions.csv
  d3mkit score --problem P --predictions F --out scores.csv --format json
"""


def add_parser(sub) -> None:
    p = sub.add_parser("score", help="score a predictions.csv against the truth", epilog=EXAMPLES,
                       description="Score a predictions file against the truth: the problem's metrics, "
                                   "printed as a metric/value table (or JSON), and with --out written to "
                                   "a scores.csv with the D3M columns index,problemID,metric,value.")
    p.add_argument("--problem", type=Path, required=True,
                   help="problem directory, problemDoc.json or task root")
    p.add_argument("--predictions", type=Path, required=True, help="predictions.csv")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--datasets", type=Path, action="append", default=[], metavar="DIR",
                     help="where to look for the problem's dataset by datasetID when it is not beside "
                          "the problem (repeatable)")
    src.add_argument("--targets", type=Path, help="targets.csv holding the truth (every row scored)")
    p.add_argument("--repeat", type=int, default=0, help="dataSplits repeat (default 0)")
    p.add_argument("--fold", type=int, default=0, help="dataSplits fold (default 0)")
    p.add_argument("--metadata-dir", type=Path, metavar="DIR",
                   help="directory of the per-row metadata files custom metrics read "
                        "(default: the task root's <name>_debug)")
    p.add_argument("--out", type=Path, metavar="FILE", help="write scores.csv here (atomically)")
    p.add_argument("--force", action="store_true", help="replace an existing --out file")
    p.add_argument("--format", choices=["text", "json", "csv"], default="text", metavar="{text,json}",
                   help="what to print on stdout: a metric/value table (default) or JSON")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from d3mkit.scoring.resolve import NoDataset, resolve
    from d3mkit.scoring.score import ScoreReport, score_predictions, write_scores

    if args.format == "csv":
        print("d3mkit: warning: --format csv is deprecated and goes in the next release; the file "
              "is written with --out, the terminal form is --format text", file=sys.stderr)
    from d3mkit.commands.options import must_exist
    must_exist(args.problem, args.predictions, args.targets, *args.datasets)
    if args.out is not None:
        from d3mkit.io.atomic import check_output_file
        check_output_file(args.out, "out")
        if args.out.exists() and not args.force:
            raise UsageError(f"{args.out} already exists (pass --force to replace it)", str(args.out),
                             code="output.exists")
    # an --out that is one of the files read is refused when written (d3mkit.io.readlog)
    search = [d.parent if d.is_file() else d for d in args.datasets]   # old --dataset F: its directory
    try:
        res = resolve(args.problem, targets=args.targets, metadata_dir=args.metadata_dir, search=search)
    except NoDataset as exc:
        raise UsageError(f"no dataset with datasetID {exc.dataset_id!r} in {', '.join(exc.places)}; "
                         f"pass --datasets DIR or --targets targets.csv", exc.issues[0].path,
                         code="usage.path") from None
    problem = res.problem
    try:
        report = score_predictions(res, args.predictions, repeat=args.repeat, fold=args.fold)
    except D3MKitError as exc:
        if args.format == "json" and exc.exit_code == 1:
            from d3mkit.commands.show import write
            write(ScoreReport(problem.problem_id, [], exc.issues).to_json())
        raise
    from d3mkit.commands.show import print_scores, write
    for issue in report.issues:
        print(issue.format(), file=sys.stderr)
    if args.out is not None:
        write_scores(report, args.out)
    if args.format == "json":
        write(report.to_json())
    elif args.format == "csv":
        write(report.to_frame().to_csv(index=False, lineterminator="\n"))
    else:
        print_scores(report.scores)
        if args.out is not None:
            print(f"wrote {args.out}", file=sys.stderr)
    return 0
