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


def _full_stop(text: str) -> str:
    """``text`` as whole sentences: never cut, ending with a full stop."""
    text = " ".join(text.split())
    return text if not text or text[-1] in ".!?" else text + "."


def metric_info(label: str, metric: str, higher: bool) -> MetricInfo:
    """A metric's direction and a one-line description (the registry's, else the first
    line of the metric function's docstring)."""
    import re
    desc = ""
    try:
        from d3mkit.core.registry import get_metric
        m = get_metric(metric)
        doc = " ".join((m.score.__doc__ or "").strip().split("\n\n")[0].split())
        desc = " ".join((m.description or "").split())
        # a registry description cut from the docstring's first line: the whole paragraph instead
        if not desc or (doc.startswith(desc) and len(doc) > len(desc)) or desc[-1] not in ".!?)":
            desc = doc if doc.startswith(desc) or not desc else desc
    except Exception:  # noqa: BLE001 - a metric that is gone from the registry: no description
        desc = ""
    desc = re.sub(r":\w+:`~?([^`]+)`", r"\1", desc).replace("``", "")
    return MetricInfo(label, "higher" if higher else "lower", _full_stop(desc))


def build_model(camp, aggregates: list[list], comparisons: list[list], summary: dict, *,
                generated: str, standing: dict | None = None, frame=None) -> Leaderboard:
    from d3mkit import __version__
    from d3mkit.evaluate.report import label_order, grid_counts, primary_label
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
    per = summary.get("systems") if isinstance(summary.get("systems"), dict) else {}
    groups = (summary.get("cd") or {}).get("groups")
    leader = min(mean_ranks, key=lambda s: (mean_ranks[s], s)) if mean_ranks else None

    def tied(s):
        if groups is not None and (summary.get("cd") or {}).get("test") != "nemenyi":
            return any(s in g and leader in g for g in groups)
        return cd is not None and mean_ranks.get(s, math.inf) - best_rank <= cd
    overall = []
    for s in sorted(systems, key=lambda s: (mean_ranks.get(s, math.inf), s)):
        st = per.get(s) or {}
        overall.append(SystemRow(s, pos.get(s, 0), mean_ranks.get(s, math.nan),
                                 (summary.get("normalised_scores") or {}).get(s), scored_in.get(s, 0),
                                 n_fail_by_system.get(s, 0), tied(s), st.get("elo"),
                                 tuple(st.get("elo_ci") or (None, None)), tuple(st.get("rank_ci") or (None, None)),
                                 st.get("win_rate"), st.get("improvability")))

    heat = {}
    for pid in problems:
        label = primary_label(camp, pid)
        for s in systems:
            r = agg.get((s, pid, label))
            if r is not None:
                heat[(s, pid)] = (r[6], r[3])

    places, strips, win_matrix = {}, {}, None
    if standing and standing.get("per_problem"):
        pp = standing["per_problem"]
        pids = [p for p in problems if primary_label(camp, p) is not None] if camp.results else []
        for j, pid in enumerate(pids):
            for i, s in enumerate(systems):
                places[(pid, s)] = float(pp["ranks"][j, i])
                v = pp["normalised"][j, i]
                if math.isfinite(v):
                    strips.setdefault(s, []).append((pid, float(v)))
        win_matrix = standing.get("win_rate_matrix")
    tables = []
    for pid in problems:
        prob = disc.problems[pid]
        res = camp.results.get(pid)
        labels = label_order(camp, pid)
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
                    flo, fhi = (r[7], r[8]) if len(r) > 8 else (math.nan, math.nan)
                    cells.append(Cell(r[3], r[4], lo, hi, r[6], r[5], flo, fhi))
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
                tie = None if not (isinstance(p_holm, float) and math.isfinite(p_holm)) else \
                    "tied" if p_holm >= alpha else "worse"
            rows.append(ProblemRow(s, status, cells, tie, places.get((pid, s))))
        order = {label: i for i, (label, _m) in enumerate(labels)}
        k = order.get(plabel, 0)
        rows.sort(key=lambda r: (r.place if r.place is not None else
                                 r.cells[k].rank if r.cells and r.cells[k] is not None else math.inf, r.system))
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
        links=["scores.csv", "aggregates.csv", "failures.csv", "comparisons.csv", "results.csv", "summary.json"],
        policy=summary.get("policy") or FAILURE_POLICY,
        cd_groups=(summary.get("cd") or {}).get("groups"), cd_test=(summary.get("cd") or {}).get("test", "nemenyi"),
        win_matrix=win_matrix, strips=strips, fold_scores=_fold_scores(camp, frame),
        pairwise=summary.get("pairwise") or [])


def _fold_scores(camp, frame) -> dict:
    """Per problem with two or more folds: its primary metric's label and each system's
    value on every fold (None where not scored), for the fold-wise picture."""
    from d3mkit.evaluate.report import primary_label
    out = {}
    if frame is None or not len(frame):
        return out
    for pid, part in frame.groupby("problemID", sort=True):
        folds = list(camp.discovery.problems[pid].folds) if pid in camp.discovery.problems else []
        label = primary_label(camp, pid)
        if len(folds) < 2 or label is None:
            continue
        part = part[part["metric"] == label]
        pos = {rf: i for i, rf in enumerate(folds)}
        by: dict = {}
        for s, r, f, v in part[["system", "repeat", "fold", "value"]].itertuples(index=False, name=None):
            i = pos.get((int(r), int(f)))
            if i is not None:
                by.setdefault(s, [None] * len(folds))[i] = float(v)
        out[pid] = (label, by)
    return out
