"""Run a campaign: score every (system, problem) submission on an executor, fold by fold,
with bootstrap intervals and paired comparisons, and write the outputs together.

A work unit is one problem with all its submissions (:func:`score_problem`, on a worker):
the problem's metrics are resolved and each fold's TEST truth read once
(:mod:`d3mkit.evaluate.scorer`, the same calls as ``d3mkit score``), every submission is
scored on every fold, then the statistics run on the aligned arrays while they are in
memory: a percentile bootstrap interval per (system, metric, fold) and, on the TEST rows of
each repeat's folds pooled, a paired test of every pair of systems over every repeat
(:mod:`d3mkit.evaluate.bootstrap`). A submission that fails
becomes failure rows (one per error issue), never an exception.

Incremental re-runs: ``OUT/.evaluate-cache.json`` maps a content hash of a problem's inputs
(its files, every submission's files, the systems, the statistics' parameters, the limits
in force, the d3mkit version) to its :class:`ProblemResult`; a re-run scores only the
problems whose hash is not there. The unit is the problem because the comparisons on it
depend on all of its submissions.

All outputs (scores.csv, aggregates.csv, failures.csv, comparisons.csv, summary.json,
leaderboard.html, the cache) are built in a staged directory and swapped in as one
(:class:`d3mkit.io.atomic.StagedDir`): OUT always holds the files of one run.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from d3mkit.evaluate.discover import (Discovery, Failure, Problem, Submission, cache_key,
                                      find_problems, find_submissions, fold_file, limits_in_force, shown)

CACHE_FILE = ".evaluate-cache.json"
CACHE_FORMAT = 3                   # 3: intervals for every metric, tests over every repeat
MAX_ISSUES_PER_SUBMISSION = 20
NAN = float("nan")


@dataclass(frozen=True)
class Params:
    """The statistics' parameters: ``bootstrap`` resamples (0: no intervals and no
    comparisons), the interval's ``confidence``, the ``seed`` of every resample and the
    significance level ``alpha`` of the ties and the critical difference; and, for the
    standing over the problems only (:mod:`d3mkit.evaluate.overall`; not part of the
    cache key: they do not change a problem's scores), the Elo ``elo_reference``, the
    Bayesian test's ``rope``, the ``cd_test`` and the ``partial`` policy."""
    bootstrap: int = 1000
    confidence: float = 0.95
    seed: int = 0
    alpha: float = 0.05
    elo_reference: str | None = None
    rope: float = 0.01
    cd_test: str = "wilcoxon"
    partial: str = "last"

    def scoring_dict(self) -> dict:
        """The parameters a problem's result depends on (the cache key's)."""
        return {"bootstrap": self.bootstrap, "confidence": self.confidence, "seed": self.seed,
                "alpha": self.alpha}

    def to_dict(self) -> dict:
        return {**self.scoring_dict(), "elo_reference": self.elo_reference, "rope": self.rope,
                "cd_test": self.cd_test, "partial": self.partial}


@dataclass
class Outcome:
    """One system on one problem: ``scores`` rows ``[label, metric, repeat, fold, value,
    ci_low, ci_high]`` and ``failures`` rows ``[code, message]`` (JSON-ready, as cached)."""
    system: str
    problem_id: str
    scores: list = field(default_factory=list)
    failures: list = field(default_factory=list)


@dataclass
class ProblemResult:
    """What a work unit returns: the outcomes of every submission of the problem, the
    paired comparisons ``[label, system_a, system_b, difference, p_value, p_holm, test]``
    and the constant predictor's value per metric label (mean over folds)."""
    problem_id: str
    outcomes: list = field(default_factory=list)
    comparisons: list = field(default_factory=list)
    constants: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"outcomes": [[o.system, o.scores, o.failures] for o in self.outcomes],
                "comparisons": self.comparisons, "constants": self.constants}

    @classmethod
    def from_json(cls, pid: str, data) -> "ProblemResult | None":
        """The cached form back, or None when it is not of the shape :meth:`to_json` writes."""
        def num(x):
            return isinstance(x, (int, float)) and not isinstance(x, bool)

        def score_ok(r):
            return isinstance(r, list) and len(r) == 7 and isinstance(r[0], str) and isinstance(r[1], str) \
                and all(isinstance(x, int) and not isinstance(x, bool) for x in r[2:4]) and all(num(x) for x in r[4:])
        try:
            outcomes = []
            for system, scores, failures in data["outcomes"]:
                if not (isinstance(system, str) and isinstance(scores, list) and isinstance(failures, list)):
                    return None
                if not all(score_ok(r) for r in scores) or not all(
                        isinstance(f, list) and len(f) == 2 and all(isinstance(x, str) for x in f) for f in failures):
                    return None
                outcomes.append(Outcome(system, pid, scores, failures))
            comps = data["comparisons"]
            if not all(isinstance(c, list) and len(c) == 7 and all(isinstance(x, str) for x in c[:3])
                       and all(num(x) for x in c[3:6]) and isinstance(c[6], str) for c in comps):
                return None
            consts = data["constants"]
            if not (isinstance(consts, dict) and all(isinstance(k, str) and num(v) for k, v in consts.items())):
                return None
        except (KeyError, TypeError, ValueError):
            return None
        return cls(pid, outcomes, comps, consts)


@dataclass
class Campaign:
    discovery: Discovery
    results: dict                      # problemID -> ProblemResult
    params: Params = field(default_factory=Params)
    scored: int = 0                    # submissions scored in this run
    reused: int = 0                    # taken from the cache
    cache: dict = field(default_factory=dict)   # the cache entries to write

    @property
    def outcomes(self) -> list[Outcome]:
        return [o for pid in sorted(self.results) for o in self.results[pid].outcomes]

    @property
    def failures(self) -> list[Failure]:
        rows = list(self.discovery.failures)
        for o in self.outcomes:
            rows += [Failure(o.system, o.problem_id, c, m) for c, m in o.failures]
        return sorted(rows)


# ---------------------------------------------------------------------------------------
# the work unit (runs on a worker: module level, picklable arguments)
# ---------------------------------------------------------------------------------------
def _issue_rows(issues) -> list:
    errors = [i for i in issues if i.is_error] or list(issues)
    rows = [[i.code, i.format()] for i in errors[:MAX_ISSUES_PER_SUBMISSION]]
    if len(errors) > MAX_ISSUES_PER_SUBMISSION:
        rows.append([errors[MAX_ISSUES_PER_SUBMISSION].code,
                     f"... and {len(errors) - MAX_ISSUES_PER_SUBMISSION} more issue(s)"])
    return rows


def _internal(exc: BaseException) -> list:
    if isinstance(exc, MemoryError):
        return [["memory", "out of memory while scoring this submission"]]
    if isinstance(exc, OSError):
        return [["file.unreadable", f"{exc.filename or ''}: {exc.strerror or exc}"]]
    return [["internal", f"{type(exc).__name__}: {exc}"]]


def _statistics(problem: Problem, res: ProblemResult, calls: dict, params: Params) -> None:
    """Fill ci_low/ci_high of every score row and the problem's comparisons
    (:func:`d3mkit.evaluate.bootstrap.problem_statistics`)."""
    from d3mkit.evaluate.bootstrap import problem_statistics
    intervals, comps = problem_statistics(problem.problem_id, problem.folds, calls,
                                          resamples=params.bootstrap, confidence=params.confidence,
                                          seed=params.seed)
    for i, o in enumerate(res.outcomes):
        for row in o.scores:
            got = intervals.get((i, row[2], row[3], row[0]))
            if got is not None:
                row[5], row[6] = got
    systems = [o.system for o in res.outcomes]
    res.comparisons = [[label, systems[a], systems[b], diff, p, ph, test]
                       for label, a, b, diff, p, ph, test in comps]


def _constants(problem: Problem, calls: dict) -> dict:
    """Per metric label, the constant predictor's value averaged over the folds."""
    from d3mkit.evaluate.scorer import constant_value
    out = {}
    labels = list(dict.fromkeys(c.label for cs in calls.values() for c in cs))
    for label in labels:
        vals = []
        for r, f in problem.folds:
            c = next((c for (i, rr, ff), cs in sorted(calls.items(), key=lambda kv: kv[0])
                      if (rr, ff) == (r, f) for c in cs if c.label == label), None)
            if c is not None:
                vals.append(constant_value(c))
        vals = [v for v in vals if math.isfinite(v)]
        if vals:
            out[label] = sum(vals) / len(vals)
    return out


def score_problem(unit: tuple) -> ProblemResult:
    """Score every submission of one problem on every fold, then the statistics.
    Never raises for bad input."""
    from d3mkit.core.errors import D3MKitError
    from d3mkit.evaluate.scorer import prepare, score_file
    problem, subs, params = unit
    pid = problem.problem_id
    res = ProblemResult(pid, [Outcome(s.system, s.problem_id) for s in subs])
    prepared, bad = {}, None
    try:
        for r, f in problem.folds:
            pp = prepare(problem.doc, problem.dataset, r, f)
            if not pp.ok:
                bad = _issue_rows(pp.issues)
                break
            prepared[(r, f)] = pp
    except D3MKitError as exc:
        bad = _issue_rows(exc.issues)
    except Exception as exc:  # noqa: BLE001 - the campaign goes on
        bad = _internal(exc)
    if bad is not None:
        for o in res.outcomes:
            o.failures = [["problem.unusable", f"the problem cannot be scored: {m}"] for _c, m in bad]
        return res
    calls: dict = {}
    for i, (o, s) in enumerate(zip(res.outcomes, subs)):
        for r, f in problem.folds:
            path = s.file(r, f)
            if path is None:
                if (r, f) not in s.reported:
                    where = shown(str(fold_file(Path(s.path), r, f)))
                    also = f" or {shown(str(Path(s.path) / 'predictions.csv'))}" if (r, f) == (0, 0) else ""
                    o.failures.append(["submission.missing_fold",
                                       f"repeat {r}, fold {f}: no predictions ({where}{also})"])
                continue
            try:
                rows, cs = score_file(prepared[(r, f)], path)
            except D3MKitError as exc:
                o.failures += _issue_rows(exc.issues)
                continue
            except Exception as exc:  # noqa: BLE001 - a crash on one file is that file's row
                o.failures += _internal(exc)
                continue
            o.scores += [[label, metric, r, f, value, NAN, NAN] for label, metric, value in rows]
            calls[(i, r, f)] = cs
    try:
        if params.bootstrap > 0:
            _statistics(problem, res, calls, params)
        res.constants = _constants(problem, calls)
    except MemoryError:
        res.comparisons = []
    return res


# ---------------------------------------------------------------------------------------
# the cache
# ---------------------------------------------------------------------------------------
def load_cache(out: Path) -> dict:
    path = out / CACHE_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT or \
            not isinstance(data.get("entries"), dict):
        return {}
    return data["entries"]


def problem_key(problem: Problem, subs: list[Submission], context: str) -> str:
    """The hash a problem's result depends on: its inputs, every submission's, ``context``."""
    text = json.dumps([problem.digest, sorted(cache_key(problem, s, context) for s in subs), context])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------------------
# running
# ---------------------------------------------------------------------------------------
def run_campaign(problems_dir: Path, submissions_dir: Path, out: Path, executor, *,
                 progress: bool = False, max_bytes: int | None = None,
                 use_cache: bool = True, params: Params | None = None) -> Campaign:
    """Discover, score what the cache does not hold, write the outputs into ``out``."""
    params = params or Params()
    problems, problem_failures = find_problems(Path(problems_dir))
    disc = find_submissions(Path(submissions_dir), problems, max_bytes=max_bytes)
    disc.failures = sorted(problem_failures + disc.failures)
    context = json.dumps([params.scoring_dict(), limits_in_force(max_bytes)], sort_keys=True)
    cache = load_cache(Path(out)) if use_cache else {}
    by_problem: dict[str, list[Submission]] = {}
    for s in disc.submissions:
        by_problem.setdefault(s.problem_id, []).append(s)
    results: dict[str, ProblemResult] = {}
    entries: dict[str, dict] = {}
    keys: dict[str, str] = {}
    todo = []
    reused = 0
    for pid in sorted(problems):
        subs = by_problem.get(pid, [])
        keys[pid] = problem_key(problems[pid], subs, context)
        got = ProblemResult.from_json(pid, cache.get(keys[pid])) if subs else ProblemResult(pid)
        if got is not None and [o.system for o in got.outcomes] == [s.system for s in subs]:
            results[pid] = got
            reused += len(subs)
        else:
            todo.append((problems[pid], subs, params))
    for res in executor.map(score_problem, todo, chunksize=1, progress=progress,
                            desc="evaluate", unit="problem"):
        results[res.problem_id] = res
    for pid, res in results.items():
        if res.outcomes:
            entries[keys[pid]] = res.to_json()
    camp = Campaign(disc, results, params, scored=sum(len(u[1]) for u in todo), reused=reused,
                    cache=entries)
    write_outputs(camp, Path(out))
    return camp


def write_outputs(camp: Campaign, out: Path) -> None:
    """Every output built in a staged directory and swapped in as one."""
    from d3mkit.io.atomic import StagedDir
    from d3mkit.evaluate.outputs import output_files
    files = output_files(camp)
    files[CACHE_FILE] = json.dumps({"format": CACHE_FORMAT, "entries": camp.cache}, sort_keys=True) + "\n"
    with StagedDir(out, force=True) as tmp:
        for name, data in files.items():
            if isinstance(data, bytes):
                (tmp / name).write_bytes(data)
            else:
                (tmp / name).write_text(data, encoding="utf-8")
