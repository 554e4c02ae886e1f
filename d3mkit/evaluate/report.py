"""The tables of a campaign, from its results: scores.csv (per fold, with the interval and
the rank), aggregates.csv (per system, problem and metric: mean, sd and number of folds),
failures.csv, comparisons.csv, summary.json (Friedman, Nemenyi, mean ranks, normalised
scores) and the :class:`~d3mkit.evaluate.leaderboard.Leaderboard` model the page is drawn
from. Nothing here reads a file; :mod:`d3mkit.evaluate.campaign` writes what it returns.
"""

from __future__ import annotations

import csv
import io
import json
import math

from d3mkit.evaluate.ranking import competition_ranks

SCORE_COLUMNS = ["system", "problemID", "metric", "repeat", "fold", "value", "ci_low", "ci_high", "rank"]
AGGREGATE_COLUMNS = ["system", "problemID", "metric", "mean", "sd", "folds", "rank", "fold_ci_low",
                     "fold_ci_high"]
FAILURE_COLUMNS = ["system", "problemID", "code", "message"]
COMPARISON_COLUMNS = ["problemID", "metric", "system_a", "system_b", "difference", "p_value", "p_holm", "test"]
OUTPUT_NAMES = ("scores.csv", "aggregates.csv", "failures.csv", "comparisons.csv", "results.csv",
                "results.parquet", "summary.json", "leaderboard.html")


def _cell(v):
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        if math.isnan(v):
            return ""
        return repr(v)
    return v


def csv_text(rows: list[list], header: list[str]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow([_cell(v) for v in r])
    return buf.getvalue()


def _direction(camp, pid: str, metric: str) -> bool:
    return dict(camp.discovery.problems[pid].metrics).get(metric, True)


def label_order(camp, pid: str) -> list[tuple[str, str]]:
    """``(label, metric)`` of a problem's scores, in the order scoring wrote them."""
    seen: dict[str, str] = {}
    for o in camp.results[pid].outcomes if pid in camp.results else []:
        for r in o.scores:
            seen.setdefault(r[0], r[1])
    return list(seen.items())


def score_rows(camp) -> list[list]:
    """scores.csv: one row per (system, problem, metric, repeat, fold) scored, ranked among
    the systems scored on the same fold."""
    rows = []
    for pid in sorted(camp.results):
        res = camp.results[pid]
        for label, metric in label_order(camp, pid):
            higher = _direction(camp, pid, metric)
            cells: dict[tuple[int, int], list] = {}
            for o in res.outcomes:
                for r in o.scores:
                    if r[0] == label:
                        cells.setdefault((r[2], r[3]), []).append((o.system, r))
            for key in sorted(cells):
                cell = cells[key]
                ranks = competition_ranks([float(r[4]) for _, r in cell], higher)
                for (system, r), rank in sorted(zip(cell, ranks), key=lambda c: (
                        math.isnan(c[1]), c[1], c[0][0])):
                    rows.append([system, pid, label, r[2], r[3], float(r[4]), float(r[5]), float(r[6]),
                                 int(rank) if not math.isnan(rank) else NAN])
    return rows


NAN = float("nan")


def aggregate_rows(camp) -> list[list]:
    """aggregates.csv: per (system, problem, metric) the mean over the scored folds, their
    sample sd (empty for one fold) and their number, ranked on the mean; and with two or
    more folds Student's t confidence interval of the mean over the folds
    (``fold_ci_low``, ``fold_ci_high``, at the campaign's confidence; it treats the folds'
    scores as independent draws, which kFold folds only approximately are)."""
    import numpy as np

    from d3mkit.evaluate.pairwise import t_interval
    rows = []
    for pid in sorted(camp.results):
        res = camp.results[pid]
        for label, metric in label_order(camp, pid):
            cell = []
            for o in res.outcomes:
                vals = [float(r[4]) for r in o.scores if r[0] == label]
                if vals:
                    mean = sum(vals) / len(vals)
                    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / (len(vals) - 1)) if len(vals) > 1 else NAN
                    lo, hi = t_interval(np.array(vals), camp.params.confidence)
                    cell.append((o.system, mean, sd, len(vals), lo, hi))
            ranks = competition_ranks([c[1] for c in cell], _direction(camp, pid, metric))
            for c, rank in sorted(zip(cell, ranks), key=lambda t: (t[1], t[0][0])):
                rows.append([c[0], pid, label, c[1], c[2], c[3], int(rank), c[4], c[5]])
    return rows


def grid_counts(camp) -> dict:
    """The systems x problems grid, counted once for the summary line, summary.json and
    the page. Submissions: every (system, problem) is exactly one of complete (every fold
    scored), partial (some), missing (no entry) or failed; ``scored`` = complete +
    partial. Folds, counted apart: every (system, problem, repeat, fold) of the grid is
    scored, missing (no file, or the whole submission missing) or failed;
    ``failure_rows`` is the length of failures.csv."""
    systems, problems = camp.discovery.systems, camp.discovery.problems
    folds_of: dict = {}
    for o in camp.outcomes:
        got = {(r[2], r[3]) for r in o.scores}
        if got:
            folds_of[(o.system, o.problem_id)] = len(got)
    scored = set(folds_of)
    complete = {k for k, n in folds_of.items() if k[1] in problems and n >= len(problems[k[1]].folds)}
    failures = camp.failures
    missing = {(f.system, f.problem_id) for f in failures if f.code == "submission.missing"} - scored
    total = len(systems) * len(problems)
    expected = len(systems) * sum(len(p.folds) for p in problems.values())
    folds_scored = sum(folds_of.values())
    missing_sub_folds = sum(len(problems[pid].folds) for _s, pid in missing if pid in problems)
    missing_folds = sum(1 for f in failures if f.code == "submission.missing_fold")
    return {"systems": len(systems), "problems": len(problems), "submissions": total,
            "scored": len(scored), "complete": len(complete), "partial": len(scored) - len(complete),
            "missing": len(missing), "failed": total - len(scored) - len(missing),
            "missing_folds": missing_folds,
            "folds": {"expected": expected, "scored": folds_scored,
                      "missing": missing_sub_folds + missing_folds,
                      "failed": max(0, expected - folds_scored - missing_sub_folds - missing_folds)},
            "failure_rows": len(failures)}


def comparison_rows(camp) -> list[list]:
    return [[pid, *c] for pid in sorted(camp.results) for c in camp.results[pid].comparisons]


def failure_rows(camp) -> list[list]:
    return [[f.system, f.problem_id, f.code, f.message] for f in camp.failures]


def primary_label(camp, pid: str) -> str | None:
    """The label of the problem's primary metric (its first performanceMetric; the first
    target's label when it is scored per target)."""
    prob = camp.discovery.problems[pid]
    if not prob.metrics:
        return None
    first = prob.metrics[0][0]
    return next((label for label, metric in label_order(camp, pid) if metric == first), None)


def primary_table(camp, aggregates: list[list]) -> tuple[dict, dict]:
    """``table[problem][system]`` = the primary metric's mean over folds;
    ``direction[problem]`` (True when higher is better)."""
    table: dict[str, dict[str, float]] = {pid: {} for pid in camp.discovery.problems}
    direction = {pid: (p.metrics[0][1] if p.metrics else True) for pid, p in camp.discovery.problems.items()}
    labels = {pid: primary_label(camp, pid) for pid in camp.discovery.problems}
    for system, pid, label, mean, *_rest in aggregates:
        if label == labels.get(pid):
            table[pid][system] = mean
    return table, direction


RESULT_COLUMNS = ["system", "problemID", "repeat", "fold", "metric", "value"]


def result_rows(camp) -> list[list]:
    """The one long table every statistic is derived from: one row per scored (system,
    problem, repeat, fold, metric) — ``metric`` the scores.csv label, whose direction the
    registry gives."""
    rows = []
    for pid in sorted(camp.results):
        for o in camp.results[pid].outcomes:
            for r in o.scores:
                rows.append([o.system, pid, int(r[2]), int(r[3]), r[0], float(r[4])])
    return rows


def results_frame(rows: list[list]):
    import pandas as pd
    return pd.DataFrame(rows, columns=RESULT_COLUMNS).astype(
        {"system": object, "problemID": object, "repeat": "int64", "fold": "int64", "metric": object,
         "value": "float64"})


def results_parquet(frame) -> bytes | None:
    """results.parquet's bytes, or None without pyarrow (the CSV says the same)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return None
    buf = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), buf)
    return buf.getvalue().to_pybytes()


def problem_infos(camp) -> list:
    """A :class:`~d3mkit.evaluate.overall.ProblemInfo` per problem: its primary metric's
    label, direction (registry), folds, constant predictor and perfect value."""
    from d3mkit.evaluate.overall import ProblemInfo
    out = []
    for pid in sorted(camp.discovery.problems):
        prob = camp.discovery.problems[pid]
        label = primary_label(camp, pid) if pid in camp.results else None
        metric, higher = prob.metrics[0] if prob.metrics else (None, True)
        perfect = math.nan
        try:
            from d3mkit.core.registry import get_metric
            perfect = float(get_metric(metric).best)
        except Exception:  # noqa: BLE001 - a metric gone from the registry: no perfect value
            perfect = math.nan
        const = camp.results[pid].constants.get(label, math.nan) if label and pid in camp.results else math.nan
        out.append(ProblemInfo(pid, label, bool(higher), tuple(prob.folds), float(const),
                               perfect if math.isfinite(perfect) else math.nan))
    return out


POLICY = ("Failure policy (partial and failed runs): on each problem, a system that scored only some folds is "
          "partial and is "
          "ranked after the complete systems (by its mean over the folds it scored) unless --partial mean; a "
          "failed or missing system shares the last places. In the Elo, win rates, improvability, the "
          "normalised score and the pairwise tests a failed or missing fold counts as the constant predictor "
          "(as AMLB imputes it; where a problem has none, as a loss to every score).")


def summary(camp, aggregates: list[list], frame=None) -> dict:
    """summary.json (docs/evaluate.md gives its schema): the standing of every system over
    the problems (:func:`d3mkit.evaluate.overall.standings` on the long table), the
    pairwise tests, the critical-difference groups, Friedman / Iman–Davenport, the
    Nemenyi critical difference, the counts of submissions and folds. Numbers and nulls
    only."""
    from d3mkit import __version__
    from d3mkit.evaluate.overall import Options, standings
    systems = list(camp.discovery.systems)
    problems = sorted(camp.discovery.problems)
    if frame is None:
        frame = results_frame(result_rows(camp))
    p = camp.params
    opts = Options(bootstrap=p.bootstrap, confidence=p.confidence, seed=p.seed, alpha=p.alpha,
                   reference=p.elo_reference, rope=p.rope, cd_test=p.cd_test, partial=p.partial)
    st = standings(frame, systems, problem_infos(camp), opts)
    out = {"d3mkit": __version__, "parameters": p.to_dict(), "problems": problems,
           "systems": st["systems"], "pairwise": st["pairwise"], "cd": st["cd"],
           "friedman": st["friedman"], "critical_difference": st["nemenyi_cd"], "q_alpha": st["q_alpha"],
           "mean_ranks": st["mean_ranks"],
           "normalised_scores": {s: v["normalised"] for s, v in st["systems"].items()},
           "counts": grid_counts(camp), "policy": POLICY,
           "normalised_policy":
               "0 is the constant predictor (most frequent TEST label, or the mean TEST value), 1 the best "
               "system on the problem; a failed or missing fold counts as the constant predictor (0); null on "
               "a problem where the best equals the constant within 1e-9"}
    return out, st


def json_safe(x):
    """Numbers and nulls only: NaN and infinities become null (never a string)."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: json_safe(v) for k, v in x.items()}
    if isinstance(x, list):
        return [json_safe(v) for v in x]
    return x
