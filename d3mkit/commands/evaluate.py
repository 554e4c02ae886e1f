"""``d3mkit evaluate --problems DIR --submissions DIR --out DIR [--workers N | --scheduler A]``:
score every system's submissions on every problem and fold, with bootstrap intervals,
paired comparisons and the Friedman/Nemenyi test; write the outputs and the leaderboard
(see :mod:`d3mkit.evaluate`). ``d3mkit evaluate --example DIR`` writes a small campaign to
try it on."""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

from d3mkit.commands import seed_value
from d3mkit.core.errors import UsageError, print_issues

FAIL_ON = ("failures", "missing", "none")


def add_parser(sub) -> None:
    from d3mkit.io.executor import add_executor_arguments
    p = sub.add_parser("evaluate", help="score many systems on many problems: scores, statistics, leaderboard",
                       epilog="examples:\n  d3mkit evaluate --example demo-campaign\n"
                              "  d3mkit evaluate --problems problems --submissions runs --out board\n"
                              "(runs/<system>/<problemID>/predictions.csv; board/leaderboard.html)")
    p.add_argument("--example", type=Path, default=None, metavar="DIR",
                   help="write a small runnable campaign (problems and 4 systems' submissions, one "
                        "broken) into DIR and print the command that evaluates it")
    p.add_argument("--problems", type=Path, default=None,
                   help="directory holding the problems (task roots or problem directories)")
    p.add_argument("--submissions", type=Path, default=None,
                   help="SUBMISSIONS/<system>/<problemID>/predictions.csv (or .../repeat_R/fold_F/predictions.csv)")
    p.add_argument("--out", type=Path, default=None,
                   help="directory for scores.csv, aggregates.csv, failures.csv, comparisons.csv, "
                        "summary.json and leaderboard.html (replaced as a whole)")
    add_executor_arguments(p, "scoring")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                   help="bootstrap resamples for the confidence intervals and paired tests (default 1000; "
                        "0 turns the intervals and comparisons off)")
    p.add_argument("--confidence", type=float, default=0.95, help="confidence of the intervals (default 0.95)")
    p.add_argument("--seed", type=seed_value, default=0, help="seed of the resamples (default 0)")
    p.add_argument("--elo-reference", default=None, metavar="SYSTEM",
                   help="pin this system's Elo at 1000 (default: the ratings average 1000)")
    p.add_argument("--rope", type=float, default=0.01,
                   help="region of practical equivalence of the Bayesian signed-rank test, on the metric's "
                        "scale (default 0.01)")
    p.add_argument("--cd-test", choices=("wilcoxon", "nemenyi"), default="wilcoxon",
                   help="groups of the critical-difference diagram: pairwise Wilcoxon signed-rank tests with "
                        "Holm's correction (default) or Nemenyi's critical difference of mean ranks")
    p.add_argument("--partial", choices=("last", "mean"), default="last",
                   help="rank a system that scored only some folds of a problem after the complete ones "
                        "(last, the default) or by its mean over the folds it scored (mean)")
    p.add_argument("--max-size-mb", type=float, default=None,
                   help="predictions files over this size are failures, not read (default: the "
                        "d3mkit file limit, D3MKIT_MAX_FILE_BYTES, 4 GiB)")
    p.add_argument("--no-cache", action="store_true",
                   help="rescore everything (default: reuse results whose inputs did not change)")
    p.add_argument("--fail-on", choices=FAIL_ON, default="none",
                   help="exit 1 when failures.csv has any row (failures), when a submission or fold is "
                        "missing (missing), or never for failed submissions (none, the default)")
    p.add_argument("--force", action="store_true",
                   help="replace --out even when it holds files that are not a campaign's outputs")
    p.add_argument("--quiet", action="store_true", help="print nothing (no progress, summary or paths)")
    from d3mkit.commands.options import add_format
    add_format(p, "a summary on stderr and each output's path")
    p.set_defaults(func=_run)


def _inside(child: Path, parent: Path) -> bool:
    from d3mkit.io.paths import outside_reason
    return outside_reason(parent, child) is None


def _check_out(out: Path, force: bool) -> None:
    """``--out`` may be replaced: new, empty, a previous campaign's outputs, or ``--force``."""
    from d3mkit.io.atomic import check_output_dir
    from d3mkit.evaluate.campaign import CACHE_FILE
    from d3mkit.evaluate.report import OUTPUT_NAMES
    check_output_dir(out, "out")
    if force or not out.is_dir():
        return
    try:
        names = set(os.listdir(out))
    except OSError as exc:
        raise UsageError(f"--out cannot be read: {exc.strerror or exc}", str(out)) from None
    if names and not names & {CACHE_FILE, *OUTPUT_NAMES}:
        raise UsageError("--out holds files that are not a campaign's outputs and would be replaced "
                         "(give a new directory, or --force)", str(out))


def _example(args) -> int:
    from d3mkit.evaluate.example import write_example
    if args.problems or args.submissions or args.out:
        raise UsageError("--example DIR takes no --problems, --submissions or --out")
    from d3mkit.io.atomic import check_output_dir
    check_output_dir(args.example, "example")
    if args.example.exists() and any(args.example.iterdir()) and not args.force:
        raise UsageError("--example needs a new or empty directory (or --force)", str(args.example))
    p, s = write_example(args.example, force=args.force)
    out = args.example / "out"
    command = f"d3mkit evaluate --problems {p} --submissions {s} --out {out}"
    if args.format == "json":
        from d3mkit.commands.show import print_json
        print_json({"example": str(args.example), "problems": str(p), "submissions": str(s),
                    "command": command})
    elif not args.quiet:
        print(command)
    return 0


def _run(args) -> int:
    if args.example is not None:
        return _example(args)
    for opt in ("problems", "submissions", "out"):
        if getattr(args, opt) is None:
            raise UsageError(f"--{opt} is required (or --example DIR)")
    from d3mkit.evaluate.campaign import Params, run_campaign
    from d3mkit.evaluate.report import grid_counts
    from d3mkit.io.executor import check_options, from_args
    from d3mkit.commands.options import must_exist
    must_exist(args.problems, args.submissions)
    for opt, path in (("--problems", args.problems), ("--submissions", args.submissions)):
        if not path.is_dir():
            raise UsageError(f"{opt} is not a directory", str(path), code="usage.path")
    for opt, path in (("--problems", args.problems), ("--submissions", args.submissions)):
        if _inside(args.out, path) or _inside(path, args.out):
            raise UsageError(f"--out must be outside {opt} (and not hold it)", str(args.out))
    _check_out(args.out, args.force)
    if args.max_size_mb is not None and not (math.isfinite(args.max_size_mb) and args.max_size_mb > 0):
        raise UsageError(f"--max-size-mb must be a positive number, got {args.max_size_mb}")
    if args.bootstrap < 0:
        raise UsageError(f"--bootstrap must be 0 or more, got {args.bootstrap}")
    if not 0 < args.confidence < 1:
        raise UsageError(f"--confidence must be between 0 and 1, got {args.confidence}")
    check_options(args.workers, args.scheduler)
    if not (math.isfinite(args.rope) and args.rope >= 0):
        raise UsageError(f"--rope must be a finite number >= 0, got {args.rope}")
    params = Params(bootstrap=args.bootstrap, confidence=args.confidence, seed=args.seed,
                    elo_reference=args.elo_reference, rope=args.rope, cd_test=args.cd_test, partial=args.partial)
    with from_args(args) as ex:
        camp = run_campaign(args.problems, args.submissions, args.out, ex,
                            progress=not args.quiet and sys.stderr.isatty(),
                            max_bytes=None if args.max_size_mb is None else int(args.max_size_mb * (1 << 20)),
                            use_cache=not args.no_cache, params=params)
        where = ex.describe()
    n = grid_counts(camp)
    outputs = {name: str(args.out / name) for name in ("scores.csv", "aggregates.csv", "failures.csv",
                                                       "comparisons.csv", "results.csv", "results.parquet",
                                                       "summary.json", "leaderboard.html")
               if (args.out / name).exists()}
    if args.elo_reference is not None and args.elo_reference not in camp.discovery.systems and not args.quiet:
        print(f"warning: --elo-reference {args.elo_reference!r} is not a system of the campaign; "
              "the ratings average 1000", file=sys.stderr)
    if not args.quiet:
        f = n["folds"]
        print(f"{n['systems']} systems x {n['problems']} problems = {n['submissions']} submissions: "
              f"{n['complete']} complete, {n['partial']} partial, {n['failed']} failed, {n['missing']} missing; "
              f"folds: {f['scored']} of {f['expected']} scored, {f['failed']} failed, {f['missing']} missing; "
              f"{n['failure_rows']} rows in failures.csv ({camp.scored} evaluated now, "
              f"{camp.reused} from the cache; {where})", file=sys.stderr)
        if args.format != "json":
            print("\n".join(outputs.values()))
    issues = []
    if n["scored"] == 0:
        from d3mkit.core.errors import error
        why = ("no usable problemDoc.json under --problems" if not n["problems"] else
               "no system directory under --submissions" if not n["systems"] else
               "no submission could be scored (see failures.csv)")
        issues.append(error("evaluate.nothing_scored", "", f"nothing was scored: {why}", str(args.out)))
        if not args.quiet:
            print_issues(issues)
    code = (1 if issues or (args.fail_on == "failures" and n["failure_rows"])
            or (args.fail_on == "missing" and (n["missing"] or n["missing_folds"])) else 0)
    if args.format == "json":
        from d3mkit.commands.show import issue_dict, print_json
        print_json({"out": str(args.out), "counts": n, "evaluated": camp.scored, "reused": camp.reused,
                    "executor": where, "outputs": outputs, "exit_code": code,
                    "issues": [issue_dict(i) for i in issues]})
    return code
