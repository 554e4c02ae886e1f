"""One system on one task root, fold by fold: ``d3mkit run SYSTEM ROOT --out DIR``.

What this module owns: which folds run (:func:`folds_of`), the child's command line, the
files of a fold and their layout — the layout ``d3mkit evaluate`` reads::

    DIR/SYSTEM/PROBLEMID/repeat_R/fold_F/predictions.csv
    DIR/SYSTEM/PROBLEMID/repeat_R/fold_F/pipeline.json   system, version, seed, time_limit,
                                                         fit_seconds, predict_seconds,
                                                         peak_memory_mb, status, ...
    DIR/SYSTEM/PROBLEMID/repeat_R/fold_F/log.txt         the last 16,000 bytes of its output

Each fold directory is written whole or not at all (:class:`d3mkit.io.atomic.StagedDir`), so a
fold with a ``pipeline.json`` is finished: ``resume`` skips it. A fold whose system fails,
times out or runs out of memory gets its ``pipeline.json`` (status ``failed``, ``timeout``,
``memout``) without predictions, and the run goes on with the next fold.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from d3mkit.core.errors import D3MKitError, InvalidArgument, error
from d3mkit.systems.plugins import Options, System

STATUSES = ("ok", "failed", "timeout", "memout")
PIPELINE = "pipeline.json"


@dataclass
class FoldResult:
    system: str
    problem_id: str
    repeat: int
    fold: int
    status: str
    fit_seconds: float | None
    predict_seconds: float | None
    wall_seconds: float
    peak_memory_mb: float
    reused: bool = False
    error: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def folds_of(task, which: str = "all") -> list[tuple[int, int]]:
    """The (repeat, fold) pairs of the task root's dataSplits, in order; ``first``: the first."""
    from d3mkit.taskroot.splits.read import splits_path
    where = splits_path(task.problem_dir, task.problem.splits_file)
    if not where.is_file():
        raise D3MKitError(error("file.missing", "", "the task root has no splits file, so no TRAIN/TEST "
                                "folds (write it with 'd3mkit split' on the problem directory)", str(where)))
    s = task.splits()
    pairs = sorted({(int(r), int(f)) for r, f in zip(s["repeat"], s["fold"])})
    if not pairs:
        raise D3MKitError(error("views.no_fold", "", "the splits file has no rows",
                                str(task.problem_dir / task.problem.splits_file)))
    return pairs[:1] if which == "first" else pairs


def argv_for(system: System, paths: dict, options: Options, python: str = sys.executable) -> list[str]:
    """The command line that runs ``system`` on the sandbox ``paths``."""
    if system.kind == "python":
        return [python, "-m", "d3mkit.systems.child", system.name, paths["train"], paths["test"],
                paths["problem"], paths["out"], json.dumps(options.to_dict())]
    return [str(a) for a in system.command(paths, options)]


def _read_json(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _reused(path: Path, label: str, pid: str, r: int, f: int) -> FoldResult | None:
    doc = _read_json(path / PIPELINE)
    if doc is None or doc.get("status") not in STATUSES:
        return None
    return FoldResult(label, pid, r, f, doc["status"], doc.get("fit_seconds"), doc.get("predict_seconds"),
                      doc.get("wall_seconds", 0.0), doc.get("peak_memory_mb", 0.0), reused=True,
                      error=doc.get("error", ""))


def run_fold(system: System, task, repeat: int, fold: int, options: Options, dest: Path,
             label: str, zygote=None) -> FoldResult:
    """Run ``system`` on one fold in a sandbox; write ``dest`` (the fold directory) whole. A
    Python system's child is forked by ``zygote`` when one is given and alive
    (:mod:`d3mkit.systems.zygote`), else started afresh."""
    from d3mkit import __version__
    from d3mkit.io.atomic import StagedDir
    from d3mkit.systems.handover import sandbox
    from d3mkit.systems.limits import run_forked, run_limited
    pid = task.problem.problem_id
    with tempfile.TemporaryDirectory(prefix="d3mkit-run-") as private, \
            sandbox(task.root, repeat, fold) as box:
        log = Path(private) / "log.txt"
        env = box.env(options.cores, system.kind == "python")
        argv = argv_for(system, box.paths, options)
        limits = {"time_limit": options.time_limit, "memory_mb": options.memory_limit}
        out = None
        if zygote is not None and system.kind == "python" and zygote.alive():
            try:
                out = run_forked(zygote, argv[3:], cwd=box.root, env=env, log=log, **limits)
            except OSError:     # the zygote died (killed from outside): a fresh child instead
                out = None
        if out is None:
            out = run_limited(argv, cwd=box.root, env=env, log=log, **limits)
        preds = Path(box.paths["out"])
        timings = _read_json(preds.with_name("timings.json")) or {}
        status = out.status
        why = ""
        if status == "ok" and not preds.is_file():
            status, why = "failed", "the system exited 0 but wrote no predictions file"
        elif status != "ok":
            last = [ln for ln in out.log.strip().splitlines() if ln.strip()]
            said = f"exit {out.returncode}: {last[-1][:300] if last else 'no output'}"
            why = {"timeout": f"killed after {out.wall_seconds:.1f} s (time limit {options.time_limit} s)",
                   "memout": _memout_why(out, options.memory_limit, said)}.get(status, said)
        fit_s = timings.get("fit_seconds", out.wall_seconds if status == "ok" else None)
        result = FoldResult(label, pid, repeat, fold, status, fit_s, timings.get("predict_seconds"),
                            round(out.wall_seconds, 3), out.peak_memory_mb, error=why)
        doc = {"system": label, "version": system.version(), "problemID": pid, "repeat": repeat, "fold": fold,
               **{k: v for k, v in options.to_dict().items()}, "fit_seconds": fit_s,
               "predict_seconds": result.predict_seconds, "wall_seconds": result.wall_seconds,
               "peak_memory_mb": out.peak_memory_mb, "status": status, "error": why,
               "returncode": out.returncode, "d3mkit": __version__,
               "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        dest.parent.mkdir(parents=True, exist_ok=True)
        with StagedDir(dest, force=True) as tmp:
            if status == "ok":
                import shutil
                shutil.copyfile(preds, tmp / "predictions.csv")
            (tmp / "log.txt").write_text(out.log, encoding="utf-8")
            (tmp / PIPELINE).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return result


def _memout_why(out, memory_limit, said: str) -> str:
    from d3mkit.systems.limits import hard_cap_mb
    if memory_limit is not None and out.peak_memory_mb > memory_limit:
        return f"over the memory limit ({memory_limit} MB; peak seen {out.peak_memory_mb} MB)"
    cap = hard_cap_mb(memory_limit)
    where = f" (limit {memory_limit} MB, hard cap RLIMIT_DATA {cap} MB per process)" if cap else ""
    return f"out of memory{where}: {said}"


def check_accepts(system: System, task) -> None:
    why = system.accepts(task.problem.task_type, task.problem.task_subtype)
    if why:
        raise D3MKitError(error("systems.refused", "about.taskType", why, str(task.problem_dir)))


def run_system(system: System, task_root, out: Path, options: Options, *, folds: str = "all",
               resume: bool = False, force: bool = False, label: str | None = None,
               progress: bool = False, zygote=None) -> list[FoldResult]:
    """Run ``system`` on every fold (or the first) of the task root; return each fold's result.
    A Python system's children are forked by ``zygote`` (a
    :class:`~d3mkit.systems.zygote.Zygote` the caller keeps across calls), or by one made for
    this call (started before the first fold's views are written, so that its imports and
    the writing overlap)."""
    from d3mkit.taskroot.model import TaskRoot
    task = TaskRoot.open(task_root)
    check_accepts(system, task)
    why = system.why_not_ready()
    if why:
        raise D3MKitError(error("systems.not_ready", "", f"system {system.name!r} cannot run here: {why}"), 3)
    label = label or system.name
    pid = task.problem.problem_id
    where = Path(out) / label / pid
    if where.exists() and any(where.iterdir()) and not (resume or force):
        raise InvalidArgument(None, f"{where} holds a previous run: {{resume=True}} to continue it, "
                              f"{{force=True}} to replace it", str(where))
    pairs = folds_of(task, folds)
    results = []
    todo = [p for p in pairs if not (resume and _reused(where / f"repeat_{p[0]}" / f"fold_{p[1]}", label, pid, *p))]
    own = None
    if zygote is None and system.kind == "python" and todo:
        # started now, it imports while the first fold's views are written
        own = zygote = warm_zygote(options.cores)
    from tqdm import tqdm
    try:
        with tqdm(total=len(pairs), desc=f"{label} {pid}", unit="fold", disable=not progress,
                  file=sys.stderr) as bar:
            for r, f in pairs:
                dest = where / f"repeat_{r}" / f"fold_{f}"
                done = _reused(dest, label, pid, r, f) if resume else None
                results.append(done or run_fold(system, task, r, f, options, dest, label, zygote))
                bar.update(1)
    finally:
        if own is not None:
            own.close()
    return results


def warm_zygote(cores: int):
    """A :class:`~d3mkit.systems.zygote.Zygote` for Python systems using ``cores`` threads."""
    from d3mkit.systems.handover import base_env
    from d3mkit.systems.zygote import Zygote
    import tempfile as _t
    home = Path(_t.mkdtemp(prefix="d3mkit-zygote-home-"))
    for d in ("home", "tmp"):
        (home / d).mkdir()
    return Zygote(base_env(cores, True, home))
