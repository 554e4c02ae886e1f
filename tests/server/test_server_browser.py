"""The server's pages in a real browser: headless Chromium (Debian's ``chromium``) driven
over the DevTools protocol logs in with the team token, uploads a predictions file through
the form and sees the leaderboard show the team with its score — drawn by the campaign
leaderboard's renderer: the overall ranking, the critical-difference diagram, the teams x
problems heat map, a table per problem, and the table-sorting script (served as a file the
Content-Security-Policy allows) sorting a table on a click. Skipped without a browser, the
``[server]`` extra or ``websockets``."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import socket
import subprocess
import threading
import time
import urllib.request

import pytest

from server_helpers import expected_scores, make_challenge, need_server_extra

need_server_extra()
pytest.importorskip("websockets", reason="the browser test drives Chromium with websockets")

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")
BROWSER = next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(BROWSER is None, reason="no Chromium/Chrome installed (apt-get install chromium)")]
PID = "synth_000_problem"
PID_REG = "synth_001_problem"


class Page:
    """One browser tab over the Chrome DevTools protocol."""

    def __init__(self, ws_url: str):
        from websockets.sync.client import ClientConnection, connect
        self.ws: ClientConnection = connect(ws_url, max_size=None, open_timeout=30).__enter__()
        self.ids = itertools.count(1)

    def call(self, method: str, **params):
        i = next(self.ids)
        self.ws.send(json.dumps({"id": i, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv(timeout=60))
            if msg.get("id") == i:
                if "error" in msg:
                    raise AssertionError(f"{method}: {msg['error']}")
                return msg["result"]

    def js(self, expr: str):
        return self.call("Runtime.evaluate", expression=expr, returnByValue=True)["result"].get("value")

    def wait_for(self, expr: str, timeout: float = 60.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                v = self.js(expr)
            except AssertionError:
                v = None
            if v:
                return v
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {expr}: page says {self.js('document.body && document.body.innerText')!r:.500}")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_login_upload_and_see_the_leaderboard_update(tmp_path, monkeypatch):
    import uvicorn

    from d3mkit.io.executor import make_executor
    from d3mkit.server.app import make_app
    from d3mkit.server.challenge import open_challenge
    from d3mkit.server.dispatch import Dispatcher
    from d3mkit.server.store import Store
    monkeypatch.setenv("D3MKIT_FSYNC", "0")
    problems, subs, root, tokens = make_challenge(tmp_path, teams=("alpha", "beta"))
    ch = open_challenge(root)
    store = Store.open(ch.default_db_url())
    port = _port()
    server = uvicorn.Server(uvicorn.Config(make_app(ch, store, Dispatcher(ch, store, lambda: make_executor(1), poll=0.05)),
                                           host="127.0.0.1", port=port, log_level="error"))
    th = threading.Thread(target=server.run, daemon=True)
    th.start()
    devtools = _port()
    browser = subprocess.Popen([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                f"--remote-debugging-port={devtools}", f"--user-data-dir={tmp_path / 'profile'}",
                                "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 60
        targets = None
        while time.monotonic() < end and not targets:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{devtools}/json/list", timeout=2) as r:
                    targets = [t for t in json.loads(r.read()) if t.get("type") == "page"]
            except OSError:
                time.sleep(0.2)
        assert targets, "Chromium's DevTools did not answer"
        page = Page(targets[0]["webSocketDebuggerUrl"])
        base = f"http://127.0.0.1:{port}"
        while not server.started:
            time.sleep(0.05)
        page.call("Page.enable")
        page.call("Page.navigate", url=f"{base}/")
        page.wait_for("document.readyState === 'complete' && document.body.innerText.includes('No scored submission yet')")
        from d3mkit.server import client
        for pid in (PID, PID_REG):        # another team, through the API, on both problems
            client.submit(base, tokens["beta"], pid, subs / "system_01" / pid / "predictions.csv")
        page.call("Page.navigate", url=f"{base}/login")
        page.wait_for("document.readyState === 'complete' && !!document.getElementById('token')")
        page.js(f"document.getElementById('token').value = {json.dumps(tokens['alpha'])}; "
                f"document.getElementById('login').click(); true")
        page.wait_for("location.pathname === '/team' && document.readyState === 'complete' "
                      "&& !!document.getElementById('file')")
        doc = page.call("DOM.getDocument")["root"]["nodeId"]
        node = page.call("DOM.querySelector", nodeId=doc, selector="#file")["nodeId"]
        pred = subs / "system_00" / PID / "predictions.csv"
        page.call("DOM.setFileInputFiles", files=[str(pred)], nodeId=node)
        page.js(f"document.getElementById('problem').value = {json.dumps(PID)}; "
                f"document.getElementById('submit').click(); true")
        page.wait_for("document.readyState === 'complete' && document.body.innerText.includes('accepted')")
        want = round(expected_scores(problems, root, PID, pred)["accuracy"], 4)
        page.call("Page.navigate", url=f"{base}/")
        # the leaderboard updates itself in place; wait until alpha's entry on PID shows its score
        cell = ("Array.from(document.querySelectorAll('#public-problems ~ table tr'))"
                ".filter(r => r.cells[0] && r.cells[0].innerText === 'alpha')")
        page.wait_for(f"document.readyState === 'complete' && {cell}.length > 0", timeout=90)
        got = page.js(f"parseFloat({cell}[0].cells[3].dataset.v)")
        assert got == want
        text = page.js("document.body.innerText")
        assert re.search(r"\balpha\b", text) and re.search(r"\bbeta\b", text)
        # the campaign's model and renderer: overall ranking, CD diagram, heat map, tables
        assert page.js("document.querySelectorAll('#public-overall + p + table tbody tr').length") == 2
        assert page.js("!!document.querySelector('svg[aria-label=\"critical difference diagram\"]')")
        assert page.js("document.querySelectorAll('td.heat').length") == 4
        assert page.js("document.querySelectorAll('td.heat.rn').length") == 1      # alpha has no regression entry
        assert page.js("Array.from(document.querySelectorAll('tr.missing td')).some(td => td.innerText === 'alpha')")
        assert page.js("getComputedStyle(document.querySelector('th')).backgroundColor") == "rgb(215, 227, 244)"
        # the campaign's statistics, once the dispatcher computed them: an interval in each
        # value cell of an entry and the paired test against the best one
        page.call("Page.reload")
        ci = ("Array.from(document.querySelectorAll('#public-problems ~ table tr'))"
              ".filter(r => r.cells[0] && r.cells[0].innerText === 'alpha')[0]")
        page.wait_for(f"document.readyState === 'complete' && {ci} && /\\[.*,.*\\]/.test({ci}.cells[3].innerText)",
                      timeout=90)
        assert page.js("Array.from(document.querySelectorAll('th')).some(th => th.innerText === 'vs best')")
        assert page.js(f"['best', 'tied', 'worse'].includes({ci}.cells[{ci}.cells.length - 1].innerText)")
        # the sorting script ran (it marks the headers) and sorts the overall table on a click
        assert page.js("document.querySelectorAll('th.sort').length") > 0
        # in one script run, so that the page's own reload cannot come between the clicks
        rows = "Array.from(document.querySelectorAll('#public-overall + p + table tbody tr'))"
        first, second = page.js(
            f"(() => {{ const order = () => {rows}.map(r => r.cells[1].innerText).join(','); "
            "const th = document.querySelector('#public-overall + p + table th:nth-child(2)'); "
            "th.click(); const a = order(); th.click(); return [a, order()]; })()")
        assert sorted([first, second]) == ["alpha,beta", "beta,alpha"]
        page.ws.close()
    finally:
        browser.kill()
        browser.wait(timeout=30)
        server.should_exit = True
        th.join(timeout=20)
        store.close()


def test_the_live_page_updates_in_place_keeping_sort_and_scroll_and_running_no_injected_script(tmp_path, monkeypatch):
    """A score landing changes the open page without a reload (a marker set in the page
    survives), the table keeps the order the reader chose, the scroll position stays, and a
    team name holding markup is shown as text (its onerror never runs)."""
    import uvicorn

    from d3mkit.io.executor import make_executor
    from d3mkit.server import client
    from d3mkit.server.app import make_app
    from d3mkit.server.auth import add_team
    from d3mkit.server.challenge import open_challenge
    from d3mkit.server.dispatch import Dispatcher
    from d3mkit.server.store import Store
    monkeypatch.setenv("D3MKIT_FSYNC", "0")
    problems, subs, root, tokens = make_challenge(tmp_path, teams=("alpha", "beta"))
    ch = open_challenge(root)
    store = Store.open(ch.default_db_url())
    evil = '<img src=x onerror="window.__pwned=1">'
    tokens[evil] = add_team(store, evil)
    port = _port()
    server = uvicorn.Server(uvicorn.Config(make_app(ch, store, Dispatcher(ch, store, lambda: make_executor(1), poll=0.05),
                                                    live_poll=0.3),
                                           host="127.0.0.1", port=port, log_level="error"))
    th = threading.Thread(target=server.run, daemon=True)
    th.start()
    devtools = _port()
    browser = subprocess.Popen([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                f"--remote-debugging-port={devtools}", f"--user-data-dir={tmp_path / 'profile'}",
                                "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 60
        targets = None
        while time.monotonic() < end and not targets:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{devtools}/json/list", timeout=2) as r:
                    targets = [t for t in json.loads(r.read()) if t.get("type") == "page"]
            except OSError:
                time.sleep(0.2)
        assert targets, "Chromium's DevTools did not answer"
        page = Page(targets[0]["webSocketDebuggerUrl"])
        base = f"http://127.0.0.1:{port}"
        while not server.started:
            time.sleep(0.05)
        for team, system in (("alpha", 0), ("beta", 1)):
            client.wait(base, tokens[team], client.submit(base, tokens[team], PID,
                                                          subs / f"system_{system:02d}" / PID / "predictions.csv")["id"])
        page.call("Page.enable")
        page.call("Page.navigate", url=f"{base}/")
        rows = "Array.from(document.querySelectorAll('#public-overall + p + table tbody tr'))"
        page.wait_for(f"document.readyState === 'complete' && {rows}.length === 2")
        assert page.call("DOM.getDocument")["root"]["nodeId"]          # the DOM answers (no reload loop)
        # the reader: a marker, a sort (team name, descending), a scroll position
        page.js("window.__marker = 42; document.body.style.minHeight = '6000px'; true")
        page.js("const th = document.querySelector('#public-overall + p + table th:nth-child(2)'); "
                "th.click(); th.click(); true")
        order = f"{rows}.map(r => r.cells[1].innerText)"
        assert page.js(order) == ["beta", "alpha"]
        page.js("window.scrollTo(0, 400); true")
        before = page.js("document.getElementById('live').dataset.updated || ''")
        # a third team's score lands
        sid = client.submit(base, tokens[evil], PID, subs / "system_02" / PID / "predictions.csv")["id"]
        client.wait(base, tokens[evil], sid)
        page.wait_for(f"{rows}.length === 3", timeout=60)
        assert page.js("window.__marker") == 42                               # not reloaded
        assert page.js("document.getElementById('live').dataset.updated || ''") != before
        names = page.js(order)
        assert names == sorted(names, reverse=True), names                     # the sort kept
        assert any(n.startswith("<img src=x") for n in names), names           # markup shown as text
        assert page.js("window.scrollY") == 400
        assert page.js("window.__pwned === undefined") is True
        assert page.js("document.querySelectorAll('#live img').length") == 0
        page.ws.close()
    finally:
        browser.kill()
        browser.wait(timeout=30)
        server.should_exit = True
        th.join(timeout=20)
        store.close()
