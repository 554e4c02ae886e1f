"""From a campaign's tables to the :class:`~d3mkit.evaluate.leaderboard.Leaderboard`
model the page is drawn from: the overall ranking (mean rank, normalised score, ties
within the critical difference), the systems x problems ranks, and a table per problem
holding every system of the campaign — scored, partly scored, failed or missing.
"""

from __future__ import annotations

import math

from d3mkit.evaluate.leaderboard import (Cell, Leaderboard, MetricInfo, ProblemRow, ProblemTable,
                                         SystemRow)
from d3mkit.evaluate.ranking import positions

FAILURE_POLICY = ("Failure policy: on each problem a system without a score (failed or missing) "
                  "shares the last places of the ranking, and counts as the constant predictor (0) "
                  "in the normalised score.")


def metric_info(label: str, metric: str, higher: bool) -> MetricInfo:
    """A metric's direction and a one-line description (the registry's, else the first
    line of the metric function's docstring)."""
    import re
    desc = ""
    try:
        from d3mkit.registry import get_metric
        m = get_metric(metric)
        doc = (m.score.__doc__ or "").strip().split("\n\n")[0]
        desc = m.description or " ".join(doc.split())
    except Exception:  # noqa: BLE001 - a metric that is gone from the registry: no description
        desc = ""
    desc = re.sub(r":\w+:`~?([^`]+)`", r"\1", desc).replace("``", "").rstrip(". ")
    return MetricInfo(label, "higher" if higher else "lower", desc)


def build_model(camp, aggregates: list[list], comparisons: list[list], summary: dict, *,
                generated: str) -> Leaderboard:
    from d3mkit import __version__
    from d3mkit.evaluate.report import _label_order, grid_counts, primary_label
    disc = camp.discovery
    systems = list(disc.systems)
    problems = sorted(disc.problems)
    failures = camp.failures
    missing = {(f.system, f.problem_id) for f in failures if f.code == "submission.missing"}
    failed_any = {(f.system, f.problem_id) for f in failures if f.code != "submission.missing"}
    n_fail_by_system: dict[str, int] = {}
    for f in failures:
        if f.system and f.code != "submission.missing":
            n_fail_by_system[f.system] = n_fail_by_system.get(f.system, 0) + 1
    agg = {(r[0], r[1], r[2]): r for r in aggregates}
    alpha = camp.params.alpha

    mean_ranks = summary.get("mean_ranks") or {}
    cd = summary.get("critical_difference")
    best_rank = min(mean_ranks.values()) if mean_ranks else math.nan
    pos = positions(mean_ranks) if mean_ranks else {}
    scored_in = {s: 0 for s in systems}
    for s, pid, label, *_ in aggregates:
        if label == primary_label(camp, pid) and s in scored_in:
            scored_in[s] += 1
    overall = [SystemRow(s, pos.get(s, 0), mean_ranks.get(s, math.nan),
                         (summary.get("normalised_scores") or {}).get(s), scored_in.get(s, 0),
                         n_fail_by_system.get(s, 0),
                         cd is not None and mean_ranks.get(s, math.inf) - best_rank <= cd)
               for s in sorted(systems, key=lambda s: (mean_ranks.get(s, math.inf), s))]

    heat = {}
    for pid in problems:
        label = primary_label(camp, pid)
        for s in systems:
            r = agg.get((s, pid, label))
            if r is not None:
                heat[(s, pid)] = (r[6], r[3])

    tables = []
    for pid in problems:
        prob = disc.problems[pid]
        res = camp.results.get(pid)
        labels = _label_order(camp, pid)
        directions = dict(prob.metrics)
        infos = [metric_info(label, metric, directions.get(metric, True)) for label, metric in labels]
        plabel = primary_label(camp, pid)
        best = next((r[0] for r in aggregates if r[1] == pid and r[2] == plabel and r[6] == 1), None)
        tested = {}
        for c in comparisons:
            if c[0] == pid and c[1] == plabel and best in (c[2], c[3]):
                other = c[3] if c[2] == best else c[2]
                tested[other] = (c[6], c[7])
        ci = {}
        if res is not None and len(prob.folds) == 1:
            for o in res.outcomes:
                for row in o.scores:
                    ci[(o.system, row[0])] = (row[5], row[6])
        rows = []
        for s in systems:
            cells = []
            for label, _m in labels:
                r = agg.get((s, pid, label))
                if r is None:
                    cells.append(None)
                else:
                    lo, hi = ci.get((s, label), (math.nan, math.nan))
                    cells.append(Cell(r[3], r[4], lo, hi, r[6], r[5]))
            folds_scored = max((c.folds for c in cells if c is not None), default=0)
            if (s, pid) in missing:
                status = "missing"
            elif folds_scored == 0:
                status = "failed"
            elif folds_scored < len(prob.folds) or (s, pid) in failed_any:
                status = "partial"
            else:
                status = "scored"
            tie = None
            if s == best:
                tie = "best"
            elif s in tested:
                p_holm = tested[s][0]
                tie = "tied" if isinstance(p_holm, float) and p_holm >= alpha else "worse"
            rows.append(ProblemRow(s, status, cells, tie))
        order = {label: i for i, (label, _m) in enumerate(labels)}
        k = order.get(plabel, 0)
        rows.sort(key=lambda r: (r.cells[k].rank if r.cells and r.cells[k] is not None else math.inf,
                                 r.system))
        tables.append(ProblemTable(pid, infos, len(prob.folds), rows, bool(tested)))

    counts = grid_counts(camp)
    codes: dict[str, int] = {}
    for f in failures:
        codes[f.code] = codes.get(f.code, 0) + 1
    return Leaderboard(
        title="d3mkit leaderboard", generated=generated, version=__version__,
        parameters=camp.params.to_dict(), counts=counts, overall=overall, systems=systems,
        problems=problems, heat=heat, friedman=summary.get("friedman"), critical_difference=cd,
        mean_ranks=mean_ranks, tables=tables, failure_counts=sorted(codes.items()),
        failure_rows=[[f.system, f.problem_id, f.code, f.message] for f in failures
                      if f.code != "submission.missing"],
        links=["scores.csv", "aggregates.csv", "failures.csv", "comparisons.csv", "summary.json"],
        policy=FAILURE_POLICY)
