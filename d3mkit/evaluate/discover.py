"""What a campaign scores: the problems of ``--problems`` and the submissions of
``--submissions``, and a :class:`Failure` for everything in the submissions tree that
cannot be scored. Nothing here opens a predictions file except to hash it.

Submissions layout (``SUBMISSIONS/<system>/<entry>/predictions.csv``): ``<entry>`` is a
problemID, or a D3M pipeline-run directory (any name) holding a ``pipelineDoc.json``
that names the problem (``"problemID"`` at the top level or under ``"problem"``) beside
its ``predictions.csv``. The entry's ``predictions.csv`` is repeat 0, fold 0; a problem
with several folds takes one file per fold at ``<entry>/repeat_<R>/fold_<F>/predictions.csv``.
Names starting with a dot are skipped (``.git``, editor files). Anything else is
recorded, never fatal:

===========================  ===================================================================
code                         meaning
===========================  ===================================================================
``submission.missing``       a system has no submission for a problem
``submission.no_predictions`` an entry directory without ``predictions.csv``
``submission.unknown_problem`` the entry names no problem of ``--problems``
``submission.duplicate``     two entries of one system for the same problem (none is scored)
``submission.stray``         a file where a system or entry directory is expected
``submission.missing_fold``  a fold of the problem's dataSplits has no predictions file
``submission.bad_pipeline``  a ``pipelineDoc.json`` that is unreadable or names no problemID
``system.case_clash``        system names that differ only in case (none of them is scored)
``name.encoding``            a file name that is not valid UTF-8
``name.control``             a file name holding control characters (shown escaped)
``path.outside_tree``        a symlink that leaves the submissions tree (not followed)
``file.not_regular``         ``predictions.csv`` is a FIFO, device or directory (never opened)
``file.too_large``           ``predictions.csv`` is over the size limit (``d3mkit.io.limits``
                             ``MAX_FILE_BYTES``, or ``--max-size-mb``)
``file.unreadable``          ``predictions.csv``, or a system or entry directory, cannot be read
``problem.unusable``         the problem itself cannot be scored (its issues say why)
``problem.duplicate_id``     two problem directories with the same problemID (neither is used)
===========================  ===================================================================
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from d3mkit.core.codes import CODES
from d3mkit.core.errors import shown

PREDICTIONS = "predictions.csv"
PIPELINE_DOC = "pipelineDoc.json"
_HASH_BLOCK = 1 << 20
MAX_PROBLEM_DEPTH = 4

# the codes a campaign writes to failures.csv; the catalogue (d3mkit/core/codes.py) owns them
FAILURE_CODES = {code: CODES[code][1] for code in (
    "submission.missing", "submission.no_predictions", "submission.unknown_problem",
    "submission.duplicate", "submission.stray", "submission.bad_pipeline", "system.case_clash",
    "name.encoding", "name.control", "submission.missing_fold", "path.outside_tree", "file.not_regular", "file.too_large", "file.unreadable",
    "problem.unusable", "problem.duplicate_id", "internal")}


@dataclass(frozen=True, order=True)
class Failure:
    """A row of failures.csv. ``system`` is empty for a problem-side failure."""
    system: str
    problem_id: str
    code: str
    message: str


@dataclass(frozen=True)
class Problem:
    problem_id: str
    doc: str                 # problemDoc.json
    dataset: str | None      # datasetDoc.json beside it
    digest: str              # content hash of everything scoring reads
    metrics: tuple = ()      # (name as in scores.csv prefix, higher_is_better) in problemDoc order
    folds: tuple = ((0, 0),)  # the (repeat, fold) pairs of its dataSplits


@dataclass(frozen=True)
class Submission:
    """A system's entry for a problem: ``files`` holds ``(repeat, fold, path)`` of each
    readable predictions file; ``reported`` the folds whose file is already a failure
    row (too large, a link out of the tree, ...)."""
    system: str
    problem_id: str
    path: str
    digest: str
    files: tuple = ()
    reported: tuple = ()

    def file(self, repeat: int, fold: int) -> str | None:
        return next((p for r, f, p in self.files if (r, f) == (repeat, fold)), None)


@dataclass
class Discovery:
    problems: dict[str, Problem] = field(default_factory=dict)
    systems: list[str] = field(default_factory=list)
    submissions: list[Submission] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)


def has_control(name: str) -> bool:
    """The name holds a control character (C0, DEL or C1), which a terminal, a CSV
    reader or a log would act on.

    >>> has_control("ok name"), has_control("two\\nlines"), has_control("esc\\x1b[31m")
    (False, True, True)
    """
    return any(ord(c) < 32 or 127 <= ord(c) < 160 for c in name)


def escaped(name: str) -> str:
    """``name`` with control characters as ``\\xNN`` (safe on a terminal and in a cell).

    >>> escaped("a\\nb")
    'a\\\\x0ab'
    """
    return "".join(f"\\x{ord(c):02x}" if ord(c) < 32 or 127 <= ord(c) < 160 else c for c in name)


def file_digest(path: Path, h=None) -> str:
    h = h or hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(_HASH_BLOCK), b""):
            h.update(block)
    return h.hexdigest()


# ---------------------------------------------------------------------------------------
# problems
# ---------------------------------------------------------------------------------------
def _problem_docs(root: Path) -> list[Path]:
    out = []
    for here, dirs, files in os.walk(root):
        depth = len(Path(here).relative_to(root).parts)
        dirs[:] = sorted(d for d in dirs if depth < MAX_PROBLEM_DEPTH and not d.startswith("."))
        if "problemDoc.json" in files:
            out.append(Path(here) / "problemDoc.json")
    return sorted(out)


def _problem_digest(doc_path: Path, problem, dataset: Path | None) -> str:
    """sha256 over the files scoring reads: the problemDoc, its dataSplits, the datasetDoc,
    every file resource the datasetDoc names (learningData may live outside ``tables/``),
    the dataset's ``tables/`` and the ``_debug`` metadata; plus the d3mkit version."""
    from d3mkit import __version__
    from d3mkit.scoring.resolve import metadata_dir_of
    h = hashlib.sha256(f"d3mkit {__version__}\n".encode())
    from d3mkit.io.limits import file_issue
    from d3mkit.io.paths import outside_reason
    files = [(doc_path, doc_path.parent), (doc_path.parent / str(problem.splits_file or "dataSplits.csv"),
                                           doc_path.parent)]
    if dataset is not None:
        files.append((dataset, dataset.parent))
        named = set()
        try:
            from d3mkit.documents import DatasetDoc
            ddoc = DatasetDoc.load(dataset)
            for res in ddoc.resources:
                named.add(ddoc.resource_path(res))
        except Exception:  # noqa: BLE001 - an unreadable datasetDoc is hashed as bytes only
            pass
        named.update(sorted((dataset.parent / "tables").glob("*")))
        files += [(t, dataset.parent) for t in sorted(named)]
    mdir = metadata_dir_of(doc_path)
    if mdir is not None and mdir.is_dir():
        files += [(m, mdir) for m in sorted(mdir.glob("*.csv"))]
    for f, root in files:
        h.update(f"\n{os.path.relpath(f, root)}\n".encode("utf-8", "surrogateescape"))
        # the path policy and the regular-file check hold here too: a table symlinked out of
        # its dataset, or a FIFO, is named in the digest but never read
        if f.is_file() and outside_reason(root, f) is None and file_issue(f) is None:
            file_digest(f, h)
        elif os.path.lexists(f):
            h.update(b"(not read)")
    return h.hexdigest()


def _metric_directions(problem) -> tuple:
    from d3mkit.scoring.score import plan_metrics
    planned, _ = plan_metrics(problem)
    return tuple((p.name, bool(p.metric.higher_is_better)) for p in planned)


def find_problems(root: Path) -> tuple[dict[str, Problem], list[Failure]]:
    """Every problemDoc.json under ``root`` (at most four levels down), keyed by problemID."""
    from d3mkit.documents.locate import find_dataset_doc as find_dataset
    from d3mkit.documents import ProblemDoc
    from d3mkit.core.errors import D3MKitError
    found: dict[str, list[Problem]] = {}
    failures: list[Failure] = []
    for doc in _problem_docs(root):
        try:
            problem = ProblemDoc.load(doc)
        except D3MKitError as exc:
            failures.append(Failure("", shown(str(doc)), "problem.unusable", exc.issues[0].format()))
            continue
        pid = problem.problem_id
        if not isinstance(pid, str) or not pid:
            failures.append(Failure("", shown(str(doc)), "problem.unusable",
                                    f"{shown(str(doc))}: no about.problemID"))
            continue
        ds_id = problem.dataset_id
        dataset = find_dataset(doc, ds_id) if isinstance(ds_id, str) and ds_id else None
        try:
            from d3mkit.evaluate.scorer import fold_keys
            metrics = _metric_directions(problem)
            digest = _problem_digest(doc, problem, dataset)
            folds = fold_keys(str(doc))
        except (D3MKitError, OSError, ValueError, TypeError) as exc:
            failures.append(Failure("", pid, "problem.unusable", f"{shown(str(doc))}: {exc}"))
            continue
        found.setdefault(pid, []).append(
            Problem(pid, str(doc), str(dataset) if dataset else None, digest, metrics, folds))
    problems = {}
    for pid, entries in sorted(found.items()):
        if len(entries) > 1:
            where = ", ".join(shown(e.doc) for e in entries)
            failures.append(Failure("", pid, "problem.duplicate_id",
                                    f"problemID {pid!r} is in {len(entries)} problemDocs ({where}); "
                                    f"none is used"))
            continue
        problems[pid] = entries[0]
    return problems, failures


# ---------------------------------------------------------------------------------------
# submissions
# ---------------------------------------------------------------------------------------
def _inside(path: Path, root: Path) -> bool:
    """``path`` (following symlinks) stays inside ``root`` (:mod:`d3mkit.io.paths`)."""
    from d3mkit.io.paths import outside_reason
    return outside_reason(root, path) is None


def _entry_problem(entry: Path) -> tuple[str | None, str | None]:
    """(problemID, error message) of an entry directory."""
    doc = entry / PIPELINE_DOC
    if not (doc.exists() or doc.is_symlink()):
        return entry.name, None
    if not _inside(doc, entry):                     # never read through a link out of the entry
        return None, f"{shown(str(doc))}: symlink to a place outside the submissions tree"
    from d3mkit.documents.jsonio import load_json_issues
    data, issues = load_json_issues(doc)
    if issues:
        return None, issues[0].format()
    pid = data.get("problemID") if isinstance(data, dict) else None
    if pid is None and isinstance(data, dict):
        prob = data.get("problem")
        pid = prob.get("problemID") if isinstance(prob, dict) else prob
    if not isinstance(pid, str) or not pid:
        return None, f"{shown(str(doc))}: names no problemID (\"problemID\" or \"problem\": {{\"problemID\"}})"
    return pid, None


def _listdir(d: Path, system: str, pid: str, fail) -> list[Path] | None:
    """The entries of ``d`` without dot-names, sorted; None (and a ``file.unreadable``
    row) when the directory cannot be listed."""
    try:
        return sorted(p for p in d.iterdir() if not p.name.startswith("."))
    except OSError as exc:
        fail(Failure(system, pid, "file.unreadable",
                     f"{shown(str(d))}: cannot list the directory: {exc.strerror or exc}"))
        return None


def _bad_name(p: Path, system: str, pid: str, what: str, fail) -> str | None:
    """``p.name`` when it may be used as a name; else a failure row and None."""
    name = shown(p.name)
    if name != p.name:
        fail(Failure(escaped(name) if system is None else system, escaped(name) if system is not None else pid,
                     "name.encoding", f"{escaped(shown(str(p)))}: {what} name is not valid UTF-8"))
        return None
    if has_control(name):
        fail(Failure(escaped(name) if system is None else system, escaped(name) if system is not None else pid,
                     "name.control", f"{escaped(str(p))}: {what} name holds control characters; not scored"))
        return None
    return name


def find_submissions(root: Path, problems: dict[str, Problem], *,
                     max_bytes: int | None = None) -> Discovery:
    """Walk ``root`` two levels down (dot-names skipped); hash each scorable predictions
    file. Files over :mod:`d3mkit.io.limits`' ``MAX_FILE_BYTES`` (or ``max_bytes`` when
    given) are not read."""
    out = Discovery(problems=problems)
    real_root = root.resolve()
    fail = out.failures.append

    def usable_dir(p: Path, system: str, pid: str, what: str) -> bool:
        if p.is_symlink() and not _inside(p, real_root):
            fail(Failure(system, pid, "path.outside_tree",
                         f"{shown(str(p))}: symlink to a place outside the submissions tree"))
            return False
        if not p.is_dir():
            fail(Failure(system, pid, "submission.stray",
                         f"{shown(str(p))}: a file where {what} directory is expected"))
            return False
        return True

    systems = []
    for p in _listdir(root, "", "", fail) or []:
        name = _bad_name(p, None, "", "system", fail)
        if name is not None and usable_dir(p, name, "", "a system"):
            systems.append(p)
    by_fold: dict[str, list[Path]] = {}
    for p in systems:
        by_fold.setdefault(p.name.casefold(), []).append(p)
    accepted = []
    for group in by_fold.values():
        if len(group) > 1:
            names = ", ".join(repr(g.name) for g in group)
            for g in group:
                fail(Failure(g.name, "", "system.case_clash",
                             f"system names differ only in case ({names}); none is scored"))
        else:
            accepted.append(group[0])
    accepted.sort(key=lambda p: p.name)
    out.systems = [p.name for p in accepted]

    for sdir in accepted:
        system = sdir.name
        seen: dict[str, list[Path]] = {}
        listed = _listdir(sdir, system, "", fail)
        for entry in listed or []:
            ename = _bad_name(entry, system, "", "entry", fail)
            if ename is None or not usable_dir(entry, system, ename, "a problem"):
                continue
            pid, msg = _entry_problem(entry)
            if pid is None:
                fail(Failure(system, ename, "submission.bad_pipeline", msg))
                continue
            if pid not in problems:
                fail(Failure(system, escaped(shown(pid)), "submission.unknown_problem",
                             f"{shown(str(entry))}: no problem with problemID {escaped(shown(pid))!r} in --problems"))
                continue
            seen.setdefault(pid, []).append(entry)
        for pid in problems:
            entries = seen.get(pid, [])
            if listed is None:
                continue                       # the system folder is one file.unreadable row
            if not entries:
                fail(Failure(system, pid, "submission.missing", "no submission"))
                continue
            if len(entries) > 1:
                where = ", ".join(shown(e.name) for e in entries)
                fail(Failure(system, pid, "submission.duplicate",
                             f"{len(entries)} entries for this problem ({where}); none is scored"))
                continue
            sub = _entry_submission(entries[0], problems[pid], system, real_root, max_bytes, fail)
            if sub is not None:
                out.submissions.append(sub)
    out.failures.sort()
    return out


def fold_file(entry: Path, repeat: int, fold: int) -> Path:
    """Where an entry keeps the predictions of one fold."""
    return entry / f"repeat_{repeat}" / f"fold_{fold}" / PREDICTIONS


def _entry_submission(entry: Path, problem: Problem, system: str, real_root: Path,
                      max_bytes: int | None, fail) -> Submission | None:
    """The entry's predictions files, one per fold of the problem (``predictions.csv``
    is repeat 0, fold 0); each checked by :func:`_check_predictions`. None (and a row)
    when the entry has no usable file at all."""
    pid = problem.problem_id
    top = entry / PREDICTIONS
    files, reported = [], []
    h = hashlib.sha256()
    any_file = False
    for r, f in problem.folds:
        cands = [p for p in ([top] if (r, f) == (0, 0) else []) + [fold_file(entry, r, f)]
                 if os.path.lexists(p)]
        if not cands:
            continue
        any_file = True
        if len(cands) > 1:
            fail(Failure(system, pid, "submission.duplicate",
                         f"{shown(str(entry))}: both {PREDICTIONS} and repeat_0/fold_0/{PREDICTIONS}; "
                         f"repeat 0, fold 0 is not scored"))
            reported.append((r, f))
            continue
        got = _check_predictions(cands[0], system, pid, real_root, max_bytes)
        if isinstance(got, Failure):
            fail(got)
            reported.append((r, f))
            continue
        files.append((r, f, str(cands[0])))
        h.update(f"{r},{f},{got}\n".encode())
    if not any_file:
        fail(Failure(system, pid, "submission.no_predictions", f"{shown(str(top))}: no {PREDICTIONS}"))
        return None
    if not files:
        return None
    return Submission(system, pid, str(entry), h.hexdigest(), tuple(files), tuple(reported))


def _check_predictions(path: Path, system: str, pid: str, real_root: Path,
                       max_bytes: int | None) -> str | Failure:
    """The file's content hash, or why it is not read: a link out of the tree (the
    file or a directory above it), a missing file, or :func:`d3mkit.io.limits.file_issue`
    (not a regular file, over the byte limit) — checked before anything opens it."""
    from d3mkit.io.limits import file_issue
    where = shown(str(path))
    if not _inside(path, real_root):
        return Failure(system, pid, "path.outside_tree",
                       f"{where}: symlink to a place outside the submissions tree")
    try:
        st = path.stat()
    except FileNotFoundError:
        return Failure(system, pid, "submission.no_predictions", f"{where}: no {PREDICTIONS}")
    except OSError as exc:
        return Failure(system, pid, "file.unreadable", f"{where}: {exc.strerror or exc}")
    issue = file_issue(path, "predictions file")
    if issue is not None:
        code = "file.not_regular" if issue.code == "file.is_directory" else issue.code
        return Failure(system, pid, code, issue.format())
    if max_bytes is not None and st.st_size > max_bytes:
        return Failure(system, pid, "file.too_large",
                       f"{where}: {st.st_size:,} bytes, over the --max-size-mb limit of {max_bytes:,} bytes")
    try:
        return file_digest(path)
    except OSError as exc:
        return Failure(system, pid, "file.unreadable", f"{where}: cannot read: {exc.strerror or exc}")


def limits_in_force(max_bytes: int | None) -> dict:
    """Every size limit scoring applies (:mod:`d3mkit.io.limits`, after the environment)
    and the campaign's own byte limit: a cached result holds only under the same."""
    from d3mkit.io.limits import DEFAULTS, limit
    return {"max_bytes": max_bytes, **{name: limit(name) for name in sorted(DEFAULTS)}}


def cache_key(problem: Problem, sub: Submission, context: str = "") -> str:
    """What a (system, problem) result depends on: the problem's inputs, the files and
    ``context`` (the limits in force and the statistics' parameters)."""
    text = json.dumps([problem.digest, sub.system, sub.problem_id, sub.digest, context])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
