"""A team in the browser: the login form (the token, exchanged for a signed session cookie),
logging out, the team's own page (its submissions with their issues and history, the
downloads, the upload form) with the fragment its live part polls, and the upload and cancel
forms. Every form carries a CSRF token matched with its cookie, and must come from this site.
"""

from __future__ import annotations

import hashlib

from starlette.concurrency import run_in_threadpool
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from d3mkit.server import auth, pages
from d3mkit.server.routes.accept import Refused, accept, commit
from d3mkit.server.routes.common import (STALE_FORM, csrf_cookie, err, form_ok, not_modified, page_csrf,
                                         same_origin, session_team, set_csrf_cookie, state, with_csrf)
from d3mkit.server.store import RateLimited
from d3mkit.server.upload import UploadError

LOGIN_FORM_MAX = 4096


@with_csrf
def login_form(request):
    return HTMLResponse(pages.login_page(state(request).challenge, csrf=page_csrf(request)))


async def login(request):
    st = state(request)
    try:
        await run_in_threadpool(st.store.login_attempt, "ip:" + (request.client.host if request.client else ""))
    except RateLimited as exc:
        return err(429, "server.rate_limit", exc.issues[0].message, {"retry-after": str(exc.retry_after)})
    length = request.headers.get("content-length", "")
    if not length.isdigit() or int(length) > LOGIN_FORM_MAX:
        return err(413, "server.too_large", "the login form is too large")
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype not in ("application/x-www-form-urlencoded", "multipart/form-data"):
        return err(415, "server.content_type", "send the login form")
    form = await request.form(max_files=0, max_fields=4)
    if not form_ok(request, form.get("csrf")):
        return err(403, "server.csrf", STALE_FORM)
    team = await run_in_threadpool(auth.check_token, st.store, str(form.get("token", "")).strip())
    if team is None:
        cookie, _ = csrf_cookie(request)
        return HTMLResponse(pages.login_page(st.challenge, csrf=auth.csrf_field(st.secret, cookie),
                                             message="unknown token"), 401)
    resp = RedirectResponse("/team", 303)
    resp.set_cookie(auth.SESSION_COOKIE, auth.sign_session(st.secret, team.key_id), max_age=auth.SESSION_TTL,
                    httponly=True, samesite="strict", secure=request.url.scheme == "https", path="/")
    return resp


async def logout(request):
    form = await request.form(max_files=0, max_fields=4)
    if not form_ok(request, form.get("csrf")):
        return err(403, "server.csrf", STALE_FORM)
    resp = RedirectResponse("/", 303)
    resp.delete_cookie(auth.SESSION_COOKIE, path="/")
    return resp


def team_html(st, team, csrf: str) -> tuple[str, str]:
    """(the team's submissions as HTML, its ETag)."""
    subs = st.store.submissions(team=team.key_id)
    html = pages.team_fragment(st.challenge, subs, {s.id: st.store.events(s.id) for s in subs[-50:]}, csrf=csrf)
    return html, '"t' + hashlib.sha256(html.encode()).hexdigest()[:32] + '"'


def team_page(request, team, message="", error=False, status=200):
    """The team's page, saying ``message`` (an ``error`` or not) with HTTP ``status``."""
    st = state(request)
    cookie, new = csrf_cookie(request)
    csrf = auth.csrf_field(st.secret, cookie)
    fragment, etag = team_html(st, team, csrf)
    html = pages.team_page(st.challenge, team.name, fragment, csrf=csrf, message=message, error=error,
                           used_today=st.store.count_today(team.key_id, st.challenge.count_failed), etag=etag)
    resp = HTMLResponse(html, status)
    if new:
        set_csrf_cookie(request, resp, cookie)
    return resp


def team_fragment(request):
    team = session_team(request)
    if team is None:
        return err(401, "server.auth", "log in first")
    cookie, _new = csrf_cookie(request)
    st = state(request)
    html, etag = team_html(st, team, auth.csrf_field(st.secret, cookie))
    headers = {"etag": etag}
    if not_modified(request, etag):
        return Response(status_code=304, headers=headers)
    return HTMLResponse(html, headers=headers)


def team_view(request):
    team = session_team(request)
    if team is None:
        return RedirectResponse("/login", 303)
    return team_page(request, team)


async def team_cancel(request):
    team = await run_in_threadpool(session_team, request)
    if team is None:
        return RedirectResponse("/login", 303)
    form = await request.form(max_files=0, max_fields=4)
    if not form_ok(request, form.get("csrf")):
        return err(403, "server.csrf", STALE_FORM)
    st = state(request)
    sid = str(form.get("id", ""))[:64]
    s = await run_in_threadpool(st.store.submission, sid)
    if s is None or s.team != team.key_id:
        return await run_in_threadpool(team_page, request, team, "no such submission of your team", True, 404)
    if not await run_in_threadpool(st.store.cancel, sid, team.key_id):
        return await run_in_threadpool(team_page, request, team,
                                       f"submission {sid} is no longer queued: not cancelled", True, 409)
    return await run_in_threadpool(team_page, request, team, f"submission {sid} cancelled")


async def team_upload(request):
    team = await run_in_threadpool(session_team, request)
    if team is None:
        return RedirectResponse("/login", 303)
    if team.organiser:
        return err(403, "server.organiser", "an organiser submits nothing: log in with a team token")
    if not same_origin(request):
        return err(403, "server.csrf", "the form is from another site")
    st = state(request)
    try:
        upload = await accept(st, request, team)
        if not auth.csrf_ok(st.secret, request.cookies.get(auth.CSRF_COOKIE), upload.fields.get("csrf")):
            upload.discard()
            return err(403, "server.csrf", STALE_FORM)
        sub = await run_in_threadpool(commit, st, team, upload, None, upload.received)
    except Refused as r:
        return await run_in_threadpool(team_page, request, team, r.message, True, r.status)
    except UploadError as e:
        return await run_in_threadpool(team_page, request, team, e.message, True, e.status)
    return await run_in_threadpool(team_page, request, team,
                                   f"submission {sub.id} accepted for {sub.problem}: queued for scoring")


ROUTES = [
    Route("/fragment/team", team_fragment, methods=["GET"]),
    Route("/login", login_form, methods=["GET"]),
    Route("/login", login, methods=["POST"]),
    Route("/logout", logout, methods=["POST"]),
    Route("/team", team_view, methods=["GET"]),
    Route("/team/upload", team_upload, methods=["POST"]),
    Route("/team/cancel", team_cancel, methods=["POST"]),
]
