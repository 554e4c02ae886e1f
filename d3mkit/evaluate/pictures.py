"""The leaderboard's pictures as inline SVG, each a function from numbers to markup (no
files, no plotting library): the Elo ratings with their intervals, the win-rate matrix,
each system's per-problem normalised scores as a strip, a problem's scores fold by fold,
and the critical-difference diagram with its groups. Every picture is a ``<figure>``
whose ``<svg role="img">`` carries a ``<title>`` and a ``<desc>`` and whose caption says
in words what it shows (the numbers are in the page's tables too). Names are escaped and
shortened by the caller's labels, shown whole in a ``<title>`` on hover.
"""

from __future__ import annotations

import html
import math

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")
INK = "#1f4e79"


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _figure(ident: str, title: str, desc: str, width: float, height: float, body: list[str],
            caption: str, label: str = "") -> str:
    aria = f' aria-label="{_e(label)}"' if label else ""
    return (f'<figure class="picture" id="{_e(ident)}"><svg xmlns="http://www.w3.org/2000/svg" '
            f'width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
            f'font-family="sans-serif" font-size="12" role="img"{aria} '
            f'aria-labelledby="{_e(ident)}-t {_e(ident)}-d">'
            f'<title id="{_e(ident)}-t">{_e(title)}</title><desc id="{_e(ident)}-d">{_e(desc)}</desc>'
            + "".join(body) + f'</svg><figcaption class="note">{_e(caption)}</figcaption></figure>')


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo] if math.isfinite(lo) else []
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.ceil(lo / step) * step
    return [start + i * step for i in range(int((hi - start) / step + 1e-9) + 1)]


def _fmt(v: float) -> str:
    return f"{v:.4g}"


def elo_svg(rows: list, labels: dict, ident: str = "elo-picture") -> str:
    """``rows``: ``(system, elo, low, high)`` (low/high None: no interval), best first."""
    rows = [r for r in rows if r[1] is not None]
    if not rows:
        return ""
    left, right, top, line = 230, 30, 30, 20
    width = 760
    vals = [v for r in rows for v in (r[1], r[2], r[3]) if v is not None]
    lo, hi = min(vals), max(vals)
    pad = max(1.0, (hi - lo) * 0.05)
    lo, hi = lo - pad, hi + pad
    span = width - left - right

    def x(v):
        return left + span * (v - lo) / (hi - lo)
    height = top + line * len(rows) + 30
    body = [f'<line x1="{left}" y1="{top - 8}" x2="{width - right}" y2="{top - 8}" stroke="#444"/>']
    for t in _ticks(lo, hi):
        body.append(f'<line x1="{x(t):.1f}" y1="{top - 12}" x2="{x(t):.1f}" y2="{height - 25}" stroke="#ddd"/>'
                    f'<text x="{x(t):.1f}" y="{top - 14}" text-anchor="middle">{_fmt(t)}</text>')
    for i, (s, v, a, b) in enumerate(rows):
        y = top + line * i + line / 2
        body.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end"><title>{_e(s)}</title>'
                    f'{_e(labels.get(s, s))}</text>')
        if a is not None and b is not None:
            body.append(f'<line x1="{x(a):.1f}" y1="{y:.1f}" x2="{x(b):.1f}" y2="{y:.1f}" stroke="{INK}" '
                        f'stroke-width="3"/>')
        body.append(f'<circle cx="{x(v):.1f}" cy="{y:.1f}" r="5" fill="{INK}"><title>{_e(s)}: {v:.0f}'
                    + (f" [{a:.0f}, {b:.0f}]" if a is not None and b is not None else "") + "</title></circle>")
    best = rows[0]
    desc = (f"Elo of {len(rows)} systems, from {rows[-1][1]:.0f} to {best[1]:.0f}; bars are the bootstrap "
            "intervals over problems.")
    caption = (f"Elo ratings (Bradley–Terry, 400 points = 10:1 odds), dot the estimate, bar its interval. "
               f"Highest: {best[0]} at {best[1]:.0f}.")
    return _figure(ident, "Elo ratings with intervals", desc, width, height, body, caption)


def _colour(v: float) -> str:
    """0 red, 0.5 pale yellow, 1 green."""
    stops = ((0.0, (215, 48, 39)), (0.5, (255, 255, 191)), (1.0, (26, 152, 80)))
    v = min(1.0, max(0.0, v))
    for (a, ca), (b, cb) in zip(stops, stops[1:]):
        if v <= b:
            t = (v - a) / (b - a)
            return "#%02x%02x%02x" % tuple(round(x + (y - x) * t) for x, y in zip(ca, cb))
    return "#1a9850"


def winrate_svg(systems: list, matrix: list, labels: dict, ident: str = "winrate-picture") -> str:
    """``matrix[i][j]``: the share of problems system ``i`` wins against ``j`` (None on
    the diagonal); ``systems`` in the order to draw (rows and columns)."""
    k = len(systems)
    if k < 2 or not matrix:
        return ""
    cell = max(12, min(28, 560 // k))
    longest = max(len(labels.get(x, x)) for x in systems)
    left, top = 230, int(min(200, 24 + 6.2 * longest * 0.87))
    width, height = left + cell * k + 20, top + cell * k + 20
    body = []
    for j, s in enumerate(systems):
        cx = left + cell * j + cell / 2
        body.append(f'<text transform="translate({cx + 4:.1f},{top - 6}) rotate(-60)"><title>{_e(s)}</title>'
                    f'{_e(labels.get(s, s))}</text>')
    for i, s in enumerate(systems):
        y = top + cell * i
        body.append(f'<text x="{left - 6}" y="{y + cell / 2 + 4:.1f}" text-anchor="end"><title>{_e(s)}</title>'
                    f'{_e(labels.get(s, s))}</text>')
        for j, t in enumerate(systems):
            v = matrix[i][j]
            fill = "#eeeeee" if v is None else _colour(v)
            tip = f"{s} vs {t}: " + ("–" if v is None else f"{v:.2f}")
            body.append(f'<rect x="{left + cell * j}" y="{y}" width="{cell - 1}" height="{cell - 1}" fill="{fill}">'
                        f'<title>{_e(tip)}</title></rect>')
    desc = f"{k} by {k} matrix of pairwise win rates over the problems; green: the row's system wins more often."
    caption = ("Win-rate matrix: cell (row, column) is the share of problems on which the row's system beats the "
               "column's (ties count half; each problem weighs 1 across its folds). Red 0, yellow 0.5, green 1.")
    return _figure(ident, "Pairwise win rates", desc, width, height, body, caption)


def strips_svg(order: list, strips: dict, labels: dict, ident: str = "strip-picture") -> str:
    """One row per system of ``order``: a dot per problem at its normalised score
    (``strips[system]``: ``(problem, value)``), and a tick at the median."""
    rows = [s for s in order if strips.get(s)]
    if not rows:
        return ""
    vals = [v for s in rows for _p, v in strips[s]]
    lo, hi = min(0.0, min(vals)), max(1.0, max(vals))
    left, right, top, line = 230, 30, 30, 22
    width = 760
    height = top + line * len(rows) + 30
    span = width - left - right

    def x(v):
        return left + span * (v - lo) / (hi - lo)
    body = []
    for t in _ticks(lo, hi):
        body.append(f'<line x1="{x(t):.1f}" y1="{top - 8}" x2="{x(t):.1f}" y2="{height - 25}" stroke="#ddd"/>'
                    f'<text x="{x(t):.1f}" y="{top - 12}" text-anchor="middle">{_fmt(t)}</text>')
    for i, s in enumerate(rows):
        y = top + line * i + line / 2
        body.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end"><title>{_e(s)}</title>'
                    f'{_e(labels.get(s, s))}</text>')
        pts = sorted(strips[s], key=lambda pv: pv[1])
        for n, (p, v) in enumerate(pts):
            jitter = ((n * 7) % 9 - 4) * 1.2
            body.append(f'<circle cx="{x(v):.1f}" cy="{y + jitter:.1f}" r="3.5" fill="{INK}" fill-opacity="0.55">'
                        f'<title>{_e(p)}: {v:.3f}</title></circle>')
        med = sorted(v for _p, v in pts)[len(pts) // 2]
        body.append(f'<line x1="{x(med):.1f}" y1="{y - 9:.1f}" x2="{x(med):.1f}" y2="{y + 9:.1f}" '
                    f'stroke="#c0392b" stroke-width="3"/>')
    desc = (f"Normalised scores of {len(rows)} systems on each problem, one dot per problem; the red tick "
            "is each system's median.")
    caption = ("Per-problem scores: one dot per problem at the system's normalised score (0 the constant "
               "predictor, 1 the best system), red tick the median; problems without a constant predictor "
               "are not drawn.")
    return _figure(ident, "Per-problem score distributions", desc, width, height, body, caption)


def folds_svg(problem: str, label: str, by_system: dict, order: list, labels: dict, ident: str) -> str:
    """A problem's primary metric fold by fold: one line and dots per system
    (``by_system[system]``: a value or None per fold)."""
    series = [(s, by_system[s]) for s in order if s in by_system and any(v is not None for v in by_system[s])]
    if not series:
        return ""
    folds = max(len(v) for _s, v in series)
    vals = [v for _s, vs in series for v in vs if v is not None]
    lo, hi = min(vals), max(vals)
    if hi - lo < 1e-12:
        lo, hi = lo - 0.5, hi + 0.5
    pad = (hi - lo) * 0.08
    lo, hi = lo - pad, hi + pad
    left, top, w, h = 60, 15, 420, 170
    width, height = left + w + 240, top + h + 40

    def x(f):
        return left + (w * f / max(1, folds - 1) if folds > 1 else w / 2)

    def y(v):
        return top + h - h * (v - lo) / (hi - lo)
    body = [f'<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="none" stroke="#888"/>']
    for t in _ticks(lo, hi, 4):
        body.append(f'<line x1="{left}" y1="{y(t):.1f}" x2="{left + w}" y2="{y(t):.1f}" stroke="#eee"/>'
                    f'<text x="{left - 4}" y="{y(t) + 4:.1f}" text-anchor="end">{_fmt(t)}</text>')
    for f in range(folds):
        body.append(f'<text x="{x(f):.1f}" y="{top + h + 16}" text-anchor="middle">{f}</text>')
    body.append(f'<text x="{left + w / 2}" y="{top + h + 32}" text-anchor="middle">fold</text>')
    for n, (s, vs) in enumerate(series):
        c = PALETTE[n % len(PALETTE)]
        pts = [(x(f), y(v)) for f, v in enumerate(vs) if v is not None]
        if len(pts) > 1:
            body.append('<polyline fill="none" stroke="{}" stroke-width="1.5" points="{}"/>'.format(
                c, " ".join(f"{a:.1f},{b:.1f}" for a, b in pts)))
        for f, v in enumerate(vs):
            if v is not None:
                body.append(f'<circle cx="{x(f):.1f}" cy="{y(v):.1f}" r="3" fill="{c}">'
                            f'<title>{_e(s)}, fold {f}: {v:.4g}</title></circle>')
        if n < 12:
            ly = top + 8 + 14 * n
            body.append(f'<rect x="{left + w + 12}" y="{ly - 8}" width="10" height="10" fill="{c}"/>'
                        f'<text x="{left + w + 26}" y="{ly + 1}"><title>{_e(s)}</title>{_e(labels.get(s, s))}</text>')
    if len(series) > 12:
        body.append(f'<text x="{left + w + 12}" y="{top + 8 + 14 * 12 + 1}">… {len(series) - 12} more</text>')
    desc = f"{label} of {len(series)} systems on each of {folds} folds of {problem}."
    caption = f"Fold-wise scores: {label} on each fold (x) for each system (one colour per system)."
    return _figure(ident, f"{problem}: {label} by fold", desc, width, height, body, caption)


def cd_svg(mean_ranks: dict, cd: float | None, labels: dict, groups: list | None = None,
           test: str = "nemenyi", ident: str = "cd-picture") -> str:
    """A critical-difference diagram (Demšar 2006): the mean-rank axis, each system at its
    mean rank, and a bar joining each group of systems that do not differ significantly
    (``groups``, from the pairwise tests; or, when None, runs of mean ranks within the
    critical difference ``cd``)."""
    items = sorted(mean_ranks.items(), key=lambda kv: (kv[1], kv[0]))
    k = len(items)
    if k < 2:
        return ""
    width, left, right = 900, 260, 260
    lo, hi = 1, max(k, math.ceil(max(v for _, v in items)))
    span = width - left - right

    def x(r):
        return left + span * (r - lo) / max(1, hi - lo)
    top = 40
    pos = {s: i for i, (s, _r) in enumerate(items)}
    spans = []
    if groups is not None:
        for g in groups:
            idx = [pos[s] for s in g if s in pos]
            if len(idx) > 1:
                spans.append((min(idx), max(idx)))
    elif cd is not None:
        for i in range(k):
            j = i
            while j + 1 < k and items[j + 1][1] - items[i][1] <= cd:
                j += 1
            if j > i and not any(a <= i and j <= b for a, b in spans):
                spans.append((i, j))
    line_h = 18
    bar_y0 = top + 12
    height = bar_y0 + 8 * (len(spans) + 1) + line_h * ((k + 1) // 2) + 30
    body = [f'<line x1="{x(lo)}" y1="{top}" x2="{x(hi)}" y2="{top}" stroke="#222"/>']
    for r in range(lo, hi + 1):
        body.append(f'<line x1="{x(r):.1f}" y1="{top - 5}" x2="{x(r):.1f}" y2="{top}" stroke="#222"/>'
                    f'<text x="{x(r):.1f}" y="{top - 8}" text-anchor="middle">{r}</text>')
    if cd is not None and groups is None:
        body.append(f'<line x1="{x(lo):.1f}" y1="12" x2="{x(lo + cd):.1f}" y2="12" stroke="#c0392b" '
                    f'stroke-width="3"/><text x="{x(lo + cd) + 6:.1f}" y="16" fill="#c0392b">CD = {cd:.3g}</text>')
    for g, (i, j) in enumerate(spans):
        yy = bar_y0 + 8 * g
        body.append(f'<line x1="{x(items[i][1]) - 3:.1f}" y1="{yy}" x2="{x(items[j][1]) + 3:.1f}" y2="{yy}" '
                    f'stroke="#c0392b" stroke-width="4"/>')
    base = bar_y0 + 8 * len(spans) + 10
    half = (k + 1) // 2
    for n, (s, r) in enumerate(items):
        row = n if n < half else k - 1 - n
        yy = base + line_h * row
        lx = left - 10 if n < half else width - right + 10
        anchor = "end" if n < half else "start"
        body.append(f'<polyline points="{x(r):.1f},{top} {x(r):.1f},{yy} {lx:.1f},{yy}" fill="none" stroke="#555"/>'
                    f'<text x="{lx + (-4 if n < half else 4):.1f}" y="{yy + 4}" text-anchor="{anchor}">'
                    f'<title>{_e(s)}</title>{_e(labels.get(s, s))} ({r:.2f})</text>')
    how = ("pairwise Wilcoxon signed-rank tests with Holm's correction" if groups is not None and test != "nemenyi"
           else f"Nemenyi's critical difference {cd:.3g}" if cd is not None else "no test")
    named = "; ".join(", ".join(g) for g in (groups or [])) or "none"
    desc = f"Mean ranks of {k} systems (1 is best); bars join systems not significantly different by {how}."
    caption = f"Critical-difference diagram: mean rank of each system; a bar joins systems that {how} does not " \
              f"separate. Groups: {named}."
    return _figure(ident, "Critical-difference diagram", desc, width, height, body, caption,
                   label="critical difference diagram")
