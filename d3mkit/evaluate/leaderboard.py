"""``leaderboard.html``: one static page, readable in a browser without a server.

Sections: a summary, the overall ranking (:func:`d3mkit.evaluate.ranking.mean_ranks`),
a systems × problems heat map of ranks and the score distribution of each problem
(matplotlib PNGs embedded as ``data:`` URIs), a table per problem (each metric's value
and rank, the direction from the registry) and the failures by code. Every system and
problem name comes from submitters: it is HTML-escaped, and drawn in the plots with
mathtext off (a ``$`` in a name is a dollar sign).
"""

from __future__ import annotations

import base64
import html
import io
import math

from d3mkit.evaluate.ranking import fractional_ranks, mean_ranks, positions

MAX_FAILURE_ROWS = 500
MAX_PLOT_PROBLEMS = 60
MAX_PLOT_SYSTEMS = 60

_CSS = """
body { font-family: sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em 0; }
th, td { border: 1px solid #8a9bb0; padding: 2px 8px; text-align: left; }
th { background: #d7e3f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.best td { background: #e3f4d7; }
img { max-width: 100%; border: 1px solid #ccc; }
.note { color: #555; font-size: 90%; }
"""


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _num(v: float) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return f"{v:.6g}"


def _table(header: list[str], rows: list[list[str]], classes: list[str] | None = None,
           num_cols: set[int] = frozenset()) -> str:
    out = ["<table><tr>" + "".join(f"<th>{_e(h)}</th>" for h in header) + "</tr>"]
    for i, r in enumerate(rows):
        cls = f' class="{classes[i]}"' if classes and classes[i] else ""
        cells = "".join(f'<td class="num">{_e(c)}</td>' if j in num_cols else f"<td>{_e(c)}</td>"
                        for j, c in enumerate(r))
        out.append(f"<tr{cls}>{cells}</tr>")
    out.append("</table>")
    return "\n".join(out)


def primary_table(camp) -> tuple[dict[str, dict[str, float]], dict[str, bool]]:
    """``table[problem][system]`` = the primary-metric value; ``direction[problem]``."""
    table: dict[str, dict[str, float]] = {}
    direction = {}
    for pid, prob in camp.discovery.problems.items():
        table[pid] = {}
        direction[pid] = prob.metrics[0][1] if prob.metrics else True
    for o in camp.outcomes:
        prob = camp.discovery.problems[o.problem_id]
        if not prob.metrics or not o.scores:
            continue
        first = prob.metrics[0][0]
        vals = [v for _label, m, v in o.scores if m == first]
        if vals:
            table[o.problem_id][o.system] = float(vals[0])
    return table, direction


# ---------------------------------------------------------------------------------------
# plots
# ---------------------------------------------------------------------------------------
def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, metadata={"Software": None})
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _rc():
    import matplotlib
    rc = {"font.size": 8}
    if "text.parse_math" in matplotlib.rcParams:
        rc["text.parse_math"] = False
    return matplotlib.rc_context(rc)


def heatmap_png(table, direction, systems: list[str]) -> str | None:
    """Systems × problems, coloured by the system's rank on the problem's primary metric."""
    from matplotlib.figure import Figure
    problems = sorted(table)[:MAX_PLOT_PROBLEMS]
    systems = list(systems)[:MAX_PLOT_SYSTEMS]
    if not problems or not systems:
        return None
    import numpy as np
    grid = np.full((len(systems), len(problems)), np.nan)
    for j, p in enumerate(problems):
        vals = [table[p].get(s, float("nan")) for s in systems]
        ranks = fractional_ranks(vals, direction[p])
        for i, (v, r) in enumerate(zip(vals, ranks)):
            grid[i, j] = r if not math.isnan(v) else np.nan
    with _rc():
        fig = Figure(figsize=(min(16, max(6, 3 + 0.3 * len(problems))), min(14, max(3, 2.5 + 0.28 * len(systems)))))
        ax = fig.add_subplot()
        cmap = __import__("matplotlib").colormaps["viridis_r"].with_extremes(bad="#bbbbbb")
        im = ax.imshow(np.ma.masked_invalid(grid), aspect="auto", cmap=cmap, interpolation="nearest")
        ax.set_xticks(range(len(problems)), [p[:30] for p in problems], rotation=90)
        ax.set_yticks(range(len(systems)), [s[:30] for s in systems])
        ax.set_title("rank per problem (1 = best, grey = no score)")
        fig.colorbar(im, ax=ax, label="rank")
        fig.tight_layout()
        return _png(fig)


def distributions_png(table, problems_meta) -> str | None:
    """Per problem, the primary-metric values of the systems (a box and the points)."""
    from matplotlib.figure import Figure
    problems = [p for p in sorted(table) if table[p]][:MAX_PLOT_PROBLEMS]
    if not problems:
        return None
    with _rc():
        fig = Figure(figsize=(min(16, max(6, 2 + 0.35 * len(problems))), 4.5))
        ax = fig.add_subplot()
        data = [[v for v in table[p].values() if math.isfinite(v)] or [float("nan")] for p in problems]
        ax.boxplot(data, positions=range(len(problems)), widths=0.6, showfliers=False)
        for j, vals in enumerate(data):
            xs = [j + 0.15 * ((k % 5) - 2) / 2 for k in range(len(vals))]
            ax.scatter(xs, vals, s=10, color="#d62728", zorder=3)
        labels = [f"{p[:30]}\n{problems_meta[p].metrics[0][0][:20]}" if problems_meta[p].metrics
                  else p[:30] for p in problems]
        ax.set_xticks(range(len(problems)), labels, rotation=90)
        ax.set_title("primary-metric values per problem")
        fig.tight_layout()
        return _png(fig)


# ---------------------------------------------------------------------------------------
# the page
# ---------------------------------------------------------------------------------------
def leaderboard_html(camp, score_rows: list[list]) -> str:
    disc = camp.discovery
    systems = disc.systems
    table, direction = primary_table(camp)
    overall = mean_ranks(table, systems, direction)
    pos = positions(overall) if systems else {}
    failures = camp.failures
    fail_by_system: dict[str, int] = {}
    for f in failures:
        if f.system and f.code != "submission.missing":
            fail_by_system[f.system] = fail_by_system.get(f.system, 0) + 1
    missing = sum(1 for f in failures if f.code == "submission.missing")
    parts = [f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
             f"<title>d3mkit leaderboard</title><style>{_CSS}</style></head><body>",
             "<h1>Leaderboard</h1>",
             f"<p>{len(systems)} systems, {len(disc.problems)} problems, "
             f"{sum(1 for o in camp.outcomes if o.scores)} submissions scored, "
             f"{sum(1 for o in camp.outcomes if o.failures)} failed, {missing} missing; "
             f"{len(failures)} rows in failures.csv.</p>",
             "<h2 id=\"overall\">Overall ranking</h2>",
             "<p class=\"note\">Aggregation: on each problem every system is ranked on the "
             "problem's primary metric (the first performanceMetric; direction from the metric "
             "registry) with ties sharing the mean of their places; a system without a score "
             "there (missing, failed) shares the last places. The overall score is the mean rank "
             "over all problems (lower is better); equal mean ranks share a position.</p>"]
    order = sorted(systems, key=lambda s: (overall[s], s))
    rows = [[pos[s], s, _num(overall[s]), sum(1 for p in table if s in table[p]),
             fail_by_system.get(s, 0)] for s in order]
    parts.append(_table(["position", "system", "mean rank", "problems scored", "failures"], rows,
                        ["best" if pos[s] == 1 else "" for s in order], {0, 2, 3, 4}))
    heat = heatmap_png(table, direction, order)
    if heat:
        parts.append(f"<h2 id=\"heatmap\">Systems × problems</h2><img alt=\"rank heat map\" src=\"{heat}\">")
    dist = distributions_png(table, disc.problems)
    if dist:
        parts.append(f"<h2 id=\"distributions\">Score distributions</h2>"
                     f"<img alt=\"score distributions\" src=\"{dist}\">")
    parts.append("<h2 id=\"problems\">Problems</h2>")
    by_problem: dict[str, list[list]] = {}
    for r in score_rows:
        by_problem.setdefault(r[1], []).append(r)
    for pid in sorted(disc.problems):
        prob = disc.problems[pid]
        dirs = ", ".join(f"{m} ({'higher' if hi else 'lower'} is better)" for m, hi in prob.metrics)
        parts.append(f"<h3>{_e(pid)}</h3><p class=\"note\">{_e(dirs)}</p>")
        rows_p = by_problem.get(pid, [])
        labels = list(dict.fromkeys(r[2] for r in rows_p))
        cell = {(r[0], r[2]): r for r in rows_p}
        psys = sorted({r[0] for r in rows_p},
                      key=lambda s: (cell.get((s, labels[0]), [0, 0, 0, 0, math.inf])[4]
                                     if labels else 0, s))
        if not psys:
            parts.append("<p>No submission could be scored.</p>")
            continue
        header = ["system"] + [h for lab in labels for h in (lab, "rank")]
        body = []
        for s in psys:
            row = [s]
            for lab in labels:
                r = cell.get((s, lab))
                row += [_num(r[3]), _num(r[4])] if r else ["", ""]
            body.append(row)
        parts.append(_table(header, body, None, set(range(1, len(header)))))
    parts.append("<h2 id=\"failures\">Failures</h2>")
    counts: dict[str, int] = {}
    for f in failures:
        counts[f.code] = counts.get(f.code, 0) + 1
    parts.append(_table(["code", "rows"], [[c, n] for c, n in sorted(counts.items())], None, {1}))
    shown_rows = [[f.system, f.problem_id, f.code, f.message] for f in failures
                  if f.code != "submission.missing"][:MAX_FAILURE_ROWS]
    if shown_rows:
        parts.append(_table(["system", "problemID", "code", "message"], shown_rows))
    parts.append("<p class=\"note\">Every row is in failures.csv.</p></body></html>\n")
    return "\n".join(parts)
