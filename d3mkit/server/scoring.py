"""One submission scored in a worker process, and what its issues may tell the team.

What this module owns: :func:`score_job`, the module-level function the dispatcher hands
to the executor (a local process or a Dask worker; it reads only the paths in the job),
:class:`ProblemScorer` (a problem kept ready in the worker process) and :func:`redact`, the
rule of what a team sees.

Scoring is the library's pipeline, the one ``d3mkit score`` runs (:mod:`d3mkit.scoring.score`),
with the problem prepared once per worker process and the file read and aligned once:

1. **check** — the whole file against the truth of every TEST row
   (:func:`~d3mkit.scoring.score.score_prepared_aligned`): the issues are what ``d3mkit
   score`` reports (all of them), and an error fails the submission;
2. **public** (and, at finalize, **private**) — the metrics computed on the rows of that
   part of the split units (:meth:`Aligned.take <d3mkit.scoring.layouts.base.Aligned.take>`):
   the scores ``d3mkit score`` gives for a file of those rows against the truth of the same
   rows (the tests compare them), the scores of that leaderboard. A layout whose rows
   cannot be picked so (ranked, classes, multiLabel, objectDetection) scores the part as a
   file of its own.

:func:`redact` keeps only issues about the submitted file, named ``predictions.csv``. Those
name its rows and the values it holds. It drops what depends on the truth beyond the TEST
view a team already has: ``predictions.unseen_label`` (which labels the truth holds),
``predictions.too_many_labels`` (counts the truth's labels) and every issue about a truth
file. An error of the server's own files becomes one ``server.scoring_error``. No issue of
the public or private scoring is shown (they would tell which rows are public).
"""

from __future__ import annotations

import contextlib
import functools
import re
import traceback

PREDICTIONS_NAME = "predictions.csv"
HIDDEN_CODES = frozenset({"predictions.unseen_label", "predictions.too_many_labels",
                          # fires only when the predicted set covers every truth label: two
                          # uploads would tell which labels the truth holds
                          "predictions.all_labels"})
_ORGANISER_HINT = re.compile(r"[;,]?\s*raise it with the environment variable D3MKIT_[A-Z_]+")


def _key(text) -> str:
    """A split unit as compared: stripped, an integer written canonically (``007`` is 7)."""
    t = str(text).strip()
    if t.lstrip("-").isdigit():
        return str(int(t))
    return t


def _identity(path) -> tuple:
    """What says a file is unchanged: its path, inode, size and modification time."""
    import os
    st = os.stat(path)
    return (str(path), st.st_ino, st.st_size, st.st_mtime_ns)


def _units(targets_path: str, unit: str) -> frozenset:
    from d3mkit.tables import read_table
    col = read_table(targets_path, usecols=[unit])[unit]
    return frozenset(_key(v) for v in col)


class ProblemScorer:
    """One problem of a challenge made ready in a worker process (see :func:`scorer`): the
    whole TEST truth prepared once (:func:`~d3mkit.scoring.score.prepare_problem`), and
    per part ("public", "private") which of its rows that part holds."""

    def __init__(self, truth: dict):
        from d3mkit.scoring.score import prepare_problem
        self.truth = truth
        self.prepared = prepare_problem(truth["problem"], targets=truth["all"],
                                        metadata_dir=truth.get("metadata"))
        self._masks: dict = {}
        self._parts: dict = {}

    def mask(self, part: str):
        """The rows of ``part`` as a boolean mask over the truth's rows (in scoring's order)."""
        if part not in self._masks:
            import numpy as np
            units = _units(self.truth[part], self.truth["unit"])
            index = self.prepared.truth.index
            self._masks[part] = np.fromiter((_key(v) in units for v in index), bool, len(index))
        return self._masks[part]

    def check(self, predictions):
        """``(report, aligned)`` of the whole file against every TEST row: what ``d3mkit
        score`` reports (raises :class:`~d3mkit.core.errors.D3MKitError` as it does)."""
        from d3mkit.scoring.score import score_prepared_aligned
        return score_prepared_aligned(self.prepared, predictions)

    def score_part(self, aligned, predictions, part: str):
        """The :class:`~d3mkit.scoring.score.ScoreReport` of the file's rows of ``part``
        against the truth of those rows: the metrics computed on those rows of ``aligned``
        (no second read or alignment); for a layout whose rows cannot be picked that way
        (:meth:`~d3mkit.scoring.layouts.base.Aligned.take`), the file's rows of ``part``
        scored as a file of their own against that part's truth file."""
        from d3mkit.core.errors import D3MKitError, has_errors
        from d3mkit.scoring.compute import compute_scores
        if self.empty(part):
            return None
        sub = aligned.take(self.mask(part)) if aligned is not None else None
        if sub is None:
            try:
                return self._score_part_file(predictions, part)
            except D3MKitError as exc:
                if _only_undefined(exc.issues):
                    return None
                raise
        report = compute_scores(self.prepared.planned, sub, self.prepared.problem.problem_id,
                                metadata_dir=self.prepared.metadata_dir, path=str(predictions))
        if has_errors(report.issues) and not _only_undefined(report.issues):
            raise D3MKitError(report.issues)
        return report

    def empty(self, part: str) -> bool:
        """True when ``part`` holds no row (a problem too small to have private rows)."""
        return not self.mask(part).any()

    def part_prepared(self, part: str):
        """The :class:`~d3mkit.scoring.score.PreparedProblem` of the truth of ``part``'s rows
        alone (made on first use)."""
        if part not in self._parts:
            from d3mkit.scoring.score import prepare_problem
            self._parts[part] = prepare_problem(self.truth["problem"], targets=self.truth[part],
                                                metadata_dir=self.truth.get("metadata"))
        return self._parts[part]

    @contextlib.contextmanager
    def part_file(self, predictions, part: str):
        """A temporary predictions.csv holding the rows of ``predictions`` in ``part``."""
        import tempfile
        from pathlib import Path

        from d3mkit.tables import read_table
        unit = self.truth["unit"]
        units = _units(self.truth[part], unit)
        df = read_table(predictions)        # already read once by the whole file's check
        keep = [v in units or _key(v) in units for v in df[unit].to_numpy(dtype=object)]
        with tempfile.TemporaryDirectory(prefix="d3mkit-part-") as tmp:
            path = Path(tmp) / "predictions.csv"
            df[keep].to_csv(path, index=False, lineterminator="\n")
            yield path

    def _score_part_file(self, predictions, part: str):
        from d3mkit.scoring.score import score_prepared
        with self.part_file(predictions, part) as path:
            return score_prepared(self.part_prepared(part), path)


@functools.lru_cache(maxsize=16)
def _scorer(key: tuple) -> ProblemScorer:
    return ProblemScorer(dict(key[0]))


def scorer(truth: dict) -> ProblemScorer:
    """The worker process's :class:`ProblemScorer` of ``truth`` (:meth:`Challenge.truth`),
    kept between submissions and made anew when one of the problem's files changes (the
    key holds each file's :func:`_identity`)."""
    from pathlib import Path
    files = [Path(truth["problem"]) / "problemDoc.json"] + [truth[p] for p in ("all", "public", "private")]
    return _scorer((tuple(sorted(truth.items())), *(_identity(f) for f in files)))


def redact(issues, predictions_path: str) -> list[dict]:
    """The issues a team may see, as ``{"severity", "code", "location", "message"}``."""
    out, server_error = [], False
    for i in issues:
        if i.path != str(predictions_path) or i.code in HIDDEN_CODES or i.code.startswith("truth."):
            server_error |= i.is_error and i.path != str(predictions_path)
            continue
        d = i.to_dict()
        d["message"] = _ORGANISER_HINT.sub(" (the server's limit)",
                                           d["message"].replace(str(predictions_path), PREDICTIONS_NAME))
        d["location"] = d["location"].replace(str(predictions_path), PREDICTIONS_NAME)
        out.append(d)
    if server_error and not any(d["severity"] == "error" for d in out):
        out.append({"severity": "error", "code": "server.scoring_error", "location": "",
                    "message": "the server could not score this submission; the organisers can "
                               "see why in the server log"})
    return out


def _only_undefined(issues) -> bool:
    """Every error is a metric that cannot be computed on these rows (``metric.failed``: e.g.
    rocAuc on a part whose truth holds one class): a value the board shows as missing, not
    a failure of the file."""
    errors = [i for i in issues if i.is_error]
    return bool(errors) and all(i.code == "metric.failed" for i in errors)


def _scores(report, labels=None) -> list[dict]:
    """``[{"metric", "value"}]``; a value that is not a finite number (or not computed: a
    part without rows, a metric undefined on them) is None. ``labels``: the metrics of the
    whole file, in order (a part's report may lack some)."""
    import math
    got = {} if report is None else {s.label: (float(s.value) if math.isfinite(float(s.value)) else None)
                                     for s in report.scores}
    labels = list(labels) if labels is not None else list(got)
    return [{"metric": label, "value": got.get(label)} for label in labels]


_NICED = [False]


def _lower_priority(nice: int) -> None:
    """Once per worker process, lower its CPU priority by ``nice`` (the job says so only
    for a local pool's processes, never for the server's own): the request handlers then
    get the CPU first, and a POST is answered quickly while every core scores."""
    import os
    if nice > 0 and not _NICED[0]:
        _NICED[0] = True
        try:
            os.nice(nice)
        except (OSError, AttributeError):     # not permitted, or not on this platform
            pass


def score_job(job: dict) -> dict:
    """Score one submission: ``job`` = ``{"id", "predictions" (path), "truth"
    (:meth:`Challenge.truth`), "check" (bool: report the whole-file issues), "parts"
    (list), "nice" (optional: lower this worker process's priority by so much, once)}``. The file is read and aligned once, against the whole TEST truth (the
    check); each part's scores are computed on that part's rows of it. Never raises:
    returns ``{"id", "status": "scored"|"failed", "issues": [...], "scores": {part: [...]},
    "failure": None|"team"|"platform", "log"}``."""
    from d3mkit.core.errors import D3MKitError
    _lower_priority(job.get("nice", 0))
    pred, truth = job["predictions"], job["truth"]
    result = {"id": job["id"], "status": "scored", "issues": [], "scores": {}, "failure": None, "log": None}
    check = job.get("check", True)
    try:
        sc = scorer(truth)
        try:
            report, aligned = sc.check(pred)
        except D3MKitError as exc:
            if not check:
                raise
            result.update(status="failed", issues=redact(exc.issues, pred), failure="team")
            if any(i.path != pred for i in exc.issues):
                result["log"] = "; ".join(i.format() for i in exc.issues)[:2000]
                if any(i["code"] == "server.scoring_error" for i in result["issues"]):
                    result["failure"] = "platform"        # the server's own files
            return result
        if check:
            result["issues"] = redact(report.issues, pred)
        labels = [s.label for s in report.scores]
        for part in job.get("parts", ["public"]):
            result["scores"][part] = _scores(sc.score_part(aligned, pred, part), labels)
    except Exception as exc:        # a bug, a memory cap, a server-side file: the team sees one line
        result.update(status="failed", scores={}, failure="platform", issues=[{
            "severity": "error", "code": "server.scoring_error", "location": "",
            "message": "the server could not score this submission; the organisers can see "
                       "why in the server log"}])
        result["log"] = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}"[:4000]
    return result


def score_jobs(jobs: list) -> list:
    """:func:`score_job` of each job (one task for a batch the dispatcher claimed at once:
    one round trip to a worker instead of one per submission)."""
    return [score_job(j) for j in jobs]


def board_statistics(job: dict) -> dict:
    """The campaign's statistics of one problem's board, in a worker: ``job`` = ``{"problem",
    "part", "truth" (:meth:`Challenge.truth`), "entries" ([[submission id, predictions
    path], ...], one per team), "resamples", "confidence", "seed", "nice"}``. Each entry's
    rows of ``part`` are scored as ``d3mkit evaluate`` scores a file
    (:func:`d3mkit.evaluate.scorer.score_file`, against the truth of those rows), and
    :func:`d3mkit.evaluate.bootstrap.problem_statistics` gives every value its percentile
    bootstrap interval and every pair of entries its paired test, on the same seeded draws
    of the part's rows; the constant predictor's value (:func:`~d3mkit.evaluate.scorer.constant_value`)
    anchors the normalised score. Never raises: returns ``{"problem", "part", "entries" (ids),
    "intervals": [[entry, label, low, high]], "comparisons": [[label, a, b, difference, p,
    p_holm, test]], "constants": {label: value}, "log"}`` (entries by position)."""
    import math
    _lower_priority(job.get("nice", 0))
    out = {"problem": job["problem"], "part": job["part"], "entries": [e[0] for e in job["entries"]],
           "intervals": [], "comparisons": [], "constants": {}, "log": None}
    try:
        from d3mkit.evaluate.bootstrap import problem_statistics
        from d3mkit.evaluate.scorer import constant_value, score_file
        sc = scorer(job["truth"])
        prepared = sc.part_prepared(job["part"])
        calls = {}
        for i, (_sid, path) in enumerate(job["entries"]):
            with sc.part_file(path, job["part"]) as part_path:
                calls[(i, 0, 0)] = score_file(prepared, str(part_path))[1]
        intervals, comparisons = problem_statistics(job["problem"], [(0, 0)], calls,
                                                    resamples=job["resamples"],
                                                    confidence=job["confidence"], seed=job["seed"])
        out["intervals"] = [[i, label, lo, hi] for (i, _r, _f, label), (lo, hi) in sorted(intervals.items())
                            if math.isfinite(lo) and math.isfinite(hi)]
        out["comparisons"] = [list(row) for row in comparisons]
        for c in (calls.get((0, 0, 0)) or []):
            v = constant_value(c)
            if math.isfinite(v):
                out["constants"][c.label] = v
    except Exception as exc:         # logged by the dispatcher; the board shows no statistics
        out["log"] = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}"[:4000]
    return out


def warm(_item=None) -> int:
    """A no-op the dispatcher runs once per worker so that the pool's processes exist (and
    have imported the scorer) before the server starts its threads."""
    import d3mkit.scoring.score  # noqa: F401
    import os
    return os.getpid()
