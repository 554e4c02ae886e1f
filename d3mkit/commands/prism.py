"""``d3mkit prism extract|query``: PRISM weak-supervision strategies (thin wrappers over
:mod:`d3mkit.benchmarks.prism.extract` and :mod:`d3mkit.benchmarks.prism.query`)."""

from __future__ import annotations

from pathlib import Path

from d3mkit.commands import seed_value


def add_parser(sub) -> None:
    p = sub.add_parser("prism", help="PRISM weak supervision: extraction from captions, caption querying",
                       epilog="examples:\n  d3mkit prism extract --captions captions.txt --out matches.jsonl\n"
                              "  d3mkit prism query --premises premises.txt --captions captions.txt --top-k 10")
    cmds = p.add_subparsers(dest="prism_command", metavar="COMMAND", parser_class=type(p))
    cmds.required = True

    e = cmds.add_parser("extract", help="Extraction from Captions with the Table 3 labeling functions",
                        epilog="examples:\n  d3mkit prism extract --captions captions.txt --out matches.jsonl\n"
                               "  d3mkit prism extract --captions coco.json --format manifest --out manifest.csv",
                        description="One JSON object (or CSV row) per matched sentence: caption_id, sentence "
                                    "(preprocessed, lower case), action, precondition, label (allow|prevent), "
                                    "lf, precision. When several labeling functions match a sentence, the one "
                                    "with the higher precision wins. A summary goes to stderr.")
    e.add_argument("--captions", type=Path, required=True,
                   help=".txt (one caption per line), .csv/.jsonl (id and caption fields), .tsv (Conceptual "
                        "Captions: caption TAB url) or .json (COCO / VizWiz captions)")
    e.add_argument("--threshold", type=float, default=0.6,
                   help="enable labeling functions with precision at or above this (default 0.6)")
    e.add_argument("--format", choices=["jsonl", "csv", "manifest"], default="jsonl",
                   help="output format; manifest = a CSV manifest for 'd3mkit build prism' (needs an "
                        "image field in the caption records)")
    e.add_argument("--input-format", choices=["text", "csv", "jsonl", "cc", "coco"], default=None,
                   help="caption file format (default: from the extension; an unknown extension is refused)")
    e.add_argument("--loose-slots", action="store_true",
                   help="do not apply PInKS' slot constraints (at least 10 characters, no commas or "
                        "other punctuation)")
    e.add_argument("--out", type=Path, default=None, metavar="FILE", help="write here instead of stdout")
    e.add_argument("--force", action="store_true", help="replace an existing --out file")
    e.add_argument("--lfs", type=Path, default=None,
                   help="JSON list of labeling functions replacing Table 3")
    e.add_argument("--max-chars", type=int, default=2000,
                   help="skip (and count) sentences longer than this (default 2000)")
    e.set_defaults(func=_extract, _flags={"output": "--out"})

    q = cmds.add_parser("query", help="Caption Querying: ground premises in captions",
                        epilog="example:\n  d3mkit prism query --premises premises.txt --captions captions.txt "
                               "--top-k 10 --encoders tfidf,lsa")
    q.add_argument("--premises", type=Path, required=True,
                   help="text file (one premise per line) or CSV/JSONL with id and premise/text fields")
    q.add_argument("--captions", type=Path, required=True,
                   help="text file (one caption per line) or CSV/JSONL with id and caption fields")
    q.add_argument("--top-k", type=int, default=50, help="captions ranked per encoder (default 50)")
    q.add_argument("--encoders", default="default",
                   help="comma-separated: tfidf, tfidf-char, lsa, st:MODEL_NAME_OR_PATH, paper (the paper's three "
                        "sentence-transformers models), default (tfidf, tfidf-char, lsa and the paper's models "
                        "found installed and cached); one encoder warns: agreement undefined, Copeland trivial")
    q.add_argument("--no-length-filter", action="store_true",
                   help="keep texts outside one standard deviation of the mean length")
    q.add_argument("--format", choices=["jsonl", "csv"], default="jsonl", help="output format")
    q.add_argument("--out", type=Path, default=None, metavar="FILE", help="write here instead of stdout")
    q.add_argument("--force", action="store_true", help="replace an existing --out file")
    q.add_argument("--seed", type=seed_value, default=0, help="seed for encoders that use one (lsa)")
    q.set_defaults(func=_query, _flags={"output": "--out"})


def _extract(args) -> int:
    from d3mkit.benchmarks.prism.extract import run_extract
    from d3mkit.commands.options import must_exist
    must_exist(args.captions, args.lfs)
    _check_output(args)
    run_extract(args.captions, threshold=args.threshold, fmt=args.format,
                input_format=args.input_format, output=args.out, lfs_path=args.lfs,
                max_chars=args.max_chars, strict_slots=not args.loose_slots)
    return 0


def _check_output(args) -> None:
    """``--out`` may be written: a regular file name, new unless ``--force``."""
    if args.out is not None:
        from d3mkit.io.atomic import check_output_file
        from d3mkit.core.errors import OutputExists
        check_output_file(args.out, "out")
        if args.out.exists() and not args.force:
            raise OutputExists(args.out)


def _query(args) -> int:
    from d3mkit.benchmarks.prism.query import run_query
    from d3mkit.commands.options import must_exist
    must_exist(args.premises, args.captions)
    _check_output(args)
    run_query(args.premises, args.captions, top_k=args.top_k, encoders=args.encoders,
              length_filter=not args.no_length_filter, fmt=args.format, output=args.out,
              seed=args.seed)
    return 0
