"""leaderboard.html as a person sees it: rendered by headless Chromium (Debian's
``chromium``; skipped where no browser is installed). The screenshot must show the
tables (their header colour), the heat map's discrete rank colours and the critical
difference diagram; the DOM after the page's script ran must hold every system in every
problem table, full names on hover, the links, and a table that sorts on a click."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest
from PIL import Image

from d3mkit.cli import main
from d3mkit.evaluate.synthetic import make_campaign

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")
LONG = ["visudo_mnist_basic_overlap_050_split_s0_system", "visudo_mnist_basic_overlap_050_split_s1_system",
        "short", "x" * 70]


def _browser():
    for b in BROWSERS:
        if shutil.which(b):
            return shutil.which(b)
    return None


def _count(img: np.ndarray, rgb, tol: int = 6) -> int:
    return int((np.abs(img.astype(int) - np.array(rgb)).max(axis=2) <= tol).sum())


def _chromium(tmp_path, *args, timeout=120):
    cmd = [_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           f"--user-data-dir={tmp_path / 'profile'}", *args]
    return subprocess.run(cmd, capture_output=True, timeout=timeout, check=False, text=True)


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("browser")
    p, s = make_campaign(tmp, systems=4, problems=3, rows=60, seed=9, malformed=0.0, folds=2,
                         names=LONG, broken=("short",))
    import shutil as sh
    sh.rmtree(s / LONG[3] / "synth_001_problem")                      # one missing submission
    out = tmp / "out"
    assert main(["evaluate", "--problems", str(p), "--submissions", str(s), "--out", str(out),
                 "--quiet", "--workers", "1", "--bootstrap", "200"]) == 0
    return tmp, out / "leaderboard.html"


@pytest.mark.slow
@pytest.mark.skipif(_browser() is None, reason="no Chromium/Chrome installed (apt-get install chromium)")
def test_leaderboard_screenshot_shows_tables_heat_map_and_cd_diagram(page):
    tmp, html_path = page
    shot = tmp / "shot.png"
    _chromium(tmp, "--window-size=1300,3000", f"--screenshot={shot}", html_path.as_uri())
    assert shot.is_file(), "the browser wrote no screenshot"
    img = np.asarray(Image.open(shot).convert("RGB"))
    header_rows = np.flatnonzero((np.abs(img.astype(int) - (0xd7, 0xe3, 0xf4)).max(axis=2) <= 6).sum(axis=1) > 100)
    assert len(header_rows) > 5 * 10, "no table headers visible"
    assert _count(img, (0x1a, 0x98, 0x50)) > 500, "no rank-1 cells in the heat map"
    assert _count(img, (0xbb, 0xbb, 0xbb)) > 200, "no 'no score' cells in the heat map"
    assert _count(img, (0xc0, 0x39, 0x2b), 30) > 50, "no critical-difference bar"


@pytest.mark.slow
@pytest.mark.skipif(_browser() is None, reason="no Chromium/Chrome installed (apt-get install chromium)")
def test_leaderboard_dom_names_links_and_sorting(page):
    tmp, html_path = page
    text = html_path.read_text(encoding="utf-8")
    # click the "system" header of the first table, then dump the DOM the browser holds
    clicked = tmp / "clicked.html"
    clicked.write_text(text.replace("</body>", '<script>document.querySelector("table.sortable th:nth-child(2)")'
                                    '.click();</script></body>'), encoding="utf-8")
    dom = _chromium(tmp, "--dump-dom", clicked.as_uri()).stdout
    assert "<h1>d3mkit leaderboard</h1>" in dom
    for link in ("scores.csv", "failures.csv", "comparisons.csv"):
        assert f'href="{link}"' in dom
    first = dom.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    order = re.findall(r'<span title="([^"]+)">', first)
    assert order == sorted(LONG), order                                  # sorted on the click
    # every system in every per-problem table, failed and missing marked
    tables = dom.split('id="problems"', 1)[1].split('id="failures"', 1)[0].split("<table")[1:]
    assert len(tables) == 3
    for t in tables:
        assert sorted(set(re.findall(r'<span title="([^"]+)">', t))) == sorted(LONG)
    assert ">failed<" in dom and ">missing<" in dom
    # labels: full names on hover, and never two names with one label
    labels = dict(re.findall(r'<span title="([^"]+)">([^<]+)</span>', dom))
    assert len(set(labels.values())) == len(labels) == len(LONG) + 3


PICTURES = ("elo-picture", "winrate-picture", "strip-picture", "cd-picture", "folds-1")


@pytest.mark.slow
@pytest.mark.skipif(_browser() is None, reason="no Chromium/Chrome installed (apt-get install chromium)")
def test_every_picture_has_visible_ink_and_a_text_alternative(page):
    """Each inline SVG picture, rendered alone by the browser, draws coloured marks (not
    only a blank frame or labels), and carries a title, a description and a caption."""
    tmp, html_path = page
    text = html_path.read_text(encoding="utf-8")
    for ident in PICTURES:
        m = re.search(r'<figure class="picture" id="%s">(<svg.*?</svg>)<figcaption[^>]*>([^<]+)</figcaption>'
                      % re.escape(ident), text, re.S)
        assert m, f"no picture {ident}"
        svg, caption = m.groups()
        assert re.search(r'role="img"', svg) and "<title id=" in svg and "<desc id=" in svg, ident
        assert len(caption.split()) >= 8, ident
        one = tmp / f"{ident}.html"
        one.write_text(f'<!DOCTYPE html><html><body style="margin:0;background:#fff">{svg}</body></html>',
                       encoding="utf-8")
        shot = tmp / f"{ident}.png"
        _chromium(tmp, "--window-size=1000,900", f"--screenshot={shot}", one.as_uri())
        assert shot.is_file(), f"the browser wrote no screenshot of {ident}"
        img = np.asarray(Image.open(shot).convert("RGB")).astype(int)
        ink = int((img.min(axis=2) < 200).sum())
        colour = int(((img.max(axis=2) - img.min(axis=2)) > 60).sum())
        assert ink > 300, f"{ident}: almost nothing drawn ({ink} dark pixels)"
        assert colour > 80, f"{ident}: no coloured marks ({colour} pixels)"
