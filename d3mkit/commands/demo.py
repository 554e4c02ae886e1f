"""``d3mkit demo``: every benchmark end to end on the data d3mkit ships or generates."""

from __future__ import annotations

import sys
import time
from pathlib import Path



def add_parser(sub) -> None:
    p = sub.add_parser("demo", help="build, validate, train and score every benchmark on embedded data")
    p.add_argument("--out", type=Path, default=Path("d3mkit-demo"), help="output directory (replaced)")
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    p.add_argument("--only", action="append", default=None,
                   help="run only these parts (one per benchmark: tabular, value, visudo, abstraction, prism, "
                        "and any installed plug-in's)")
    p.set_defaults(func=_run)


def _echo(msg: str = "") -> None:
    print(msg, flush=True)


def _run(args) -> int:
    from d3mkit.errors import UsageError
    from d3mkit.benchmarks.plugins import benchmarks
    parts = {name: b.demo for name, b in benchmarks().items() if b.demo is not None}
    unknown = [p for p in args.only or () if p not in parts]
    if unknown:
        raise UsageError(f"--only {', '.join(unknown)}: unknown part (known: {', '.join(parts)})")
    from d3mkit.atomic import check_output_dir
    check_output_dir(args.out, "--out")
    args.out.mkdir(parents=True, exist_ok=True)
    for part, demo in parts.items():
        if args.only and part not in args.only:
            continue
        t0 = time.perf_counter()
        _echo(f"== {part} ==")
        demo(args.out / part, args.device, _echo)
        _echo(f"   ({time.perf_counter() - t0:.1f} s)")
    _echo(f"demo output in {args.out}")
    return 0
