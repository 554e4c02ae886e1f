"""Accepting a submitted file, for the API and the team page alike: the gate before its body
is read (finalized, closed phase, rate limit, quotas), the streamed body, and the commit that
renames it into ``uploads/``, fsyncs it, records its row and wakes the dispatcher.

One owner so that both doors refuse the same way, with the same codes and messages.
"""

from __future__ import annotations

import os
import secrets

from starlette.concurrency import run_in_threadpool

from d3mkit.io.atomic import fsync_path
from d3mkit.server import store as store_mod
from d3mkit.server.store import Closed, QuotaExceeded, RateLimited
from d3mkit.server.upload import UploadError, receive


class Refused(UploadError):
    """A submission refused before its body is read (closed, rate limit, quota)."""

    def __init__(self, status, code, message, headers=None):
        super().__init__(status, code, message)
        self.headers = headers


def limits(st):
    """(daily quota, (total quota, since) or None) of the phase open now."""
    challenge = st.challenge
    phase = challenge.phase_now(store_mod.now())
    daily = phase.daily_quota if phase is not None and phase.daily_quota else challenge.daily_quota
    total = (phase.total_quota, phase.start) if phase is not None and phase.total_quota else None
    return daily, total


def gate(st, team) -> tuple | None:
    """(status, code, message, headers) refusing a submission before its body is read."""
    challenge, store = st.challenge, st.store
    if store.finalized():
        return 409, "server.closed", "the challenge is finalized; no more submissions", None
    closed = challenge.closed_message(store_mod.now())
    if closed:
        return 409, "server.closed", closed, None
    daily, total = limits(st)
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


def commit(st, team, upload, idem, received=None):
    """Record ``upload`` (its body received) as ``team``'s submission; raise :class:`Refused`
    or :class:`UploadError` (the file discarded) when it cannot be."""
    challenge, store = st.challenge, st.store
    problem = upload.fields.get("problem", "")
    if problem not in challenge.problems:
        upload.discard()
        raise UploadError(400, "server.unknown_problem", "unknown problem: give a problemID "
                          "that GET /api/problems lists")
    if upload.path is None or upload.size == 0:
        upload.discard()
        raise UploadError(400, "server.form", "no file: send the predictions as the 'file' part")
    sid = secrets.token_hex(16)
    final = challenge.uploads / f"{sid}.csv"
    os.rename(upload.path, final)
    upload.path = final
    fsync_path(challenge.uploads)
    try:
        daily, total = limits(st)
        sub = store.add_submission(sid, team.key_id, problem, upload.size, upload.sha256, idem,
                                   daily, challenge.rate_per_minute,
                                   count_failed=challenge.count_failed, received=received,
                                   is_open=lambda at: challenge.closed_message(at, problem), total=total)
    except Closed as exc:         # finalized while the body was arriving
        upload.discard()
        raise Refused(409, "server.closed", exc.issues[0].message) from None
    except QuotaExceeded as exc:
        upload.discard()
        raise Refused(429, "server.quota", exc.issues[0].message,
                      {"retry-after": "3600"} if "daily" in exc.issues[0].message else None) from None
    except RateLimited as exc:
        upload.discard()
        raise Refused(429, "server.rate_limit", exc.issues[0].message,
                      {"retry-after": str(exc.retry_after)}) from None
    except BaseException:
        upload.discard()
        raise
    if sub.id != sid:          # the same idempotency key: the earlier submission stands
        upload.discard()
    if st.dispatcher is not None:
        st.dispatcher.wake()
    return sub


async def accept(st, request, team):
    """The request's body, streamed to a file, once the gate lets ``team`` submit."""
    refused = await run_in_threadpool(gate, st, team)
    if refused:
        raise Refused(*refused)
    upload = await receive(request, st.challenge.uploads, st.challenge.max_bytes)
    upload.received = store_mod.now()
    return upload
