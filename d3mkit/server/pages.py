"""The server's HTML pages: the leaderboard, the login form, a team's own submissions with
their issues and the upload form.

What this module owns: the markup of the server's own pages. The leaderboard itself is the
campaign leaderboard's: the model :func:`d3mkit.server.board.leaderboard_model` builds is
drawn by :func:`d3mkit.evaluate.leaderboard.sections`, the renderer ``d3mkit evaluate``
writes leaderboard.html with (its tables, critical-difference diagram and heat map), with
its CSS served as ``/style.css`` and its table-sorting script as ``/leaderboard.js`` (so the
Content-Security-Policy allows no inline style or script). The team page uses the same
escaping table writer. Every name and message is HTML-escaped. The leaderboard and a page
with queued submissions reload themselves (``<meta http-equiv="refresh">``); without the
script every page reads the same.
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


def script() -> str:
    """The campaign leaderboard's table-sorting script, served as ``/leaderboard.js``."""
    return _lb._SCRIPT


def _e(text) -> str:
    return _lb._e(text)


def _page(title: str, body: str, *, team: str | None, csrf: str, refresh: bool = False,
          sortable: bool = False) -> str:
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
            f'<nav>{"".join(nav)}</nav>{body}'
            + ('<script src="/leaderboard.js"></script>' if sortable else "") + '</body></html>\n')


def _fmt(v, precision: int) -> str:
    return "" if v is None else f"{v:.{precision}f}"


def leaderboard_page(challenge, models: list, *, team: str | None, csrf: str, counts: dict) -> str:
    """``models``: the :class:`~d3mkit.evaluate.leaderboard.Leaderboard` of the public
    board, then the private one once finalized (shown first)."""
    parts = [f"<h1>{_e(challenge.name)}: leaderboard</h1>",
             f'<p class="note">{len(challenge.problems)} problem(s); '
             f"{counts.get('scored', 0)} submission(s) scored, {counts.get('failed', 0)} failed, "
             f"{counts.get('queued', 0) + counts.get('scoring', 0)} queued. Public scores are on "
             f"{challenge.public_fraction:.0%} of each problem's TEST rows; the private board "
             f"appears when the organisers finalize the challenge. The page reloads itself.</p>"]
    for m in reversed(models):
        part = m.parameters.get("board", "public")
        title = "Private leaderboard (final)" if part == "private" else "Public leaderboard"
        parts.append(f'<section id="{part}"><h2>{title}</h2>')
        if not m.overall:
            parts.append("<p>No scored submission yet.</p></section>")
            continue
        parts.append(f'<p class="note">{_e(m.policy)} The private board shows the private scores of '
                     f"the same entries. Failures: the team's failed submissions.</p>")
        parts += _lb.sections(m, ("overall", "heatmap", "problems"), prefix=f"{part}-")
        parts.append("</section>")
    return _page(f"{challenge.name}: leaderboard", "\n".join(parts), team=team, csrf=csrf, refresh=True,
                 sortable=True)


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
