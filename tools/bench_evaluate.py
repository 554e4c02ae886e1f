#!/usr/bin/env python
"""Campaign throughput with and without statistics: ``d3mkit evaluate`` on a local pool and
on a Dask LocalCluster, ``--bootstrap 0`` against ``--bootstrap 1000``; and the bootstrap
alone (10,000 resamples of 10^4 rows, accuracy + f1Macro) against HF-evaluate's way of
calling the metric once per resample.

    PYTHONPATH=. python tools/bench_evaluate.py [--systems 20 --problems 50 --folds 5 --rows 10000]
        [--bootstrap 1000] [--malformed 0.05] [--workers 2] [--no-dask] [--micro-only]
        [--loop-sample 0] [--save]
    PYTHONPATH=. python tools/bench_evaluate.py --standings [--ref-pairs 10] [--save]

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

``--standings`` (issue 34) runs one campaign of 30 systems x 100 problems x 10 folds (1,000
rows) in one process with a local pool, then times the campaign-level statistics alone
(:func:`d3mkit.evaluate.report.summary`: Elo with a bootstrap of ``--bootstrap`` over the
problems, win rates, improvability, mean-rank intervals, every pair's Wilcoxon and Bayesian
signed-rank test, the CD groups) on the campaign it just ran: the campaign without them is the
difference (target: the statistics add at most 2x). On the same table (the primary metric per
problem, system and fold, a failed fold imputed) it times bencheval's leaderboard (Elo with
the same bootstrap, win rate, improvability), baycomp's SignedRankTest on every pair (50,000
draws each, its own default; ``--ref-pairs`` of them timed and scaled) and autorank (target:
d3mkit at least as fast as the three together).
"""

from __future__ import annotations

import argparse
import json
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
from d3mkit.io.executor import make_executor

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
    from d3mkit.core.registry import get_metric
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


_STANDINGS = """
import json, resource, sys, time
from pathlib import Path
from d3mkit.evaluate.campaign import Params, run_campaign
from d3mkit.evaluate.report import aggregate_rows, problem_infos, result_rows, results_frame, summary
from d3mkit.io.executor import make_executor

def cpu_all():
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime

p, s, out, workers, boot = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
t, c = time.perf_counter(), cpu_all()
with make_executor(workers) as ex:
    camp = run_campaign(p, s, out, ex, use_cache=False, params=Params(bootstrap=boot))
total = (time.perf_counter() - t, cpu_all() - c)
frame = results_frame(result_rows(camp))
aggs = aggregate_rows(camp)
t, c = time.perf_counter(), time.process_time()
summary(camp, aggs, frame)
stand = (time.perf_counter() - t, time.process_time() - c)
# the table the reference packages get: the primary metric per problem, system and fold,
# a failed fold imputed as the constant predictor (bencheval wants a dense table), as an error
infos = {i.problem_id: i for i in problem_infos(camp)}
rows = []
systems = list(camp.discovery.systems)
for pid, info in infos.items():
    if info.label is None:
        continue
    got = {(r[0], r[2], r[3]): r[5] for r in frame[frame["problemID"] == pid][["system", "problemID", "repeat",
           "fold", "metric", "value"]].itertuples(index=False, name=None) if r[4] == info.label}
    for k, (rr, ff) in enumerate(info.folds):
        for sy in systems:
            v = got.get((sy, rr, ff), info.constant)
            rows.append([sy, pid, k, v, info.higher, info.perfect])
json.dump({"total": total, "standings": stand, "rows": rows}, open(out / "bench.json", "w"))
"""

_REFERENCES = """
import json, sys, time, warnings
import numpy as np, pandas as pd
warnings.simplefilter("ignore")
data = json.load(open(sys.argv[1]))
pairs_timed, boot = int(sys.argv[2]), int(sys.argv[3])
df = pd.DataFrame(data["rows"], columns=["method", "task", "fold", "value", "higher", "perfect"])
df = df[np.isfinite(df["perfect"]) & np.isfinite(df["value"])]
df["metric_error"] = (df["perfect"] - df["value"]).abs()
out = {}
from bencheval.evaluator import BenchmarkEvaluator
t, c = time.perf_counter(), time.process_time()
ev = BenchmarkEvaluator(seed_column="fold", columns_to_agg_extra=None)
ev.leaderboard(df[["method", "task", "fold", "metric_error"]], elo_kwargs={"BOOTSTRAP_ROUNDS": boot})
out["bencheval"] = (time.perf_counter() - t, time.process_time() - c)
means = df.assign(score=np.where(df["higher"], df["value"], -df["value"])).pivot_table(
    index="task", columns="method", values="score", aggfunc="mean")
from baycomp import SignedRankTest
cols = list(means.columns)
pairs = [(a, b) for i, a in enumerate(cols) for b in cols[i + 1:]]
t, c = time.perf_counter(), time.process_time()
for a, b in pairs[:pairs_timed]:
    SignedRankTest.probs(means[a].to_numpy(), means[b].to_numpy(), rope=0.01, nsamples=50000, random_state=0)
scale = len(pairs) / max(1, min(pairs_timed, len(pairs)))
out["baycomp"] = ((time.perf_counter() - t) * scale, (time.process_time() - c) * scale, len(pairs),
                  min(pairs_timed, len(pairs)))
import autorank
t, c = time.perf_counter(), time.process_time()
autorank.autorank(means, alpha=0.05, force_mode="nonparametric")
out["autorank"] = (time.perf_counter() - t, time.process_time() - c)
print(json.dumps(out))
"""


def standings_bench(args) -> list[str]:
    """The campaign-level statistics (Elo with a bootstrap of ``--bootstrap``, win rates,
    improvability, every pair's Wilcoxon and Bayesian test, the CD groups) against the
    campaign without them, and against bencheval + baycomp + autorank on the same table."""
    tmp = Path(tempfile.mkdtemp(prefix="bench_standings_"))
    try:
        t = time.perf_counter()
        p, s = make_campaign(tmp / "main", systems=args.systems, problems=args.problems, rows=args.rows,
                             seed=0, malformed=args.malformed, folds=args.folds)
        print(f"generated in {time.perf_counter() - t:.0f} s", file=sys.stderr)
        env = dict(os.environ, PYTHONPATH=str(REPO))
        out = tmp / "out"
        subprocess.run([sys.executable, "-c", _STANDINGS, str(p), str(s), str(out), str(args.workers),
                        str(args.bootstrap)], env=env, check=True)
        got = json.loads((out / "bench.json").read_text())
        ref = json.loads(subprocess.run([sys.executable, "-c", _REFERENCES, str(out / "bench.json"),
                                         str(args.ref_pairs), str(args.bootstrap)], env=env, check=True,
                                        capture_output=True, text=True).stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    (tw, tc), (sw, sc) = got["total"], got["standings"]
    rows = [("campaign with the statistics (evaluate, in one process + pool)", f"{tw:.1f}", f"{tc:.1f}", ""),
            ("the statistics alone (summary: standings, pairwise tests, CD)", f"{sw:.1f}", f"{sc:.1f}", ""),
            ("campaign without them (difference)", f"{tw - sw:.1f}", f"{tc - sc:.1f}",
             f"statistics add {tw / max(tw - sw, 1e-9):.2f}x wall, {tc / max(tc - sc, 1e-9):.2f}x CPU")]
    bw, bc = ref["bencheval"]
    yw, yc, npairs, timed_pairs = ref["baycomp"]
    aw, ac = ref["autorank"]
    rw, rc = bw + yw + aw, bc + yc + ac
    rows += [(f"bencheval leaderboard (Elo bootstrap {args.bootstrap}, win rate, improvability)", f"{bw:.1f}",
              f"{bc:.1f}", ""),
             (f"baycomp SignedRankTest, {npairs} pairs ({timed_pairs} timed, scaled)", f"{yw:.1f}", f"{yc:.1f}", ""),
             ("autorank (Friedman, Nemenyi)", f"{aw:.1f}", f"{ac:.1f}", ""),
             ("bencheval + baycomp + autorank", f"{rw:.1f}", f"{rc:.1f}",
              f"d3mkit's statistics {rw / max(sw, 1e-9):.1f}x faster (wall), {rc / max(sc, 1e-9):.1f}x (CPU)")]
    lines = [f"Campaign statistics: {args.systems} systems x {args.problems} problems x {args.folds} folds of "
             f"{args.rows:,} rows, {args.malformed:.0%} malformed, --bootstrap {args.bootstrap}, "
             f"--workers {args.workers}", ""]
    return lines + md_table(["run", "wall s", "CPU s", "ratio"], rows) + [""]


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
    ap.add_argument("--standings", action="store_true",
                    help="the campaign-level statistics against the campaign without them and against "
                         "bencheval + baycomp + autorank (defaults then: 30 x 100 x 10 folds of 1,000 rows)")
    ap.add_argument("--ref-pairs", type=int, default=10, help="baycomp pairs timed (scaled to all pairs)")
    args = ap.parse_args(argv)
    if args.standings:
        for name, value in (("systems", 30), ("problems", 100), ("folds", 10), ("rows", 1000)):
            if f"--{name}" not in (argv if argv is not None else sys.argv[1:]):
                setattr(args, name, value)
        load = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else ["?"] * 3
        lines = standings_bench(args)
        after = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else ["?"] * 3
        lines.append(f"{os.cpu_count()} cores, Python {platform.python_version()}; load average before "
                     f"{' '.join(load)}, after {' '.join(after)}")
        emit("\n".join(lines) + "\n", "evaluate_standings_bench.md", args.save)
        return 0
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
