"""The challenge directory: what ``d3mkit challenge create`` writes and the server reads.

What this module owns: the layout below, ``challenge.json`` (:class:`Challenge`), the
seeded public/private split of each problem's TEST rows, and the rule that nothing under
``private/`` is ever served::

    CHALLENGE/
      challenge.json              settings, problems (id, metrics and their directions), seed
      secret.key                  signs sessions and CSRF tokens (mode 0600)
      challenge.sqlite            the default database (d3mkit.server.store)
      public/<n>/TRAIN.zip        what teams download: the TRAIN view of problem n
      public/<n>/TEST.zip         the TEST view (targets emptied, d3mkit.taskroot.views)
      private/<n>/problem/        the SCORE view's problemDoc.json and dataSplits.csv
      private/<n>/targets.csv     the truth of every TEST row (the SCORE view's targets.csv)
      private/<n>/targets_public.csv, targets_private.csv   the truth split in two
      private/<n>/debug/          the per-row metadata files the problem's metrics read
                                  (the task root's ``<name>_debug/<file>``), when any does
      uploads/                    the submitted files, named by the server (<id>.csv)

``<n>`` is the problem's position (``p000``, ``p001``, ...), never a name from a document
or a request. The split is Kaggle's: the split units (d3mIndex; the image for
objectDetection) are shuffled with ``numpy.random.default_rng(seed)`` and the first
``round(public_fraction * units)`` are public; the seed is recorded in challenge.json.
Built in a staged directory and swapped in atomically (:class:`d3mkit.io.atomic.StagedDir`).
"""

from __future__ import annotations

import json
import secrets
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from d3mkit.core.errors import D3MKitError, UsageError, error
from d3mkit.tables import read_table

FORMAT = 1
CONFIG = "challenge.json"
SECRET = "secret.key"
DEFAULT_DB = "challenge.sqlite"
UPLOADS = "uploads"
ARCHIVES = ("TRAIN", "TEST")


@dataclass(frozen=True)
class ProblemEntry:
    """One problem of a challenge: ``key`` is its directory name (``p000``); ``metrics``
    the (scores.csv label prefix, higher is better) pairs in problemDoc order; ``unit`` the
    split-unit column."""
    problem_id: str
    key: str
    task_type: str
    metrics: tuple
    unit: str
    units: int
    public_units: int
    metadata: tuple = ()       # the metadata files its metrics read, kept in private/<n>/debug/


@dataclass
class Challenge:
    """A challenge directory read back (:func:`open_challenge`)."""
    root: Path
    name: str
    seed: int
    public_fraction: float
    daily_quota: int
    max_mb: float
    rate_per_minute: int
    precision: int
    problems: dict[str, ProblemEntry] = field(default_factory=dict)
    count_failed: bool = False     # a team's own failed files count against its quota
    private: bool = False          # every page and API answer needs a team token or session
    phases: tuple = ()             # d3mkit.server.phases.Phase, in time order (none: open until finalize)

    def closed_message(self, at: str, problem: str | None = None) -> str | None:
        """Why an upload at ``at`` (the store's time text) is refused, or None."""
        from d3mkit.server.phases import closed_message
        return closed_message(self.phases, at, problem)

    def phase_now(self, at: str):
        """The phase whose rules apply at ``at`` (:func:`d3mkit.server.phases.board_phase`)."""
        from d3mkit.server.phases import board_phase
        return board_phase(self.phases, at)

    @property
    def max_bytes(self) -> int:
        return int(self.max_mb * 1024 * 1024)

    @property
    def uploads(self) -> Path:
        return self.root / UPLOADS

    def default_db_url(self) -> str:
        return f"sqlite:///{(self.root / DEFAULT_DB).resolve()}"

    def secret(self) -> bytes:
        return bytes.fromhex((self.root / SECRET).read_text(encoding="ascii").strip())

    def archive(self, problem_id: str, view: str) -> Path | None:
        """The download of ``view`` (TRAIN or TEST) of a known problem, else None: the
        only files the server sends, looked up by name, never built from a request."""
        entry = self.problems.get(problem_id)
        if entry is None or view not in ARCHIVES:
            return None
        return self.root / "public" / entry.key / f"{view}.zip"

    def truth(self, problem_id: str) -> dict:
        """The server-side paths a worker scores with (never served)."""
        entry = self.problems[problem_id]
        base = self.root / "private" / entry.key
        return {"problem": str(base / "problem"), "all": str(base / "targets.csv"),
                "public": str(base / "targets_public.csv"),
                "private": str(base / "targets_private.csv"), "unit": entry.unit,
                "metadata": str(base / "debug") if entry.metadata else None}


def open_challenge(root: Path | str) -> Challenge:
    """Read ``root/challenge.json``; a directory that is not a challenge is a usage error."""
    root = Path(root)
    cfg = root / CONFIG
    if not cfg.is_file():
        raise UsageError(f"not a challenge directory (no {CONFIG}; make one with "
                         f"'d3mkit challenge create')", str(root), code="usage.path")
    from d3mkit.documents.jsonio import load_json
    data = load_json(cfg)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise D3MKitError(error("challenge.config", "", f"not a d3mkit challenge of format {FORMAT}",
                                str(cfg)))
    problems = {p["problem_id"]: ProblemEntry(p["problem_id"], p["key"], p["task_type"],
                                              tuple(tuple(m) for m in p["metrics"]), p["unit"],
                                              p["units"], p["public_units"], tuple(p.get("metadata", ())))
                for p in data["problems"]}
    return Challenge(root, data["name"], data["seed"], data["public_fraction"], data["daily_quota"],
                     data["max_mb"], data["rate_per_minute"], data["precision"], problems,
                     bool(data.get("count_failed", False)), bool(data.get("private", False)),
                     _phases_of(data.get("phases")))


def _phases_of(data) -> tuple:
    from d3mkit.server.phases import from_config
    return from_config(data)


PARTIAL_MAX_AGE = 3600.0    # seconds: a partial upload older than this was left by a dead server


def clean_uploads(challenge: Challenge, max_age: float = PARTIAL_MAX_AGE) -> int:
    """Remove the partial uploads (``uploads/.upload-*``) a killed server left; return how
    many. At start-up; only files untouched for ``max_age`` seconds, so that another server
    process on the same challenge keeps the uploads it is receiving."""
    import time
    n = 0
    limit = time.time() - max_age
    for f in challenge.uploads.glob(".upload-*"):
        try:
            if f.stat().st_mtime < limit:
                f.unlink()
                n += 1
        except FileNotFoundError:        # finished or removed by its server meanwhile
            pass
    return n


def split_units(units: list[str], fraction: float, seed: int) -> set[str]:
    """The public units: a seeded shuffle, the first ``round(fraction * n)`` (at least one
    and, with two units or more, at least one private).

    >>> sorted(split_units([str(i) for i in range(10)], 0.5, 7)) == sorted(split_units([str(i) for i in range(10)], 0.5, 7))
    True
    >>> len(split_units([str(i) for i in range(10)], 0.3, 1))
    3
    """
    import numpy as np
    n = len(units)
    k = int(round(fraction * n))
    k = max(1, min(k, n - 1)) if n >= 2 else n
    order = np.random.default_rng(seed).permutation(n)
    return {units[i] for i in order[:k]}


def _unit_column(task_type: str, columns: list[str]) -> str:
    return "image" if task_type == "objectDetection" and "image" in columns else "d3mIndex"


def _metadata_files(doc, task_root: Path, problem_id: str) -> list[str]:
    """The per-row metadata files the problem's metrics read (``Metric.metadata_file``), each
    checked to be in the task root's ``<name>_debug`` directory: a challenge whose truth
    could not be scored is refused when it is made, not at its first submission."""
    from d3mkit.scoring.plan import plan_metrics
    from d3mkit.taskroot.model import TaskRoot
    planned, _issues = plan_metrics(doc)
    files = sorted({p.metric.metadata_file for p in planned if p.metric.metadata_file})
    if not files:
        return []
    debug = TaskRoot.open(task_root).debug_dir
    missing = [f for f in files if not (debug / f).is_file()]
    if missing:
        raise D3MKitError(error("challenge.metadata", "inputs.performanceMetrics",
                                f"problem {problem_id}'s metrics read {', '.join(missing)} from the "
                                f"task root's {debug.name} directory, which has no such file",
                                str(task_root)))
    return files


def _zip_tree(src: Path, dest: Path) -> None:
    """``src`` as a zip archive at ``dest`` (entries relative to ``src``'s parent, sorted,
    fixed timestamps: the same views give the same bytes)."""
    from d3mkit.io.atomic import write_with

    def write(tmp: Path) -> None:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for f in sorted(p for p in src.rglob("*") if p.is_file()):
                info = zipfile.ZipInfo(str(f.relative_to(src.parent)), (1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                zf.writestr(info, f.read_bytes())
    write_with(dest, write)


def create_challenge(problems_dir: Path | str, out: Path | str, *, public_fraction: float = 0.5,
                     daily_quota: int = 5, max_mb: float = 20.0, rate_per_minute: int = 30,
                     precision: int = 4, seed: int | None = None, name: str | None = None,
                     force: bool = False, count_failed: bool = False, private: bool = False,
                     phases=()) -> Challenge:
    """Make a challenge from every task root under ``problems_dir`` (see the module
    docstring); return it. The database is created by the caller (:mod:`d3mkit.server.store`)."""
    import shutil

    from d3mkit.io.atomic import StagedDir, check_output_dir, copy_tree, write_text
    from d3mkit.documents import ProblemDoc
    from d3mkit.documents.locate import locate_task_root
    from d3mkit.evaluate.discover import find_problems
    from d3mkit.tables import write_table
    from d3mkit.taskroot.model import TaskRoot
    from d3mkit.taskroot.views import write_views
    if not 0.0 < public_fraction < 1.0:
        raise UsageError(f"the public fraction must be between 0 and 1 (exclusive), got {public_fraction}")
    if daily_quota < 1 or rate_per_minute < 1 or max_mb <= 0 or not 0 <= precision <= 12:
        raise UsageError("the daily quota and rate must be at least 1, the size cap positive and "
                         "the precision 0-12 digits")
    problems_dir = Path(problems_dir)
    if not problems_dir.is_dir():
        raise UsageError("not a directory", str(problems_dir), code="usage.path")
    out = check_output_dir(out)
    found, failures = find_problems(problems_dir)
    if failures:
        raise D3MKitError([error(f.code, "", f.message, f.problem_id) for f in failures])
    if not found:
        raise D3MKitError(error("challenge.no_problems", "", "no problemDoc.json found", str(problems_dir)))
    from d3mkit.server.phases import check as check_phases
    phases = check_phases(list(phases), set(found))
    seed = secrets.randbits(32) if seed is None else int(seed)
    entries = []
    with StagedDir(out, force=force) as tmp:
        for i, (pid, prob) in enumerate(sorted(found.items())):
            key = f"p{i:03d}"
            root, _name = locate_task_root(prob.doc)
            views = tmp / ".views" / key
            write_views(root, views)
            for view in ARCHIVES:
                _zip_tree(views / view, tmp / "public" / key / f"{view}.zip")
            priv = tmp / "private" / key
            copy_tree(views / "SCORE" / "problem_SCORE", priv / "problem", what="problem file")
            shutil.copyfile(views / "SCORE" / "targets.csv", priv / "targets.csv")
            targets = read_table(priv / "targets.csv")
            doc = ProblemDoc.load(priv / "problem" / "problemDoc.json")
            metadata = _metadata_files(doc, root, pid)
            for f in metadata:           # kept server-side beside the truth, never served
                (priv / "debug").mkdir(exist_ok=True)
                shutil.copyfile(TaskRoot.open(root).debug_dir / f, priv / "debug" / f)
            unit = _unit_column(doc.task_type, list(targets.columns))
            units = sorted(dict.fromkeys(targets[unit]), key=lambda u: (len(u), u))
            public = split_units(units, public_fraction, seed + i)
            mask = targets[unit].isin(public)
            write_table(targets[mask], priv / "targets_public.csv")
            write_table(targets[~mask], priv / "targets_private.csv")
            entries.append({"problem_id": pid, "key": key, "task_type": doc.task_type,
                            "metrics": [list(m) for m in prob.metrics], "unit": unit,
                            "units": len(units), "public_units": len(public), "metadata": metadata})
        shutil.rmtree(tmp / ".views")
        (tmp / UPLOADS).mkdir()
        write_text(tmp / SECRET, secrets.token_hex(32) + "\n")
        (tmp / SECRET).chmod(0o600)
        config = {"format": FORMAT, "name": name or out.name, "seed": seed,
                  "public_fraction": public_fraction, "daily_quota": daily_quota,
                  "max_mb": max_mb, "rate_per_minute": rate_per_minute, "precision": precision,
                  "count_failed": bool(count_failed), "private": bool(private),
                  "phases": [p.to_dict() for p in phases], "problems": entries}
        write_text(tmp / CONFIG, json.dumps(config, indent=2) + "\n")
        restrict(tmp / "private")
        restrict(tmp / UPLOADS)
    return open_challenge(out)


def restrict(path: Path) -> None:
    """``path`` and everything under it readable by its owner only (directories 0700, files
    0600), whatever the umask: the truth, the uploads and the database are the organiser's
    (a Dask worker that scores them runs as the same user)."""
    import os
    path.chmod(0o700 if path.is_dir() else 0o600)
    if path.is_dir():
        for dirpath, dirs, files in os.walk(path):
            for d in dirs:
                os.chmod(os.path.join(dirpath, d), 0o700)
            for f in files:
                os.chmod(os.path.join(dirpath, f), 0o600)


def part_warnings(challenge: Challenge) -> list[str]:
    """What ``challenge create`` warns about: a part (public, private) without rows, and a
    metric that cannot be computed on a part's rows even for perfect predictions (rocAuc on
    rows of one class): the board shows such a value as missing. Scored here with the
    library (the truth of every TEST row as the predictions)."""
    from d3mkit.scoring.score import prepare_problem
    out = []
    for pid, e in sorted(challenge.problems.items()):
        truth = challenge.truth(pid)
        private = e.units - e.public_units
        if private == 0:
            out.append(f"{pid}: no private rows ({e.units} TEST unit(s)); its private board shows no value")
        for part, n in (("public", e.public_units), ("private", private)):
            if n == 0:
                continue
            try:
                prepared = prepare_problem(truth["problem"], targets=truth[part], metadata_dir=truth.get("metadata"))
                issues = _perfect_issues(prepared, truth[part])
            except Exception:       # noqa: BLE001 - a warning only; scoring reports the rest
                continue
            for i in issues:
                if i.code == "metric.failed":
                    out.append(f"{pid}: on the {part} rows {i.message}; the {part} board shows it as "
                               f"missing (another --seed or --public-fraction may help)")
    return out


def _perfect_issues(prepared, targets_path: str) -> list:
    """The issues of scoring the truth itself as the predictions (with a confidence of 1
    where a metric needs one)."""
    from d3mkit.core.errors import D3MKitError
    from d3mkit.scoring.score import score_prepared_aligned
    frame = read_table(targets_path)
    for attempt in range(2):
        try:
            return list(score_prepared_aligned(prepared, frame)[0].issues)
        except D3MKitError as exc:
            if attempt == 0 and any(i.code == "predictions.no_confidence" for i in exc.issues):
                frame = frame.assign(confidence="1.0")
                continue
            return list(exc.issues)
    return []

