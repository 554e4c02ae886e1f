"""One submission scored in a worker process, and what its issues may tell the team.

What this module owns: :func:`score_job`, the module-level function the dispatcher hands
to the executor (a local process or a Dask worker; it reads only the paths in the job),
and :func:`redact`, the rule of what a team sees.

Scoring is the library's: the public :func:`d3mkit.score`, as ``d3mkit score`` runs it.

1. **check** — the whole file against the truth of every TEST row: the issues are what
   ``d3mkit score`` reports (all of them), and an error fails the submission;
2. **public** (and, at finalize, **private**) — the file's rows of that part of the split
   units against the truth of the same rows: the scores of that leaderboard.

:func:`redact` keeps only issues about the submitted file, named ``predictions.csv``. Those
name its rows and the values it holds. It drops what depends on the truth beyond the TEST
view a team already has: ``predictions.unseen_label`` (which labels the truth holds),
``predictions.too_many_labels`` (counts the truth's labels) and every issue about a truth
file. An error of the server's own files becomes one ``server.scoring_error``. No issue of
the public or private scoring is shown (they would tell which rows are public).
"""

from __future__ import annotations

import functools
import traceback

PREDICTIONS_NAME = "predictions.csv"
HIDDEN_CODES = frozenset({"predictions.unseen_label", "predictions.too_many_labels"})


def _key(text: str) -> str:
    """A split unit as compared: stripped, an integer written canonically (``007`` is 7)."""
    t = str(text).strip()
    if t.lstrip("-").isdigit():
        return str(int(t))
    return t


@functools.lru_cache(maxsize=256)
def _units(targets_path: str, unit: str) -> frozenset:
    import pandas as pd
    col = pd.read_csv(targets_path, dtype=str, keep_default_na=False, usecols=[unit])[unit]
    return frozenset(_key(v) for v in col)


def redact(issues, predictions_path: str) -> list[dict]:
    """The issues a team may see, as ``{"severity", "code", "location", "message"}``."""
    out, server_error = [], False
    for i in issues:
        if i.path != str(predictions_path) or i.code in HIDDEN_CODES or i.code.startswith("truth."):
            server_error |= i.is_error and i.path != str(predictions_path)
            continue
        d = i.to_dict()
        d["message"] = d["message"].replace(str(predictions_path), PREDICTIONS_NAME)
        d["location"] = d["location"].replace(str(predictions_path), PREDICTIONS_NAME)
        out.append(d)
    if server_error and not any(d["severity"] == "error" for d in out):
        out.append({"severity": "error", "code": "server.scoring_error", "location": "",
                    "message": "the server could not score this submission; the organisers can "
                               "see why in the server log"})
    return out


def _scores(report) -> list[dict]:
    """``[{"metric", "value"}]``; a value that is not a finite number is None."""
    import math
    return [{"metric": s.label, "value": float(s.value) if math.isfinite(float(s.value)) else None}
            for s in report.scores]


def _in(values, units: frozenset):
    """Which ``values`` are split units of ``units`` (a Python set lookup per value: pandas'
    ``isin`` over a set of strings is 20x slower on pandas 3's string dtype)."""
    import numpy as np
    return np.fromiter((v in units or _key(v) in units for v in values), bool, len(values))


def score_part(truth: dict, predictions, part: str):
    """The :class:`~d3mkit.scoring.score.ScoreReport` of ``predictions`` (a path or a
    DataFrame of strings) on the rows of ``part`` ("public" or "private") — the call the
    tests compare with. The rows go to :func:`d3mkit.score` as a file (a temporary one):
    through the file reader the call is faster than through a DataFrame."""
    import tempfile
    from pathlib import Path

    import d3mkit
    import pandas as pd
    unit = truth["unit"]
    df = predictions if isinstance(predictions, pd.DataFrame) else \
        pd.read_csv(predictions, dtype=str, keep_default_na=False)
    keep = _in(df[unit].to_numpy(dtype=object), _units(truth[part], unit))
    with tempfile.TemporaryDirectory(prefix="d3mkit-part-") as tmp:
        path = Path(tmp) / "predictions.csv"
        df[keep].to_csv(path, index=False, lineterminator="\n")
        return d3mkit.score(truth["problem"], path, targets=truth[part])


def score_job(job: dict) -> dict:
    """Score one submission: ``job`` = ``{"id", "predictions" (path), "truth"
    (:meth:`Challenge.truth`), "check" (bool), "parts" (list)}``. Never raises: returns
    ``{"id", "status": "scored"|"failed", "issues": [...], "scores": {part: [...]}, "log"}``."""
    import d3mkit
    from d3mkit.errors import D3MKitError
    pred, truth = job["predictions"], job["truth"]
    result = {"id": job["id"], "status": "scored", "issues": [], "scores": {}, "log": None}
    try:
        if job.get("check", True):
            try:
                report = d3mkit.score(truth["problem"], pred, targets=truth["all"])
            except D3MKitError as exc:
                result.update(status="failed", issues=redact(exc.issues, pred))
                if any(i.path != pred for i in exc.issues):
                    result["log"] = "; ".join(i.format() for i in exc.issues)[:2000]
                return result
            result["issues"] = redact(report.issues, pred)
        import pandas as pd
        df = pd.read_csv(pred, dtype=str, keep_default_na=False)
        for part in job.get("parts", ["public"]):
            result["scores"][part] = _scores(score_part(truth, df, part))
    except Exception as exc:        # a bug or a server-side file: the team sees one line
        result.update(status="failed", scores={}, issues=[{
            "severity": "error", "code": "server.scoring_error", "location": "",
            "message": "the server could not score this submission; the organisers can see "
                       "why in the server log"}])
        result["log"] = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}"[:4000]
    return result


def warm(_item=None) -> int:
    """A no-op the dispatcher runs once per worker so that the pool's processes exist (and
    have imported the scorer) before the server starts its threads."""
    import d3mkit.scoring.score  # noqa: F401
    import os
    return os.getpid()
