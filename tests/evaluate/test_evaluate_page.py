"""leaderboard.html without a browser (issue 25 item 5; the Chromium tests in
test_evaluate_browser.py skip where no browser is installed): the page of a real campaign,
parsed with the standard library, holds the date, version and parameters, links that
exist, every system in every problem table with failed and missing marked, each metric's
direction and description, numbers in the heat-map cells with one discrete class per
rank, the failure policy — and everything is in the static HTML, so it reads without
its one inline script."""

from __future__ import annotations

import re
import shutil
from html.parser import HTMLParser

import pytest

from d3mkit import __version__
from d3mkit.cli import main
from d3mkit.evaluate.synthetic import make_campaign

NAMES = ["alpha_system_with_a_rather_long_name_s0", "alpha_system_with_a_rather_long_name_s1", "beta", "gamma"]


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.tables, self.scripts, self.links, self.heat = [], [], 0, [], []
        self._table = None
        self._cell = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "table":
            self._table = []
            self.tables.append(self._table)
        elif tag == "tr" and self._table is not None:
            self._table.append({"class": a.get("class", ""), "cells": []})
        elif tag in ("td", "th") and self._table is not None and self._table:
            self._cell = {"class": a.get("class", ""), "text": "", "title": None}
            self._table[-1]["cells"].append(self._cell)
        elif tag == "span" and self._cell is not None and a.get("title"):
            self._cell["title"] = a["title"]
        elif tag == "script":
            self.scripts += 1
        elif tag == "a":
            self.links.append(a.get("href"))

    def handle_endtag(self, tag):
        if tag == "table":
            self._table = None
        elif tag in ("td", "th"):
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell["text"] += data


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("page")
    p, s = make_campaign(tmp, systems=4, problems=3, rows=40, seed=21, malformed=0.0, names=NAMES,
                         broken=("beta",))
    shutil.rmtree(s / "gamma" / "synth_002_problem")
    out = tmp / "out"
    import os
    old = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = "1700000000"
    try:
        assert main(["evaluate", "--problems", str(p), "--submissions", str(s), "--out", str(out), "--quiet",
                     "--workers", "1", "--bootstrap", "100", "--seed", "5"]) == 0
    finally:
        if old is None:
            del os.environ["SOURCE_DATE_EPOCH"]
        else:
            os.environ["SOURCE_DATE_EPOCH"] = old
    text = (out / "leaderboard.html").read_text(encoding="utf-8")
    parsed = _Page()
    parsed.feed(text)
    return out, text, parsed


def test_date_version_parameters_and_links(page):
    out, text, parsed = page
    assert "2023-11-14" in text                               # SOURCE_DATE_EPOCH 1700000000
    assert f"d3mkit {__version__}" in text
    for param in ("bootstrap = 100", "confidence = 0.95", "seed = 5"):
        assert param in text
    for name in ("scores.csv", "failures.csv", "comparisons.csv", "aggregates.csv", "summary.json"):
        assert name in parsed.links and (out / name).is_file()
    assert "Failure policy" in text


def test_the_page_reads_without_scripts(page):
    _out, text, parsed = page
    assert parsed.scripts == 1                                 # one inline script, sorting only
    assert not any("src" in a or tag == "link" for tag, a in parsed.tags)   # nothing fetched
    without = re.sub(r"<script>.*?</script>", "", text, flags=re.S)
    for h in ('id="overall"', 'id="problems"', 'id="failures"'):
        assert h in without
    assert len(parsed.tables) >= 1 + 1 + 3 + 1                  # overall, heat map, 3 problems, failures


def test_every_system_in_every_problem_table_with_status(page):
    _out, text, parsed = page
    problem_tables = [t for t in parsed.tables if t and [c["text"] for c in t[0]["cells"]][:2] == ["system", "status"]]
    assert len(problem_tables) == 3
    for t in problem_tables:
        names = {r["cells"][0]["title"] for r in t[1:]}
        assert names == set(NAMES)
        status = {r["cells"][0]["title"]: r["cells"][1]["text"] for r in t[1:]}
        assert status["beta"] == "failed"
    last = problem_tables[2]
    assert {r["cells"][0]["title"]: r["cells"][1]["text"] for r in last[1:]}["gamma"] == "missing"
    # labels: never two names with one label, the full name on hover
    labels = {c["title"]: c["text"] for t in parsed.tables for r in t for c in r["cells"] if c["title"]}
    assert len(set(labels.values())) == len(labels)


def test_metrics_directions_descriptions_and_heat_cells(page):
    _out, text, parsed = page
    for metric, direction in (("accuracy", "higher"), ("f1Macro", "higher"),
                              ("rootMeanSquaredError", "lower"), ("meanAbsoluteError", "lower")):
        assert re.search(rf"<b>{metric}</b> \({direction} is better\): \w", text), metric
    heat = [c for t in parsed.tables for r in t for c in r["cells"] if "heat" in c["class"].split()]
    assert heat
    classes = {c["class"].split()[1] for c in heat}
    assert classes <= {"r1", "r2", "r3", "r4", "r5", "rn"} and "r1" in classes and "rn" in classes
    for c in heat:                                             # the rank, then the value
        if c["class"].split()[1] != "rn":
            assert re.fullmatch(r"\d+(\.5)?-?\d+\.\d+", c["text"]), c
