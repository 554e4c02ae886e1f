"""``d3mkit export croissant ROOT [--out FILE] [--rai RAI.json] [--tasks] [--force]``: the task root as
Croissant 1.1 JSON-LD (:mod:`d3mkit.interop.croissant`), with ``--tasks`` its problem as a Croissant
Tasks TaskProblem beside it (:mod:`d3mkit.interop.tasks`);
``d3mkit export croissant BOARD --results [--out FILE]``: an evaluate board's scores as Croissant
Tasks solutions and results (:mod:`d3mkit.interop.results`);
``d3mkit export openml ROOT --out DIR [--force]``: dataset.arff and splits.arff in OpenML's
task layout (:mod:`d3mkit.interop.openml`, needs the ``[arff]`` extra);
``d3mkit export hf ROOT --out DIR [--repeat N --fold N] [--force]``: the task root as a
Hugging Face ``datasets`` DatasetDict saved with ``save_to_disk`` (:mod:`d3mkit.interop.hf`,
needs the ``[hf]`` extra).

A task root that does not validate is refused with its issues (exit 1) unless ``--force``
(the Croissant file then lists them); ``--force`` also replaces an existing output. An
output inside the task root is a usage error (exit 2). Warnings (a missing RAI field) go to
stderr; the path written goes to stdout (``--format json``: ``{"to", "out", "issues"}``).
"""

from __future__ import annotations

from pathlib import Path

from d3mkit.core.errors import EXIT_OK, UsageError, print_issues


def add_parser(sub) -> None:
    p = sub.add_parser("export", help="write a task root as Croissant 1.1 JSON-LD or a Hugging Face dataset",
                       description="Export a task root to another dataset format.",
                       epilog="examples:\n  d3mkit export croissant out/wine\n"
                              "  d3mkit export hf out/wine --out wine_hf")
    fmt = p.add_subparsers(dest="to", metavar="FORMAT")
    fmt.required = True
    c = fmt.add_parser("croissant", help="Croissant 1.1 JSON-LD with splits and RAI fields",
                       epilog="example:\n  d3mkit export croissant out/wine --rai rai.json")
    c.add_argument("root", type=Path, metavar="ROOT", help="the task root")
    c.add_argument("--out", type=Path, metavar="FILE",
                   help="the Croissant file (default: ROOT's name + .croissant.json beside ROOT); it must "
                        "lie in a directory holding ROOT, since it names the files relative to itself")
    c.add_argument("--rai", type=Path, metavar="RAI.json",
                   help="a JSON object of Croissant RAI fields (dataCollection, dataBiases, dataLimitations, "
                        "personalSensitiveInformation, dataUseCases, ...), over the manifest's and the "
                        "benchmark's")
    c.add_argument("--force", action="store_true",
                   help="export a task root that does not validate (the file lists its issues) and replace "
                        "an existing output")
    c.add_argument("--tasks", action="store_true",
                   help="also write the problem as a Croissant Tasks TaskProblem, <name>_task.json beside the "
                        "Croissant file")
    c.add_argument("--results", action="store_true",
                   help="ROOT is the output directory of d3mkit evaluate: write its scores as Croissant Tasks "
                        "TaskSolutions and EvaluationResults (default --out: BOARD/results_tasks.json)")
    from d3mkit.commands.options import add_format
    add_format(c, "the path written")
    c.set_defaults(func=run_croissant)
    h = fmt.add_parser("hf", help="a Hugging Face datasets DatasetDict (save_to_disk), one split per TRAIN/TEST",
                       epilog="example:\n  d3mkit export hf out/wine --out wine_hf --repeat 0 --fold 0")
    h.add_argument("root", type=Path, metavar="ROOT", help="the task root")
    h.add_argument("--out", type=Path, required=True, metavar="DIR", help="the directory to create")
    h.add_argument("--repeat", type=int, default=0, help="which repeat of dataSplits (default 0)")
    h.add_argument("--fold", type=int, default=0, help="which fold of dataSplits (default 0)")
    h.add_argument("--force", action="store_true",
                   help="export a task root that does not validate and replace an existing --out")
    add_format(h, "the path written")
    h.set_defaults(func=run_hf)
    o = fmt.add_parser("openml", help="OpenML's files of a task: dataset.arff, splits.arff (type, rowid, repeat, fold)",
                       epilog="example:\n  d3mkit export openml out/wine --out wine_openml")
    o.add_argument("root", type=Path, metavar="ROOT", help="the task root")
    o.add_argument("--out", type=Path, required=True, metavar="DIR", help="the directory to create")
    o.add_argument("--force", action="store_true", help="replace an existing --out")
    add_format(o, "the directory written")
    o.set_defaults(func=run_openml)


def _root(path: Path) -> Path:
    from d3mkit.importing.croissant import is_url
    if is_url(path):
        raise UsageError("a task root is a local directory, not a URL (nothing is downloaded)", str(path),
                         code="usage.path")
    if not path.exists():
        raise UsageError("path does not exist", str(path), code="usage.path")
    return path


def run_croissant(args) -> int:
    from d3mkit.interop.croissant import default_out, export_croissant, read_rai
    root = _root(args.root)
    if args.results:
        from d3mkit.interop.results import export_results, results_out
        if args.tasks:
            raise UsageError("--results and --tasks do not go together (--results reads an evaluate board)", "")
        out = args.out if args.out is not None else results_out(root)
        if out.exists() and not args.force:
            raise UsageError("output exists; use --force to replace it", str(out))
        return _done(args, out, export_results(root, out))
    out = args.out if args.out is not None else default_out(root)
    if out.exists() and not args.force:
        raise UsageError("output exists; use --force to replace it", str(out))
    if args.tasks:
        from d3mkit.interop.tasks import task_file
        from d3mkit.taskroot.model import TaskRoot
        tasks = task_file(out, TaskRoot.open(root).name)
        if tasks.exists() and not args.force:
            raise UsageError("output exists; use --force to replace it", str(tasks))
    rai = read_rai(args.rai) if args.rai is not None else None
    issues = export_croissant(root, out, rai=rai, rai_path=str(args.rai or ""), force=args.force)
    if args.tasks:
        from d3mkit.interop.tasks import export_task_problem
        return _done(args, out, issues, tasks=export_task_problem(root, out))
    return _done(args, out, issues)


def run_hf(args) -> int:
    from d3mkit.interop.hf import export_hf
    root = _root(args.root)
    return _done(args, args.out, export_hf(root, args.out, repeat=args.repeat, fold=args.fold, force=args.force))


def run_openml(args) -> int:
    from d3mkit.interop.openml import export_openml
    root = _root(args.root)
    return _done(args, args.out, export_openml(root, args.out, force=args.force))


def _done(args, out: Path, issues, tasks: Path | None = None) -> int:
    """The warnings on stderr, then the path written (``--format json``: ``{"to", "out", "issues"}``);
    with ``tasks`` (``--tasks``) the TaskProblem file's path too (a second line; JSON ``"tasks"``)."""
    print_issues(issues)
    if args.format == "json":
        from d3mkit.commands.show import issue_dict, print_json
        print_json({"to": args.to, "out": str(out), **({"tasks": str(tasks)} if tasks else {}),
                    "issues": [issue_dict(i) for i in issues]})
    else:
        print(out)
        if tasks:
            print(tasks)
    return EXIT_OK
