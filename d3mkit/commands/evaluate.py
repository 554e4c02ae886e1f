"""``d3mkit evaluate --problems DIR --submissions DIR --out DIR [--workers N | --scheduler A]``:
score every system's submissions on every problem; write scores.csv, failures.csv and
leaderboard.html (see :mod:`d3mkit.evaluate`)."""

from __future__ import annotations

import sys
from pathlib import Path

from d3mkit.errors import UsageError


def add_parser(sub) -> None:
    from d3mkit.executor import add_executor_arguments
    p = sub.add_parser("evaluate", help="score many systems on many problems: scores, failures, leaderboard")
    p.add_argument("--problems", type=Path, required=True,
                   help="directory holding the problems (task roots or problem directories)")
    p.add_argument("--submissions", type=Path, required=True,
                   help="SUBMISSIONS/<system>/<problemID>/predictions.csv")
    p.add_argument("--out", type=Path, required=True,
                   help="directory for scores.csv, failures.csv and leaderboard.html")
    add_executor_arguments(p, "scoring")
    p.add_argument("--max-size-mb", type=float, default=None,
                   help="predictions files over this size are failures, not read (default: the "
                        "d3mkit file limit, D3MKIT_MAX_FILE_BYTES, 4 GiB)")
    p.add_argument("--no-cache", action="store_true",
                   help="rescore everything (default: reuse results whose inputs did not change)")
    p.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    p.set_defaults(func=_run)


def _inside(child: Path, parent: Path) -> bool:
    from d3mkit.paths import outside_reason
    return outside_reason(parent, child) is None


def _run(args) -> int:
    from d3mkit.evaluate.campaign import run_campaign
    from d3mkit.executor import from_args
    for opt, path in (("--problems", args.problems), ("--submissions", args.submissions)):
        if not path.is_dir():
            raise UsageError(f"{opt} is not a directory", str(path))
    from d3mkit.atomic import check_output_dir
    check_output_dir(args.out, "--out")
    for opt, path in (("--problems", args.problems), ("--submissions", args.submissions)):
        if _inside(args.out, path) or _inside(path, args.out):
            raise UsageError(f"--out must be outside {opt} (and not hold it)", str(args.out))
    if args.max_size_mb is not None and not args.max_size_mb > 0:
        raise UsageError(f"--max-size-mb must be positive, got {args.max_size_mb}")
    with from_args(args) as ex:
        camp = run_campaign(args.problems, args.submissions, args.out, ex,
                            progress=not args.quiet and sys.stderr.isatty(),
                            max_bytes=None if args.max_size_mb is None else int(args.max_size_mb * (1 << 20)),
                            use_cache=not args.no_cache)
    if not camp.discovery.problems and not args.quiet:
        print(f"{args.problems}: warning: no usable problemDoc.json found", file=sys.stderr)
    if not args.quiet:
        n_fail = sum(1 for o in camp.outcomes if o.failures)
        print(f"{len(camp.discovery.systems)} systems x {len(camp.discovery.problems)} problems: "
              f"{len(camp.outcomes) - n_fail} scored, {n_fail} failed, "
              f"{len(camp.failures)} rows in failures.csv ({camp.scored} scored now, "
              f"{camp.reused} from the cache; {ex.describe()})", file=sys.stderr)
    for name in ("scores.csv", "failures.csv", "leaderboard.html"):
        print(args.out / name)
    return 0
