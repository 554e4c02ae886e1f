"""The server's handlers one by one (issue 31 item 6): each is a module-level function of
:mod:`d3mkit.server.routes` reading the server's state from its request's app, so a test can
call it on a bare ASGI request, or serve one area's routes alone, without make_app."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest

from server_helpers import make_challenge, need_server_extra

need_server_extra()

from starlette.applications import Starlette  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from d3mkit.server.app import ROUTES, make_app  # noqa: E402
from d3mkit.server.boardcache import BoardCache  # noqa: E402
from d3mkit.server.challenge import open_challenge  # noqa: E402
from d3mkit.server.routes import boards, health, submissions  # noqa: E402
from d3mkit.server.routes.common import ServerState  # noqa: E402
from d3mkit.server.store import Store  # noqa: E402

PID = "synth_000_problem"


@pytest.fixture
def served(tmp_path, monkeypatch):
    monkeypatch.setenv("D3MKIT_FSYNC", "0")
    _problems, _subs, root, tokens = make_challenge(tmp_path)
    ch = open_challenge(root)
    store = Store.open(ch.default_db_url())
    st = ServerState(ch, store, None, BoardCache(ch, store), ch.secret(),
                     by_key={e.key: pid for pid, e in ch.problems.items()})
    yield st, tokens
    store.close()


def request(st, path="/", *, method="GET", headers=(), query=b"", path_params=None):
    """A bare ASGI request to an app holding ``st`` (no server, no client)."""
    scope = {"type": "http", "method": method, "path": path, "query_string": query,
             "headers": [(k.lower().encode(), v.encode()) for k, v in headers],
             "app": SimpleNamespace(state=SimpleNamespace(server=st)), "path_params": path_params or {}}
    return Request(scope)


def body(response) -> dict:
    return json.loads(response.body)


def test_health_and_problems_answer_from_the_state_alone(served):
    st, _ = served
    r = health.healthz(request(st, "/healthz"))
    assert r.status_code == 200 and body(r) == {"status": "ok"}
    r = boards.get_problems(request(st, "/api/problems"))
    got = body(r)["problems"]
    assert [p["problemID"] for p in got] == sorted(st.challenge.problems)
    key = st.challenge.problems[PID].key
    assert got[0]["train"] == f"/download/{key}/TRAIN.zip"


def test_submissions_handlers_check_the_token_and_show_a_team_its_own(served):
    st, tokens = served
    r = submissions.list_submissions(request(st, "/api/submissions"))
    assert r.status_code == 401 and body(r)["error"]["code"] == "server.auth"
    assert r.headers["www-authenticate"] == "Bearer"
    r = submissions.list_submissions(request(st, "/api/submissions", headers=[("Authorization", "Bearer nope")]))
    assert r.status_code == 401 and body(r)["error"]["code"] == "server.bad_token"
    r = submissions.list_submissions(request(st, "/api/submissions",
                                             headers=[("Authorization", f"Bearer {tokens['alpha']}")]))
    assert r.status_code == 200 and body(r) == {"submissions": []}
    r = submissions.get_submission(request(st, "/api/submissions/x", path_params={"sid": "x" * 32},
                                           headers=[("Authorization", f"Bearer {tokens['alpha']}")]))
    assert r.status_code == 404 and body(r)["error"]["message"] == "no such submission of your team"
    # an async handler: refused before its body is read
    r = asyncio.run(submissions.post_submission(request(st, "/api/submissions", method="POST")))
    assert r.status_code == 401 and body(r)["error"]["code"] == "server.auth"


def test_leaderboard_handler_refuses_a_bad_part_and_answers_304_to_its_etag(served):
    st, _ = served
    r = boards.get_leaderboard(request(st, "/api/leaderboard", query=b"board=other"))
    assert r.status_code == 400 and body(r)["error"]["message"] == "board is 'public' or 'private'"
    r = boards.get_leaderboard(request(st, "/api/leaderboard", query=b"board=private"))
    assert r.status_code == 403 and body(r)["error"]["code"] == "server.not_final"
    r = boards.get_leaderboard(request(st, "/api/leaderboard"))
    assert r.status_code == 200 and r.headers["etag"]
    again = boards.get_leaderboard(request(st, "/api/leaderboard", headers=[("If-None-Match", r.headers["etag"])]))
    assert again.status_code == 304 and again.headers["etag"] == r.headers["etag"]


def test_one_area_served_alone_and_every_area_in_make_app(served):
    st, _ = served
    app = Starlette(routes=health.ROUTES)
    app.state.server = st
    with TestClient(app) as c:
        assert c.get("/healthz").json() == {"status": "ok"}
        assert c.get("/api/problems").status_code == 404        # another area's route
    paths = {(r.path, m) for r in ROUTES for m in r.methods}
    for area in (submissions, boards, health):
        assert {(r.path, m) for r in area.ROUTES for m in r.methods} <= paths
    with TestClient(make_app(st.challenge, st.store, None, start_dispatcher=False)) as c:
        r = c.get("/healthz")
        assert r.json() == {"status": "ok"} and r.headers["x-frame-options"] == "DENY"
