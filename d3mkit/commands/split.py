"""``d3mkit split PROBLEM_DIR``: (re)write the splits file a problemDoc names."""

from __future__ import annotations

from pathlib import Path

from d3mkit.errors import UsageError


def add_parser(sub) -> None:
    p = sub.add_parser("split", help="write dataSplits.csv from a problemDoc's dataSplits section")
    p.add_argument("problem_dir", type=Path, help="problem directory, its problemDoc.json or the task root")
    p.add_argument("--datasets", type=Path, action="append", default=[],
                   help="where to look for the dataset when it is not in the same task root (repeatable)")
    p.add_argument("--force", action="store_true", help="replace a splits file with different content")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from d3mkit.docs import ProblemDoc
    from d3mkit.errors import D3MKitError, error
    from d3mkit.splits import find_dataset, make_splits, spec_issues, splits_bytes, splits_path, summary, write_splits
    from d3mkit.tables import read_table

    from d3mkit.commands.score import require_dataset_id
    from d3mkit.taskroot import find_name
    for d in args.datasets:
        if not d.is_dir():
            raise UsageError("--datasets needs an existing directory", str(d))
    p = args.problem_dir
    doc_path = p if p.is_file() else p / "problemDoc.json"
    if not doc_path.is_file() and p.is_dir() and find_name(p) is not None:
        doc_path = p / f"{find_name(p)}_problem" / "problemDoc.json"   # a task root
    if not doc_path.is_file():
        raise UsageError("no problemDoc.json here", str(doc_path))
    problem = ProblemDoc.load(doc_path)
    require_dataset_id(problem, doc_path)
    spec, issues = spec_issues(problem)
    if spec is None:
        raise D3MKitError(issues)
    dataset = find_dataset(problem, tuple(args.datasets))
    res = dataset.learning_data
    if res is None:
        raise D3MKitError(error("splits.no_learning_data", "dataResources",
                                "dataset has no learningData table", str(dataset.path)))
    ld_path = dataset.resource_path(res)
    try:
        learning_data = read_table(ld_path)
    except FileNotFoundError:
        raise D3MKitError.single(ld_path, "file.missing", "", "learningData file does not exist") from None
    except Exception as exc:  # pandas parser errors, encoding errors
        raise D3MKitError.single(ld_path, "csv.unreadable", "", f"cannot read learningData: {exc}") from None
    splits = make_splits(problem, learning_data, dataset)
    out = splits_path(doc_path.parent, spec.splits_file)
    new = splits_bytes(splits)
    if out.exists():
        same = out.read_bytes() == new
        if not same and not args.force:
            raise UsageError(f"{out} exists with different content (pass --force to replace it)", str(out))
    else:
        same = False
    if same:
        print(f"{out}: up to date, {len(splits)} rows ({spec.describe()})")
    else:
        write_splits(splits, out)
        print(f"wrote {out}: {len(splits)} rows ({spec.describe()})")
    for line in summary(splits):
        print(f"  {line}")
    return 0
