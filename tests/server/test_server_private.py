"""Private challenges and organiser tokens (issue 33): with ``challenge create --private``
every page and API answer except the login needs a team token or session; an organiser's
token (``challenge organiser add``) sees every board and the queue and submits nothing.
Skipped without the ``[server]`` extra."""

from __future__ import annotations

import contextlib
import io

import pytest

from server_helpers import bearer, make_challenge, need_server_extra

need_server_extra()

from d3mkit.io.executor import make_executor  # noqa: E402
from d3mkit.server.app import make_app  # noqa: E402
from d3mkit.server.challenge import open_challenge  # noqa: E402
from d3mkit.server.dispatch import Dispatcher  # noqa: E402
from d3mkit.server.store import Store  # noqa: E402

PID = "synth_000_problem"


def _organiser(root) -> str:
    from d3mkit.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["challenge", "organiser", "add", str(root), "ana"]) == 0
    return out.getvalue().strip()


@pytest.fixture
def private(tmp_path, monkeypatch):
    from starlette.testclient import TestClient
    monkeypatch.setenv("D3MKIT_FSYNC", "0")
    _p, subs, root, tokens = make_challenge(tmp_path, private=True, daily_quota=50, rate=1000)
    tokens["ana"] = _organiser(root)
    ch = open_challenge(root)
    store = Store.open(ch.default_db_url())
    client = TestClient(make_app(ch, store, Dispatcher(ch, store, lambda: make_executor(1)),
                                 start_dispatcher=False))
    yield ch, store, client, subs, tokens
    client.close()
    store.close()


@pytest.mark.slow
def test_a_private_challenge_answers_only_its_teams(private):
    ch, store, client, subs, tokens = private
    assert ch.private
    for path in ("/api/leaderboard", "/api/problems", "/fragment/board", "/download/p000/TEST.zip"):
        r = client.get(path)
        assert r.status_code == 401 and r.json()["error"]["code"] == "server.auth", path
        assert client.get(path, headers=bearer(tokens["alpha"])).status_code == 200, path
    assert client.get("/", follow_redirects=False).headers["location"] == "/login"
    for path in ("/login", "/healthz", "/style.css", "/leaderboard.js"):
        assert client.get(path).status_code == 200, path
    # a session from the login form opens the pages
    client.get("/login")
    from d3mkit.server import auth
    csrf = auth.csrf_field(ch.secret(), client.cookies.get(auth.CSRF_COOKIE))
    client.post("/login", data={"csrf": csrf, "token": tokens["beta"]}, follow_redirects=False)
    assert client.get("/").status_code == 200 and "leaderboard" in client.get("/").text


@pytest.mark.slow
def test_an_organiser_sees_every_board_and_the_queue_and_submits_nothing(private):
    ch, store, client, subs, tokens = private
    body = (subs / "system_00" / PID / "predictions.csv").read_bytes()
    post = client.post("/api/submissions", headers=bearer(tokens["alpha"]), data={"problem": PID},
                       files={"file": ("predictions.csv", body, "text/csv")})
    assert post.status_code == 202
    queue = client.get("/api/queue", headers=bearer(tokens["ana"]))
    assert queue.status_code == 200 and queue.json()["counts"] == {"queued": 1}
    assert queue.json()["oldest_waiting"]["id"] == post.json()["id"]
    assert client.get("/api/queue", headers=bearer(tokens["alpha"])).status_code == 403
    assert client.get("/api/leaderboard?board=private", headers=bearer(tokens["alpha"])).status_code == 403
    assert client.get("/api/leaderboard?board=private", headers=bearer(tokens["ana"])).status_code == 200
    r = client.post("/api/submissions", headers=bearer(tokens["ana"]), data={"problem": PID},
                    files={"file": ("predictions.csv", body, "text/csv")})
    assert r.status_code == 403 and r.json()["error"]["code"] == "server.organiser"
    assert "ana" not in store.teams().values()              # never on a board


@pytest.mark.slow
def test_baselines_are_drawn_apart_and_results_are_downloadable_after_finalize(tmp_path, monkeypatch):
    import csv
    from starlette.testclient import TestClient

    from d3mkit.cli import main
    from d3mkit.server.dispatch import finalize
    monkeypatch.setenv("D3MKIT_FSYNC", "0")
    _p, subs, root, tokens = make_challenge(tmp_path, daily_quota=50, rate=1000)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["challenge", "team", "add", str(root), "majority", "--baseline"]) == 0
    tokens["majority"] = out.getvalue().strip()
    ch = open_challenge(root)
    store = Store.open(ch.default_db_url())
    client = TestClient(make_app(ch, store, Dispatcher(ch, store, lambda: make_executor(1)), start_dispatcher=False))
    for team, system in (("alpha", 0), ("beta", 1), ("majority", 2)):
        body = (subs / f"system_{system:02d}" / PID / "predictions.csv").read_bytes()
        assert client.post("/api/submissions", headers=bearer(tokens[team]), data={"problem": PID},
                           files={"file": ("predictions.csv", body, "text/csv")}).status_code == 202
    Dispatcher(ch, store, lambda: make_executor(1)).drain()
    board = client.get("/api/leaderboard").json()
    assert [r["team"] for r in board["overall"]] and "majority" not in [r["team"] for r in board["overall"]]
    assert [b["team"] for b in board["baselines"]] == ["majority"] and board["baselines"][0]["scores"]
    assert "Baselines (not ranked)" in client.get("/").text
    assert client.get("/api/results.csv").status_code == 403                  # not before finalize
    finalize(ch, store, lambda: make_executor(1))
    assert 'href="/api/results.csv"' in client.get("/").text
    r = client.get("/api/results.csv")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert {(x["team"], x["fold"]) for x in rows} >= {("alpha", "public"), ("alpha", "private"),
                                                      ("majority", "private")}
    assert {x["baseline"] for x in rows if x["team"] == "majority"} == {"yes"}
    assert all(x["value"] for x in rows) and {x["metric"] for x in rows} == {"accuracy", "f1Macro"}
    client.close()
    store.close()
