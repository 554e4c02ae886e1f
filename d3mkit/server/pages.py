"""The server's HTML pages: the leaderboard, the login form, a team's own submissions with
their issues and the upload form.

What this module owns: the markup of the server's own pages. The leaderboard itself is the
campaign leaderboard's: the model :func:`d3mkit.server.board.leaderboard_model` builds is
drawn by :func:`d3mkit.evaluate.leaderboard.sections`, the renderer ``d3mkit evaluate``
writes leaderboard.html with (its tables, critical-difference diagram and heat map), with
its CSS served as ``/style.css`` and its table-sorting script as ``/leaderboard.js`` (so the
Content-Security-Policy allows no inline style or script). The team page uses the same
escaping table writer. Every name and message is HTML-escaped.

The leaderboard page updates in place (:func:`script`, served as ``/leaderboard.js``): it
polls ``GET /api/leaderboard`` with ``If-None-Match`` and, when the board changed, fetches
``/fragment/board`` and swaps the boards' HTML in, then sorts each table again the way the
reader last sorted it; the scroll position stays (nothing reloads). The team page does the
same with ``/fragment/team``. The swapped HTML is the server's escaped markup, inserted as
markup: it runs no script (and the Content-Security-Policy allows only ``/leaderboard.js``).
Without scripts every page reads the same, as of when it was loaded.
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
    return _lb.CSS + EXTRA_CSS


LIVE_SCRIPT = ("""
(function () {
  "use strict";
  var live = document.getElementById("live");
  var sorted = {};            // table position in #live -> [column, ascending]
  function tables() { return live ? Array.from(live.querySelectorAll("table.sortable")) : []; }
""" + _lb.SORT_FUNCTIONS + """
  function arm() { armSorting(tables(), sorted); }
  arm();
  if (!live || !window.fetch) return;
  var poll = live.dataset.poll || live.dataset.src, src = live.dataset.src, tag = live.dataset.etag || null;
  function tick() {
    var h = tag ? {"If-None-Match": tag} : {};
    fetch(poll, {headers: h, credentials: "same-origin", cache: "no-store"}).then(function (r) {
      if (r.status !== 200) return null;
      var next = r.headers.get("ETag");
      if (tag === null) { tag = next; return null; }     // the page shows this version
      tag = next;
      return poll === src ? r.text() : fetch(src, {credentials: "same-origin", cache: "no-store"})
        .then(function (f) { return f.status === 200 ? f.text() : null; });
    }).then(function (html) {
      if (html === null || html === undefined) return;
      var x = window.scrollX, y = window.scrollY;
      live.innerHTML = html; arm(); window.scrollTo(x, y);
      live.dataset.updated = String(Date.now());
    }).catch(function () {}).then(function () { setTimeout(tick, POLL_MS); });
  }
  setTimeout(tick, 50);
})();
""")


def script(poll_ms: int = REFRESH_SECONDS * 1000) -> str:
    """The live page's script, served as ``/leaderboard.js``: the campaign leaderboard's
    table sorting (remembered across updates) and the in-place update of ``#live``."""
    return LIVE_SCRIPT.replace("POLL_MS", str(int(poll_ms)))


_e = _lb.escape


def _page(title: str, body: str, *, team: str | None, csrf: str, sortable: bool = False) -> str:
    nav = ['<a href="/">Leaderboard</a>']
    if team is not None:
        nav.append('<a href="/team">My submissions</a>')
        nav.append(f'<form method="post" action="/logout"><input type="hidden" name="csrf" value="{_e(csrf)}">'
                   f'<button type="submit">Log out ({_e(team)})</button></form>')
    else:
        nav.append('<a href="/login">Log in</a>')
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{_e(title)}</title><link rel="stylesheet" href="/style.css"></head><body>'
            f'<nav>{"".join(nav)}</nav>{body}'
            + ('<script src="/leaderboard.js"></script>' if sortable else "") + '</body></html>\n')


def _fmt(v, precision: int) -> str:
    return "" if v is None else f"{v:.{precision}f}"


def _baselines(rows: list) -> str:
    """The baseline entries, drawn apart from the ranking (a table of their own)."""
    if not rows:
        return ""
    labels = list(dict.fromkeys(m for r in rows for m in r["scores"]))
    body = [[r["team"], r["problemID"], *("" if r["scores"].get(m) is None else r["scores"][m] for m in labels)]
            for r in rows]
    return ('<h3 class="baselines">Baselines (not ranked)</h3>'
            + _lb.table(["baseline", "problem", *labels], body))


def board_sections(models: list, baselines: dict | None = None) -> str:
    """The boards' HTML: ``models``, the :class:`~d3mkit.evaluate.leaderboard.Leaderboard`
    of the public board, then the private one once finalized (shown first); ``baselines``:
    part -> the baseline entries of that board."""
    parts = []
    baselines = baselines or {}
    for m in reversed(models):
        part = m.parameters.get("board", "public")
        title = "Private leaderboard (final)" if part == "private" else "Public leaderboard"
        parts.append(f'<section id="{part}"><h2>{title}</h2>')
        parts.append(_baselines(baselines.get(part, [])))
        if not m.overall:
            parts.append("<p>No scored submission yet.</p></section>")
            continue
        parts.append(f'<p class="note">{_e(m.policy)} The private board shows the private scores of '
                     f"the same entries. Failures: the team's failed files.</p>")
        parts += _lb.sections(m, ("overall", "heatmap", "problems"), prefix=f"{part}-")
        parts.append("</section>")
    return "\n".join(parts)


def hidden_note(phase) -> str:
    return (f'<section id="public"><h2>Leaderboard hidden</h2><p class="note">The board of phase '
            f"{_e(phase.name)} is hidden until its end ({_e(phase.end[:19])} UTC); your own scores "
            f'are on your page.</p></section>')


def counts_note(challenge, counts: dict) -> str:
    return (f'<p class="note" id="counts">{len(challenge.problems)} problem(s); '
            f"{counts.get('scored', 0)} submission(s) scored, {counts.get('failed', 0)} failed, "
            f"{counts.get('queued', 0) + counts.get('scoring', 0)} waiting. Public scores are on "
            f"{challenge.public_fraction:.0%} of each problem's TEST rows; the private board "
            f"appears when the organisers finalize the challenge. The boards update by themselves.</p>")


def board_fragment(challenge, sections: str, counts: dict, finalized: bool = False) -> str:
    """What ``/fragment/board`` answers and the page holds in ``#live``."""
    link = ('<p class="note"><a href="/api/results.csv">Download every entry\'s results per fold and '
            'metric (CSV)</a></p>') if finalized else ""
    return counts_note(challenge, counts) + link + sections


def leaderboard_page(challenge, fragment: str, *, team: str | None, csrf: str, etag: str = "") -> str:
    """The leaderboard page around ``fragment`` (:func:`board_fragment`) of version ``etag``."""
    body = (f"<h1>{_e(challenge.name)}: leaderboard</h1>"
            f'<div id="live" data-poll="/api/leaderboard" data-src="/fragment/board" '
            f'data-etag="{_e(etag)}">{fragment}</div>')
    return _page(f"{challenge.name}: leaderboard", body, team=team, csrf=csrf, sortable=True)


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


def team_page(challenge, team: str, fragment: str, *, csrf: str, message: str = "",
              error: bool = False, used_today: int = 0, etag: str = "") -> str:
    """A team's page around ``fragment`` (:func:`team_fragment`: its submissions)."""
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
             f'<p class="note">{used_today} of {challenge.daily_quota} submission(s) charged today (UTC); '
             f"the platform's failures and cancelled submissions are not charged"
             + ("" if challenge.count_failed else ", nor are files that failed")
             + f"; files up to {challenge.max_mb:g} MB.</p>",
             f"<h2>Data</h2><ul>{downloads}</ul>", "<h2>Your submissions</h2>",
             f'<div id="live" data-src="/fragment/team" data-etag="{_e(etag)}">{fragment}</div>']
    return _page(f"{team}: submissions", "\n".join(parts), team=team, csrf=csrf, sortable=True)


def _when(at: str) -> str:
    return at[11:19] if at else ""


def team_fragment(challenge, submissions: list, histories: dict, *, csrf: str) -> str:
    """The team's submissions, newest first, each with its history (state changes with
    their UTC times) and, while queued, a form to cancel it."""
    if not submissions:
        return "<p>None yet.</p>"
    rows = []
    for s in reversed(submissions):
        scores = ", ".join(f"{m['metric']} {_fmt(m['value'] if m['value'] is None else round(m['value'], challenge.precision), challenge.precision)}"
                           for m in (s.public or []))
        issues = "; ".join(f"{i['severity']} [{i['code']}] {i['location'] + ': ' if i['location'] else ''}{i['message']}"
                           for i in s.issues)
        history = "; ".join(f"{h['state']} {_when(h['at'])}" + (f" ({h['detail']})" if h["detail"] and h["state"] != "scoring" else "")
                            for h in histories.get(s.id, []))
        rows.append([s.created[:19].replace("T", " "), s.problem, s.shown_status, scores, issues, history, s.id])
    table = _lb.table(["submitted (UTC)", "problem", "status", "public scores", "issues", "history (UTC)", "id"], rows)
    queued = [s for s in reversed(submissions) if s.status == "queued"]
    forms = "".join(f'<form method="post" action="/team/cancel"><input type="hidden" name="csrf" value="{_e(csrf)}">'
                    f'<input type="hidden" name="id" value="{_e(s.id)}">'
                    f'<button type="submit">Cancel {_e(s.id[:8])} ({_e(s.problem)})</button></form>' for s in queued)
    return table + (f'<div class="note">Queued, not yet scoring: {forms}</div>' if forms else "")


def message_page(challenge, title: str, message: str, *, team: str | None, csrf: str) -> str:
    return _page(title, f"<h1>{_e(title)}</h1><p class=\"error\">{_e(message)}</p>"
                        f'<p><a href="/">Back to the leaderboard</a></p>', team=team, csrf=csrf)
