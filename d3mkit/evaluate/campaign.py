"""Run a campaign: score every (system, problem) submission on an executor and write
``scores.csv``, ``failures.csv``, ``leaderboard.html`` and the cache.

Scoring is :func:`d3mkit.scoring.score.prepare_problem` (metrics resolved and truth read
once per problem and work unit) then :func:`~d3mkit.scoring.score.score_prepared` per
predictions file — ``d3mkit score`` is the same two calls. A work unit is one problem
with its submissions (split in a few parts only when there are fewer problems than
workers); a submission that fails becomes :class:`~d3mkit.evaluate.discover.Failure`
rows (one per error issue), never an exception.

Incremental re-runs: ``OUT/.evaluate-cache.json`` maps a content hash of each
submission's inputs (the problem's files, the predictions bytes, the system name, the
d3mkit version — :func:`~d3mkit.evaluate.discover.cache_key`) to its result; a re-run
scores only submissions whose hash is not there.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from d3mkit.evaluate.discover import (Discovery, Failure, Problem, Submission, cache_key,
                                      find_problems, find_submissions)

CACHE_FILE = ".evaluate-cache.json"
CACHE_FORMAT = 1
SCORE_COLUMNS = ["system", "problemID", "metric", "value", "rank"]
FAILURE_COLUMNS = ["system", "problemID", "code", "message"]
MAX_ISSUES_PER_SUBMISSION = 20


@dataclass
class Outcome:
    """The result of one submission: scores ``[label, metric, value]`` or failures
    ``[code, message]`` (JSON-ready lists, as cached)."""
    system: str
    problem_id: str
    scores: list = field(default_factory=list)
    failures: list = field(default_factory=list)

    def to_json(self) -> dict:
        return {"scores": self.scores, "failures": self.failures}


@dataclass
class Campaign:
    discovery: Discovery
    outcomes: list[Outcome]
    scored: int = 0          # scored in this run
    reused: int = 0          # taken from the cache

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


def score_unit(unit: tuple[Problem, list[Submission]]) -> list[Outcome]:
    """Read the problem's truth once, then score each submission. Never raises."""
    from d3mkit.errors import D3MKitError
    from d3mkit.scoring.score import prepare_problem, score_prepared
    problem, subs = unit
    outcomes = [Outcome(s.system, s.problem_id) for s in subs]
    try:
        prepared = prepare_problem(problem.doc, dataset=problem.dataset)
        bad = None if prepared.ok else _issue_rows(prepared.issues)
    except D3MKitError as exc:
        bad = _issue_rows(exc.issues)
    except Exception as exc:  # noqa: BLE001 - the campaign goes on
        bad = _internal(exc)
    if bad is not None:
        for o in outcomes:
            o.failures = [["problem.unusable", f"the problem cannot be scored: {m}"] for _c, m in bad]
        return outcomes
    for o, s in zip(outcomes, subs):
        try:
            report = score_prepared(prepared, s.path)
            o.scores = [[sc.label, sc.metric, sc.value] for sc in report.scores]
        except D3MKitError as exc:
            o.failures = _issue_rows(exc.issues)
        except Exception as exc:  # noqa: BLE001 - a crash on one file is that file's row
            o.failures = _internal(exc)
    return outcomes


def plan_units(todo: list[Submission], problems: dict[str, Problem], workers: int):
    """One unit per problem; a problem's submissions are cut in parts only when there
    are fewer problems than ``2 * workers`` (each part reads the truth once)."""
    by_problem: dict[str, list[Submission]] = {}
    for s in todo:
        by_problem.setdefault(s.problem_id, []).append(s)
    parts = max(1, -(-2 * workers // max(1, len(by_problem))))
    units = []
    for pid in sorted(by_problem):
        subs = by_problem[pid]
        k = min(parts, len(subs))
        step = -(-len(subs) // k)
        units += [(problems[pid], subs[i:i + step]) for i in range(0, len(subs), step)]
    return units


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


def _valid_entry(entry) -> bool:
    """A cache entry of the shape :class:`Outcome` writes (else it is rescored)."""
    if not (isinstance(entry, dict) and isinstance(entry.get("scores"), list)
            and isinstance(entry.get("failures"), list)):
        return False
    return all(isinstance(s, list) and len(s) == 3 and isinstance(s[0], str) and isinstance(s[1], str)
               and isinstance(s[2], (int, float)) and not isinstance(s[2], bool) for s in entry["scores"]) \
        and all(isinstance(f, list) and len(f) == 2 and all(isinstance(x, str) for x in f)
                for f in entry["failures"])


# ---------------------------------------------------------------------------------------
# running
# ---------------------------------------------------------------------------------------
def run_campaign(problems_dir: Path, submissions_dir: Path, out: Path, executor, *,
                 progress: bool = False, max_bytes: int | None = None,
                 use_cache: bool = True) -> Campaign:
    """Discover, score what the cache does not hold, write the outputs into ``out``."""
    problems, problem_failures = find_problems(Path(problems_dir))
    disc = find_submissions(Path(submissions_dir), problems, max_bytes=max_bytes)
    disc.failures = sorted(problem_failures + disc.failures)
    cache = load_cache(out) if use_cache else {}
    keys = {(s.system, s.problem_id): cache_key(problems[s.problem_id], s) for s in disc.submissions}
    results: dict[tuple[str, str], Outcome] = {}
    todo = []
    for s in disc.submissions:
        entry = cache.get(keys[(s.system, s.problem_id)])
        if _valid_entry(entry):
            results[(s.system, s.problem_id)] = Outcome(s.system, s.problem_id,
                                                        entry["scores"], entry["failures"])
        else:
            todo.append(s)
    reused = len(results)
    units = plan_units(todo, problems, executor.workers)
    for batch in executor.map(score_unit, units, chunksize=1, progress=progress,
                              desc="evaluate", unit="problem"):
        for o in batch:
            results[(o.system, o.problem_id)] = o
    outcomes = [results[(s.system, s.problem_id)] for s in disc.submissions]
    camp = Campaign(disc, outcomes, scored=len(todo), reused=reused)
    write_outputs(camp, out)
    return camp


def score_rows(camp: Campaign) -> list[list]:
    """scores.csv rows: (system, problemID, metric, value, rank) by problem, metric, rank."""
    from d3mkit.evaluate.ranking import competition_ranks
    by_cell: dict[tuple[str, str], list[tuple[str, float]]] = {}
    names: dict[tuple[str, str], str] = {}
    order: dict[tuple[str, str], int] = {}
    for o in camp.outcomes:
        for i, (label, metric, value) in enumerate(o.scores):
            key = (o.problem_id, label)
            by_cell.setdefault(key, []).append((o.system, float(value)))
            names[key] = metric
            order.setdefault(key, i)
    rows = []
    for key in sorted(by_cell, key=lambda k: (k[0], order[k], k[1])):
        pid, label = key
        higher = dict(camp.discovery.problems[pid].metrics).get(names[key], True)
        cells = by_cell[key]
        ranks = competition_ranks([v for _, v in cells], higher)
        for (system, value), rank in sorted(zip(cells, ranks),
                                            key=lambda c: (math.isnan(c[1]), c[1], c[0][0])):
            rows.append([system, pid, label, value, rank])
    return rows


def _csv(rows: list[list], header: list[str]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow(["" if isinstance(v, float) and math.isnan(v) else
                    (int(v) if k == 4 and isinstance(v, float) else repr(v) if isinstance(v, float) else v)
                    for k, v in enumerate(r)])
    return buf.getvalue()


def write_outputs(camp: Campaign, out: Path) -> None:
    from d3mkit.atomic import write_text as write_text_atomic
    from d3mkit.evaluate.leaderboard import leaderboard_html
    out.mkdir(parents=True, exist_ok=True)
    rows = score_rows(camp)
    write_text_atomic(out / "scores.csv", _csv(rows, SCORE_COLUMNS))
    fails = [[f.system, f.problem_id, f.code, f.message] for f in camp.failures]
    write_text_atomic(out / "failures.csv", _csv(fails, FAILURE_COLUMNS))
    write_text_atomic(out / "leaderboard.html", leaderboard_html(camp, rows))
    entries = {cache_key(camp.discovery.problems[s.problem_id], s): o.to_json()
               for s, o in zip(camp.discovery.submissions, camp.outcomes)}
    write_text_atomic(out / CACHE_FILE, json.dumps({"format": CACHE_FORMAT, "entries": entries},
                                                   sort_keys=True) + "\n")
