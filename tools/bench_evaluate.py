#!/usr/bin/env python
"""Campaign throughput with and without statistics: ``d3mkit evaluate`` on a local pool and
on a Dask LocalCluster, ``--bootstrap 0`` against ``--bootstrap 1000``; and the bootstrap
alone (10,000 resamples of 10^4 rows, accuracy + f1Macro) against HF-evaluate's way of
calling the metric once per resample.

    PYTHONPATH=. python tools/bench_evaluate.py [--systems 20 --problems 50 --folds 5 --rows 10000]
        [--bootstrap 1000] [--malformed 0.05] [--workers 2] [--no-dask] [--micro-only]
        [--loop-sample 0] [--save]

The campaign is :func:`d3mkit.evaluate.synthetic.make_campaign` (seed 0; half the problems
classification with accuracy+f1Macro, half regression with RMSE+MAE; ``--folds`` kFold
folds, one predictions file per fold; ``--malformed`` of the files broken). Each run is a
fresh process (``--no-cache``); wall seconds, CPU seconds (the pool: user+sys of every
process of the run; Dask: the calling process and the workers' processes during the
campaign) — on a loaded, shared machine the steadier figure — and the largest resident set. The
Dask cluster (``--workers`` processes) is started before the timed part. The ratio columns
are each statistics run against the same executor without statistics (target: at most 3x).
The micro benchmark times the campaign's bootstrap
(:func:`d3mkit.evaluate.bootstrap.problem_statistics`) on 10,000 resamples (target: at most
2 s) beside the per-resample loop of the same metric functions
(:meth:`~d3mkit.evaluate.resampled.Resampler.by_function`, which is what calling a metric
once per resample costs), measured on ``--micro-loop`` resamples and scaled. Prints markdown tables with the numpy / pandas /
pyarrow versions and the load average (``--save`` writes tools/results/evaluate_bench.md).
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
            "--out", str(out), "--quiet", "--no-cache", "--force", *extra]


_DASK = """
import sys, time
from pathlib import Path
import distributed
from d3mkit.evaluate.campaign import Params, run_campaign
from d3mkit.executor import make_executor

def hwm_kb():
    with open("/proc/self/status") as fh:
        return int(next(line.split()[1] for line in fh if line.startswith("VmHWM:")))

def cpu():
    return time.process_time()

p, s, out, workers, boot = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                              dashboard_address=None) as cluster:
    with make_executor(scheduler=cluster.scheduler_address) as ex:
        before = ex.client.run(cpu)
        t, c = time.perf_counter(), time.process_time()
        run_campaign(p, s, out, ex, use_cache=False, params=Params(bootstrap=boot))
        dt, dc = time.perf_counter() - t, time.process_time() - c
        after = ex.client.run(cpu)
        peaks = list(ex.client.run(hwm_kb).values()) + [hwm_kb()]
print(dt, dc + sum(after[w] - before[w] for w in after), max(peaks))
"""


def dask_run(p: Path, s: Path, out: Path, workers: int, bootstrap: int) -> tuple[float, float, float]:
    """(wall seconds of the campaign, CPU seconds of the calling process and the worker
    processes during it, peak MiB of the largest process) on a LocalCluster of ``workers``
    processes started beforehand, all in a fresh process (Linux: ``/proc``)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    res = subprocess.run([sys.executable, "-c", _DASK, str(p), str(s), str(out), str(workers), str(bootstrap)],
                         capture_output=True, text=True, env=env, check=True).stdout.split()
    return float(res[-3]), float(res[-2]), int(res[-1]) / 1024


def micro(resamples: int, rows: int, loop_sample: int) -> list[tuple]:
    """Bootstrap intervals of accuracy + f1Macro on ``rows`` rows: the campaign's own
    code (:func:`d3mkit.evaluate.bootstrap.problem_statistics`, one system and one fold:
    per block of resamples one weight matrix and one matrix product for both metrics)
    against calling the metric functions once per resample."""
    import numpy as np
    from d3mkit.evaluate.bootstrap import problem_statistics
    from d3mkit.evaluate.resampled import Resampler
    from d3mkit.evaluate.scorer import Call
    from d3mkit.registry import get_metric
    rng = np.random.default_rng(0)
    labels = np.array(list("abcd"), dtype=object)
    yt = labels[rng.integers(0, 4, rows)]
    yp = np.where(rng.random(rows) < 0.7, yt, labels[rng.integers(0, 4, rows)])
    yt.flags.writeable = yp.flags.writeable = False
    calls = [Call.of(name, get_metric(name), yt, yp, {}, float(get_metric(name)(yt, yp)))
             for name in ("accuracy", "f1Macro")]

    def vectorised():
        got, _ = problem_statistics("micro", [(0, 0)], {(0, 0, 0): calls}, resamples=resamples,
                                    confidence=0.95, seed=1)
        assert len(got) == 2
    out = []
    best = None
    for _ in range(3):
        t, c = time.perf_counter(), time.process_time()
        vectorised()
        got = (time.perf_counter() - t, time.process_time() - c)
        best = got if best is None or got[0] < best[0] else best
    out.append((f"campaign bootstrap (problem_statistics), {resamples:,} resamples (fastest of 3)",
                f"{best[0]:.2f}", f"{best[1]:.2f}", "1.0x"))
    idx = np.random.default_rng(2).integers(0, rows, size=(loop_sample, rows))
    t, c = time.perf_counter(), time.process_time()
    for call in calls:
        Resampler(call).by_function([(call, row)] for row in idx)
    scale = resamples / loop_sample
    lw, lc = (time.perf_counter() - t) * scale, (time.process_time() - c) * scale
    out.append((f"metric function once per resample ({loop_sample} timed, scaled to {resamples:,})",
                f"{lw:.1f}", f"{lc:.1f}", f"{lw / best[0]:.0f}x slower"))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", type=int, default=20)
    ap.add_argument("--problems", type=int, default=50)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--malformed", type=float, default=0.05)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--micro-resamples", type=int, default=10_000)
    ap.add_argument("--micro-rows", type=int, default=10_000)
    ap.add_argument("--micro-loop", type=int, default=200)
    ap.add_argument("--micro-only", action="store_true")
    ap.add_argument("--no-dask", action="store_true")
    ap.add_argument("--save", action="store_true")
    args = ap.parse_args(argv)
    import numpy
    import pandas
    try:
        import pyarrow
        pa_version = pyarrow.__version__
    except ImportError:
        pa_version = "not installed"
    load_before = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else ["?"] * 3
    lines = []
    if not args.micro_only:
        tmp = Path(tempfile.mkdtemp(prefix="bench_evaluate_"))
        rows = []
        try:
            n = args.systems * args.problems
            t = time.perf_counter()
            p, s = make_campaign(tmp / "main", systems=args.systems, problems=args.problems, rows=args.rows,
                                 seed=0, malformed=args.malformed, folds=args.folds)
            print(f"generated {n} submissions x {args.folds} folds in {time.perf_counter() - t:.0f} s",
                  file=sys.stderr)
            runs = {}
            for boot in (0, args.bootstrap):
                w, m, c = measure_command(evaluate_cmd(p, s, tmp / f"o{boot}", "--workers", str(args.workers),
                                                       "--bootstrap", str(boot)))
                runs[("pool", boot)] = (w, c, m)
                print(f"pool bootstrap {boot}: {w:.1f} s", file=sys.stderr)
                if not args.no_dask:
                    dw, dc, dm = dask_run(p, s, tmp / f"d{boot}", args.workers, boot)
                    runs[("dask", boot)] = (dw, dc, dm)
                    print(f"dask bootstrap {boot}: {dw:.1f} s", file=sys.stderr)
            for ex, name in (("pool", f"local pool, --workers {args.workers}"),
                             ("dask", f"Dask LocalCluster, {args.workers} worker processes")):
                for boot in (0, args.bootstrap):
                    if (ex, boot) not in runs:
                        continue
                    w, c, m = runs[(ex, boot)]
                    ratio = w / runs[(ex, 0)][0]
                    cratio = c / runs[(ex, 0)][1]
                    rows.append((name, f"--bootstrap {boot}", f"{w:.1f}", f"{c:.1f}", f"{n * args.folds / w:.0f}",
                                 f"{ratio:.2f}x", f"{cratio:.2f}x", f"{m:.0f}"))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        lines += [f"{args.systems} systems x {args.problems} problems x {args.folds} folds of {args.rows:,} rows "
                  f"({args.rows // args.folds:,} TEST rows per fold file, {args.systems * args.problems * args.folds:,} "
                  f"files), {args.malformed:.0%} malformed", ""]
        lines += md_table(["executor", "statistics", "wall s", "CPU s", "files/s (wall)",
                           "vs no statistics (wall)", "vs no statistics (CPU)", "peak RSS MiB"], rows)
        lines.append("")
    lines += [f"Bootstrap alone: accuracy + f1Macro on {args.micro_rows:,} rows (4 labels)", ""]
    lines += md_table(["run", "wall s", "CPU s", "vs the campaign's bootstrap"],
                      micro(args.micro_resamples, args.micro_rows, args.micro_loop))
    load_after = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else ["?"] * 3
    lines += ["", f"{os.cpu_count()} cores, Python {platform.python_version()}, numpy {numpy.__version__}, "
              f"pandas {pandas.__version__}, pyarrow {pa_version}; load average before {' '.join(load_before)}, "
              f"after {' '.join(load_after)}"]
    emit("\n".join(lines) + "\n", "evaluate_bench.md", args.save)
    return 0


if __name__ == "__main__":
    sys.exit(main())
