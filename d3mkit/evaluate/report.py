"""The tables of a campaign, from its results: scores.csv (per fold, with the interval and
the rank), aggregates.csv (per system, problem and metric: mean, sd and number of folds),
failures.csv, comparisons.csv, summary.json (Friedman, Nemenyi, mean ranks, normalised
scores) and the :class:`~d3mkit.evaluate.leaderboard.Leaderboard` model the page is drawn
from. Nothing here reads a file; :mod:`d3mkit.evaluate.campaign` writes what it returns.
"""

from __future__ import annotations

import csv
import datetime as _dt
import io
import json
import math
import os

from d3mkit.evaluate.ranking import competition_ranks

SCORE_COLUMNS = ["system", "problemID", "metric", "repeat", "fold", "value", "ci_low", "ci_high", "rank"]
AGGREGATE_COLUMNS = ["system", "problemID", "metric", "mean", "sd", "folds", "rank"]
FAILURE_COLUMNS = ["system", "problemID", "code", "message"]
COMPARISON_COLUMNS = ["problemID", "metric", "system_a", "system_b", "difference", "p_value", "p_holm", "test"]
OUTPUT_NAMES = ("scores.csv", "aggregates.csv", "failures.csv", "comparisons.csv", "summary.json",
                "leaderboard.html")


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


def _label_order(camp, pid: str) -> list[tuple[str, str]]:
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
        for label, metric in _label_order(camp, pid):
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
    sample sd (empty for one fold) and their number, ranked on the mean."""
    rows = []
    for pid in sorted(camp.results):
        res = camp.results[pid]
        for label, metric in _label_order(camp, pid):
            cell = []
            for o in res.outcomes:
                vals = [float(r[4]) for r in o.scores if r[0] == label]
                if vals:
                    mean = sum(vals) / len(vals)
                    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / (len(vals) - 1)) if len(vals) > 1 else NAN
                    cell.append((o.system, mean, sd, len(vals)))
            ranks = competition_ranks([c[1] for c in cell], _direction(camp, pid, metric))
            for c, rank in sorted(zip(cell, ranks), key=lambda t: (t[1], t[0][0])):
                rows.append([c[0], pid, label, c[1], c[2], c[3], int(rank)])
    return rows


def grid_counts(camp) -> dict:
    """The systems x problems grid, counted once for the summary line and the page: every
    (system, problem) is exactly one of scored (at least one fold), missing (no entry) or
    failed; ``failure_rows`` is the length of failures.csv."""
    systems, problems = camp.discovery.systems, camp.discovery.problems
    scored = {(o.system, o.problem_id) for o in camp.outcomes if o.scores}
    failures = camp.failures
    missing = {(f.system, f.problem_id) for f in failures if f.code == "submission.missing"} - scored
    total = len(systems) * len(problems)
    return {"systems": len(systems), "problems": len(problems), "submissions": total,
            "scored": len(scored), "missing": len(missing), "failed": total - len(scored) - len(missing),
            "missing_folds": sum(1 for f in failures if f.code == "submission.missing_fold"),
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
    return next((label for label, metric in _label_order(camp, pid) if metric == first), None)


def primary_table(camp, aggregates: list[list]) -> tuple[dict, dict]:
    """``table[problem][system]`` = the primary metric's mean over folds;
    ``direction[problem]`` (True when higher is better)."""
    table: dict[str, dict[str, float]] = {pid: {} for pid in camp.discovery.problems}
    direction = {pid: (p.metrics[0][1] if p.metrics else True) for pid, p in camp.discovery.problems.items()}
    labels = {pid: primary_label(camp, pid) for pid in camp.discovery.problems}
    for system, pid, label, mean, _sd, _n, _rank in aggregates:
        if label == labels.get(pid):
            table[pid][system] = mean
    return table, direction


def summary(camp, aggregates: list[list]) -> dict:
    """summary.json: the Friedman test on the systems x problems ranks of the primary
    metric (mean over folds; a system without a score shares the last places), the
    Nemenyi critical difference, the mean ranks and the mean normalised scores."""
    import numpy as np
    from d3mkit import __version__
    from d3mkit.evaluate.stats import friedman, nemenyi_cd, nemenyi_q, normalised_scores, rank_rows
    systems = list(camp.discovery.systems)
    problems = sorted(camp.discovery.problems)
    table, direction = primary_table(camp, aggregates)
    out = {"d3mkit": __version__, "parameters": camp.params.to_dict(), "systems": systems,
           "problems": problems, "friedman": None, "critical_difference": None, "q_alpha": None,
           "mean_ranks": {}, "normalised_scores": {}, "normalised_policy":
               "0 is the constant predictor (most frequent TEST label, or the mean TEST value), 1 the best "
               "system on the problem; a failed or missing submission counts as the constant predictor (0)"}
    if not systems or not problems:
        return out
    grid = np.array([[table[p].get(s, np.nan) for s in systems] for p in problems], dtype=float)
    ranks = rank_rows(grid, [direction[p] for p in problems])
    out["mean_ranks"] = {s: float(r) for s, r in zip(systems, ranks.mean(axis=0))}
    k, n = len(systems), len(problems)
    if k >= 2 and n >= 2:
        f = friedman(ranks)
        out["friedman"] = {"statistic": f["statistic"], "p_value": f["p_value"],
                           "iman_davenport": f["iman_davenport"],
                           "iman_davenport_p_value": f["iman_davenport_p_value"], "k": k, "N": n}
        out["q_alpha"] = nemenyi_q(k, camp.params.alpha)
        out["critical_difference"] = nemenyi_cd(k, n, camp.params.alpha)
    norm = np.full((n, k), np.nan)
    for j, p in enumerate(problems):
        label = primary_label(camp, p)
        const = camp.results[p].constants.get(label, math.nan) if p in camp.results and label else math.nan
        norm[j] = normalised_scores(grid[j], const, direction[p])
    for i, s in enumerate(systems):
        col = norm[:, i]
        col = col[np.isfinite(col)]
        out["normalised_scores"][s] = float(col.mean()) if len(col) else None
    return out


def _json_safe(x):
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if isinstance(x, float) and math.isnan(x):
        return None
    if isinstance(x, dict):
        return {k: _json_safe(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_json_safe(v) for v in x]
    return x


def output_files(camp, *, generated: str | None = None) -> dict[str, str]:
    """Every output file's text, by name (the page included)."""
    from d3mkit.evaluate.leaderboard import render
    from d3mkit.evaluate.model import build_model
    scores = score_rows(camp)
    aggs = aggregate_rows(camp)
    comps = comparison_rows(camp)
    summ = summary(camp, aggs)
    if generated is None:
        stamp = os.environ.get("SOURCE_DATE_EPOCH", "")    # reproducible pages (tests, builds)
        when = _dt.datetime.fromtimestamp(int(stamp), _dt.timezone.utc) if stamp.isdigit() else \
            _dt.datetime.now(_dt.timezone.utc)
        generated = when.strftime("%Y-%m-%d %H:%M UTC")
    model = build_model(camp, aggs, comps, summ, generated=generated)
    return {"scores.csv": csv_text(scores, SCORE_COLUMNS),
            "aggregates.csv": csv_text(aggs, AGGREGATE_COLUMNS),
            "failures.csv": csv_text(failure_rows(camp), FAILURE_COLUMNS),
            "comparisons.csv": csv_text(comps, COMPARISON_COLUMNS),
            "summary.json": json.dumps(_json_safe(summ), indent=2, sort_keys=True) + "\n",
            "leaderboard.html": render(model)}
