"""Phases (issue 33): ``challenge create --phase`` or a phase file; uploads outside an open
phase answer 409, also when the phase ends while the body arrives; a phase's problems,
daily and total quotas; a hidden board; the "last" entry rule; the automatic finalize at the
end of the last phase. Skipped without the ``[server]`` extra."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json

import pytest

from server_helpers import bearer, make_challenge, need_server_extra

need_server_extra()

from d3mkit.io.executor import make_executor  # noqa: E402
from d3mkit.server.app import make_app  # noqa: E402
from d3mkit.server.challenge import open_challenge  # noqa: E402
from d3mkit.server.dispatch import Dispatcher  # noqa: E402
from d3mkit.server.store import Store  # noqa: E402

PID, PID_REG = "synth_000_problem", "synth_001_problem"


def _at(**delta) -> str:
    return (dt.datetime.now(dt.timezone.utc) + dt.timedelta(**delta)).strftime("%Y-%m-%dT%H:%M:%SZ")


class Phased:
    def __init__(self, tmp, phases: list[dict]):
        from starlette.testclient import TestClient
        _p, self.subs, root, self.tokens = make_challenge(tmp, daily_quota=50, rate=1000)
        cfg = json.loads((root / "challenge.json").read_text())
        from d3mkit.server.phases import _phase
        cfg["phases"] = [_phase(p, "test").to_dict() for p in phases]
        (root / "challenge.json").write_text(json.dumps(cfg))
        self.ch = open_challenge(root)
        self.store = Store.open(self.ch.default_db_url())
        self.dispatcher = Dispatcher(self.ch, self.store, lambda: make_executor(1))
        self.client = TestClient(make_app(self.ch, self.store, self.dispatcher, start_dispatcher=False))

    def post(self, team="alpha", pid=PID, system=0):
        body = (self.subs / f"system_{system:02d}" / pid / "predictions.csv").read_bytes()
        return self.client.post("/api/submissions", headers=bearer(self.tokens[team]), data={"problem": pid},
                                files={"file": ("predictions.csv", body, "text/csv")})

    def close(self):
        self.client.close()
        self.store.close()


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("D3MKIT_FSYNC", "0")
    made = []

    def make(phases, name="c"):
        made.append(Phased(tmp_path / name, phases))
        return made[-1]
    yield make
    for m in made:
        m.close()


@pytest.mark.slow
def test_create_takes_phases_from_flags_or_a_file(tmp_path, monkeypatch):
    from d3mkit.cli import main
    from d3mkit.evaluate.synthetic import make_campaign
    monkeypatch.setenv("D3MKIT_FSYNC", "0")
    problems, _subs = make_campaign(tmp_path / "camp", systems=1, problems=2, rows=20, seed=0, malformed=0)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["challenge", "create", "--problems", str(problems), "--out", str(tmp_path / "a"),
                     "--phase", f"name=dev,start=2026-01-01,end=2026-01-10,problems={PID},daily=2,board=hidden",
                     "--phase", "name=final,start=2026-01-10,end=2026-01-12,total=3,counts=last"]) == 0
    got = open_challenge(tmp_path / "a").phases
    assert [(p.name, p.problems, p.daily_quota, p.total_quota, p.board, p.counts) for p in got] == [
        ("dev", (PID,), 2, None, "hidden", "best"), ("final", (), None, 3, "public", "last")]
    (tmp_path / "phases.json").write_text(json.dumps({"phases": [p.to_dict() for p in got]}))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["challenge", "create", "--problems", str(problems), "--out", str(tmp_path / "b"),
                     "--phases", str(tmp_path / "phases.json")]) == 0
    assert open_challenge(tmp_path / "b").phases == got
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):   # overlapping
        assert main(["challenge", "create", "--problems", str(problems), "--out", str(tmp_path / "c"),
                     "--phase", "name=a,start=2026-01-01,end=2026-01-05",
                     "--phase", "name=b,start=2026-01-04,end=2026-01-06"]) == 2
    assert "overlap" in err.getvalue() and not (tmp_path / "c").exists()


def test_uploads_outside_an_open_phase_get_409(env):
    s = env([{"name": "later", "start": _at(hours=1), "end": _at(hours=2)}])
    r = s.post()
    assert r.status_code == 409 and "opens at" in r.json()["error"]["message"]
    s2 = env([{"name": "over", "start": _at(hours=-2), "end": _at(hours=-1)}], "d")
    assert s2.post().status_code == 409 and s2.store.counts() == {}


def test_a_phase_that_ends_while_the_body_arrives_refuses_it_at_completion(env, monkeypatch):
    import d3mkit.server.routes.accept as app_mod
    import d3mkit.server.store as store_mod
    s = env([{"name": "now", "start": _at(hours=-1), "end": _at(minutes=30)}])
    real = app_mod.receive

    async def slow_body(*a, **k):
        up = await real(*a, **k)
        later = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=1)).isoformat(timespec="microseconds")
        monkeypatch.setattr(store_mod, "now", lambda: later)       # the body completes after the end
        return up
    monkeypatch.setattr(app_mod, "receive", slow_body)
    r = s.post()
    assert r.status_code == 409 and r.json()["error"]["code"] == "server.closed", r.text
    assert s.store.counts() == {} and not list(s.ch.uploads.glob("*.csv"))


def test_a_phases_problems_and_quotas(env):
    s = env([{"name": "dev", "start": _at(hours=-1), "end": _at(hours=1), "problems": [PID],
              "daily_quota": 3, "total_quota": 2}])
    r = s.post(pid=PID_REG)
    assert r.status_code == 409 and "synth_000_problem only" in r.json()["error"]["message"]
    assert [s.post().status_code for _ in range(3)] == [202, 202, 429]
    assert "for this phase" in s.post().json()["error"]["message"]


def test_a_hidden_board_and_the_last_entry_rule(env):
    s = env([{"name": "blind", "start": _at(hours=-1), "end": _at(hours=1), "board": "hidden", "counts": "last"}])
    assert s.post(system=0).status_code == 202
    assert s.post(system=2).status_code == 202
    s.dispatcher.drain()
    r = s.client.get("/api/leaderboard")
    assert r.status_code == 403 and r.json()["error"]["code"] == "server.hidden"
    assert "hidden until its end" in s.client.get("/").text
    from d3mkit.server.board import entries
    subs = s.store.submissions(status="scored")
    assert entries(s.ch, subs)[PID][subs[0].team].id == subs[-1].id           # the last one counts
    best = entries(s.ch, subs, "best")[PID][subs[0].team]
    assert best.id in {x.id for x in subs}


def test_the_end_of_the_last_phase_finalizes_by_itself(env, monkeypatch):
    s = env([{"name": "short", "start": _at(hours=-1), "end": _at(minutes=30)}])
    assert s.post().status_code == 202
    s.dispatcher.drain()
    assert not s.store.finalized()
    import d3mkit.server.store as store_mod
    later = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=1)).isoformat(timespec="microseconds")
    monkeypatch.setattr(store_mod, "now", lambda: later)                      # the phase is over
    for _ in range(3):
        s.dispatcher.step()
    assert s.store.finalized() and s.store.get_state("finalize_done")
    sub = s.store.submissions(status="scored")[0]
    assert sub.private and all(m["value"] is not None for m in sub.private)
    assert s.client.get("/api/leaderboard?board=private").status_code == 200
    assert s.post().status_code == 409
