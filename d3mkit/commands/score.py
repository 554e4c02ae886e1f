"""``d3mkit score --problem P --predictions F [--dataset D | --targets T]``: check a
predictions file against the truth and print or write its scores."""

from __future__ import annotations

import sys
from pathlib import Path

from d3mkit.errors import D3MKitError, UsageError


def add_parser(sub) -> None:
    p = sub.add_parser("score", help="score a predictions.csv against the truth")
    p.add_argument("--problem", type=Path, required=True,
                   help="problem directory, problemDoc.json or task root")
    p.add_argument("--predictions", type=Path, required=True, help="predictions.csv")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--dataset", type=Path, help="dataset directory or datasetDoc.json "
                     "(default: the dataset with the problem's datasetID beside the problem)")
    src.add_argument("--targets", type=Path, help="targets.csv holding the truth (every row scored)")
    p.add_argument("--repeat", type=int, default=0, help="dataSplits repeat (default 0)")
    p.add_argument("--fold", type=int, default=0, help="dataSplits fold (default 0)")
    p.add_argument("--metadata-dir", type=Path, metavar="DIR",
                   help="directory of the per-row metadata files custom metrics read "
                        "(default: the task root's <name>_debug)")
    p.add_argument("--output", type=Path, help="write scores.csv here (atomically)")
    p.add_argument("--format", choices=["csv", "json"], default="csv",
                   help="what to print on stdout (default csv)")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from d3mkit.scoring.resolve import NoDataset, resolve
    from d3mkit.scoring.score import ScoreReport, score_predictions, write_scores

    if args.output is not None:
        from d3mkit.atomic import check_output_file
        check_output_file(args.output, "--output")
    # an --output that is one of the files read is refused when written (d3mkit.readlog)
    try:
        res = resolve(args.problem, dataset=args.dataset, targets=args.targets,
                      metadata_dir=args.metadata_dir)
    except NoDataset as exc:
        raise UsageError(f"no dataset with datasetID {exc.dataset_id!r} in the task root; "
                         f"pass --dataset DIR or --targets targets.csv", exc.issues[0].path) from None
    problem = res.problem
    try:
        report = score_predictions(res, args.predictions, repeat=args.repeat, fold=args.fold)
    except D3MKitError as exc:
        if args.format == "json" and exc.exit_code == 1:
            sys.stdout.write(ScoreReport(problem.problem_id, [], exc.issues).to_json())
        raise
    for issue in report.issues:
        print(issue.format(), file=sys.stderr)
    if args.output is not None:
        write_scores(report, args.output)
    if args.format == "json":
        sys.stdout.write(report.to_json())
    elif args.output is None:
        sys.stdout.write(report.to_frame().to_csv(index=False, lineterminator="\n"))
    return 0
