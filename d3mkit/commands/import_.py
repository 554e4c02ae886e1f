"""``d3mkit import table|arff|images|croissant SOURCE --out DIR``: package a user's data as a task root,
print its path (one line, like ``build``; ``--format json``: ``{"root", "issues"}``); warnings
(rows left out) on stderr."""

from __future__ import annotations

import argparse
from pathlib import Path

from d3mkit.commands import seed_value
from d3mkit.core.errors import print_issues

EXAMPLES = """examples:
  d3mkit import table data.csv --target label --out roots
  d3mkit import table sales.tsv.gz --target price --types types.json --split kFold --folds 5 --out roots
  d3mkit import arff dataset.arff --target class --splits datasplits.arff --out roots
  d3mkit import images photos/ --out roots
  d3mkit import croissant wine.croissant.json --record-set learningData --target class --out roots
"""


def _common(p, *, target: bool = True, target_help: str = "") -> None:
    p.add_argument("--out", type=Path, required=True, help="directory the task root is written into")
    if target:
        p.add_argument("--target", required=not target_help, default=None,
                       help=target_help or "target column (several: COL,COL)")
    p.add_argument("--name", default=None, help="task root name (default: the source's file name)")
    p.add_argument("--force", action="store_true", help="replace an existing task root of that name")
    if target:
        p.add_argument("--task", choices=["classification", "regression", "multiLabel"], default=None,
                       help="taskType (default: from the target's colType; multiLabel: classification/multiLabel)")
        p.add_argument("--subtype", default=None,
                       help="taskSubType (binary, multiClass, multiLabel, univariate, multivariate)")
        p.add_argument("--index", default=None, help="a column of unique integers to use as d3mIndex")
        p.add_argument("--types", type=Path, default=None, help='JSON file of colType overrides, e.g. {"zip": "categorical"}')
        p.add_argument("--ignore", default=None, metavar="COL,...", help="columns to leave out of the task root")
    p.add_argument("--metric", action="append", default=None, help="a performance metric (repeatable; "
                   "replaces the task's defaults)")
    p.add_argument("--split", choices=["holdOut", "kFold"], default="holdOut", help="split method (default holdOut)")
    p.add_argument("--test-size", type=float, default=0.2, help="holdOut TEST share (default 0.2)")
    p.add_argument("--folds", type=int, default=5, help="kFold folds (default 5)")
    p.add_argument("--repeats", type=int, default=0, help="numRepeats (default 0: one repeat)")
    p.add_argument("--stratified", action=argparse.BooleanOptionalAction, default=None,
                   help="stratify on the target (default: for classification)")
    p.add_argument("--seed", type=seed_value, default=0, help="split seed (same seed, same bytes)")
    if target:
        r = p.add_argument_group("reading the cells")
        r.add_argument("--na-values", default=None, metavar="TOKENS",
                       help="comma-separated cells that are missing values in a numeric or date column "
                            "(default: NA,N/A,n/a,NaN,nan,null,NULL,?; empty cells always are)")
        r.add_argument("--keep-text", action="store_true",
                       help="no cell is a missing value but an empty one: a column with NA cells stays text")
    m = p.add_argument_group("what the data is (the datasetDoc's about; exports carry it)")
    m.add_argument("--license", default=None, help="the data's licence, e.g. CC-BY-4.0 (default: unknown; "
                   "d3mkit never invents one)")
    m.add_argument("--description", default=None, help="a description of the dataset")
    m.add_argument("--citation", default=None, help="how to cite the data")
    m.add_argument("--source-url", default=None, help="where the data comes from (the datasetDoc's sourceURI)")
    from d3mkit.commands.options import add_format
    add_format(p, "the task root's path")


def add_parser(sub) -> None:
    p = sub.add_parser("import", help="package your own table, ARFF file or image folder as a task root",
                       epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    kinds = p.add_subparsers(dest="source_kind", metavar="SOURCE", parser_class=type(p))
    kinds.required = True
    t = kinds.add_parser("table", help="a CSV, TSV, gzip-compressed CSV/TSV or Parquet table",
                         epilog="examples:\n  d3mkit import table data.csv --target label --out roots\n"
                                "  d3mkit import table sales.tsv.gz --target price --split kFold --folds 5 --out roots")
    t.add_argument("file", type=Path, help="the table: .csv, .tsv/.tab, .csv.gz/.tsv.gz, .parquet")
    t.add_argument("--media", type=Path, default=None,
                   help="directory holding the files a column names (becomes a media collection)")
    d = t.add_argument_group("the file's dialect (default: sniffed from the first lines)")
    d.add_argument("--sep", default=None, help="the delimiter: ',', ';', '\\t' (tab), '|', or 'whitespace' "
                   "(default: sniffed)")
    d.add_argument("--comment", default=None, metavar="CHAR", help="a character that starts a comment line, e.g. '#'")
    d.add_argument("--skip-rows", type=int, default=0, metavar="N", help="lines before the header to skip")
    _common(t)
    t.set_defaults(func=_run_table)
    a = kinds.add_parser("arff", help="an ARFF file (an OpenML dataset), optionally with its split file",
                         epilog="example:\n  d3mkit import arff dataset.arff --target class --splits datasplits.arff "
                                "--out roots")
    a.add_argument("file", type=Path, help="the ARFF file (an OpenML dataset)")
    a.add_argument("--splits", type=Path, default=None,
                   help="an OpenML estimation-procedure split file (ARFF rows type,rowid,repeat,fold)")
    _common(a)
    a.set_defaults(func=_run_arff)
    c = kinds.add_parser("croissant", help="a CSV record set of a local Croissant 1.0/1.1 JSON-LD file",
                         epilog="example:\n  d3mkit import croissant wine.croissant.json --record-set learningData "
                                "--target class --out roots")
    c.add_argument("file", type=Path)
    c.add_argument("--record-set", default=None, metavar="RS",
                   help="the record set to import (its @id or name); not for a Croissant Tasks TaskProblem file, "
                        "whose output fields name it")
    _common(c, target_help="target field (several: F,F); default: the targets of the file's d3m:problem, whose "
                           "task type, metrics and description then apply too (--task, --subtype, --metric replace them)")
    c.set_defaults(func=_run_croissant)
    i = kinds.add_parser("images", help="an ImageFolder directory: one sub-folder of images per class",
                         epilog="example:\n  d3mkit import images photos/ --out roots")
    i.add_argument("directory", type=Path, help="DIR holding one sub-folder of images per class")
    i.add_argument("--strict", action="store_true", help="refuse files that are not images (default: skipped "
                   "and listed)")
    _common(i, target=False)
    i.set_defaults(func=_run_images)


def _keywords(args, *, target: bool = True) -> dict:
    kw = dict(out=args.out, name=args.name, metrics=args.metric, split=args.split, test_size=args.test_size,
              folds=args.folds, repeats=args.repeats, stratified=args.stratified, seed=args.seed, force=args.force)
    for k in ("license", "description", "citation", "source_url"):    # given only: a source may bring its own
        if getattr(args, k, None) is not None:
            kw[k] = getattr(args, k)
    if target:
        kw.update(target=args.target, task=args.task, subtype=args.subtype, index=args.index,
                  types=args.types, keep_text=args.keep_text)
        if args.na_values is not None:
            kw["na_values"] = [v.strip() for v in args.na_values.split(",")]
    if getattr(args, "media", None) is not None:
        kw["media"] = args.media
    if getattr(args, "ignore", None):
        kw["ignore"] = args.ignore
    if hasattr(args, "sep"):
        from d3mkit.importing.dialect import WHITESPACE
        sep = {"whitespace": WHITESPACE, "\\t": "\t", "tab": "\t"}.get(args.sep, args.sep)
        kw.update(sep=sep, comment=args.comment, skip_rows=args.skip_rows)
    return kw


def _done(result, args) -> int:
    import sys
    print_issues(result.issues)
    if result.decided:          # what was decided and how to change it: one line on stderr
        print(f"{result.root.name}: {result.decided}", file=sys.stderr)
    if args.format == "json":
        from d3mkit.commands.show import issue_dict, print_json
        print_json({"root": str(result.root), "decided": result.decided,
                    "issues": [issue_dict(i) for i in result.issues]})
    else:
        print(result.root)
    return 0


def _run_table(args) -> int:
    from d3mkit.importing.table import import_frame
    return _done(import_frame(args.file, **_keywords(args)), args)


def _run_arff(args) -> int:
    from d3mkit.importing.arff import import_arff_result
    return _done(import_arff_result(args.file, splits=args.splits, **_keywords(args)), args)


def _run_croissant(args) -> int:
    from d3mkit.core.errors import UsageError
    from d3mkit.importing.croissant import import_croissant_result, is_url
    if not is_url(args.file):
        from d3mkit.documents.jsonio import load_json
        from d3mkit.importing.tasks import import_task_problem_result, is_task_problem
        if is_task_problem(load_json(args.file)):      # a Croissant Tasks TaskProblem with its dataset
            if args.record_set is not None:
                raise UsageError("--record-set is for a Croissant dataset file; a TaskProblem's output names "
                                 "its record set", str(args.file))
            return _done(import_task_problem_result(args.file, **_keywords(args)), args)
    if args.record_set is None:
        raise UsageError("name the record set to import (--record-set RS)", str(args.file))
    return _done(import_croissant_result(args.file, record_set=args.record_set, **_keywords(args)), args)


def _run_images(args) -> int:
    from d3mkit.importing.images import import_images_result
    return _done(import_images_result(args.directory, strict=args.strict, **_keywords(args, target=False)), args)
