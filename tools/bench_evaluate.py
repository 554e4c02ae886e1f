#!/usr/bin/env python
"""Campaign throughput: ``d3mkit evaluate`` (local pool, Dask LocalCluster) against a shell
loop of single ``d3mkit score`` processes, peak memory, and growth with the campaign size.

    PYTHONPATH=. python tools/bench_evaluate.py [--systems 20 --problems 50 --rows 10000]
        [--malformed 0.05] [--workers 2] [--loop-sample 40] [--growth 100,1000,10000]
        [--growth-rows 1000] [--no-dask] [--save]

The campaign is :func:`d3mkit.evaluate.synthetic.make_campaign` (seed 0; half the problems
classification with accuracy+f1Macro, half regression with RMSE+MAE; ``--malformed`` of the
submissions broken). The shell loop runs ``d3mkit score`` once per submission, as a
``for`` loop in ``sh`` would, on ``--loop-sample`` submissions (its throughput is per file,
so a sample measures it; the whole loop would take ~1 s x 1,000 files). Every figure is
submissions per second of wall time, and CPU seconds (user+sys of every process: on a
loaded, shared machine the steadier figure); peak memory is the largest resident set of any
process of the run (``ru_maxrss`` of the children). Prints a markdown table (and writes it
to tools/results/evaluate_bench.md with --save).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from d3mkit.evaluate.synthetic import make_campaign   # noqa: E402

sys.path.insert(0, str(REPO / "tools"))
from _bench_data import emit, md_table, measure_command               # noqa: E402



def evaluate_cmd(p: Path, s: Path, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "d3mkit", "evaluate", "--problems", str(p), "--submissions", str(s),
            "--out", str(out), "--quiet", *extra]


def shell_loop(p: Path, s: Path, sample: int) -> tuple[float, int, float]:
    """(wall s, files, CPU s) of a ``sh`` loop of ``d3mkit score`` over ``sample`` submissions."""
    files = sorted(s.glob("*/*/predictions.csv"))[:sample]
    script = "".join(
        f"{sys.executable} -m d3mkit score --problem {p / f.parent.name.removesuffix('_problem') / f.parent.name}"
        f" --predictions {f} > /dev/null 2>&1\n" for f in files)
    t, _, cpu = measure_command(["sh", "-c", script])
    return t, len(files), cpu


_DASK = """
import sys, time
from pathlib import Path
import distributed
from d3mkit.evaluate.campaign import run_campaign
from d3mkit.executor import make_executor

def hwm_kb():
    with open("/proc/self/status") as fh:
        return int(next(line.split()[1] for line in fh if line.startswith("VmHWM:")))

p, s, out, workers = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4])
with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                              dashboard_address=None) as cluster:
    with make_executor(scheduler=cluster.scheduler_address) as ex:
        t = time.perf_counter()
        run_campaign(p, s, out, ex, use_cache=False)
        dt = time.perf_counter() - t
        peaks = list(ex.client.run(hwm_kb).values()) + [hwm_kb()]
print(dt, max(peaks))
"""


def dask_run(p: Path, s: Path, out: Path, workers: int) -> tuple[float, float]:
    """(wall seconds of the campaign, peak memory MiB of the largest process: the calling
    process or a worker, each its own ``VmHWM``) on a LocalCluster of ``workers``
    processes started beforehand (its start-up is not timed), all in a fresh process.
    Linux only (``/proc``)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    res = subprocess.run([sys.executable, "-c", _DASK, str(p), str(s), str(out), str(workers)],
                         capture_output=True, text=True, env=env, check=True).stdout.split()
    return float(res[-2]), int(res[-1]) / 1024


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", type=int, default=20)
    ap.add_argument("--problems", type=int, default=50)
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--malformed", type=float, default=0.05)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--loop-sample", type=int, default=40)
    ap.add_argument("--growth", default="100,1000,10000",
                    help="submission counts of the growth series (systems x problems, square-ish)")
    ap.add_argument("--growth-rows", type=int, default=1000, help="rows per problem in the growth series")
    ap.add_argument("--no-dask", action="store_true")
    ap.add_argument("--save", action="store_true")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="bench_evaluate_"))
    rows = []
    try:
        n = args.systems * args.problems
        t = time.perf_counter()
        p, s = make_campaign(tmp / "main", systems=args.systems, problems=args.problems,
                             rows=args.rows, seed=0, malformed=args.malformed)
        print(f"generated {n} submissions x {args.rows // 2} TEST rows in "
              f"{time.perf_counter() - t:.0f} s", file=sys.stderr)
        tl, k, cl = shell_loop(p, s, args.loop_sample)
        loop_rate, loop_cpu = k / tl, cl / k

        def row(name, wall, cpu, mem, count=n):
            rows.append((name, f"{wall:.1f}", f"{cpu:.1f}" if cpu is not None else "n/a",
                         f"{count / wall:.1f}", f"{count / wall / loop_rate:.1f}x",
                         f"{loop_cpu / (cpu / count):.1f}x" if cpu else "n/a",
                         f"{mem:.0f}" if mem is not None else "n/a"))
        row(f"shell loop of `d3mkit score` ({k} of {n} files)", tl, cl, None, k)
        t1, m1, c1 = measure_command(evaluate_cmd(p, s, tmp / "o1", "--workers", "1", "--no-cache"))
        row("`d3mkit evaluate --workers 1`", t1, c1, m1)
        tp, mp, cp = measure_command(evaluate_cmd(p, s, tmp / "o2", "--workers", str(args.workers), "--no-cache"))
        row(f"`d3mkit evaluate --workers {args.workers}` (local pool)", tp, cp, mp)
        tc, mc, cc = measure_command(evaluate_cmd(p, s, tmp / "o2", "--workers", str(args.workers)))
        row("re-run, nothing changed (cache)", tc, cc, mc)
        if not args.no_dask:
            td, md = dask_run(p, s, tmp / "o3", args.workers)
            row(f"Dask LocalCluster, {args.workers} worker processes (started beforehand)", td, None, md)
        shutil.rmtree(tmp / "main")
        growth = []
        for total in [int(x) for x in args.growth.split(",") if x]:
            systems = max(1, int(round(total ** 0.5)))
            problems = max(1, total // systems)
            gp, gs = make_campaign(tmp / f"g{total}", systems=systems, problems=problems,
                                   rows=args.growth_rows, seed=1, malformed=args.malformed)
            tg, mg, cg = measure_command(evaluate_cmd(gp, gs, tmp / f"go{total}", "--workers", str(args.workers),
                                           "--no-cache"))
            growth.append((f"{systems} x {problems} = {systems * problems}", f"{tg:.1f}", f"{cg:.1f}",
                           f"{systems * problems / tg:.1f}", f"{mg:.0f}"))
            shutil.rmtree(tmp / f"g{total}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    head = (f"{args.systems} systems x {args.problems} problems x {args.rows:,} rows "
            f"({args.rows // 2:,} TEST rows scored per file), {args.malformed:.0%} malformed; "
            f"{os.cpu_count()} cores, Python {platform.python_version()}")
    lines = [head, ""] + md_table(["run", "wall s", "CPU s", "submissions/s (wall)", "vs shell loop (wall)",
                                   "vs shell loop (CPU per file)", "peak RSS MiB"], rows)
    lines += ["", f"Growth (`--workers {args.workers}`, {args.growth_rows:,} rows per problem):", ""]
    lines += md_table(["submissions (systems x problems)", "wall s", "CPU s", "submissions/s", "peak RSS MiB"],
                      growth)
    emit("\n".join(lines) + "\n", "evaluate_bench.md", args.save)
    return 0


if __name__ == "__main__":
    sys.exit(main())
