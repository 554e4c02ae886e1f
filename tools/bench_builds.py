#!/usr/bin/env python
"""Build time of every ``d3mkit build`` on one process, a local pool and a Dask cluster.

    PYTHONPATH=. python tools/bench_builds.py [--workers 2] [--repeat 2] [--only visudo,prism]
        [--no-dask] [--save]

Each build runs as its own ``d3mkit build ... --quiet`` process (interpreter start-up and
imports included, as a user pays them) at a moderate size:

* ``value``: 400 TRAIN + 100 TEST boards rendered at 512x512 from 20 random games;
* ``abstraction``: 5,000 training + 5,000 test images (rotation, 5 shapes transformed);
* ``visudo``: the default ``mnist5k`` task (50/50/25 correct puzzles, 4x4) for split
  indices 0-3: 4 task roots, 13,836 PNG files;
* ``prism``: a PVLI manifest of 2,000 records over 2,000 drawn 256x256 premise images
  (half JPEG and a quarter PNG, copied; a quarter BMP, converted), made before timing;
* ``tabular``: wine (the options are accepted and unused: the row shows that they cost
  nothing).

Runs: ``--workers 1`` (in the process), ``--workers N`` (local pool) and, unless
``--no-dask``, ``--scheduler`` on a ``distributed.LocalCluster`` of N worker processes of
one thread, started beforehand in this process (its start-up is not timed). Each run is
repeated ``--repeat`` times (the runs of a build interleaved) and the fastest kept: on a
shared, loaded machine the fastest run is the one least slowed by others. Wall seconds;
CPU seconds are user+sys of the build process and its children (the Dask workers are
this process's, so no CPU figure there); "same bytes" compares every file of the task
roots with the ``--workers 1`` run. Prints a markdown table (and writes it to
tools/results/builds_bench.md with ``--save``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tools"))
from _bench_data import emit, md_table, measure_command               # noqa: E402



def tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def prism_corpus(out: Path, n: int = 2000, size: int = 256) -> Path:
    """A PVLI manifest over ``n`` drawn premise images (JPEG, PNG, BMP)."""
    import numpy as np

    from d3mkit.benchmarks.prism.scenes import STATES, draw_scene
    img = out / "img"
    img.mkdir(parents=True)
    rng = np.random.default_rng(0)
    with open(out / "manifest.jsonl", "w", encoding="utf-8") as fh:
        for i in range(n):
            ext, fmt = [("jpg", "JPEG"), ("png", "PNG"), ("jpg", "JPEG"), ("bmp", "BMP")][i % 4]
            state = STATES[i % len(STATES)]
            draw_scene(f"object{i % 37}", state, rng, size=size).save(img / f"{i:05d}.{ext}", format=fmt)
            fh.write(json.dumps({"hypothesis": f"object {i % 37} can be used when {state}",
                                 "image": f"img/{i:05d}.{ext}",
                                 "label": ("allow", "prevent")[i % 2]}) + "\n")
    return out / "manifest.jsonl"


def builds(tmp: Path) -> dict[str, list[str]]:
    return {
        "value": ["value", "--n-train", "400", "--n-test", "100", "--size", "512", "--random-games", "20"],
        "abstraction": ["abstraction", "--n-train", "5000", "--transformed", "5"],
        "visudo": ["visudo", "--split", "0-3"],
        "prism": ["prism", "--manifest", str(tmp / "prism" / "manifest.jsonl")],
        "tabular": ["tabular", "--dataset", "wine"],
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--only", default=None, help="comma-separated builds (default all)")
    ap.add_argument("--no-dask", action="store_true")
    ap.add_argument("--save", action="store_true")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="bench_builds_"))
    rows = []
    cluster = None
    try:
        table = builds(tmp)
        names = args.only.split(",") if args.only else list(table)
        if "prism" in names:
            t = time.perf_counter()
            prism_corpus(tmp / "prism")
            print(f"prism corpus drawn in {time.perf_counter() - t:.0f} s", file=sys.stderr)
        if not args.no_dask:
            import distributed
            cluster = distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                               dashboard_address=None)
        for name in names:
            base = [sys.executable, "-m", "d3mkit", "build", *table[name], "--quiet", "--seed", "0"]
            runs = [("1 (in the process)", ["--workers", "1"]),
                    (f"{args.workers} (local pool)", ["--workers", str(args.workers)])]
            if cluster is not None:
                runs.append((f"Dask LocalCluster, {args.workers} processes", ["--scheduler", cluster.scheduler_address]))
            best: dict[int, tuple[float, float]] = {}
            digests: dict[int, dict] = {}
            for _ in range(args.repeat):
                for k, (label, extra) in enumerate(runs):
                    out = tmp / f"{name}_{k}"
                    wall, _, cpu = measure_command(base + ["--out", str(out)] + extra)
                    print(f"{name} {label}: {wall:.1f} s", file=sys.stderr)
                    digests[k] = tree(out)
                    best[k] = min(best.get(k, (wall, cpu)), (wall, cpu))
                    shutil.rmtree(out)
            t1 = best[0][0]
            for k, (label, _) in enumerate(runs):
                wall, cpu = best[k]
                rows.append((f"`build {name}`" if k == 0 else "", label, f"{wall:.1f}",
                             f"{cpu:.1f}" if "Dask" not in label else "n/a", f"{t1 / wall:.2f}x",
                             f"{len(digests[k]):,}", "yes" if digests[k] == digests[0] else "NO"))
    finally:
        if cluster is not None:
            cluster.close()
        shutil.rmtree(tmp, ignore_errors=True)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    head = (f"`d3mkit build` wall time by executor; {os.cpu_count()} cores, Python "
            f"{platform.python_version()}, fastest of {args.repeat}, load average {load:.1f} at the end")
    lines = [head, ""] + md_table(["build", "workers", "wall s", "CPU s", "speed-up vs 1", "files",
                                   "same bytes as 1"], rows)
    emit("\n".join(lines) + "\n", "builds_bench.md", args.save)
    return 0


if __name__ == "__main__":
    sys.exit(main())
