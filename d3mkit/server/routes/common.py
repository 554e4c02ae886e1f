"""What every area's handlers share: the server's state (:class:`ServerState`, held by the
app and read from the request), the error shape ``{"error": {"code", "message"}}``, who is
asking (a bearer token or a session cookie) and the CSRF cookie and form checks.

One owner for these so that the 401s, the 403s and the CSRF wording read the same in every area.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from starlette.responses import JSONResponse, RedirectResponse

from d3mkit.server import auth

IDEMPOTENCY_KEY = re.compile(r"^[A-Za-z0-9_.:-]{1,100}$")
STALE_FORM = "the form is stale or from another site: reload the page and try again"


@dataclass
class ServerState:
    """What the handlers work on: the ``challenge``, its ``store``, the ``dispatcher`` that
    scores (None: nothing does), the boards' cache, the secret signing sessions and CSRF
    tokens, and ``live_poll`` (seconds between two looks of a live page at its board)."""

    challenge: object
    store: object
    dispatcher: object
    boards: object
    secret: bytes
    start_dispatcher: bool = True
    live_poll: float = 5.0
    by_key: dict = field(default_factory=dict)     # archive key -> problemID

    @property
    def scoring(self) -> bool:
        """True when this app starts (and so answers for) the dispatcher."""
        return self.dispatcher is not None and self.start_dispatcher


def state(request) -> ServerState:
    """The server state of the app ``request`` came to."""
    return request.app.state.server


def err(status: int, code: str, message: str, headers: dict | None = None):
    return JSONResponse({"error": {"code": code, "message": message}}, status, headers=headers)


def not_modified(request, etag: str) -> bool:
    return etag in [t.strip() for t in request.headers.get("if-none-match", "").split(",")]


# ---------------------------------------------------------------------- who is asking
def api_team(request):
    """The team of the request's bearer token; None, with ``request.state.auth`` saying
    whether a token was sent at all (the 401's wording)."""
    token = auth.bearer(request.headers.get("authorization"))
    request.state.auth = "missing" if token is None else "invalid"
    return auth.check_token(state(request).store, token)


def unauthorized(request=None):
    if request is not None and getattr(request.state, "auth", "missing") == "invalid":
        return err(401, "server.bad_token", "the token is not valid: check that you copied it whole, "
                   "or ask the organisers for your team's token", {"www-authenticate": 'Bearer error="invalid_token"'})
    return err(401, "server.auth", "no token: send the team token as 'Authorization: Bearer TOKEN'",
               {"www-authenticate": "Bearer"})


def session_team(request):
    st = state(request)
    key_id = auth.team_of_session(request.cookies.get(auth.SESSION_COOKIE), st.secret)
    return st.store.team(key_id) if key_id else None


def viewer(request):
    """The team (or organiser) of the request's bearer token or session, else None."""
    token = auth.bearer(request.headers.get("authorization"))
    if token is not None:
        return auth.check_token(state(request).store, token)
    return session_team(request)


def is_organiser(request) -> bool:
    who = getattr(request.state, "viewer", None) or viewer(request)
    return who is not None and who.organiser


def guarded(handler, page: bool = False):
    """``handler`` answering only a team or organiser on a private challenge (pages
    send the others to the login form; the API answers 401)."""
    def wrapped(request):
        if state(request).challenge.private:
            who = viewer(request)
            if who is None:
                if page:
                    return RedirectResponse("/login", 303)
                return err(401, "server.auth", "a private challenge: send a team token "
                           "('Authorization: Bearer TOKEN') or log in", {"www-authenticate": "Bearer"})
            request.state.viewer = who
        return handler(request)
    wrapped.__name__ = handler.__name__
    wrapped.__doc__ = handler.__doc__
    return wrapped


# ------------------------------------------------------------------------ CSRF
def csrf_cookie(request) -> tuple[str, bool]:
    """(the request's CSRF cookie, True when it is new: none or a malformed one was sent)."""
    c = request.cookies.get(auth.CSRF_COOKIE)
    if c and 16 <= len(c) <= 64:
        return c, False
    return auth.new_csrf_cookie(), True


def set_csrf_cookie(request, response, cookie: str) -> None:
    response.set_cookie(auth.CSRF_COOKIE, cookie, httponly=True, samesite="strict",
                        secure=request.url.scheme == "https", path="/")


def with_csrf(handler):
    """``handler`` with ``request.state.csrf_cookie`` set (and sent, when new)."""
    def wrapped(request):
        cookie, new = csrf_cookie(request)
        request.state.csrf_cookie = cookie
        resp = handler(request)
        if new:
            set_csrf_cookie(request, resp, cookie)
        return resp
    wrapped.__name__ = handler.__name__
    wrapped.__doc__ = handler.__doc__
    return wrapped


def page_csrf(request) -> str:
    """The form field matching the cookie sent with this page (set now if it was missing)."""
    return auth.csrf_field(state(request).secret, request.state.csrf_cookie)


def same_origin(request) -> bool:
    """No sign of another site: the Origin names this host, or (no Origin, or "null")
    the browser's Sec-Fetch-Site says same-origin or is absent. The CSRF token is checked too."""
    origin = request.headers.get("origin")
    if origin is None or origin == "null":
        return request.headers.get("sec-fetch-site", "same-origin") in ("same-origin", "none")
    return origin.split("://", 1)[-1] == request.headers.get("host", "")


def form_ok(request, field_: str | None) -> bool:
    return same_origin(request) and auth.csrf_ok(state(request).secret, request.cookies.get(auth.CSRF_COOKIE), field_)
