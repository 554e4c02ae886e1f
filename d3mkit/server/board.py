"""The challenge's leaderboard as data: what the page and ``GET /api/leaderboard`` show.

What this module owns: which submission stands for a team on a problem and how teams are
ranked. A team's entry on a problem is its best scored submission on the problem's primary
metric (the first performanceMetric, direction from the metric registry) on the **public**
rows; ties go to the earlier submission. The private board (after ``challenge finalize``)
shows the private scores of those same entries, so a team cannot pick its entry by probing
the private rows. Ranks are the campaign leaderboard's (:mod:`d3mkit.evaluate.ranking`):
competition ranks per problem, the mean fractional rank over problems overall (a team
without an entry on a problem shares the last places there).

Values are rounded to the challenge's ``precision`` digits here, once, for every view.

:func:`leaderboard_model` turns a board into the campaign leaderboard's model
(:class:`d3mkit.evaluate.leaderboard.Leaderboard`), which the pages draw with the campaign's
own renderer (:func:`d3mkit.evaluate.leaderboard.sections`): the overall ranking with the
Friedman test and the Nemenyi critical difference (:mod:`d3mkit.evaluate.stats`, teams
tied with the best marked, the critical-difference diagram), the teams x problems ranks, and
a table per problem with every team's entry, its rank on each metric and the team's
failed submissions — one owner renders leaderboards. The campaign's statistics of each
board (:func:`d3mkit.server.scoring.board_statistics`, computed in a worker and kept in the
database) add each value's bootstrap interval, each entry's paired test against the best one
("tied"/"worse", Holm-corrected) and the normalised score (0 the constant predictor, 1 the
best team), for the entries they were computed for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from d3mkit.evaluate.ranking import competition_ranks, mean_ranks, positions


@dataclass
class ProblemBoard:
    problem_id: str
    metrics: list[str]                     # labels, primary first
    higher_is_better: bool
    rows: list[dict] = field(default_factory=list)   # {"team", "rank", "scores": {label: v}, "submissions", "at"}
    entries: dict = field(default_factory=dict)      # team name -> its entry's submission id (not shown)


@dataclass
class Board:
    part: str                              # "public" or "private"
    overall: list[dict] = field(default_factory=list)  # {"position", "team", "mean_rank", "problems"}
    problems: list[ProblemBoard] = field(default_factory=list)
    baselines: list[dict] = field(default_factory=list)  # {"team", "problemID", "scores"}: drawn apart, unranked

    def to_dict(self) -> dict:
        return {"board": self.part, "overall": self.overall, "baselines": self.baselines,
                "problems": [{"problemID": p.problem_id, "metrics": p.metrics,
                              "higherIsBetter": p.higher_is_better, "entries": p.rows}
                             for p in self.problems]}


def _round(v, digits: int):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return None
    return round(float(v), digits)


def _primary(scores: list | None) -> float:
    if not scores or scores[0].get("value") is None:
        return math.nan
    return float(scores[0]["value"])


def entries(challenge, subs, rule: str | None = None) -> dict[str, dict]:
    """Each problem's entries: ``{problemID: {team key: submission}}``, a team's best
    scored submission on the primary metric of the public rows (ties: the earlier one), or
    with ``rule="last"`` its last scored one. ``subs``: the scored submissions (in
    submission order). ``rule``: default the rule of the challenge's phase now."""
    if rule is None:
        from d3mkit.server.store import now
        phase = challenge.phase_now(now()) if getattr(challenge, "phases", ()) else None
        rule = phase.counts if phase is not None else "best"
    out: dict[str, dict] = {}
    for pid, entry in sorted(challenge.problems.items()):
        hi = bool(entry.metrics[0][1]) if entry.metrics else True
        best: dict[str, object] = {}
        for s in subs:
            if s.problem != pid:
                continue
            v = _primary(s.public)
            cur = best.get(s.team)
            if rule == "last":
                best[s.team] = s
            elif cur is None or (not math.isnan(v) and (math.isnan(_primary(cur.public)) or
                               (v > _primary(cur.public) if hi else v < _primary(cur.public)))):
                best[s.team] = s
        out[pid] = best
    return out


def build_board(challenge, store, part: str = "public") -> Board:
    """The board of ``part`` ("public"; "private" only once finalized — the caller checks)."""
    names = store.teams()
    baseline = store.baselines()
    subs = store.submissions(status="scored")
    board = Board(part)
    table: dict[str, dict[str, float]] = {}
    direction: dict[str, bool] = {}
    counts: dict[tuple[str, str], int] = {}
    for s in store.submissions():
        counts[(s.team, s.problem)] = counts.get((s.team, s.problem), 0) + 1
    chosen_by_problem = entries(challenge, subs)
    for pid, entry in sorted(challenge.problems.items()):
        hi = bool(entry.metrics[0][1]) if entry.metrics else True
        direction[pid] = hi
        best = chosen_by_problem[pid]
        for t in sorted((t for t in best if t in baseline), key=lambda t: names.get(t, t)):
            sc = best[t].public if part == "public" else best[t].private
            board.baselines.append({"team": names.get(t, t), "problemID": pid,
                                    "scores": {m["metric"]: _round(m["value"], challenge.precision) for m in (sc or [])}})
        best = {t: s for t, s in best.items() if t not in baseline}
        chosen = {t: (s.public if part == "public" else s.private) for t, s in best.items()}
        labels = [m["metric"] for sc in chosen.values() if sc for m in sc]
        labels = list(dict.fromkeys(labels)) or [m[0] for m in entry.metrics]
        teams = sorted(chosen, key=lambda t: names.get(t, t))
        values = [_primary(chosen[t]) for t in teams]
        ranks = competition_ranks(values, hi)
        pb = ProblemBoard(pid, labels, hi, entries={names.get(t, t): best[t].id for t in teams})
        for t, v, r in sorted(zip(teams, values, ranks), key=lambda x: (math.isnan(x[2]), x[2], names.get(x[0], x[0]))):
            pb.rows.append({"team": names.get(t, t), "rank": None if math.isnan(r) else int(r),
                            "scores": {m["metric"]: _round(m["value"], challenge.precision)
                                       for m in (chosen[t] or [])},
                            "submissions": counts.get((t, pid), 0), "at": best[t].created})
            if not math.isnan(v):
                table.setdefault(pid, {})[names.get(t, t)] = v
        board.problems.append(pb)
    systems = sorted({r["team"] for p in board.problems for r in p.rows})
    if systems:
        table = {p: table.get(p, {}) for p in direction}
        overall = mean_ranks(table, systems, direction)
        pos = positions(overall)
        for t in sorted(systems, key=lambda t: (overall[t], t)):
            board.overall.append({"position": pos[t], "team": t, "mean_rank": _round(overall[t], 3),
                                  "problems": sum(1 for p in table.values() if t in p)})
    return board


def results_rows(challenge, store) -> list[list]:
    """The per-part ("fold": public, private), per-metric results of every entry, as the
    rows of ``results.csv`` (downloaded after finalize): team, baseline, problemID,
    submission, fold, metric, value (full precision)."""
    names, baseline = store.teams(), store.baselines()
    rows = [["team", "baseline", "problemID", "submission", "fold", "metric", "value"]]
    for pid, best in entries(challenge, store.submissions(status="scored")).items():
        for t in sorted(best, key=lambda t: names.get(t, t)):
            s = best[t]
            for fold, scores in (("public", s.public), ("private", s.private)):
                for m in scores or []:
                    rows.append([names.get(t, t), "yes" if t in baseline else "no", pid, s.id, fold,
                                 m["metric"], "" if m["value"] is None else repr(float(m["value"]))])
    return rows


ALPHA = 0.05
POLICY = ("On each problem a team's entry is its best public submission on the primary metric; a team "
          "without one shares the last places of the ranking there.")


def leaderboard_model(challenge, board: Board, *, failures: dict | None = None,
                      statistics: dict | None = None, generated: str = ""):
    """The :class:`~d3mkit.evaluate.leaderboard.Leaderboard` of ``board`` (see the module
    docstring); ``failures``: team name -> its failed submissions; ``statistics``: problemID
    -> what :func:`d3mkit.server.scoring.board_statistics` found for the board's part (used
    for the entries it was computed for: an entry changed since has no interval yet)."""
    import numpy as np

    from d3mkit import __version__
    from d3mkit.evaluate.leaderboard import Cell, Leaderboard, ProblemRow, ProblemTable, SystemRow
    from d3mkit.evaluate.model import metric_info
    from d3mkit.evaluate.stats import friedman, nemenyi_cd
    failures = failures or {}
    statistics = statistics or {}
    teams = [r["team"] for r in board.overall]
    problems = [p.problem_id for p in board.problems]
    mean = {r["team"]: r["mean_rank"] for r in board.overall}
    k, n = len(teams), len(problems)
    fried, cd = None, None
    if k >= 2 and n >= 2:
        from d3mkit.evaluate.stats import rank_rows
        grid = np.array([[_primary_of(p, t) for t in teams] for p in board.problems], dtype=float)
        f = friedman(rank_rows(grid, [p.higher_is_better for p in board.problems]))
        fried = {key: f[key] for key in ("statistic", "p_value", "iman_davenport", "iman_davenport_p_value", "k", "N")}
        cd = nemenyi_cd(k, n, ALPHA)
    best = min(mean.values()) if mean else math.nan
    heat, tables = {}, []
    normalised: dict[str, list] = {t: [] for t in teams}
    registry_names = {pid: dict(e.metrics) for pid, e in challenge.problems.items()}
    for p in board.problems:
        names = {label: label.split("[", 1)[0] for label in p.metrics}     # f1Macro[y] -> f1Macro
        directions = registry_names.get(p.problem_id, {})
        infos = [metric_info(label, names[label], bool(directions.get(names[label], p.higher_is_better)))
                 for label in p.metrics]
        ranks = {}
        for info in infos:
            vals = [r["scores"].get(info.label) for r in p.rows]
            vals = [math.nan if v is None else v for v in vals]
            ranks[info.label] = dict(zip((r["team"] for r in p.rows),
                                         competition_ranks(vals, info.direction == "higher")))
        by_team = {r["team"]: r for r in p.rows}
        ci, tie, constant = problem_statistics(p, statistics.get(p.problem_id), challenge.precision)
        if p.metrics and p.metrics[0] in constant:
            from d3mkit.evaluate.stats import normalised_scores
            vals = np.array([_primary_of(p, t) for t in teams], dtype=float)
            for t, v in zip(teams, normalised_scores(vals, constant[p.metrics[0]], p.higher_is_better)):
                if math.isfinite(v):
                    normalised[t].append(float(v))
        rows = []
        for t in teams:
            r = by_team.get(t)
            if r is None:
                rows.append(ProblemRow(t, "missing", [None] * len(infos)))
                continue
            cells = []
            for info in infos:
                v = r["scores"].get(info.label)
                rank = ranks[info.label].get(t, math.nan)
                lo, hi = ci.get((t, info.label), (math.nan, math.nan))
                cells.append(None if v is None else
                             Cell(v, math.nan, lo, hi, int(rank) if rank == rank else 0, 1))
            rows.append(ProblemRow(t, "scored", cells, "best" if r["rank"] == 1 else tie.get(t)))
            if r["rank"] is not None and p.metrics and r["scores"].get(p.metrics[0]) is not None:
                heat[(t, p.problem_id)] = (r["rank"], r["scores"][p.metrics[0]])
        rows.sort(key=lambda r: (r.cells[0].rank if r.cells and r.cells[0] is not None else math.inf, r.system))
        tables.append(ProblemTable(p.problem_id, infos, 1, rows, bool(tie)))
    overall = [SystemRow(r["team"], r["position"], r["mean_rank"],
                         _round(sum(normalised[r["team"]]) / len(normalised[r["team"]]), 3) if normalised[r["team"]] else None,
                         r["problems"], failures.get(r["team"], 0), cd is not None and r["mean_rank"] - best <= cd)
               for r in board.overall]
    return Leaderboard(
        title=f"{challenge.name}: {board.part} leaderboard", generated=generated, version=__version__,
        parameters={"board": board.part, "public fraction": challenge.public_fraction, "alpha": ALPHA},
        counts={"systems": k, "problems": n, "scored": sum(len(p.rows) for p in board.problems),
                "failed": sum(failures.values()), "missing": 0, "failure_rows": 0},
        overall=overall, systems=teams, problems=problems, heat=heat, friedman=fried, critical_difference=cd,
        mean_ranks=mean, tables=tables, failure_counts=[], failure_rows=[], links=[], policy=POLICY)


def problem_statistics(p: ProblemBoard, stats: dict | None, digits: int) -> tuple[dict, dict, dict]:
    """``(intervals {(team, label): (low, high)}, ties {team: "tied"|"worse"}, constants
    {label: value})`` of one problem from its :func:`~d3mkit.server.scoring.board_statistics`
    result, for the entries it was computed for. Ties are the campaign's rule: the paired
    test of an entry against the best one on the primary metric, Holm-corrected, "tied" when
    p >= alpha."""
    if not stats or stats.get("log"):
        return {}, {}, {}
    current = {sid: t for t, sid in p.entries.items()}
    team_of = {i: current.get(sid) for i, sid in enumerate(stats.get("entries", []))}
    ci = {(team_of[i], label): (_round(lo, digits), _round(hi, digits))       # shown as the values are
          for i, label, lo, hi in stats.get("intervals", []) if team_of.get(i) is not None}
    ties: dict = {}
    best = next((r["team"] for r in p.rows if r["rank"] == 1), None)
    best_i = next((i for i, t in team_of.items() if t is not None and t == best), None)
    if best_i is not None and p.metrics:
        for label, a, b, _diff, _p, p_holm, _test in stats.get("comparisons", []):
            if label != p.metrics[0] or best_i not in (a, b):
                continue
            other = team_of.get(b if a == best_i else a)
            if other is not None and other != best:
                ties[other] = "tied" if isinstance(p_holm, (int, float)) and p_holm >= ALPHA else "worse"
    return ci, ties, dict(stats.get("constants", {}))      # the truth's: any entries will do


def _primary_of(p: ProblemBoard, team: str) -> float:
    for r in p.rows:
        if r["team"] == team and p.metrics and r["scores"].get(p.metrics[0]) is not None:
            return float(r["scores"][p.metrics[0]])
    return math.nan

