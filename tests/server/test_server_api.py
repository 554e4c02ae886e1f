"""The evaluation server's API and rules, through an in-process client (Starlette's
TestClient): scores equal to ``d3mkit score`` on the public rows, auth, one team never sees
another's submissions, quota and rate limit (429), size cap (413), content types (415),
CSRF, no truth leak, the public/private split and finalize, headers, durability of the
queue, the missing-extra hint. Skipped without the ``[server]`` extra."""

from __future__ import annotations

import io
import json
import re
import zipfile

import pandas as pd
import pytest

from server_helpers import bearer, expected_scores, make_challenge, need_server_extra

need_server_extra()

from d3mkit.io.executor import make_executor  # noqa: E402
from d3mkit.server.app import make_app  # noqa: E402
from d3mkit.server.challenge import open_challenge  # noqa: E402
from d3mkit.server.dispatch import Dispatcher  # noqa: E402
from d3mkit.server.store import Store  # noqa: E402

PID = "synth_000_problem"     # classification (accuracy, f1Macro)
PID_REG = "synth_001_problem"  # regression


class Server:
    def __init__(self, tmp, **options):
        from starlette.testclient import TestClient
        self.problems, self.subs, self.root, self.tokens = make_challenge(tmp, **options)
        self.ch = open_challenge(self.root)
        self.store = Store.open(self.ch.default_db_url())
        self.dispatcher = Dispatcher(self.ch, self.store, lambda: make_executor(1))
        self.client = TestClient(make_app(self.ch, self.store, self.dispatcher, start_dispatcher=False))

    def pred(self, system: int = 0, pid: str = PID):
        return self.subs / f"system_{system:02d}" / pid / "predictions.csv"

    def post(self, team="alpha", pid=PID, data: bytes | None = None, system: int = 0, **kw):
        body = self.pred(system, pid).read_bytes() if data is None else data
        return self.client.post("/api/submissions", headers=bearer(self.tokens[team]) | kw.pop("headers", {}),
                                data={"problem": pid}, files={"file": ("predictions.csv", body, "text/csv")}, **kw)

    def get(self, sid, team="alpha"):
        return self.client.get(f"/api/submissions/{sid}", headers=bearer(self.tokens[team]))


@pytest.fixture
def srv(tmp_path, monkeypatch):
    monkeypatch.setenv("D3MKIT_FSYNC", "0")
    s = Server(tmp_path, daily_quota=50, rate=1000)
    yield s
    s.client.close()
    s.store.close()


@pytest.mark.slow
def test_submission_is_scored_like_d3mkit_score_on_the_public_rows(srv):
    ids = {}
    for system, pid in ((0, PID), (1, PID), (0, PID_REG)):
        r = srv.post(pid=pid, system=system)
        assert r.status_code == 202 and r.json()["status"] == "queued", r.text
        assert set(r.json()) == {"id", "status"}
        assert srv.get(r.json()["id"]).json()["status"] == "queued"
        ids[(system, pid)] = r.json()["id"]
    srv.dispatcher.drain()
    for (system, pid), sid in ids.items():
        got = srv.get(sid).json()
        assert got["status"] == "scored" and got["problem"] == pid and got["issues"] == []
        want = expected_scores(srv.problems, srv.root, pid, srv.pred(system, pid))
        assert [s["metric"] for s in got["scores"]] == list(want)
        for s in got["scores"]:
            assert s["value"] == round(want[s["metric"]], 4)          # the precision shown
        full = expected_scores(srv.problems, srv.root, pid, srv.pred(system, pid), "all")
        assert full != want          # the public part is not the whole TEST set
    board = srv.client.get("/api/leaderboard").json()
    assert board["board"] == "public" and board["overall"][0]["team"] == "alpha"


@pytest.mark.slow
def test_auth_and_teams_see_only_their_own(srv):
    r = srv.client.post("/api/submissions", data={"problem": PID},
                        files={"file": ("p.csv", b"d3mIndex,y\n", "text/csv")})
    assert r.status_code == 401 and r.json()["error"]["code"] == "server.auth"
    forged = srv.tokens["alpha"][:-3] + "xyz"
    assert srv.client.get("/api/submissions", headers=bearer(forged)).status_code == 401
    assert srv.client.get("/api/submissions", headers=bearer("d3m.nope.nope")).status_code == 401
    sid = srv.post("alpha").json()["id"]
    other = srv.get(sid, team="beta")
    assert other.status_code == 404 and other.json()["error"]["code"] == "server.not_found"
    assert srv.get("0" * 32, team="beta").json() == other.json()      # the same as no such id
    assert srv.client.get("/api/submissions", headers=bearer(srv.tokens["beta"])).json() == {"submissions": []}
    assert len(srv.client.get("/api/submissions", headers=bearer(srv.tokens["alpha"])).json()["submissions"]) == 1
    # tokens are stored hashed
    text = (srv.root / "challenge.sqlite").read_bytes()
    assert srv.tokens["alpha"].split(".")[2].encode() not in text


@pytest.mark.slow
def test_quota_and_rate_limit_answer_429(tmp_path, monkeypatch):
    monkeypatch.setenv("D3MKIT_FSYNC", "0")
    s = Server(tmp_path / "q", daily_quota=2, rate=1000)
    assert [s.post().status_code for _ in range(2)] == [202, 202]
    r = s.post()
    assert r.status_code == 429 and r.json()["error"]["code"] == "server.quota"
    assert "daily quota of 2" in r.json()["error"]["message"] and r.headers["retry-after"]
    assert s.post(team="beta").status_code == 202                   # per team
    assert len(list(s.ch.uploads.glob("*.csv"))) == 3 and not list(s.ch.uploads.glob(".upload-*"))
    s2 = Server(tmp_path / "r", daily_quota=50, rate=2)
    codes = [s2.post().status_code for _ in range(3)]
    assert codes == [202, 202, 429]
    r = s2.post()
    assert r.json()["error"]["code"] == "server.rate_limit" and int(r.headers["retry-after"]) >= 1


@pytest.mark.slow
def test_size_cap_and_content_types(tmp_path, monkeypatch):
    monkeypatch.setenv("D3MKIT_FSYNC", "0")
    s = Server(tmp_path, daily_quota=50, rate=1000, max_size_mb=0.001)     # 1,048 bytes
    big = b"d3mIndex,y\n" + b"".join(b"%d,a\n" % i for i in range(400))
    r = s.post(data=big)
    assert r.status_code == 413 and r.json()["error"]["code"] == "server.too_large"
    # streamed without a Content-Length: stopped by the count, not the header
    body, ctype = _multipart(big)
    r = s.client.post("/api/submissions", content=iter([body[:500], body[500:]]),
                      headers=bearer(s.tokens["alpha"]) | {"content-type": ctype})
    assert r.status_code == 413
    r = s.client.post("/api/submissions", json={"problem": PID}, headers=bearer(s.tokens["alpha"]))
    assert r.status_code == 415 and r.json()["error"]["code"] == "server.content_type"
    r = s.client.post("/api/submissions", headers=bearer(s.tokens["alpha"]), data={"problem": PID},
                      files={"file": ("x.png", b"\x89PNG", "image/png")})
    assert r.status_code == 415
    r = s.client.post("/api/submissions", headers=bearer(s.tokens["alpha"]), data={"problem": "../../etc"},
                      files={"file": ("p.csv", b"d3mIndex,y\n1,a\n", "text/csv")})
    assert r.status_code == 400 and r.json()["error"]["code"] == "server.unknown_problem"
    assert not list(s.ch.uploads.iterdir())          # nothing refused is kept
    assert s.store.counts() == {}


def _multipart(data: bytes):
    from d3mkit.server.client import multipart
    return multipart({"problem": PID}, "file", "predictions.csv", data)


@pytest.mark.slow
def test_issues_name_the_submission_never_the_truth(srv):
    truth = pd.read_csv(srv.ch.truth(PID)["all"], dtype=str)
    df = pd.read_csv(srv.pred(0), dtype=str)
    df.loc[:2, "y"] = "zzz_unseen"          # labels the truth never holds: scored, no hint
    r = srv.post(data=df.to_csv(index=False).encode())
    bad = df.iloc[: len(df) // 2]           # missing rows: failed, names only d3mIndex values
    r2 = srv.post(data=bad.to_csv(index=False).encode())
    srv.dispatcher.drain()
    ok, failed = srv.get(r.json()["id"]).json(), srv.get(r2.json()["id"]).json()
    assert ok["status"] == "scored" and all(i["code"] != "predictions.unseen_label" for i in ok["issues"])
    assert failed["status"] == "failed"
    assert [i["code"] for i in failed["issues"]] == ["predictions.index_set"]
    text = json.dumps([ok, failed])
    assert str(srv.root) not in text and "targets" not in text and "SCORE" not in text
    public = set(pd.read_csv(srv.ch.truth(PID)["public"], dtype=str)["d3mIndex"])
    assert "public" not in failed["issues"][0]["message"]
    # the missing rows named are the TEST rows the file lacks, public and private alike
    named = set(re.findall(r"\d+", failed["issues"][0]["message"].split("missing (")[1]))
    assert named - public and named & public
    assert not set(truth["y"]) & set(re.findall(r"'([^']*)'", text))


def test_truth_files_are_never_served(srv):
    for path in ("/download/p000/TRAIN.zip", "/download/p000/TEST.zip"):
        r = srv.client.get(path)
        assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
    z = zipfile.ZipFile(io.BytesIO(srv.client.get("/download/p000/TEST.zip").content))
    ld = [n for n in z.namelist() if n.endswith("learningData.csv")][0]
    assert set(pd.read_csv(z.open(ld), dtype=str, keep_default_na=False)["y"]) == {""}
    assert not [n for n in z.namelist() if "targets" in n or "SCORE" in n]
    for path in ("/download/p000/targets.csv", "/download/p000/..%2F..%2Fprivate%2Fp000%2Ftargets.csv",
                 "/download/..%2Fprivate/targets.csv", "/download/p999/TRAIN.zip", "/private/p000/targets.csv",
                 "/challenge.json", "/secret.key", "/challenge.sqlite", "/uploads/", "/download/p000/%2E%2E",
                 "/download/p000/TEST.zip/../../private/p000/targets.csv", "/static/../challenge.json"):
        r = srv.client.get(path)
        assert r.status_code == 404, path
        assert b"d3mIndex" not in r.content


@pytest.mark.slow
def test_public_private_split_and_finalize(srv):
    from d3mkit.server.dispatch import finalize
    sids = [srv.post(team=t, system=k).json()["id"] for t, k in (("alpha", 0), ("beta", 1), ("alpha", 2))]
    srv.dispatcher.drain()
    assert srv.client.get("/api/leaderboard?board=private").status_code == 403
    got = srv.get(sids[0]).json()
    assert set(got) == {"id", "problem", "status", "created", "scores", "issues", "failure", "charged", "history"}
    assert srv.store.submission(sids[0]).private is None        # nothing private computed yet
    cfg = json.loads((srv.root / "challenge.json").read_text())
    entry = cfg["problems"][0]
    assert cfg["seed"] == 11 and entry["public_units"] == 10 and entry["units"] == 20
    done = finalize(srv.ch, srv.store, lambda: make_executor(1))
    assert done["private_scored"] == 3
    priv = srv.client.get("/api/leaderboard?board=private").json()
    assert priv["finalized"] and priv["board"] == "private"
    entries = {e["team"]: e for e in priv["problems"][0]["entries"]}
    # a team's private entry is its best public submission, scored on the private rows
    pub = {e["team"]: e for e in srv.client.get("/api/leaderboard").json()["problems"][0]["entries"]}
    best = max((0, 2), key=lambda k: expected_scores(srv.problems, srv.root, PID, srv.pred(k))["accuracy"])
    want = expected_scores(srv.problems, srv.root, PID, srv.pred(best), "private")
    assert entries["alpha"]["scores"]["accuracy"] == round(want["accuracy"], 4)
    assert pub["alpha"]["scores"]["accuracy"] == round(
        expected_scores(srv.problems, srv.root, PID, srv.pred(best))["accuracy"], 4)
    r = srv.post()
    assert r.status_code == 409 and r.json()["error"]["code"] == "server.closed"
    assert "Private leaderboard" in srv.client.get("/").text


@pytest.mark.slow
def test_same_seed_same_split(tmp_path, monkeypatch):
    monkeypatch.setenv("D3MKIT_FSYNC", "0")
    a = make_challenge(tmp_path / "a", teams=(), fresh=True)[2]
    b = make_challenge(tmp_path / "b", teams=(), fresh=True)[2]
    for key in ("p000", "p001"):
        assert (a / "private" / key / "targets_public.csv").read_bytes() == \
               (b / "private" / key / "targets_public.csv").read_bytes()


def test_security_headers_everywhere(srv):
    for path in ("/", "/login", "/api/leaderboard", "/healthz", "/nope", "/api/problems"):
        h = srv.client.get(path).headers
        assert "default-src 'none'" in h["content-security-policy"], path
        assert h["x-content-type-options"] == "nosniff" and h["x-frame-options"] == "DENY"
    board = srv.client.get("/api/leaderboard")
    assert board.headers["cache-control"] == "no-cache" and board.headers["etag"]     # revalidated
    assert srv.client.get("/team").headers["cache-control"] == "no-store"
    assert srv.client.get("/healthz").json() == {"status": "ok"}


def _csrf(client, page="/login"):
    html = client.get(page).text
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


@pytest.mark.slow
def test_csrf_on_every_form(srv):
    c = srv.client
    field = _csrf(c)
    token = srv.tokens["alpha"]
    assert c.post("/login", data={"token": token}).status_code == 403
    assert c.post("/login", data={"token": token, "csrf": "0" * 64}).status_code == 403
    assert c.post("/login", data={"token": token, "csrf": field},
                  headers={"origin": "http://evil.example"}).status_code == 403
    bad = c.post("/login", data={"token": token + "x", "csrf": field})
    assert bad.status_code == 401 and "unknown token" in bad.text
    r = c.post("/login", data={"token": token, "csrf": field}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/team"
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    page = c.get("/team")
    assert page.status_code == 200 and "alpha" in page.text
    field = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
    body = srv.pred(0).read_bytes()
    r = c.post("/team/upload", data={"problem": PID}, files={"file": ("predictions.csv", body, "text/csv")})
    assert r.status_code == 403 and r.json()["error"]["code"] == "server.csrf"
    r = c.post("/team/upload", data={"problem": PID, "csrf": field},
               files={"file": ("predictions.csv", body, "text/csv")})
    assert r.status_code == 200 and "accepted" in r.text
    assert srv.store.counts() == {"queued": 1}
    srv.dispatcher.drain()
    assert "scored" in c.get("/team").text
    # another browser (no cookie) cannot post the form, even with a valid field
    from starlette.testclient import TestClient
    other = TestClient(c.app)
    assert other.post("/team/upload", data={"problem": PID, "csrf": field}, follow_redirects=False,
                      files={"file": ("predictions.csv", body, "text/csv")}).status_code == 303
    assert srv.store.counts() == {"scored": 1}


def test_idempotency_key_records_once(srv):
    h = {"Idempotency-Key": "retry-1"}
    a, b = srv.post(headers=h), srv.post(headers=h)
    assert a.status_code == b.status_code == 202 and a.json()["id"] == b.json()["id"]
    assert srv.store.counts() == {"queued": 1} and len(list(srv.ch.uploads.glob("*.csv"))) == 1


@pytest.mark.slow
def test_a_submission_claimed_by_a_dead_server_is_scored_after_restart(srv):
    sid = srv.post().json()["id"]
    assert [s.id for s in srv.store.claim(5)] == [sid]          # claimed, then the server dies
    assert srv.store.counts() == {"scoring": 1}
    assert srv.get(sid).json()["status"] == "scoring"            # what the team sees
    fresh = Dispatcher(srv.ch, srv.store, lambda: make_executor(1))
    assert srv.store.requeue() == 1
    fresh.drain()
    assert srv.store.counts() == {"scored": 1} and srv.store.submission(sid).attempts == 2
    assert srv.store.record(sid, "failed", [], None) is False       # never recorded twice


def test_schema_version_table(tmp_path):
    need_server_extra()
    from d3mkit.server.store import SCHEMA_VERSION
    url = f"sqlite:///{tmp_path / 'x.sqlite'}"
    s = Store.open(url)
    assert s.version() == SCHEMA_VERSION
    s.close()
    assert Store.open(url).version() == SCHEMA_VERSION          # reopening migrates nothing
    from sqlalchemy import create_engine, text
    with create_engine(url).begin() as c:
        c.execute(text("UPDATE schema_version SET version = 99"))
    from d3mkit.core.errors import D3MKitError
    with pytest.raises(D3MKitError, match="store.version"):
        Store.open(url)


def test_commands_say_which_extra_is_missing(tmp_path, monkeypatch, capsys):
    import importlib.util

    from d3mkit.cli import main
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "starlette" else real(n, *a))
    assert main(["serve", str(tmp_path)]) == 3
    err = capsys.readouterr().err
    assert 'pip install "d3mkit[server]"' in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_submit_command_talks_to_the_server_with_the_stdlib_client(srv, capsys, monkeypatch):
    """``d3mkit submit`` against the app served by uvicorn on a free port, in a thread."""
    import socket
    import threading
    import time

    import uvicorn

    from d3mkit.cli import main
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    disp = Dispatcher(srv.ch, srv.store, lambda: make_executor(1), poll=0.05)
    server = uvicorn.Server(uvicorn.Config(make_app(srv.ch, srv.store, disp), host="127.0.0.1", port=port,
                                           log_level="error"))
    th = threading.Thread(target=server.run, daemon=True)
    th.start()
    try:
        for _ in range(200):
            if server.started:
                break
            time.sleep(0.05)
        url = f"http://127.0.0.1:{port}"
        code = main(["submit", "--server", url, "--token", srv.tokens["beta"], "--problem", PID,
                     str(srv.pred(1)), "--wait", "--format", "json"])
        got = json.loads(capsys.readouterr().out)
        assert code == 0 and got["status"] == "scored"
        want = expected_scores(srv.problems, srv.root, PID, srv.pred(1))
        assert {s["metric"]: s["value"] for s in got["scores"]} == {k: round(v, 4) for k, v in want.items()}
        assert main(["submit", "--server", url, "--token", "d3m.x.y", "--problem", PID, str(srv.pred(1))]) == 2
        assert "[server.bad_token]" in capsys.readouterr().err
        bad = srv.root.parent / "bad.csv"
        bad.write_text("d3mIndex,y\n1,a\n")
        assert main(["submit", "--server", url, "--token", srv.tokens["beta"], "--problem", PID,
                     str(bad), "--wait"]) == 1
        assert "[predictions.index_set]" in capsys.readouterr().err
    finally:
        server.should_exit = True
        th.join(timeout=20)


@pytest.mark.slow
def test_the_leaderboard_page_is_the_campaign_renderer_over_the_board_model(srv):
    from d3mkit.evaluate.leaderboard import sections
    from d3mkit.server.board import build_board, leaderboard_model
    for team, system, pid in (("alpha", 0, PID), ("beta", 1, PID), ("alpha", 2, PID_REG), ("beta", 0, PID_REG)):
        assert srv.post(team=team, system=system, pid=pid).status_code == 202
    srv.post(team="beta", data=b"d3mIndex,y\n1,a\n")                 # a failed submission
    srv.dispatcher.drain()
    page = srv.client.get("/").text
    stats = {pid: json.loads(v) for pid, v in
             ((n.split(":", 2)[2], v) for n, v in srv.store.states("stats:public:").items())}
    assert set(stats) == {PID, PID_REG} and not any(r["log"] for r in stats.values())
    model = leaderboard_model(srv.ch, build_board(srv.ch, srv.store, "public"), failures={"beta": 1},
                              statistics=stats)
    for fragment in sections(model, ("overall", "heatmap", "problems"), prefix="public-"):
        assert fragment in page                      # one owner draws leaderboards
    # the campaign's statistics: every value an interval around it, a paired test against
    # the best entry, the normalised score from the constant predictor
    for t in model.tables:
        assert t.tested
        for row in t.rows:
            assert row.tie in ("best", "tied", "worse")
            for c in row.cells:
                assert c.ci_low <= c.mean + 1e-4 and c.mean - 1e-4 <= c.ci_high
    assert all(r.normalised is not None for r in model.overall)
    assert max(r.normalised for r in model.overall) <= 1.0 + 1e-9
    assert "[" in page and "vs best" in page
    assert model.critical_difference is not None and model.friedman["k"] == 2 and model.friedman["N"] == 2
    assert 'aria-label="critical difference diagram"' in page and 'class="heat r1"' in page
    assert [r.failures for r in model.overall if r.system == "beta"] == [1]
    table = model.tables[0]
    assert [m.label for m in table.metrics] == ["accuracy", "f1Macro"]
    board = build_board(srv.ch, srv.store, "public")
    want = {r["team"]: r["scores"]["accuracy"] for r in board.problems[0].rows}
    assert {r.system: r.cells[0].mean for r in table.rows} == want
    assert table.rows[0].tie == "best" and table.rows[0].cells[0].rank == 1
    # the sorting script is a file the Content-Security-Policy allows; no inline script
    js = srv.client.get("/leaderboard.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    assert "script-src 'self'" in js.headers["content-security-policy"]
    assert '<script src="/leaderboard.js"></script>' in page and "<script>" not in page


def _die(jobs):
    import os
    os._exit(3)          # a scoring worker killed mid-job


@pytest.mark.slow
def test_submissions_that_kill_their_workers_fail_after_three_attempts(tmp_path, monkeypatch):
    import time

    from d3mkit.server import dispatch
    monkeypatch.setenv("D3MKIT_FSYNC", "0")
    s = Server(tmp_path, daily_quota=50, rate=1000)
    s.dispatcher = dispatch.Dispatcher(s.ch, s.store, lambda: make_executor(2), inflight=4)
    monkeypatch.setattr(dispatch, "score_jobs", _die)
    sids = [s.post(system=k).json()["id"] for k in range(3)]      # one batch: one task per worker
    end = time.monotonic() + 120
    while time.monotonic() < end and s.store.counts() != {"failed": 3}:
        s.dispatcher.step()
        time.sleep(0.05)
    assert s.store.counts() == {"failed": 3}
    for sid in sids:
        got = s.get(sid).json()
        assert got["status"] == "failed" and [i["code"] for i in got["issues"]] == ["server.platform_failure"]
        assert got["failure"] == "platform" and got["charged"] is False     # the platform's, never charged
        assert s.store.submission(sid).attempts >= 3         # claimed again after each death
    s.dispatcher.stop()
