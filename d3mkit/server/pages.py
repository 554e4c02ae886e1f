"""The server's HTML pages: the leaderboard, the login form, a team's own submissions with
their issues and the upload form.

What this module owns: the markup. Tables and their style are the campaign leaderboard's
(:mod:`d3mkit.evaluate.leaderboard`: its table writer, which escapes every cell, and its
CSS, served as ``/style.css`` so the Content-Security-Policy needs no inline style); the
ranks come from :mod:`d3mkit.server.board`. Every name and message is HTML-escaped. Pages
use no script: the leaderboard and a page with queued submissions reload themselves
(``<meta http-equiv="refresh">``).
"""

from __future__ import annotations

from d3mkit.evaluate import leaderboard as _lb

REFRESH_SECONDS = 5
EXTRA_CSS = """
nav { margin-bottom: 1em; } nav a, nav form { margin-right: 1em; display: inline; }
.error { color: #a00; } .ok { color: #060; }
form.box { border: 1px solid #8a9bb0; padding: 0.7em; display: inline-block; margin: 0.5em 0; }
label { display: block; margin: 0.3em 0; }
"""


def css() -> str:
    return _lb._CSS + EXTRA_CSS


def _e(text) -> str:
    return _lb._e(text)


def _page(title: str, body: str, *, team: str | None, csrf: str, refresh: bool = False) -> str:
    nav = ['<a href="/">Leaderboard</a>']
    if team is not None:
        nav.append('<a href="/team">My submissions</a>')
        nav.append(f'<form method="post" action="/logout"><input type="hidden" name="csrf" value="{_e(csrf)}">'
                   f'<button type="submit">Log out ({_e(team)})</button></form>')
    else:
        nav.append('<a href="/login">Log in</a>')
    meta = f'<meta http-equiv="refresh" content="{REFRESH_SECONDS}">' if refresh else ""
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">{meta}'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{_e(title)}</title><link rel="stylesheet" href="/style.css"></head><body>'
            f'<nav>{"".join(nav)}</nav>{body}</body></html>\n')


def _fmt(v, precision: int) -> str:
    return "" if v is None else f"{v:.{precision}f}"


def leaderboard_page(challenge, boards: list, *, team: str | None, csrf: str, counts: dict) -> str:
    """``boards``: the public board, then the private one once finalized."""
    parts = [f"<h1>{_e(challenge.name)}: leaderboard</h1>",
             f'<p class="note">{len(challenge.problems)} problem(s); '
             f"{counts.get('scored', 0)} submission(s) scored, {counts.get('failed', 0)} failed, "
             f"{counts.get('queued', 0) + counts.get('scoring', 0)} queued. Public scores are on "
             f"{challenge.public_fraction:.0%} of each problem's TEST rows; the private board "
             f"appears when the organisers finalize the challenge. The page reloads itself.</p>"]
    for board in reversed(boards):
        title = "Private leaderboard (final)" if board.part == "private" else "Public leaderboard"
        parts.append(f'<h2 id="{board.part}">{title}</h2>')
        if not board.overall:
            parts.append("<p>No scored submission yet.</p>")
            continue
        parts.append('<p class="note">Overall: the mean over problems of each team\'s rank on the '
                     "problem's primary metric (ties share the mean of their places; no entry: "
                     "the last places). A team's entry on a problem is its best public submission.</p>")
        rows = [[r["position"], r["team"], f"{r['mean_rank']:.3f}", r["problems"]] for r in board.overall]
        parts.append(_lb._table(["position", "team", "mean rank", "problems"], rows,
                                ["best" if r["position"] == 1 else "" for r in board.overall], {0, 2, 3}))
        for p in board.problems:
            direction = "higher" if p.higher_is_better else "lower"
            parts.append(f"<h3>{_e(p.problem_id)}</h3><p class=\"note\">primary metric: "
                         f"{_e(p.metrics[0] if p.metrics else '-')} ({direction} is better)</p>")
            if not p.rows:
                parts.append("<p>No entry yet.</p>")
                continue
            header = ["rank", "team"] + p.metrics + ["submissions"]
            body = [[r["rank"] if r["rank"] is not None else "", r["team"]]
                    + [_fmt(r["scores"].get(m), challenge.precision) for m in p.metrics]
                    + [r["submissions"]] for r in p.rows]
            parts.append(_lb._table(header, body, ["best" if r["rank"] == 1 else "" for r in p.rows],
                                    set(range(2, len(header))) | {0}))
    return _page(f"{challenge.name}: leaderboard", "\n".join(parts), team=team, csrf=csrf, refresh=True)


def login_page(challenge, *, csrf: str, message: str = "") -> str:
    msg = f'<p class="error">{_e(message)}</p>' if message else ""
    body = (f"<h1>{_e(challenge.name)}: log in</h1>{msg}"
            f'<form class="box" method="post" action="/login">'
            f'<input type="hidden" name="csrf" value="{_e(csrf)}">'
            f'<label>Team token <input type="password" name="token" id="token" size="60" '
            f'autocomplete="off" required></label>'
            f'<button type="submit" id="login">Log in</button></form>'
            f'<p class="note">The organisers gave your team its token.</p>')
    return _page(f"{challenge.name}: log in", body, team=None, csrf=csrf)


def team_page(challenge, team: str, submissions: list, *, csrf: str, message: str = "",
              error: bool = False, used_today: int = 0) -> str:
    msg = f'<p class="{"error" if error else "ok"}">{_e(message)}</p>' if message else ""
    options = "".join(f'<option value="{_e(pid)}">{_e(pid)}</option>' for pid in sorted(challenge.problems))
    downloads = "".join(f'<li>{_e(pid)}: <a href="/download/{e.key}/TRAIN.zip">TRAIN</a>, '
                        f'<a href="/download/{e.key}/TEST.zip">TEST</a></li>'
                        for pid, e in sorted(challenge.problems.items()))
    parts = [f"<h1>{_e(team)}: submissions</h1>", msg,
             f'<form class="box" method="post" action="/team/upload" enctype="multipart/form-data">'
             f'<input type="hidden" name="csrf" value="{_e(csrf)}">'
             f'<label>Problem <select name="problem" id="problem">{options}</select></label>'
             f'<label>predictions.csv <input type="file" name="file" id="file" accept=".csv,text/csv" required></label>'
             f'<button type="submit" id="submit">Submit</button></form>',
             f'<p class="note">{used_today} of {challenge.daily_quota} submission(s) used today (UTC); '
             f"files up to {challenge.max_mb:g} MB.</p>",
             f"<h2>Data</h2><ul>{downloads}</ul>", "<h2>Your submissions</h2>"]
    if not submissions:
        parts.append("<p>None yet.</p>")
    rows = []
    for s in reversed(submissions):
        scores = ", ".join(f"{m['metric']} {_fmt(m['value'] if m['value'] is None else round(m['value'], challenge.precision), challenge.precision)}"
                           for m in (s.public or []))
        issues = "; ".join(f"{i['severity']} [{i['code']}] {i['location'] + ': ' if i['location'] else ''}{i['message']}"
                           for i in s.issues)
        rows.append([s.created[:19].replace("T", " "), s.problem, s.shown_status, scores, issues, s.id])
    if rows:
        parts.append(_lb._table(["submitted (UTC)", "problem", "status", "public scores", "issues", "id"], rows))
    queued = any(s.shown_status == "queued" for s in submissions)
    return _page(f"{team}: submissions", "\n".join(parts), team=team, csrf=csrf, refresh=queued)


def message_page(challenge, title: str, message: str, *, team: str | None, csrf: str) -> str:
    return _page(title, f"<h1>{_e(title)}</h1><p class=\"error\">{_e(message)}</p>"
                        f'<p><a href="/">Back to the leaderboard</a></p>', team=team, csrf=csrf)
