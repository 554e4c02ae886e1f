#!/usr/bin/env python
"""AutoML systems on real tabular task roots: what the bridge costs and whether
random-forest beats constant.

    PYTHONPATH=. D3MKIT_REALWORLD=PATH python tools/bench_systems.py
        [--systems constant,random-forest] [--time-limit 300] [--roots-only | --imports-only]
        [--limit N] [--save]

Roots: every task root under ``$D3MKIT_REALWORLD/roots`` whose problem is a tabular one the
systems handle (classification binary/multiClass/multiLabel, regression
univariate/multivariate, a dataset of tables only), and the imports (``d3mkit import table``,
holdOut 0.2, seed 0) of the real tables in ``$D3MKIT_REALWORLD/ecosystem/tables`` listed in
:data:`IMPORTS` with the target each is known for. For each root and system, on repeat 0
fold 0:

* **bridge**: ``d3mkit run`` (:func:`d3mkit.systems.runner.run_system`): the child's fit and
  predict seconds (measured inside it), its wall seconds (interpreter start included) against
  the time limit, the peak resident memory of its process tree, and the whole call's wall
  seconds as the caller sees it (views written, sandbox, child, filing);
  The later folds of a run are forked from a warm process (:mod:`d3mkit.systems.zygote`);
  the table measures that (one zygote for the whole tool), and a cold child once per system
  (a run's first fold);
* **direct**: the same ``fit``/``predict`` called in this process on the same fold's views
  (:func:`d3mkit.systems.child.fit_predict`, imports already warm); the bridge overhead is the
  whole call's wall minus the direct call's, against the target 1 s + 5 % of the direct call;
* the score of the problem's first metric (``d3mkit.api.score``), and whether random-forest
  beats constant on it (strictly better, in the metric's direction).

Prints a markdown table and the counts (``--save`` writes tools/results/systems_bench.md).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

#: real tables of the ecosystem corpus and the target each is known for
IMPORTS = (("seaborn__penguins.csv", "species"), ("seaborn__titanic.csv", "survived"),
           ("seaborn__mpg.csv", "mpg"), ("seaborn__planets.csv", "method"), ("seaborn__taxis.csv", "tip"),
           ("plotly__winequality-red.csv", "quality"), ("plotly__imports-85.csv", "price"),
           ("plotly__telco-customer-churn-by-IBM.csv", "Churn"))


def tabular_roots(base: Path) -> list[Path]:
    from d3mkit.systems.board import find_roots
    from d3mkit.systems.plugins import TABULAR
    from d3mkit.taskroot.model import TaskRoot
    out = []
    for root in find_roots(base):
        try:
            t = TaskRoot.open(root)
            ok = (f"{t.problem.task_type}/{t.problem.task_subtype}" in TABULAR
                  and all(r.is_table for r in t.dataset.resources))
        except Exception:   # noqa: BLE001 - a root d3mkit cannot read is left out, and said
            print(f"skipped (unreadable): {root.name}", file=sys.stderr)
            continue
        if ok:
            out.append(root)
    return out


def imported_roots(tables: Path, out: Path) -> list[Path]:
    from d3mkit.importing.table import import_table
    roots = []
    for name, target in IMPORTS:
        if not (tables / name).is_file():
            continue
        try:
            roots.append(import_table(tables / name, target=target, out=out, seed=0))
        except Exception as exc:   # noqa: BLE001
            print(f"import of {name} failed: {exc}", file=sys.stderr)
    return roots


def first_score(root: Path, preds) -> tuple[str, float, bool] | None:
    from d3mkit.api import score
    from d3mkit.core.registry import get_metric
    try:
        report = score(root, preds)
    except Exception as exc:   # noqa: BLE001
        print(f"  scoring failed: {str(exc)[:200]}", file=sys.stderr)
        return None
    s = report.scores[0]
    return s.metric, float(s.value), get_metric(s.metric.split("[")[0]).higher_is_better


def measure(root: Path, systems: list[str], time_limit: float, runs: Path, zygote=None) -> list[dict]:
    from d3mkit.systems.child import fit_predict
    from d3mkit.systems.handover import sandbox
    from d3mkit.systems.plugins import Options, get
    from d3mkit.systems.runner import folds_of, run_system
    from d3mkit.taskroot.model import TaskRoot
    task = TaskRoot.open(root)
    try:
        (r, f) = folds_of(task, "first")[0]
    except Exception as exc:   # noqa: BLE001 - no splits file: said, and left out
        return [{"root": root.name, "system": s, "status": f"error: {_why(exc)}"} for s in systems]
    rows = []
    for name in systems:
        system = get(name)
        options = Options(seed=0, time_limit=time_limit, cores=1)
        t0 = time.perf_counter()
        try:
            res = run_system(system, root, runs, options, folds="first", force=True, zygote=zygote)[0]
        except Exception as exc:   # noqa: BLE001 - refused, or views that cannot be cut
            rows.append({"root": root.name, "system": name, "status": f"error: {_why(exc)}"})
            continue
        call = time.perf_counter() - t0
        row = {"root": root.name, "system": name, "status": res.status, "fit": res.fit_seconds,
               "predict": res.predict_seconds, "child_wall": res.wall_seconds, "call_wall": call,
               "peak_mb": res.peak_memory_mb, "rows": len(task.learning_data())}
        preds = runs / name / task.problem.problem_id / f"repeat_{r}" / f"fold_{f}" / "predictions.csv"
        row["score"] = first_score(root, preds) if res.status == "ok" else None
        row["load"] = os.getloadavg()[0]
        if system.kind != "python":      # a program of its own: nothing to call in this process
            rows.append(row)
            continue
        with sandbox(root, r, f) as box:
            t1 = time.perf_counter()
            frame, _, _ = fit_predict(system, box.paths["train"], box.paths["test"], box.paths["problem"], options)
            row["direct"] = time.perf_counter() - t1
        row["direct_score"] = first_score(root, frame)
        row["overhead"] = call - row["direct"]
        row["overhead_ok"] = row["overhead"] <= 1.0 + 0.05 * row["direct"]
        rows.append(row)
        print(f"{root.name} {name}: {res.status} fit {res.fit_seconds} call {call:.2f} direct {row['direct']:.2f} "
              f"score {row['score']}", file=sys.stderr)
    return rows


COLD: list[dict] = []


def _why(exc: Exception) -> str:
    """An error as its issue codes and messages, without paths (the results file is committed)."""
    issues = getattr(exc, "issues", None)
    if issues:
        return "; ".join(f"{i.code}: {i.message}" for i in issues)[:90]
    return type(exc).__name__


def _f(v, spec=".2f"):
    return "-" if v is None else format(v, spec)


def report(rows: list[dict], systems: list[str], time_limit: float) -> str:
    lines = [f"# AutoML systems on real tabular roots (tools/bench_systems.py)", "",
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; Python {platform.python_version()}; "
             f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; time limit {time_limit:g} s, "
             f"1 core; repeat 0 fold 0 of each root.", "",
             "| root | rows | system | status | fit s | predict s | child wall s | peak MB | call wall s | "
             "direct s | overhead s (target 1 s + 5 %) | load | first metric | score |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        sc = r.get("score")
        lines.append(f"| {r['root']} | {r.get('rows', '-')} | {r['system']} | {r['status']} | {_f(r.get('fit'))} | "
                     f"{_f(r.get('predict'))} | {_f(r.get('child_wall'))} | {_f(r.get('peak_mb'), '.0f')} | "
                     f"{_f(r.get('call_wall'))} | {_f(r.get('direct'))} | {_f(r.get('overhead'))} "
                     f"{'ok' if r.get('overhead_ok') else 'OVER' if 'overhead' in r else ''} | {_f(r.get('load'), '.1f')} | "
                     f"{sc[0] if sc else '-'} | {_f(sc[1] if sc else None, '.4g')} |")
    by_root: dict[str, dict] = {}
    for r in rows:
        by_root.setdefault(r["root"], {})[r["system"]] = r
    lines.append("")
    if {"random-forest", "constant"} <= set(systems):
        wins = ties = losses = none = 0
        for root, got in by_root.items():
            rf, c = (got.get(s, {}).get("score") for s in ("random-forest", "constant"))
            if not rf or not c:
                none += 1
                continue
            better = rf[1] > c[1] if rf[2] else rf[1] < c[1]
            same = rf[1] == c[1]
            wins += better
            ties += same
            losses += not better and not same
        lines.append(f"random-forest beats constant on {wins} of {len(by_root)} roots ({ties} ties, {losses} "
                     f"worse, {none} without both scores).")
    over = [r for r in rows if "overhead" in r]
    if over:
        ok = sum(r["overhead_ok"] for r in over)
        med = sorted(r["overhead"] for r in over)[len(over) // 2]
        loads = sorted(r["load"] for r in over)
        lines.append(f"bridge overhead within 1 s + 5 %: {ok} of {len(over)} runs; median overhead {med:.2f} s "
                     f"(load average {loads[0]:.1f}-{loads[-1]:.1f}, median {loads[len(loads) // 2]:.1f}, "
                     f"on {os.cpu_count()} CPUs).")
    within = [r for r in rows if r.get("child_wall") is not None]
    lines.append(f"child wall within the time limit: {sum(r['child_wall'] <= time_limit for r in within)} of "
                 f"{len(within)}.")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--systems", default="constant,random-forest")
    ap.add_argument("--time-limit", type=float, default=300.0)
    ap.add_argument("--roots-only", action="store_true")
    ap.add_argument("--imports-only", action="store_true")
    ap.add_argument("--limit", type=int, default=None, help="at most N roots of each kind")
    ap.add_argument("--save", action="store_true")
    args = ap.parse_args()
    base = os.environ.get("D3MKIT_REALWORLD")
    if not base:
        print("set D3MKIT_REALWORLD to the shared realworld corpus", file=sys.stderr)
        return 2
    import sklearn.compose, sklearn.ensemble, sklearn.feature_extraction.text, sklearn.impute  # noqa: F401,E401 - warm
    systems = [s for s in args.systems.split(",") if s]
    with tempfile.TemporaryDirectory(prefix="bench-systems-") as tmp:
        roots = [] if args.imports_only else tabular_roots(Path(base) / "roots")[:args.limit]
        if not args.roots_only:
            roots += imported_roots(Path(base) / "ecosystem" / "tables", Path(tmp) / "imports")[:args.limit]
        rows = []
        from d3mkit.systems.runner import warm_zygote
        # a cold child once (what the first fold of a run costs), then the warm zygote that
        # d3mkit run forks the later folds from
        for name in systems:
            cold = measure(roots[0], [name], args.time_limit, Path(tmp) / "cold")
            for r in cold:
                print(f"first fold of a run: {r['root']} {name}: child wall {_f(r.get('child_wall'))} s, "
                      f"call wall {_f(r.get('call_wall'))} s, direct {_f(r.get('direct'))} s", file=sys.stderr)
                COLD.append(r)
        with warm_zygote(1) as zygote:
            if hasattr(zygote, "wait_ready"):
                zygote.wait_ready()     # its imports are the run's, not the first measured fold's
            for root in roots:
                rows += measure(root, systems, args.time_limit, Path(tmp) / "runs", zygote)
    text = report(rows, systems, args.time_limit)
    text += "\na run's first fold (its zygote started with it: interpreter start and imports included, overlapping the views writing): " + "; ".join(
        f"{r['system']} on {r['root']}: call wall {_f(r.get('call_wall'))} s vs direct {_f(r.get('direct'))} s "
        f"(overhead {_f(r.get('overhead'))} s)" for r in COLD) + ".\n"
    print(text)
    if args.save:
        (REPO / "tools" / "results" / "systems_bench.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
