"""The HTTP routes (Starlette, an ASGI toolkit served by uvicorn).

What this module owns: :func:`make_app`, the API and the pages, the security headers and
the error shape ``{"error": {"code", "message"}}``.

==========================  ======================================================
``POST /api/submissions``   Bearer token; multipart ``problem`` + ``file``; 202 ``{"id", "status"}``
``GET /api/submissions/ID`` Bearer token; the team's own submission only (else 404), with its history
``POST /api/submissions/ID/cancel``  Bearer token; cancel a queued submission (409 otherwise)
``GET /api/submissions``    Bearer token; the team's submissions
``GET /api/leaderboard``    the public board (``?board=private`` once finalized); ETag, 304
``GET /fragment/board``     the boards' HTML the live page swaps in (ETag, 304)
``GET /api/problems``       the problems, their metrics and the TRAIN/TEST archive links
``GET /download/KEY/V.zip`` a TRAIN or TEST archive (looked up, never a client path)
``GET /healthz``            ``{"status": "ok"}`` when the database answers and something can
                            score (503 ``unhealthy`` with the reason otherwise)
``GET /``                   the leaderboard page
``GET|POST /login``         log in with the token (a signed session cookie)
``GET /team``               the team's submissions, issues, downloads, upload form
``POST /team/upload``       the upload form (CSRF token); ``POST /logout``
==========================  ======================================================

Request handlers never score: they store the file (fsynced), commit its row, wake the
dispatcher (:mod:`d3mkit.server.dispatch`) and answer. The boards are built once per
``board_version`` (:meth:`Store.board_version`, grown when a score, a failure or
statistics are recorded) and kept: a view costs two small queries, not a rebuild. Every response carries a
Content-Security-Policy, ``X-Content-Type-Options: nosniff``, ``X-Frame-Options: DENY``,
``Referrer-Policy: same-origin``; API and team pages ``Cache-Control: no-store``.
"""

from __future__ import annotations

import os
import re
import secrets

from d3mkit.server import auth, pages
from d3mkit.server.store import Closed, QuotaExceeded, RateLimited
from d3mkit.server.upload import UploadError, receive

CSP = ("default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' data:; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
SECURITY_HEADERS = [(b"content-security-policy", CSP.encode()), (b"x-content-type-options", b"nosniff"),
                    (b"x-frame-options", b"DENY"), (b"referrer-policy", b"same-origin"),
                    (b"cross-origin-opener-policy", b"same-origin")]
_IDEM = re.compile(r"^[A-Za-z0-9_.:-]{1,100}$")
LOGIN_FORM_MAX = 4096


class _SecurityHeaders:
    """ASGI middleware: the headers above on every HTTP response."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive_, send):
        if scope["type"] != "http":
            return await self.app(scope, receive_, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in names]
                if scope["path"].startswith(("/api/", "/team", "/login", "/fragment/team")) and b"cache-control" not in names:
                    extra.append((b"cache-control", b"no-store"))
                message["headers"] = list(message.get("headers", [])) + extra
            await send(message)
        await self.app(scope, receive_, send_with_headers)


def make_app(challenge, store, dispatcher=None, *, start_dispatcher: bool = True,
             live_poll: float = 5.0):
    """The ASGI application of ``challenge`` over ``store``; ``dispatcher`` scores (started
    and stopped with the app when ``start_dispatcher``); ``live_poll``: seconds between two
    looks of a live page at its board."""
    from contextlib import asynccontextmanager

    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
    from starlette.routing import Route

    secret = challenge.secret()
    from d3mkit.server.boardcache import BoardCache
    boards = BoardCache(challenge, store)

    def err(status: int, code: str, message: str, headers: dict | None = None):
        return JSONResponse({"error": {"code": code, "message": message}}, status, headers=headers)

    def api_team(request):
        """The team of the request's bearer token; None, with ``request.state.auth`` saying
        whether a token was sent at all (the 401's wording)."""
        token = auth.bearer(request.headers.get("authorization"))
        request.state.auth = "missing" if token is None else "invalid"
        return auth.check_token(store, token)

    def unauthorized(request=None):
        if request is not None and getattr(request.state, "auth", "missing") == "invalid":
            return err(401, "server.bad_token", "the token is not valid: check that you copied it whole, "
                       "or ask the organisers for your team's token", {"www-authenticate": 'Bearer error="invalid_token"'})
        return err(401, "server.auth", "no token: send the team token as 'Authorization: Bearer TOKEN'",
                   {"www-authenticate": "Bearer"})

    def sub_json(s, history: bool = False) -> dict:
        out = {"id": s.id, "problem": s.problem, "status": s.shown_status,
               "created": s.created, "scores": [
                   {"metric": m["metric"], "value": None if m["value"] is None
                    else round(m["value"], challenge.precision)} for m in (s.public or [])],
               "issues": s.issues, "failure": s.failure, "charged": _charged(s)}
        if history:
            out["history"] = store.events(s.id)
        return out

    def _charged(s) -> bool:
        if s.status == "cancelled" or (s.status == "failed" and s.failure == "platform"):
            return False
        return not (s.status == "failed" and not challenge.count_failed)

    # -------------------------------------------------------------- accepting a file
    def _limits():
        """(daily quota, (total quota, since) or None) of the phase open now."""
        from d3mkit.server.store import now
        phase = challenge.phase_now(now())
        daily = phase.daily_quota if phase is not None and phase.daily_quota else challenge.daily_quota
        total = (phase.total_quota, phase.start) if phase is not None and phase.total_quota else None
        return daily, total

    def _gate(team) -> tuple | None:
        """(status, code, message, headers) refusing a submission before its body is read."""
        from d3mkit.server.store import now
        if store.finalized():
            return 409, "server.closed", "the challenge is finalized; no more submissions", None
        closed = challenge.closed_message(now())
        if closed:
            return 409, "server.closed", closed, None
        daily, total = _limits()
        try:
            store.rate_check(team.key_id, challenge.rate_per_minute)
        except RateLimited as exc:
            return 429, "server.rate_limit", exc.issues[0].message, {"retry-after": str(exc.retry_after)}
        if store.count_today(team.key_id, challenge.count_failed) >= daily:
            return 429, "server.quota", (f"daily quota of {daily} submission(s) "
                                         f"reached; it resets at 00:00 UTC"), {"retry-after": "3600"}
        if total is not None and store.count_since(team.key_id, total[1], challenge.count_failed) >= total[0]:
            return 429, "server.quota", f"quota of {total[0]} submission(s) for this phase reached", None
        return None

    def _commit(team, upload, idem, received=None):
        problem = upload.fields.get("problem", "")
        if problem not in challenge.problems:
            upload.discard()
            raise UploadError(400, "server.unknown_problem", "unknown problem: give a problemID "
                              "that GET /api/problems lists")
        if upload.path is None or upload.size == 0:
            upload.discard()
            raise UploadError(400, "server.form", "no file: send the predictions as the 'file' part")
        from d3mkit.io.atomic import fsync_path
        sid = secrets.token_hex(16)
        final = challenge.uploads / f"{sid}.csv"
        os.rename(upload.path, final)
        upload.path = final
        fsync_path(challenge.uploads)
        try:
            daily, total = _limits()
            sub = store.add_submission(sid, team.key_id, problem, upload.size, upload.sha256, idem,
                                       daily, challenge.rate_per_minute,
                                       count_failed=challenge.count_failed, received=received,
                                       is_open=lambda at: challenge.closed_message(at, problem), total=total)
        except Closed as exc:         # finalized while the body was arriving
            upload.discard()
            raise _Refused(409, "server.closed", exc.issues[0].message) from None
        except QuotaExceeded as exc:
            upload.discard()
            raise _Refused(429, "server.quota", exc.issues[0].message,
                           {"retry-after": "3600"} if "daily" in exc.issues[0].message else None) from None
        except RateLimited as exc:
            upload.discard()
            raise _Refused(429, "server.rate_limit", exc.issues[0].message,
                           {"retry-after": str(exc.retry_after)}) from None
        except BaseException:
            upload.discard()
            raise
        if sub.id != sid:          # the same idempotency key: the earlier submission stands
            upload.discard()
        if dispatcher is not None:
            dispatcher.wake()
        return sub

    async def accept(request, team, idem=None):
        refused = await run_in_threadpool(_gate, team)
        if refused:
            raise _Refused(*refused)
        upload = await receive(request, challenge.uploads, challenge.max_bytes)
        from d3mkit.server.store import now
        upload.received = now()
        return upload

    # ----------------------------------------------------------------------- the API
    async def post_submission(request):
        team = await run_in_threadpool(api_team, request)
        if team is None:
            return unauthorized(request)
        if team.organiser:
            return err(403, "server.organiser", "an organiser's token submits nothing: use a team token")
        idem = request.headers.get("idempotency-key")
        if idem is not None and not _IDEM.match(idem):
            return err(400, "server.form", "Idempotency-Key: 1-100 letters, digits or _.:-")
        if idem is not None:
            earlier = await run_in_threadpool(store.by_idempotency_key, team.key_id, idem)
            if earlier is not None:
                return JSONResponse({"id": earlier.id, "status": earlier.shown_status}, 202)
        try:
            upload = await accept(request, team, idem)
            sub = await run_in_threadpool(_commit, team, upload, idem, upload.received)
        except _Refused as r:
            return err(r.status, r.code, r.message, r.headers)
        except UploadError as e:
            return err(e.status, e.code, e.message)
        return JSONResponse({"id": sub.id, "status": sub.shown_status}, 202,
                            headers={"location": f"/api/submissions/{sub.id}"})

    def _own(request):
        """(team, submission) of the path's id, or an error response."""
        team = api_team(request)
        if team is None:
            return None, unauthorized(request)
        s = store.submission(request.path_params["sid"])
        if s is None or not secrets.compare_digest(s.team.encode(), team.key_id.encode()):
            return None, err(404, "server.not_found", "no such submission of your team")
        return s, None

    def get_submission(request):
        s, refused = _own(request)
        if refused is not None:
            return refused
        return JSONResponse(sub_json(s, history=True))

    def cancel_submission(request):
        s, refused = _own(request)
        if refused is not None:
            return refused
        if not store.cancel(s.id, s.team):
            now = store.submission(s.id)
            return err(409, "server.not_cancellable", f"submission {s.id} is {now.status}: only a queued "
                       f"submission can be cancelled")
        return JSONResponse(sub_json(store.submission(s.id), history=True))

    def list_submissions(request):
        team = api_team(request)
        if team is None:
            return unauthorized(request)
        return JSONResponse({"submissions": [sub_json(s) for s in store.submissions(team=team.key_id)]})

    def _not_modified(request, etag: str) -> bool:
        return etag in [t.strip() for t in request.headers.get("if-none-match", "").split(",")]

    def viewer(request):
        """The team (or organiser) of the request's bearer token or session, else None."""
        token = auth.bearer(request.headers.get("authorization"))
        if token is not None:
            return auth.check_token(store, token)
        return session_team(request)

    def guarded(handler, page: bool = False):
        """``handler`` answering only a team or organiser on a private challenge (pages
        send the others to the login form; the API answers 401)."""
        def wrapped(request):
            if challenge.private:
                who = viewer(request)
                if who is None:
                    if page:
                        return RedirectResponse("/login", 303)
                    return err(401, "server.auth", "a private challenge: send a team token "
                               "('Authorization: Bearer TOKEN') or log in", {"www-authenticate": "Bearer"})
                request.state.viewer = who
            return handler(request)
        return wrapped

    def _organiser(request):
        who = getattr(request.state, "viewer", None) or viewer(request)
        return who is not None and who.organiser

    def get_results(request):
        """results.csv: every entry's per-fold, per-metric values, once finalized."""
        import csv
        import io
        from d3mkit.server.board import results_rows
        if not store.finalized() and not _organiser(request):
            return err(403, "server.not_final", "the results are published once the challenge is finalized")
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(results_rows(challenge, store))
        return Response(buf.getvalue(), media_type="text/csv",
                        headers={"content-disposition": 'attachment; filename="results.csv"'})

    def get_queue(request):
        who = viewer(request)
        if who is None or not who.organiser:
            return err(403, "server.organiser", "the queue is shown to the challenge's organisers")
        return JSONResponse(store.status_report())

    def get_leaderboard(request):
        part = request.query_params.get("board", "public")
        if part not in ("public", "private"):
            return err(400, "server.form", "board is 'public' or 'private'")
        version, counts, finalized = boards.state()
        if part == "private" and not finalized and not _organiser(request):
            return err(403, "server.not_final", "the private leaderboard is shown once the challenge is finalized")
        hidden = boards.hidden(finalized)
        if hidden is not None and not _organiser(request):
            return err(403, "server.hidden", f"the board of phase {hidden.name!r} is hidden until its end "
                       f"({hidden.end[:19]}Z)")
        etag = boards.etag(version, counts)
        headers = {"etag": etag, "cache-control": "no-cache"}
        if _not_modified(request, etag):
            return Response(status_code=304, headers=headers)
        return Response(boards.json(version, part), media_type="application/json", headers=headers)

    def _sections(request, version, finalized) -> str:
        hidden = boards.hidden(finalized)
        if hidden is not None and not _organiser(request):
            return pages.hidden_note(hidden)
        return boards.sections(version, finalized)

    def board_fragment(request):
        version, counts, finalized = boards.state()
        etag = boards.etag(version, counts)
        headers = {"etag": etag, "cache-control": "no-cache"}
        if _not_modified(request, etag):
            return Response(status_code=304, headers=headers)
        return HTMLResponse(pages.board_fragment(challenge, _sections(request, version, finalized), counts, finalized),
                            headers=headers)

    def get_problems(request):
        return JSONResponse({"problems": [
            {"problemID": pid, "taskType": e.task_type,
             "metrics": [{"metric": m, "higherIsBetter": bool(h)} for m, h in e.metrics],
             "train": f"/download/{e.key}/TRAIN.zip", "test": f"/download/{e.key}/TEST.zip"}
            for pid, e in sorted(challenge.problems.items())]})

    by_key = {e.key: pid for pid, e in challenge.problems.items()}

    def download(request):
        pid = by_key.get(request.path_params["key"])
        name = request.path_params["name"]
        view = {"TRAIN.zip": "TRAIN", "TEST.zip": "TEST"}.get(name)
        path = challenge.archive(pid, view) if pid is not None and view else None
        if path is None or not path.is_file():
            return err(404, "server.not_found", "no such file")
        return FileResponse(path, media_type="application/zip",
                            filename=f"{pid}_{view}.zip")

    def healthz(request):
        try:
            store.version()
        except Exception:
            return JSONResponse({"status": "unavailable", "reason": "the database does not answer"}, 503)
        if dispatcher is not None and start_dispatcher:
            h = dispatcher.health()
            if not h["ok"]:
                return JSONResponse({"status": "unhealthy", "reason": h["reason"],
                                     "workers_alive": h["workers_alive"]}, 503)
            return JSONResponse({"status": "ok", "workers_alive": h["workers_alive"]})
        return JSONResponse({"status": "ok"})

    def style(request):
        return Response(pages.css(), media_type="text/css", headers={"cache-control": "max-age=300"})

    def sort_script(request):
        return Response(pages.script(int(live_poll * 1000)), media_type="text/javascript",
                        headers={"cache-control": "max-age=300"})

    # --------------------------------------------------------------------- the pages
    def _csrf_cookie(request) -> tuple[str, bool]:
        c = request.cookies.get(auth.CSRF_COOKIE)
        if c and 16 <= len(c) <= 64:
            return c, False
        return auth.new_csrf_cookie(), True

    def _html(request, text: str, status: int = 200):
        cookie, new = _csrf_cookie(request)
        resp = HTMLResponse(text, status)
        if new:
            resp.set_cookie(auth.CSRF_COOKIE, cookie, httponly=True, samesite="strict",
                            secure=request.url.scheme == "https", path="/")
        return resp

    def _page_csrf(request) -> str:
        # the form field matches the cookie sent with this page (set now if it was missing)
        return auth.csrf_field(secret, request.state.csrf_cookie)

    def session_team(request):
        key_id = auth.team_of_session(request.cookies.get(auth.SESSION_COOKIE), secret)
        return store.team(key_id) if key_id else None

    def _same_origin(request) -> bool:
        """No sign of another site: the Origin names this host, or (no Origin, or "null")
        the browser's Sec-Fetch-Site says same-origin or is absent. The CSRF token is checked too."""
        origin = request.headers.get("origin")
        if origin is None or origin == "null":
            return request.headers.get("sec-fetch-site", "same-origin") in ("same-origin", "none")
        return origin.split("://", 1)[-1] == request.headers.get("host", "")

    def _form_ok(request, field: str | None) -> bool:
        return _same_origin(request) and auth.csrf_ok(secret, request.cookies.get(auth.CSRF_COOKIE), field)

    def with_csrf(handler):
        def wrapped(request):
            cookie, new = _csrf_cookie(request)
            request.state.csrf_cookie = cookie
            resp = handler(request)
            if new:
                resp.set_cookie(auth.CSRF_COOKIE, cookie, httponly=True, samesite="strict",
                                secure=request.url.scheme == "https", path="/")
            return resp
        return wrapped

    @with_csrf
    def home(request):
        team = session_team(request)
        version, counts, finalized = boards.state()
        fragment = pages.board_fragment(challenge, _sections(request, version, finalized), counts, finalized)
        return HTMLResponse(pages.leaderboard_page(challenge, fragment, team=team.name if team else None,
                                                   csrf=_page_csrf(request), etag=boards.etag(version, counts)))

    @with_csrf
    def login_form(request):
        return HTMLResponse(pages.login_page(challenge, csrf=_page_csrf(request)))

    async def login(request):
        try:
            await run_in_threadpool(store.login_attempt, "ip:" + (request.client.host if request.client else ""))
        except RateLimited as exc:
            return err(429, "server.rate_limit", exc.issues[0].message, {"retry-after": str(exc.retry_after)})
        length = request.headers.get("content-length", "")
        if not length.isdigit() or int(length) > LOGIN_FORM_MAX:
            return err(413, "server.too_large", "the login form is too large")
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype not in ("application/x-www-form-urlencoded", "multipart/form-data"):
            return err(415, "server.content_type", "send the login form")
        form = await request.form(max_files=0, max_fields=4)
        if not _form_ok(request, form.get("csrf")):
            return err(403, "server.csrf", "the form is stale or from another site: reload the page and try again")
        team = await run_in_threadpool(auth.check_token, store, str(form.get("token", "")).strip())
        if team is None:
            cookie, _ = _csrf_cookie(request)
            return HTMLResponse(pages.login_page(challenge, csrf=auth.csrf_field(secret, cookie),
                                                 message="unknown token"), 401)
        resp = RedirectResponse("/team", 303)
        resp.set_cookie(auth.SESSION_COOKIE, auth.sign_session(secret, team.key_id), max_age=auth.SESSION_TTL,
                        httponly=True, samesite="strict", secure=request.url.scheme == "https", path="/")
        return resp

    async def logout(request):
        form = await request.form(max_files=0, max_fields=4)
        if not _form_ok(request, form.get("csrf")):
            return err(403, "server.csrf", "the form is stale or from another site: reload the page and try again")
        resp = RedirectResponse("/", 303)
        resp.delete_cookie(auth.SESSION_COOKIE, path="/")
        return resp

    def _team_fragment(team, csrf: str) -> tuple[str, str]:
        """(the team's submissions as HTML, its ETag)."""
        import hashlib
        subs = store.submissions(team=team.key_id)
        html = pages.team_fragment(challenge, subs, {s.id: store.events(s.id) for s in subs[-50:]}, csrf=csrf)
        return html, '"t' + hashlib.sha256(html.encode()).hexdigest()[:32] + '"'

    def _team_page(request, team, message="", error=False, status=200):
        cookie, new = _csrf_cookie(request)
        csrf = auth.csrf_field(secret, cookie)
        fragment, etag = _team_fragment(team, csrf)
        html = pages.team_page(challenge, team.name, fragment, csrf=csrf, message=message, error=error,
                               used_today=store.count_today(team.key_id, challenge.count_failed), etag=etag)
        resp = HTMLResponse(html, status)
        if new:
            resp.set_cookie(auth.CSRF_COOKIE, cookie, httponly=True, samesite="strict",
                            secure=request.url.scheme == "https", path="/")
        return resp

    def team_fragment(request):
        team = session_team(request)
        if team is None:
            return err(401, "server.auth", "log in first")
        cookie, _new = _csrf_cookie(request)
        html, etag = _team_fragment(team, auth.csrf_field(secret, cookie))
        headers = {"etag": etag}
        if _not_modified(request, etag):
            return Response(status_code=304, headers=headers)
        return HTMLResponse(html, headers=headers)

    async def team_cancel(request):
        team = await run_in_threadpool(session_team, request)
        if team is None:
            return RedirectResponse("/login", 303)
        form = await request.form(max_files=0, max_fields=4)
        if not _form_ok(request, form.get("csrf")):
            return err(403, "server.csrf", "the form is stale or from another site: reload the page and try again")
        sid = str(form.get("id", ""))[:64]
        s = await run_in_threadpool(store.submission, sid)
        if s is None or s.team != team.key_id:
            return await run_in_threadpool(_team_page, request, team, "no such submission of your team", True, 404)
        if not await run_in_threadpool(store.cancel, sid, team.key_id):
            return await run_in_threadpool(_team_page, request, team,
                                           f"submission {sid} is no longer queued: not cancelled", True, 409)
        return await run_in_threadpool(_team_page, request, team, f"submission {sid} cancelled")

    def team_view(request):
        team = session_team(request)
        if team is None:
            return RedirectResponse("/login", 303)
        return _team_page(request, team)

    async def team_upload(request):
        team = await run_in_threadpool(session_team, request)
        if team is None:
            return RedirectResponse("/login", 303)
        if team.organiser:
            return err(403, "server.organiser", "an organiser submits nothing: log in with a team token")
        if not _same_origin(request):
            return err(403, "server.csrf", "the form is from another site")
        try:
            upload = await accept(request, team)
            if not auth.csrf_ok(secret, request.cookies.get(auth.CSRF_COOKIE), upload.fields.get("csrf")):
                upload.discard()
                return err(403, "server.csrf", "the form is stale or from another site: reload the page and try again")
            sub = await run_in_threadpool(_commit, team, upload, None, upload.received)
        except _Refused as r:
            return await run_in_threadpool(_team_page, request, team, r.message, True, r.status)
        except UploadError as e:
            return await run_in_threadpool(_team_page, request, team, e.message, True, e.status)
        return await run_in_threadpool(_team_page, request, team,
                                       f"submission {sub.id} accepted for {sub.problem}: queued for scoring")

    @asynccontextmanager
    async def lifespan(app):
        if dispatcher is not None and start_dispatcher:
            dispatcher.start()
        try:
            yield
        finally:
            if dispatcher is not None and start_dispatcher:
                await run_in_threadpool(dispatcher.stop)

    routes = [
        Route("/api/submissions", post_submission, methods=["POST"]),
        Route("/api/submissions", list_submissions, methods=["GET"]),
        Route("/api/submissions/{sid}", get_submission, methods=["GET"]),
        Route("/api/submissions/{sid}/cancel", cancel_submission, methods=["POST"]),
        Route("/api/leaderboard", guarded(get_leaderboard), methods=["GET"]),
        Route("/api/queue", get_queue, methods=["GET"]),
        Route("/api/results.csv", guarded(get_results), methods=["GET"]),
        Route("/fragment/board", guarded(board_fragment), methods=["GET"]),
        Route("/fragment/team", team_fragment, methods=["GET"]),
        Route("/api/problems", guarded(get_problems), methods=["GET"]),
        Route("/download/{key}/{name}", guarded(download), methods=["GET"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/style.css", style, methods=["GET"]),
        Route("/leaderboard.js", sort_script, methods=["GET"]),
        Route("/", guarded(home, page=True), methods=["GET"]),
        Route("/login", login_form, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/team", team_view, methods=["GET"]),
        Route("/team/upload", team_upload, methods=["POST"]),
        Route("/team/cancel", team_cancel, methods=["POST"]),
    ]
    app = _SecurityHeaders(Starlette(routes=routes, lifespan=lifespan))
    app.boards = boards          # the cache (tests count its builds)
    return app


class _Refused(UploadError):
    """A submission refused before its body is read (closed, rate limit, quota)."""

    def __init__(self, status, code, message, headers=None):
        super().__init__(status, code, message)
        self.headers = headers
