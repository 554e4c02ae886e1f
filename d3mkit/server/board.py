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


@dataclass
class Board:
    part: str                              # "public" or "private"
    overall: list[dict] = field(default_factory=list)  # {"position", "team", "mean_rank", "problems"}
    problems: list[ProblemBoard] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"board": self.part, "overall": self.overall,
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


def build_board(challenge, store, part: str = "public") -> Board:
    """The board of ``part`` ("public"; "private" only once finalized — the caller checks)."""
    names = store.teams()
    subs = store.submissions(status="scored")
    board = Board(part)
    table: dict[str, dict[str, float]] = {}
    direction: dict[str, bool] = {}
    counts: dict[tuple[str, str], int] = {}
    for s in store.submissions():
        counts[(s.team, s.problem)] = counts.get((s.team, s.problem), 0) + 1
    for pid, entry in sorted(challenge.problems.items()):
        hi = bool(entry.metrics[0][1]) if entry.metrics else True
        direction[pid] = hi
        best: dict[str, object] = {}
        for s in subs:
            if s.problem != pid:
                continue
            v = _primary(s.public)
            cur = best.get(s.team)
            if cur is None or (not math.isnan(v) and (math.isnan(_primary(cur.public)) or
                               (v > _primary(cur.public) if hi else v < _primary(cur.public)))):
                best[s.team] = s
        chosen = {t: (s.public if part == "public" else s.private) for t, s in best.items()}
        labels = [m["metric"] for sc in chosen.values() if sc for m in sc]
        labels = list(dict.fromkeys(labels)) or [m[0] for m in entry.metrics]
        teams = sorted(chosen, key=lambda t: names.get(t, t))
        values = [_primary(chosen[t]) for t in teams]
        ranks = competition_ranks(values, hi)
        pb = ProblemBoard(pid, labels, hi)
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
