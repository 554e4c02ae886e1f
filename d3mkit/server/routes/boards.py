"""The leaderboard and what a reader downloads: the boards as JSON (``/api/leaderboard``,
with an ETag the live page polls) and as the HTML fragment the live page swaps in
(``/fragment/board``), the page itself (``/``), the problems and their TRAIN/TEST archives,
and the page's CSS and script. On a private challenge each answers a team or organiser only.

The boards are built once per ``board_version`` and kept (:class:`~d3mkit.server.boardcache.BoardCache`):
a view costs two small queries, not a rebuild.
"""

from __future__ import annotations

from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from d3mkit.server import pages
from d3mkit.server.routes.common import (err, guarded, is_organiser, not_modified, page_csrf, session_team,
                                         state, with_csrf)


def get_leaderboard(request):
    part = request.query_params.get("board", "public")
    if part not in ("public", "private"):
        return err(400, "server.form", "board is 'public' or 'private'")
    boards = state(request).boards
    version, counts, finalized = boards.state()
    if part == "private" and not finalized and not is_organiser(request):
        return err(403, "server.not_final", "the private leaderboard is shown once the challenge is finalized")
    hidden = boards.hidden(finalized)
    if hidden is not None and not is_organiser(request):
        return err(403, "server.hidden", f"the board of phase {hidden.name!r} is hidden until its end "
                   f"({hidden.end[:19]}Z)")
    etag = boards.etag(version, counts)
    headers = {"etag": etag, "cache-control": "no-cache"}
    if not_modified(request, etag):
        return Response(status_code=304, headers=headers)
    return Response(boards.json(version, part), media_type="application/json", headers=headers)


def sections(request, version, finalized) -> str:
    """The boards' HTML of ``version``, or the note saying the phase hides them."""
    boards = state(request).boards
    hidden = boards.hidden(finalized)
    if hidden is not None and not is_organiser(request):
        return pages.hidden_note(hidden)
    return boards.sections(version, finalized)


def board_fragment(request):
    st = state(request)
    version, counts, finalized = st.boards.state()
    etag = st.boards.etag(version, counts)
    headers = {"etag": etag, "cache-control": "no-cache"}
    if not_modified(request, etag):
        return Response(status_code=304, headers=headers)
    return HTMLResponse(pages.board_fragment(st.challenge, sections(request, version, finalized), counts, finalized),
                        headers=headers)


@with_csrf
def home(request):
    st = state(request)
    team = session_team(request)
    version, counts, finalized = st.boards.state()
    fragment = pages.board_fragment(st.challenge, sections(request, version, finalized), counts, finalized)
    return HTMLResponse(pages.leaderboard_page(st.challenge, fragment, team=team.name if team else None,
                                               csrf=page_csrf(request), etag=st.boards.etag(version, counts)))


def get_problems(request):
    return JSONResponse({"problems": [
        {"problemID": pid, "taskType": e.task_type,
         "metrics": [{"metric": m, "higherIsBetter": bool(h)} for m, h in e.metrics],
         "train": f"/download/{e.key}/TRAIN.zip", "test": f"/download/{e.key}/TEST.zip"}
        for pid, e in sorted(state(request).challenge.problems.items())]})


def download(request):
    st = state(request)
    pid = st.by_key.get(request.path_params["key"])
    name = request.path_params["name"]
    view = {"TRAIN.zip": "TRAIN", "TEST.zip": "TEST"}.get(name)
    path = st.challenge.archive(pid, view) if pid is not None and view else None
    if path is None or not path.is_file():
        return err(404, "server.not_found", "no such file")
    return FileResponse(path, media_type="application/zip",
                        filename=f"{pid}_{view}.zip")


def style(request):
    return Response(pages.css(), media_type="text/css", headers={"cache-control": "max-age=300"})


def sort_script(request):
    return Response(pages.script(int(state(request).live_poll * 1000)), media_type="text/javascript",
                    headers={"cache-control": "max-age=300"})


ROUTES = [
    Route("/api/leaderboard", guarded(get_leaderboard), methods=["GET"]),
    Route("/fragment/board", guarded(board_fragment), methods=["GET"]),
    Route("/api/problems", guarded(get_problems), methods=["GET"]),
    Route("/download/{key}/{name}", guarded(download), methods=["GET"]),
    Route("/style.css", style, methods=["GET"]),
    Route("/leaderboard.js", sort_script, methods=["GET"]),
    Route("/", guarded(home, page=True), methods=["GET"]),
]
