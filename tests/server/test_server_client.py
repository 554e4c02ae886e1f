"""The submit client against a server that dies mid-answer: a truncated body or a dropped
connection is retried with the same Idempotency-Key, never a traceback."""

from __future__ import annotations

import http.server
import json
import threading

import pytest

from d3mkit.server import client


class _Flaky(http.server.BaseHTTPRequestHandler):
    """First answer: a Content-Length longer than the body, then the connection closes
    (http.client raises IncompleteRead); later answers are whole."""
    calls: list[str] = []

    def do_POST(self):  # noqa: N802 (http.server's name)
        self.rfile.read(int(self.headers["Content-Length"]))
        type(self).calls.append(self.headers["Idempotency-Key"])
        body = json.dumps({"id": 7, "status": "queued"}).encode()
        self.send_response(202)
        self.send_header("Content-Type", "application/json")
        if len(type(self).calls) == 1:
            self.send_header("Content-Length", str(len(body) + 50))
            self.end_headers()
            self.wfile.write(body[:5])
            self.wfile.flush()
            self.close_connection = True
            return
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def flaky():
    _Flaky.calls = []
    srv = http.server.HTTPServer(("127.0.0.1", 0), _Flaky)
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)  # quick shutdown
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


def test_truncated_answer_is_retried_with_the_same_key(flaky, tmp_path, monkeypatch):
    monkeypatch.setattr(client.time, "sleep", lambda s: None)
    pred = tmp_path / "predictions.csv"
    pred.write_text("d3mIndex,y\n0,a\n")
    assert client.submit(flaky, "d3m.t.t", "p", pred) == {"id": 7, "status": "queued"}
    assert len(_Flaky.calls) == 2 and _Flaky.calls[0] == _Flaky.calls[1]


def test_truncated_answers_until_the_retries_run_out_are_one_server_error(flaky, tmp_path, monkeypatch):
    monkeypatch.setattr(client.time, "sleep", lambda s: None)
    pred = tmp_path / "predictions.csv"
    pred.write_text("d3mIndex,y\n0,a\n")

    first = _Flaky.do_POST

    def always_truncated(self):
        type(self).calls.clear()   # every answer is the truncated first one
        first(self)
    monkeypatch.setattr(_Flaky, "do_POST", always_truncated)
    with pytest.raises(client.ServerError, match="cannot reach the server"):
        client.submit(flaky, "d3m.t.t", "p", pred, retries=2)
