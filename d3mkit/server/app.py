"""The server's ASGI application (Starlette, served by uvicorn).

What this module owns: :func:`make_app`, which puts the areas' routes together
(:mod:`d3mkit.server.routes`: submissions, boards, teams, organisers, health), holds the
server's state for their handlers, starts and stops the dispatcher, and adds the security
headers to every response. The routes:

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
dispatcher (:mod:`d3mkit.server.dispatch`) and answer. Every response carries a
Content-Security-Policy, ``X-Content-Type-Options: nosniff``, ``X-Frame-Options: DENY``,
``Referrer-Policy: same-origin``; API and team pages ``Cache-Control: no-store``.
"""

from __future__ import annotations

from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool

from d3mkit.server.boardcache import BoardCache
from d3mkit.server.routes import boards, health, organisers, submissions, teams
from d3mkit.server.routes.common import ServerState

CSP = ("default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' data:; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
SECURITY_HEADERS = [(b"content-security-policy", CSP.encode()), (b"x-content-type-options", b"nosniff"),
                    (b"x-frame-options", b"DENY"), (b"referrer-policy", b"same-origin"),
                    (b"cross-origin-opener-policy", b"same-origin")]
ROUTES = [*submissions.ROUTES, *boards.ROUTES, *organisers.ROUTES, *teams.ROUTES, *health.ROUTES]


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


@asynccontextmanager
async def _lifespan(app):
    st = app.state.server
    if st.scoring:
        st.dispatcher.start()
    try:
        yield
    finally:
        if st.scoring:
            await run_in_threadpool(st.dispatcher.stop)


def make_app(challenge, store, dispatcher=None, *, start_dispatcher: bool = True,
             live_poll: float = 5.0):
    """The ASGI application of ``challenge`` over ``store``; ``dispatcher`` scores (started
    and stopped with the app when ``start_dispatcher``); ``live_poll``: seconds between two
    looks of a live page at its board."""
    secret = challenge.secret()
    st = ServerState(challenge, store, dispatcher, BoardCache(challenge, store), secret,
                     start_dispatcher=start_dispatcher, live_poll=live_poll,
                     by_key={e.key: pid for pid, e in challenge.problems.items()})
    inner = Starlette(routes=ROUTES, lifespan=_lifespan)
    inner.state.server = st
    app = _SecurityHeaders(inner)
    app.boards = st.boards          # the cache (tests count its builds)
    return app
