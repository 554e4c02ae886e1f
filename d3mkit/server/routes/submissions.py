"""The submissions API: a team posts a file (202, scored later), lists its submissions, reads
one with its history and cancels a queued one. Bearer tokens only; a team sees its own
submissions and nobody else's (another team's id answers 404, as an unknown one does).
"""

from __future__ import annotations

import secrets

from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse
from starlette.routing import Route

from d3mkit.server.routes.accept import Refused, accept, commit
from d3mkit.server.routes.common import IDEMPOTENCY_KEY, api_team, err, state, unauthorized
from d3mkit.server.upload import UploadError


def charged(challenge, s) -> bool:
    """True when submission ``s`` counts against its team's quota."""
    if s.status == "cancelled" or (s.status == "failed" and s.failure == "platform"):
        return False
    return not (s.status == "failed" and not challenge.count_failed)


def sub_json(st, s, history: bool = False) -> dict:
    """Submission ``s`` as the API shows it to its team (with its state changes: ``history``)."""
    challenge = st.challenge
    out = {"id": s.id, "problem": s.problem, "status": s.shown_status,
           "created": s.created, "scores": [
               {"metric": m["metric"], "value": None if m["value"] is None
                else round(m["value"], challenge.precision)} for m in (s.public or [])],
           "issues": s.issues, "failure": s.failure, "charged": charged(challenge, s)}
    if history:
        out["history"] = st.store.events(s.id)
    return out


async def post_submission(request):
    st = state(request)
    team = await run_in_threadpool(api_team, request)
    if team is None:
        return unauthorized(request)
    if team.organiser:
        return err(403, "server.organiser", "an organiser's token submits nothing: use a team token")
    idem = request.headers.get("idempotency-key")
    if idem is not None and not IDEMPOTENCY_KEY.match(idem):
        return err(400, "server.form", "Idempotency-Key: 1-100 letters, digits or _.:-")
    if idem is not None:
        earlier = await run_in_threadpool(st.store.by_idempotency_key, team.key_id, idem)
        if earlier is not None:
            return JSONResponse({"id": earlier.id, "status": earlier.shown_status}, 202)
    try:
        upload = await accept(st, request, team)
        sub = await run_in_threadpool(commit, st, team, upload, idem, upload.received)
    except Refused as r:
        return err(r.status, r.code, r.message, r.headers)
    except UploadError as e:
        return err(e.status, e.code, e.message)
    return JSONResponse({"id": sub.id, "status": sub.shown_status}, 202,
                        headers={"location": f"/api/submissions/{sub.id}"})


def own(request):
    """(the path's submission, None) when it is the asking team's, else (None, the error response)."""
    team = api_team(request)
    if team is None:
        return None, unauthorized(request)
    s = state(request).store.submission(request.path_params["sid"])
    if s is None or not secrets.compare_digest(s.team.encode(), team.key_id.encode()):
        return None, err(404, "server.not_found", "no such submission of your team")
    return s, None


def get_submission(request):
    s, refused = own(request)
    if refused is not None:
        return refused
    return JSONResponse(sub_json(state(request), s, history=True))


def cancel_submission(request):
    s, refused = own(request)
    if refused is not None:
        return refused
    st = state(request)
    if not st.store.cancel(s.id, s.team):
        now = st.store.submission(s.id)
        return err(409, "server.not_cancellable", f"submission {s.id} is {now.status}: only a queued "
                   f"submission can be cancelled")
    return JSONResponse(sub_json(st, st.store.submission(s.id), history=True))


def list_submissions(request):
    team = api_team(request)
    if team is None:
        return unauthorized(request)
    st = state(request)
    return JSONResponse({"submissions": [sub_json(st, s) for s in st.store.submissions(team=team.key_id)]})


ROUTES = [
    Route("/api/submissions", post_submission, methods=["POST"]),
    Route("/api/submissions", list_submissions, methods=["GET"]),
    Route("/api/submissions/{sid}", get_submission, methods=["GET"]),
    Route("/api/submissions/{sid}/cancel", cancel_submission, methods=["POST"]),
]
