"""Every system on every task root, then the campaign's evaluation: ``d3mkit benchmark``.

What this module owns: finding the task roots under ``--problems``, the work units (one
system on one task root, :func:`run_unit`, on the local pool or a Dask cluster through
:mod:`d3mkit.io.executor`), and the board::

    BOARD/runs/SYSTEM/PROBLEMID/repeat_R/fold_F/...   what d3mkit run writes (reused on a re-run)
    BOARD/runs.csv       one row per (system, problem, repeat, fold): status, times, peak memory
    BOARD/systems.csv    per system: folds ok / failed / timeout / memout / refused, time, memory
    BOARD/evaluation/    the outputs of d3mkit evaluate (scores, statistics, failures,
                         leaderboard.html), from its library entry point
                         :func:`d3mkit.evaluate.campaign.run_campaign`

A fold with a ``pipeline.json`` is finished and is not run again (``resume``); a system
that refuses a task type, or cannot run here, is a ``refused`` row, and the others go on.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from d3mkit.systems.plugins import Options

MAX_DEPTH = 4
RUN_COLUMNS = ("system", "problem_id", "repeat", "fold", "status", "fit_seconds", "predict_seconds",
               "wall_seconds", "peak_memory_mb", "reused", "error")


def find_roots(problems: Path) -> list[Path]:
    """The task roots under ``problems`` (a directory holding ``<name>_problem/problemDoc.json``
    and ``<name>_dataset/``), sorted; published view directories (TRAIN/TEST/SCORE) and
    hidden ones are not entered."""
    found = []

    def walk(d: Path, depth: int) -> None:
        try:
            entries = sorted(p for p in d.iterdir() if p.is_dir() and not p.name.startswith("."))
        except OSError:
            return
        names = {p.name for p in entries}
        if any(n.endswith("_problem") and n[:-8] + "_dataset" in names and (d / n / "problemDoc.json").is_file()
               for n in names):
            found.append(d)
            return
        if depth < MAX_DEPTH:
            for p in entries:
                if p.name not in ("TRAIN", "TEST", "SCORE"):
                    walk(p, depth + 1)
    walk(Path(problems), 0)
    return found


def parse_systems(text: str) -> list[tuple[str, str]]:
    """``--systems`` as (label, spec): ``constant,random-forest`` or ``mine=command:...``.

    >>> parse_systems("constant, mine=command:run {out}")
    [('constant', 'constant'), ('mine', 'command:run {out}')]
    """
    out = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        label, _, spec = part.partition("=") if "=" in part.split(":", 1)[0] else ("", "", part)
        out.append((label.strip() or (spec if not spec.startswith("command:") else "command"), spec.strip()))
    return out


@dataclass(frozen=True)
class Unit:
    label: str
    spec: str
    root: str
    runs: str
    options: Options
    folds: str = "all"


def run_unit(unit: Unit) -> list[dict]:
    """One system on one task root (finished folds reused); rows of runs.csv. A refusal, a
    system not ready here or a task root that cannot be cut into views is one ``refused`` or
    ``failed`` row, never an exception."""
    from d3mkit.core.errors import D3MKitError
    from d3mkit.systems.plugins import get
    from d3mkit.systems.runner import run_system
    base = {"system": unit.label, "problem_id": Path(unit.root).name, "repeat": "", "fold": "",
            "fit_seconds": "", "predict_seconds": "", "wall_seconds": "", "peak_memory_mb": "", "reused": False}
    try:
        from d3mkit.taskroot.model import TaskRoot
        base["problem_id"] = TaskRoot.open(unit.root).problem.problem_id or base["problem_id"]
        results = run_system(get(unit.spec), unit.root, Path(unit.runs), unit.options, folds=unit.folds,
                             resume=True, label=unit.label)
    except D3MKitError as exc:
        refused = any(i.code in ("systems.refused", "systems.not_ready") for i in exc.issues)
        return [{**base, "status": "refused" if refused else "failed",
                 "error": "; ".join(i.message for i in exc.issues)[:500]}]
    return [{k: v for k, v in r.to_dict().items() if k in RUN_COLUMNS} for r in results]


def _csv(rows: list[dict], columns) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(columns), extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def per_system(rows: list[dict]) -> list[dict]:
    """systems.csv rows: counts of each status, time and memory per system."""
    out = {}
    for r in rows:
        s = out.setdefault(r["system"], {"system": r["system"], "folds": 0, "ok": 0, "failed": 0, "timeout": 0,
                                         "memout": 0, "refused": 0, "fit_seconds": 0.0, "predict_seconds": 0.0,
                                         "wall_seconds": 0.0, "peak_memory_mb": 0.0})
        s["folds"] += r["status"] != "refused"
        s[r["status"]] = s.get(r["status"], 0) + 1
        for k in ("fit_seconds", "predict_seconds", "wall_seconds"):
            s[k] += float(r[k] or 0.0)
        s["peak_memory_mb"] = max(s["peak_memory_mb"], float(r["peak_memory_mb"] or 0.0))
    for s in out.values():
        for k in ("fit_seconds", "predict_seconds", "wall_seconds"):
            s[k] = round(s[k], 3)
    return list(out.values())


SYSTEM_COLUMNS = ("system", "folds", "ok", "failed", "timeout", "memout", "refused", "fit_seconds",
                  "predict_seconds", "wall_seconds", "peak_memory_mb")


def run_benchmark(systems: list[tuple[str, str]], problems: Path, board: Path, options: Options, executor, *,
                  folds: str = "all", progress: bool = False, evaluate_params=None):
    """Run every system on every task root under ``problems`` on ``executor``, then evaluate;
    return (rows of runs.csv, the evaluate campaign)."""
    from d3mkit.io.atomic import write_text
    from d3mkit.evaluate.campaign import run_campaign
    roots = find_roots(problems)
    runs = Path(board) / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    units = [Unit(label, spec, str(root), str(runs), options, folds) for label, spec in systems for root in roots]
    rows = [r for part in executor.map(run_unit, units, chunksize=1, progress=progress, desc="benchmark",
                                       unit="run") for r in part]
    write_text(Path(board) / "runs.csv", _csv(rows, RUN_COLUMNS))
    write_text(Path(board) / "systems.csv", _csv(per_system(rows), SYSTEM_COLUMNS))
    camp = run_campaign(problems, runs, Path(board) / "evaluation", executor, progress=progress,
                        params=evaluate_params)
    return rows, camp
