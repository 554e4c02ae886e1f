"""``leaderboard.html`` drawn from a :class:`Leaderboard` model: a function from data to
one static page (no server, no file layout: :mod:`d3mkit.evaluate.model` builds the model
from a campaign, and a server can build it from anything else).

The page: the run's date, d3mkit version and parameters, links to the CSV files, the
overall ranking (mean rank, normalised score, systems tied with the best within the
critical difference), a critical-difference diagram (inline SVG), a systems x problems
table of ranks with the values in the cells and one discrete colour per rank, a table per
problem with every system (failed and missing ones marked), each metric's description and
direction, and the failures. Tables sort on a click (a few lines of inline script); without
scripts the page reads the same, in its printed order. Names come from submitters: every
one is HTML-escaped, shown whole on hover, and shortened (:func:`short_labels`) so that two
different names never draw the same label.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field

from d3mkit.evaluate.pictures import cd_svg, elo_svg, folds_svg, strips_svg, winrate_svg  # noqa: E402,F401

MAX_FAILURE_ROWS = 500
MAX_FOLD_PICTURES = 200
LABEL_WIDTH = 28


@dataclass
class MetricInfo:
    label: str
    direction: str            # "higher" or "lower" (is better)
    description: str = ""


@dataclass
class Cell:
    mean: float
    sd: float                 # NaN for one fold
    ci_low: float             # NaN unless the problem has one fold and the bootstrap ran
    ci_high: float
    rank: int
    folds: int
    fold_low: float = math.nan    # t interval of the mean over the folds (two or more)
    fold_high: float = math.nan


@dataclass
class ProblemRow:
    system: str
    status: str               # scored | partial | failed | missing
    cells: list               # one Cell or None per metric
    tie: str | None = None    # best | tied | worse | None (not tested)
    place: float | None = None    # rank on the primary metric under the partial-run policy


@dataclass
class ProblemTable:
    problem_id: str
    metrics: list             # MetricInfo per metric label
    folds: int
    rows: list                # ProblemRow, every system of the campaign
    tested: bool = False      # paired tests against the best exist


@dataclass
class SystemRow:
    system: str
    position: int
    mean_rank: float
    normalised: float | None
    problems_scored: int
    failures: int
    tied_with_best: bool = False
    elo: float | None = None
    elo_ci: tuple = (None, None)
    rank_ci: tuple = (None, None)
    win_rate: float | None = None
    improvability: float | None = None


@dataclass
class Leaderboard:
    title: str
    generated: str
    version: str
    parameters: dict
    counts: dict              # systems, problems, scored, failed, missing, failure_rows
    overall: list             # SystemRow, best first
    systems: list
    problems: list
    heat: dict                # (system, problem) -> (rank, mean value)
    friedman: dict | None
    critical_difference: float | None
    mean_ranks: dict
    tables: list              # ProblemTable
    failure_counts: list      # (code, rows)
    failure_rows: list        # [system, problemID, code, message]
    links: list = field(default_factory=list)
    policy: str = ""
    cd_groups: list | None = None     # groups of the CD diagram (None: by the critical difference)
    cd_test: str = "nemenyi"
    win_matrix: list | None = None    # [i][j] share of problems system i wins against j (systems order)
    strips: dict = field(default_factory=dict)    # system -> [(problem, normalised score)]
    fold_scores: dict = field(default_factory=dict)   # problem -> (label, {system: [value per fold]})
    pairwise: list = field(default_factory=list)  # summary.json's pairwise rows


CSS = """
body { font-family: sans-serif; margin: 1.5em; color: #222; max-width: 1400px; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em 0; }
th, td { border: 1px solid #8a9bb0; padding: 2px 8px; text-align: left; }
th { background: #d7e3f4; }
th.sort { cursor: pointer; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.best td { background: #e3f4d7; }
tr.failed td, tr.missing td { color: #8a8a8a; font-style: italic; }
.note { color: #555; font-size: 90%; }
.r1 { background: #1a9850; color: #fff; } .r2 { background: #91cf60; }
.r3 { background: #d9ef8b; } .r4 { background: #fee08b; } .r5 { background: #fc8d59; }
.rn { background: #bbbbbb; color: #444; }
td.heat { text-align: center; min-width: 3.2em; font-variant-numeric: tabular-nums; }
td.heat small { display: block; font-size: 75%; }
.legend span { display: inline-block; padding: 1px 8px; margin-right: 4px; border: 1px solid #999; }
figure.picture { margin: 0.5em 0 1.5em 0; } figure.picture svg { max-width: 100%; height: auto; }
"""

#: The one owner of the tables' sorting (this page and the server's live page, which
#: redraws its tables in place): ``sortTable`` orders a table's rows on a column, numbers by
#: their data-v value, text otherwise; ``armSorting`` makes each header sort on a click (a
#: second click on it reverses) and remembers the last sort of each table by its position in
#: ``sorted``, sorting a table again that way when armed anew.
SORT_FUNCTIONS = """
  function sortTable(t, col, up) {
    var body = t.tBodies[0]; if (!body) return;
    var rows = Array.from(body.rows);
    var key = function (r) { var c = r.cells[col]; var v = c && c.dataset.v;
      return v !== undefined && v !== "" ? parseFloat(v) : (c ? c.textContent : ""); };
    rows.sort(function (a, b) { var x = key(a), y = key(b);
      var d = (typeof x === "number" && typeof y === "number") ? x - y : String(x).localeCompare(String(y));
      return up ? d : -d; });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  function armSorting(tables, sorted) {
    tables.forEach(function (t, i) {
      t.querySelectorAll("th").forEach(function (th, col) {
        th.classList.add("sort"); th.title = "sort";
        th.addEventListener("click", function () {
          var prev = sorted[i], up = !(prev && prev[0] === col && prev[1]);
          sorted[i] = [col, up]; sortTable(t, col, up);
        });
      });
      if (sorted[i]) sortTable(t, sorted[i][0], sorted[i][1]);
    });
  }
"""
_SCRIPT = ("(function () {\n  \"use strict\";" + SORT_FUNCTIONS
           + '  armSorting(Array.from(document.querySelectorAll("table.sortable")), {});\n})();\n')


def escape(text) -> str:
    """``text`` as HTML text or an attribute value (the one escape of the pages drawn here
    and of the server's own)."""
    return html.escape(str(text), quote=True)


_e = escape


def _num(v, digits: int = 4) -> str:
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, int):
        return str(v)
    return f"{v:.{digits}g}"


def elide(name: str, width: int) -> str:
    """``name`` shortened to ``width`` characters by cutting its middle.

    >>> elide("visudo_mnist_basic_s0_problem", 16)
    'visudo_m…_problem'
    """
    if len(name) <= width:
        return name
    head = (width + 1) // 2
    tail = width - head
    return name[:head] + "…" + (name[-tail:] if tail else "")


def short_labels(names, width: int = LABEL_WIDTH) -> dict[str, str]:
    """A label per name, at most ``width`` characters where that keeps every label
    distinct; names whose labels would collide are widened until they differ (at worst
    to the whole name), so two different names never draw the same label.

    >>> sorted(short_labels(["visudo_mnist_basic_s0_problem", "visudo_mnist_basic_s1_problem"], 12).values())
    ['visudo_mni…s0_problem', 'visudo_mni…s1_problem']
    """
    names = list(dict.fromkeys(names))
    widths = {n: width for n in names}
    while True:
        labels = {n: elide(n, widths[n]) for n in names}
        by_label: dict[str, list[str]] = {}
        for n, lab in labels.items():
            by_label.setdefault(lab, []).append(n)
        clash = [ns for ns in by_label.values() if len(ns) > 1]
        if not clash:
            return labels
        for ns in clash:
            for n in ns:
                widths[n] = min(len(n), widths[n] + 4)


def _name(text: str, labels: dict[str, str]) -> str:
    lab = labels.get(text, text)
    return f'<span title="{_e(text)}">{_e(lab)}</span>'


def _td(text: str, value=None, cls: str = "") -> str:
    v = "" if value is None or (isinstance(value, float) and not math.isfinite(value)) else f' data-v="{value}"'
    c = f' class="{cls}"' if cls else ""
    return f"<td{c}{v}>{text}</td>"


def table(header: list[str], rows: list[list], classes: list[str] | None = None,
           num_cols=frozenset()) -> str:
    """A table of plain cells, every header and cell HTML-escaped; ``classes`` per row,
    ``num_cols`` right-aligned (the writer the server's pages share)."""
    body = []
    for i, r in enumerate(rows):
        cls = f' class="{classes[i]}"' if classes and classes[i] else ""
        body.append(f"<tr{cls}>" + "".join(_td(_e(c), None, "num" if j in num_cols else "")
                                          for j, c in enumerate(r)) + "</tr>")
    return _html_table([_e(h) for h in header], body)


def _html_table(header: list[str], rows: list[str], cls: str = "sortable", titles=None) -> str:
    """A table from header cells and ``<tr>`` rows already in HTML (sortable by the page's script)."""
    th = "".join(f'<th{(" title=" + chr(34) + _e(titles[i]) + chr(34)) if titles and titles[i] else ""}>'
                 f"{h}</th>" for i, h in enumerate(header))
    return f'<table class="{cls}"><thead><tr>{th}</tr></thead><tbody>\n' + "\n".join(rows) + "\n</tbody></table>"


def rank_class(rank) -> str:
    """The discrete colour class of a rank: 1, 2, 3, 4-5, over 5; ``rn`` for no score."""
    if rank is None or (isinstance(rank, float) and math.isnan(rank)):
        return "rn"
    return "r1" if rank <= 1 else "r2" if rank <= 2 else "r3" if rank <= 3 else "r4" if rank <= 5 else "r5"


def _cell_text(c) -> tuple[str, str]:
    """(value text, rank text) of a per-problem cell."""
    if c is None:
        return "", ""
    if c.folds > 1 and math.isfinite(c.sd):
        text = f"{_num(c.mean)} ± {_num(c.sd, 2)}"
        if math.isfinite(c.fold_low):
            text += f" [{_num(c.fold_low)}, {_num(c.fold_high)}]"
    elif math.isfinite(c.ci_low):
        text = f"{_num(c.mean)} [{_num(c.ci_low)}, {_num(c.ci_high)}]"
    else:
        text = _num(c.mean)
    return text, str(c.rank)


SECTIONS = ("intro", "overall", "heatmap", "problems", "failures")


def render(m: Leaderboard) -> str:
    """The page for ``m`` (a complete HTML document)."""
    return "\n".join([f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
                      f"<title>{_e(m.title)}</title><style>{CSS}</style></head><body>",
                      *sections(m), f"<script>{_SCRIPT}</script></body></html>\n"])


def sections(m: Leaderboard, parts=SECTIONS, *, prefix: str = "") -> list[str]:
    """The page's body as HTML fragments, in order — ``intro`` (title, run, counts, failure
    policy), ``overall`` (the ranking, the Friedman test, the critical-difference diagram),
    ``heatmap``, ``problems`` (a table per problem) and ``failures`` — for the ``parts``
    asked for (an evaluation server shows its boards without the campaign's intro and
    failure files); ``prefix`` starts each section's ``id`` (two boards on one page)."""
    sys_labels = short_labels(m.systems)
    prob_labels = short_labels(m.problems)
    p = m.parameters
    parts_out: list[str] = []
    if "intro" in parts:
        params = ", ".join(f"{k} = {_e(v)}" for k, v in p.items())
        parts_out += [f"<h1>{_e(m.title)}</h1>",
                      f'<p class="note">Generated {_e(m.generated)} by d3mkit {_e(m.version)}; parameters: {params}. '
                      + " · ".join(f'<a href="{_e(n)}">{_e(n)}</a>' for n in m.links) + "</p>"]
        c = m.counts
        if "complete" in c:
            f = c["folds"]
            parts_out.append(f"<p>{c['systems']} systems × {c['problems']} problems = {c['submissions']} submissions: "
                             f"{c['complete']} complete, {c['partial']} partial, {c['failed']} failed, "
                             f"{c['missing']} missing. Folds, counted apart: {f['scored']} of {f['expected']} "
                             f"scored, {f['failed']} failed, {f['missing']} missing; {c['failure_rows']} rows in "
                             "failures.csv.</p>")
        else:
            parts_out.append(f"<p>{c['systems']} systems × {c['problems']} problems: {c['scored']} submissions "
                             f"scored, {c['failed']} failed, {c['missing']} missing; {c['failure_rows']} rows in "
                             "failures.csv.</p>")
        parts_out.append(f'<p class="note">{_e(m.policy)}</p>')
    if "overall" in parts:
        parts_out += _overall(m, sys_labels, prefix)
    if "heatmap" in parts:
        parts_out += _heatmap(m, sys_labels, prob_labels, prefix)
    if "problems" in parts:
        parts_out += _problems(m, sys_labels, prefix)
    if "failures" in parts:
        parts_out += _failures(m, prefix)
    return parts_out


def _p(v) -> str:
    """A p-value as text: never "p = 0" (below 0.001 it is "p < 0.001"); "undefined" for none."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "undefined"
    return "p < 0.001" if v < 0.001 else f"p = {v:.3g}"


def _ci(pair, digits: int = 4) -> str:
    lo, hi = pair if pair else (None, None)
    if lo is None or hi is None:
        return ""
    return f"[{_num(float(lo), digits)}, {_num(float(hi), digits)}]"


def _overall(m: Leaderboard, sys_labels: dict, prefix: str) -> list[str]:
    p = m.parameters
    parts = [f'<h2 id="{prefix}overall">Overall ranking</h2>']
    with_elo = any(r.elo is not None for r in m.overall)
    parts.append('<p class="note">On each problem the systems are ranked on its primary metric (the first '
                 "performanceMetric, mean over folds; ties share the mean of their places); the overall score "
                 "is the mean rank over the problems (lower is better), with its bootstrap interval over "
                 "problems. The normalised score is 0 for the constant predictor and 1 for the best system, "
                 "averaged over the problems. "
                 + ("Elo: Bradley–Terry ratings from every pair's wins fold by fold (ties half, each problem "
                    "weighing 1), 1000 the average or the reference system, with a bootstrap interval over "
                    "problems. Win rate: the share of problems won against the other systems. Improvability: "
                    "how far the system's error is from the best system's on each problem, relative to its own "
                    "error (0 is the best), averaged. " if with_elo else "")
                 + "&ldquo;tied&rdquo;: not separated from the best by the critical-difference test.</p>")
    rows = []
    for r in m.overall:
        cells = [_td(str(r.position or ""), r.position, "num"), _td(_name(r.system, sys_labels)),
                 _td(_num(r.mean_rank), r.mean_rank, "num")]
        if with_elo:
            cells += [_td(_e(_ci(r.rank_ci, 3))), _td(_num(r.elo, 4), r.elo, "num"), _td(_e(_ci(r.elo_ci))),
                      _td(_num(r.win_rate, 3), r.win_rate, "num"),
                      _td(_num(r.improvability, 3), r.improvability, "num")]
        cells += [_td(_num(r.normalised, 3), r.normalised, "num"),
                  _td(str(r.problems_scored), r.problems_scored, "num"),
                  _td(str(r.failures), r.failures, "num"),
                  _td("tied with the best" if r.tied_with_best and r.position != 1 else
                      ("best" if r.position == 1 else ""))]
        rows.append(f'<tr class="{"best" if r.position == 1 else ""}">' + "".join(cells) + "</tr>")
    head = ["position", "system", "mean rank"] + \
        (["rank interval", "Elo", "Elo interval", "win rate", "improvability"] if with_elo else []) + \
        ["normalised score", "problems scored", "failures", "critical difference"]
    parts.append(_html_table(head, rows))
    order = [r.system for r in m.overall]
    if with_elo:
        by_elo = sorted((r for r in m.overall if r.elo is not None), key=lambda r: -r.elo)
        parts.append(elo_svg([(r.system, r.elo, r.elo_ci[0], r.elo_ci[1]) for r in by_elo], sys_labels,
                             ident=f"{prefix}elo-picture"))
    if m.win_matrix:
        idx = {s: i for i, s in enumerate(m.systems)}
        mat = [[m.win_matrix[idx[a]][idx[b]] for b in order] for a in order]
        parts.append(f'<h3 id="{prefix}winrates">Win rates</h3>'
                     + winrate_svg(order, mat, sys_labels, ident=f"{prefix}winrate-picture"))
    if m.strips:
        parts.append(f'<h3 id="{prefix}strips">Scores per problem</h3>'
                     + strips_svg(order, m.strips, sys_labels, ident=f"{prefix}strip-picture"))
    if m.friedman:
        f = m.friedman
        idf = f.get("iman_davenport")
        parts.append(f'<p class="note">Friedman test over {f["N"]} problems and {f["k"]} systems: '
                     f'chi-square = {_num(f["statistic"])}, {_p(f["p_value"])} (Iman-Davenport '
                     + (f'F = {_num(idf)}, {_p(f.get("iman_davenport_p_value"))}' if idf is not None else
                        "F undefined: the problems rank the systems alike")
                     + f'); Nemenyi critical difference at alpha = {_e(p.get("alpha", 0.05))}: '
                     f'{_num(m.critical_difference, 3)}.</p>')
    if m.mean_ranks and len(m.mean_ranks) > 1 and (m.friedman or m.cd_groups is not None):
        groups = m.cd_groups if m.cd_test != "nemenyi" else None
        svg = cd_svg(m.mean_ranks, m.critical_difference, sys_labels, groups=groups, test=m.cd_test,
                     ident=f"{prefix}cd-picture")
        if svg:
            parts.append(f'<h2 id="{prefix}cd">Critical difference</h2>' + svg)
    if m.pairwise:
        parts += _pairwise(m, sys_labels, prefix)
    return parts


def _pairwise(m: Leaderboard, sys_labels: dict, prefix: str) -> list[str]:
    rope = m.pairwise[0]["bayes"].get("rope")
    parts = [f'<h3 id="{prefix}pairwise">Pairwise comparisons over the problems</h3>',
             '<p class="note">Each problem&rsquo;s score (primary metric, mean over folds, failed folds as the '
             "constant predictor) is one paired observation. Wins/losses/ties count problems; the Wilcoxon "
             "signed-rank p-value is Holm-corrected over all pairs (undefined with fewer than 3 problems or no "
             "non-zero difference); the Bayesian signed-rank test gives the probabilities that A is better, that "
             f"the two are practically equivalent (within {_e(rope)} on the metric&rsquo;s scale) and that B is "
             "better.</p>"]
    rows = []
    for r in m.pairwise:
        b = r["bayes"]
        rows.append("<tr>" + _td(_name(r["a"], sys_labels)) + _td(_name(r["b"], sys_labels))
                    + _td(f'{r["wins"]}/{r["losses"]}/{r["ties"]}')
                    + _td(_e(_p(r["wilcoxon_p"])), r["wilcoxon_p"], "num")
                    + _td(_e(_p(r["wilcoxon_p_holm"])), r["wilcoxon_p_holm"], "num")
                    + "".join(_td(_num(b.get(k), 3), b.get(k), "num") for k in ("p_a", "p_rope", "p_b")) + "</tr>")
    parts.append(_html_table(["A", "B", "wins/losses/ties (A)", "Wilcoxon", "Wilcoxon, Holm", "P(A better)",
                              "P(equivalent)", "P(B better)"], rows))
    return parts


def _heatmap(m: Leaderboard, sys_labels: dict, prob_labels: dict, prefix: str) -> list[str]:
    """The heat map as a table: rank and value in each cell, one colour per rank."""
    if not (m.systems and m.problems):
        return []
    parts = [f'<h2 id="{prefix}heatmap">Systems × problems</h2>',
             '<p class="legend note">rank on the primary metric (value below): '
             '<span class="r1">1</span><span class="r2">2</span><span class="r3">3</span>'
             '<span class="r4">4-5</span><span class="r5">over 5</span><span class="rn">no score</span></p>']
    head = ["system"] + [_name(pid, prob_labels) for pid in m.problems]
    hrows = []
    for r in m.overall:
        s = r.system
        cells = [_td(_name(s, sys_labels))]
        for pid in m.problems:
            got = m.heat.get((s, pid))
            if got is None:
                cells.append(_td("–", None, "heat rn"))
            else:
                rank, value = got
                cells.append(_td(f"{rank}<small>{_num(value, 3)}</small>", rank, f"heat {rank_class(rank)}"))
        hrows.append("<tr>" + "".join(cells) + "</tr>")
    parts.append(_html_table(head, hrows))
    return parts


def _problems(m: Leaderboard, sys_labels: dict, prefix: str) -> list[str]:
    parts = [f'<h2 id="{prefix}problems">Problems</h2>']
    drawn = 0
    for t in m.tables:
        parts.append(f'<h3 title="{_e(t.problem_id)}">{_e(t.problem_id)}</h3>')
        parts.append('<p class="note">' + " ".join(
            f"<b>{_e(mi.label)}</b> ({_e(mi.direction)} is better)"
            f"{': ' + _e(mi.description) if mi.description else '.'}"
            for mi in t.metrics) + f" {t.folds} fold{'s' if t.folds != 1 else ''}"
            + ("; value ± sd over the folds [Student&rsquo;s t interval of the mean over the folds]" if t.folds > 1
               else "; value [bootstrap confidence interval over the TEST rows]")
            + "; place: the rank on the primary metric, partial systems after the complete ones"
            + ("; &ldquo;tied&rdquo;: no significant difference from the best (paired test, Holm-corrected)"
               if t.tested else "") + ".</p>")
        head = ["system", "status", "place"] + [h for mi in t.metrics for h in (_e(mi.label), "rank")] + \
            (["vs best"] if t.tested else [])
        titles = [None, None, None] + [x for mi in t.metrics for x in (f"{mi.direction} is better", None)] + \
            ([None] if t.tested else [])
        body = []
        for r in t.rows:
            cells = [_td(_name(r.system, sys_labels)), _td(_e(r.status)),
                     _td(_num(r.place) if r.place is not None else "", r.place, "num")]
            for cell in r.cells:
                text, rank = _cell_text(cell)
                cells += [_td(_e(text), cell.mean if cell else None, "num"),
                          _td(rank, cell.rank if cell else None, "num")]
            if t.tested:
                cells.append(_td(_e(r.tie or "")))
            cls = "best" if r.tie == "best" else r.status if r.status in ("failed", "missing") else ""
            body.append(f'<tr class="{cls}">' + "".join(cells) + "</tr>")
        parts.append(_html_table(head, body, titles=titles))
        got = m.fold_scores.get(t.problem_id)
        if got and drawn < MAX_FOLD_PICTURES:
            drawn += 1
            order = [r.system for r in t.rows]
            parts.append(folds_svg(t.problem_id, got[0], got[1], order, sys_labels,
                                   ident=f"{prefix}folds-{drawn}"))
    return parts


def _failures(m: Leaderboard, prefix: str) -> list[str]:
    parts = [f'<h2 id="{prefix}failures">Failures</h2>']
    parts.append(_html_table(["code", "rows"], [f"<tr>{_td(_e(code))}{_td(str(n), n, 'num')}</tr>"
                                                for code, n in m.failure_counts]))
    shown_rows = m.failure_rows[:MAX_FAILURE_ROWS]
    if shown_rows:
        parts.append(_html_table(["system", "problemID", "code", "message"],
                                 ["<tr>" + "".join(_td(_e(x)) for x in r) + "</tr>" for r in shown_rows]))
    parts.append('<p class="note">Every row is in <a href="failures.csv">failures.csv</a>.</p>')
    return parts
