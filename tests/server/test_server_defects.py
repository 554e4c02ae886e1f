"""The defects of issue 33, one test each (each failed on the server before the fix):
crashes on non-ASCII cookies and CSRF fields, leaks (the multiLabel ``all_labels`` warning,
file modes, ``submit`` following a redirect with the token), races (a retry with the same
Idempotency-Key at the last quota slot, an upload completing while the challenge is
finalized), charging (platform failures, failed files), wrong numbers (a part without rows,
a metric undefined on the public rows), the organiser's limits named to a team, the board
rebuilt on every view, the 401 wording, ``submit``'s table and the reloading page.
Skipped without the ``[server]`` extra."""

from __future__ import annotations

import contextlib
import http.server
import io
import json
import os
import threading
from pathlib import Path

import pandas as pd
import pytest

from server_helpers import bearer, make_challenge, need_server_extra

need_server_extra()

from d3mkit.io.executor import make_executor  # noqa: E402
from d3mkit.server.app import make_app  # noqa: E402
from d3mkit.server.challenge import open_challenge  # noqa: E402
from d3mkit.server.dispatch import Dispatcher  # noqa: E402
from d3mkit.server.store import QuotaExceeded, Store  # noqa: E402

PID = "synth_000_problem"


class Srv:
    def __init__(self, tmp, **options):
        from starlette.testclient import TestClient
        self.problems, self.subs, self.root, self.tokens = make_challenge(tmp, **options)
        self.ch = open_challenge(self.root)
        self.store = Store.open(self.ch.default_db_url())
        self.dispatcher = Dispatcher(self.ch, self.store, lambda: make_executor(1))
        self.app = make_app(self.ch, self.store, self.dispatcher, start_dispatcher=False)
        self.client = TestClient(self.app)

    def body(self, system=0, pid=PID) -> bytes:
        return (self.subs / f"system_{system:02d}" / pid / "predictions.csv").read_bytes()

    def post(self, team="alpha", data=None, **kw):
        return self.client.post("/api/submissions", headers=bearer(self.tokens[team]) | kw.pop("headers", {}),
                                data={"problem": PID},
                                files={"file": ("predictions.csv", self.body() if data is None else data, "text/csv")},
                                **kw)

    def close(self):
        self.client.close()
        self.store.close()


@pytest.fixture
def srv(tmp_path, monkeypatch):
    monkeypatch.setenv("D3MKIT_FSYNC", "0")
    s = Srv(tmp_path, daily_quota=50, rate=1000)
    yield s
    s.close()


# ------------------------------------------------------------------- crashes on bad input
def test_non_ascii_session_cookie_is_no_session_not_a_500(srv):
    raw = "d3mkit_session=abc.99999999999.caf\u00e9".encode("latin-1")
    for path in ("/", "/team"):
        r = srv.client.get(path, headers={"cookie": raw}, follow_redirects=False)
        assert r.status_code in (200, 303), (path, r.status_code)
    from d3mkit.server import auth
    assert auth.team_of_session("abc.99999999999.caf\u00e9", b"k" * 32) is None


def test_non_ascii_csrf_field_is_403_not_a_500(srv):
    srv.client.get("/login")                       # the CSRF cookie
    for path in ("/login", "/logout"):
        r = srv.client.post(path, data={"csrf": "\u00e9t\u00e9", "token": "x"}, follow_redirects=False)
        assert r.status_code == 403 and r.json()["error"]["code"] == "server.csrf", (path, r.text)


# ----------------------------------------------------------------------------------- leaks
def test_the_all_labels_warning_is_not_shown_to_teams():
    from d3mkit.core.errors import warning
    from d3mkit.server.scoring import redact
    issues = [warning("predictions.all_labels", "column y", "every index lists all 3 labels", "/up/x.csv"),
              warning("predictions.duplicate_label", "row 2, column y", "repeats", "/up/x.csv")]
    assert [i["code"] for i in redact(issues, "/up/x.csv")] == ["predictions.duplicate_label"]


def test_the_organisers_limit_variables_are_not_named_to_teams():
    from d3mkit.core.errors import error
    from d3mkit.io.limits import how_to_raise
    from d3mkit.server.scoring import redact
    msg = f"the file has 200,000 columns, over the {how_to_raise('MAX_COLUMNS')}"
    shown = redact([error("file.too_many_columns", "", msg, "/up/x.csv")], "/up/x.csv")
    assert len(shown) == 1 and "D3MKIT_" not in shown[0]["message"] and "environment" not in shown[0]["message"]
    assert "100,000" in shown[0]["message"]


@pytest.mark.slow
def test_private_files_and_the_database_are_the_owners_only_under_umask_022(tmp_path, monkeypatch):
    monkeypatch.setenv("D3MKIT_FSYNC", "0")
    old = os.umask(0o022)
    try:
        _p, _s, root, _t = make_challenge(tmp_path, fresh=True)
        store = Store.open(open_challenge(root).default_db_url())
        store.add_team("k", "t", "h")                  # the WAL file exists now
        modes = {p.relative_to(root).as_posix(): p.stat().st_mode & 0o777
                 for p in [root / "private", *root.glob("private/**/*"), root / "uploads",
                           *root.glob("challenge.sqlite*")]}
        store.close()
    finally:
        os.umask(old)
    assert modes["private/p000/targets.csv"] == 0o600 and modes["private/p000/targets_public.csv"] == 0o600
    assert modes["challenge.sqlite"] == 0o600 and modes["private"] == 0o700 and modes["uploads"] == 0o700
    assert all(m & 0o077 == 0 for m in modes.values()), modes


class _Redirecting(http.server.BaseHTTPRequestHandler):
    target = ""

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(302)
        self.send_header("Location", type(self).target + "/api/submissions")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *a):
        pass


class _Collector(http.server.BaseHTTPRequestHandler):
    seen: list = []

    def _answer(self):
        type(self).seen.append((self.command, self.headers.get("Authorization")))
        body = json.dumps({"id": "stolen", "status": "queued"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer  # noqa: N815

    def log_message(self, *a):
        pass


@contextlib.contextmanager
def _serving(handler):
    s = http.server.HTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{s.server_address[1]}"
    finally:
        s.shutdown()
        s.server_close()


def test_submit_follows_no_redirect_and_sends_the_token_nowhere_else(tmp_path):
    from d3mkit.server import client
    pred = tmp_path / "p.csv"
    pred.write_text("d3mIndex,y\n1,a\n")
    _Collector.seen = []
    with _serving(_Collector) as other:
        _Redirecting.target = other.replace("127.0.0.1", "localhost")     # another host name
        with _serving(_Redirecting) as first:
            with pytest.raises(client.ServerError) as info:
                client.submit(first, "d3m.k.secret", "p", pred, retries=0)
        assert info.value.issues[0].code == "server.redirect" and "localhost" in info.value.issues[0].message
        assert _Collector.seen == []                 # nothing (and no token) went to the other host
        with pytest.raises(client.ServerError) as info:   # a 200 is not an accepted submission
            client.submit(other, "d3m.k.secret", "p", pred, retries=0)
        assert "202" in info.value.issues[0].message


# ----------------------------------------------------------------------------------- races
def test_a_retry_with_the_same_key_at_the_last_slot_gets_the_first_submission(srv):
    team = srv.store.teams()
    key = next(k for k, n in team.items() if n == "alpha")
    first = srv.store.add_submission("a" * 32, key, PID, 10, "h", "retry-7", quota=1)
    again = srv.store.add_submission("b" * 32, key, PID, 10, "h", "retry-7", quota=1)   # in flight before
    assert again.id == first.id
    with pytest.raises(QuotaExceeded):
        srv.store.add_submission("c" * 32, key, PID, 10, "h", "other", quota=1)


def test_an_upload_completing_after_finalize_gets_409_and_is_not_kept(srv, monkeypatch):
    import d3mkit.server.routes.accept as app_mod
    real = app_mod.receive

    async def receive_then_finalize(*a, **k):
        up = await real(*a, **k)
        srv.store.close_submissions("finalized")          # the organiser finalizes meanwhile
        return up
    monkeypatch.setattr(app_mod, "receive", receive_then_finalize)
    r = srv.post()
    assert r.status_code == 409 and r.json()["error"]["code"] == "server.closed", r.text
    assert srv.store.counts() == {} and not list(srv.ch.uploads.glob("*.csv"))


# -------------------------------------------------------------------------------- charging
def test_platform_failures_and_failed_files_are_not_charged(srv):
    key = next(k for k, n in srv.store.teams().items() if n == "alpha")
    for i in range(2):
        srv.store.add_submission(f"{i:032d}", key, PID, 10, "h", None, quota=2)
    with pytest.raises(QuotaExceeded):
        srv.store.add_submission("2" * 32, key, PID, 10, "h", None, quota=2)
    a, b = srv.store.claim(2, "me")
    assert srv.store.release(a.id, "worker died", "me", max_failures=1) == "failed"     # the platform's
    assert srv.store.submission(a.id).failure == "platform"
    assert srv.store.count_today(key) == 1
    srv.store.record(b.id, "failed", [{"severity": "error", "code": "predictions.x"}], None, "team")
    assert srv.store.count_today(key) == 0 and srv.store.count_today(key, count_failed=True) == 1
    srv.store.add_submission("3" * 32, key, PID, 10, "h", None, quota=2)
    srv.store.add_submission("4" * 32, key, PID, 10, "h", None, quota=2)


@pytest.mark.slow
def test_a_failed_file_is_free_by_default_and_charged_with_count_failed_yes(tmp_path, monkeypatch):
    monkeypatch.setenv("D3MKIT_FSYNC", "0")
    for flag, codes in (("no", [202, 202, 202]), ("yes", [202, 202, 429])):
        s = Srv(tmp_path / flag, daily_quota=2, rate=1000, count_failed=flag)
        assert s.ch.count_failed is (flag == "yes")
        got = [s.post(data=b"d3mIndex,y\n1,a\n")]            # a file that fails
        s.dispatcher.drain()
        assert s.store.submissions()[0].status == "failed" and s.store.submissions()[0].failure == "team"
        got += [s.post(), s.post()]
        assert [r.status_code for r in got] == codes
        s.close()


# ---------------------------------------------------------------------------- wrong numbers
def test_a_part_without_rows_has_no_value_not_zero(srv):
    from d3mkit.server.scoring import score_job
    truth = srv.ch.truth(PID)
    pub = pd.read_csv(truth["public"], dtype=str)
    whole = pd.read_csv(truth["all"], dtype=str)
    whole.to_csv(truth["public"], index=False)                   # every row public ...
    pub.iloc[0:0].to_csv(truth["private"], index=False)          # ... none private
    path = srv.subs / "system_00" / PID / "predictions.csv"
    got = score_job({"id": "x", "predictions": str(path), "truth": truth, "check": True,
                     "parts": ["public", "private"]})
    assert got["status"] == "scored", got
    assert [s["value"] for s in got["scores"]["private"]] == [None, None]
    assert all(s["value"] is not None for s in got["scores"]["public"])


def _one_class_public_part(ch):
    """Problem PID made binary with rocAuc, every public row of class 'a'."""
    truth = ch.truth(PID)
    public = set(pd.read_csv(truth["public"], dtype=str)["d3mIndex"])
    for part in ("all", "public", "private"):
        df = pd.read_csv(truth[part], dtype=str)
        df["y"] = ["a" if i in public else "b" for i in df["d3mIndex"]]
        df.to_csv(truth[part], index=False)
    doc_path = Path(truth["problem"]) / "problemDoc.json"
    doc = json.loads(doc_path.read_text())
    doc["inputs"]["performanceMetrics"] = [{"metric": "accuracy"}, {"metric": "rocAuc", "posLabel": "a"}]
    doc_path.write_text(json.dumps(doc))
    pred = pd.read_csv(truth["all"], dtype=str).assign(confidence="0.7")
    return truth, pred


def test_a_metric_undefined_on_the_public_rows_is_missing_and_create_warns(srv, tmp_path):
    from d3mkit.server.challenge import part_warnings
    from d3mkit.server.scoring import score_job
    truth, pred = _one_class_public_part(srv.ch)
    path = tmp_path / "pred.csv"
    pred.to_csv(path, index=False)
    got = score_job({"id": "x", "predictions": str(path), "truth": truth, "check": True, "parts": ["public"]})
    assert got["status"] == "scored", got
    assert got["scores"]["public"] == [{"metric": "accuracy", "value": 1.0}, {"metric": "rocAuc", "value": None}]
    warned = part_warnings(srv.ch)
    assert any("public rows rocAuc" in w and PID in w for w in warned), warned


# ----------------------------------------------------------------------------- usability
def test_a_wrong_token_and_a_missing_one_get_different_words(srv):
    missing = srv.client.get("/api/submissions")
    wrong = srv.client.get("/api/submissions", headers=bearer(srv.tokens["alpha"][:-2] + "zz"))
    assert missing.status_code == wrong.status_code == 401
    assert missing.json()["error"]["code"] == "server.auth" and "no token" in missing.json()["error"]["message"]
    assert wrong.json()["error"]["code"] == "server.bad_token" and "not valid" in wrong.json()["error"]["message"]
    unknown = srv.client.get("/api/submissions", headers=bearer("d3m.000000000000.x"))
    assert unknown.json() == wrong.json()          # an unknown key id reads the same as a wrong secret


@pytest.mark.slow
def test_the_board_is_built_once_per_change_and_answers_304(srv):
    first = srv.client.get("/api/leaderboard")
    for _ in range(5):
        srv.client.get("/api/leaderboard")
        srv.client.get("/")
    assert srv.app.boards.builds == 1
    etag = first.headers["etag"]
    assert srv.client.get("/api/leaderboard", headers={"if-none-match": etag}).status_code == 304
    srv.post()
    srv.dispatcher.drain()
    changed = srv.client.get("/api/leaderboard", headers={"if-none-match": etag})
    assert changed.status_code == 200 and changed.json()["overall"][0]["team"] == "alpha"
    assert srv.app.boards.builds == 2


def test_the_leaderboard_page_does_not_reload_itself(srv):
    page = srv.client.get("/").text
    assert "http-equiv" not in page and 'id="live"' in page and 'data-etag="' in page
    assert '<script src="/leaderboard.js">' in page
    js = srv.client.get("/leaderboard.js").text
    assert "If-None-Match" in js and "/api/leaderboard" not in js       # the URL comes from the page
    frag = srv.client.get("/fragment/board")
    assert frag.status_code == 200 and "<script" not in frag.text
    assert srv.client.get("/fragment/board", headers={"if-none-match": frag.headers["etag"]}).status_code == 304


class _Scored(http.server.BaseHTTPRequestHandler):
    def _send(self, status, obj):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self._send(202, {"id": "s1", "status": "queued"})

    def do_GET(self):  # noqa: N802
        self._send(200, {"id": "s1", "status": "scored", "scores": [
            {"metric": "accuracy", "value": 0.8125}, {"metric": "f1Macro", "value": None}], "issues": []})

    def log_message(self, *a):
        pass


def test_submit_prints_the_metric_value_table(tmp_path):
    from d3mkit.cli import main
    pred = tmp_path / "p.csv"
    pred.write_text("d3mIndex,y\n1,a\n")
    out = io.StringIO()
    with _serving(_Scored) as url, contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["submit", "--server", url, "--token", "d3m.k.s", "--problem", "p", str(pred), "--wait"]) == 0
    lines = out.getvalue().splitlines()
    assert lines[0] == "submission s1: scored"
    assert lines[1].split() == ["metric", "value"] and lines[2].split() == ["accuracy", "0.8125"]
    assert lines[3].split() == ["f1Macro", "-"] and "\t" not in out.getvalue()


def test_the_board_json_has_significance_tiers_from_the_campaigns_paired_tests(srv):
    for team, system in (("alpha", 0), ("beta", 1)):
        body = srv.body(system)
        assert srv.post(team=team, data=body).status_code == 202
    srv.dispatcher.drain()                         # scores, then the board's statistics
    board = srv.client.get("/api/leaderboard").json()
    tiers = board["problems"][0]["tiers"]
    assert set(tiers) == {"alpha", "beta"} and "best" in tiers.values()
    assert set(tiers.values()) <= {"best", "tied", "worse"} and board["alpha"] == 0.05
