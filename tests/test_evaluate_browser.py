"""leaderboard.html as a person sees it: rendered by headless Chromium (Debian's
``chromium``; skipped where no browser is installed), the screenshot must show the
tables (their header colour) and both plots (the heat map's colours, box-plot points)."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from PIL import Image

from d3mkit.cli import main
from d3mkit.evaluate.synthetic import make_campaign

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")


def _browser():
    for b in BROWSERS:
        if shutil.which(b):
            return shutil.which(b)
    return None


def _count(img: np.ndarray, rgb, tol: int = 6) -> int:
    return int((np.abs(img.astype(int) - np.array(rgb)).max(axis=2) <= tol).sum())


@pytest.mark.slow
@pytest.mark.skipif(_browser() is None, reason="no Chromium/Chrome installed (apt-get install chromium)")
def test_leaderboard_screenshot_shows_tables_and_plots(tmp_path):
    p, s = make_campaign(tmp_path, systems=4, problems=3, rows=30, seed=9, malformed=0.2)
    out = tmp_path / "out"
    assert main(["evaluate", "--problems", str(p), "--submissions", str(s), "--out", str(out),
                 "--quiet", "--workers", "1"]) == 0
    shot = tmp_path / "shot.png"
    cmd = [_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,2600",
           f"--screenshot={shot}", (out / "leaderboard.html").as_uri()]
    subprocess.run(cmd, capture_output=True, timeout=120, check=False)
    assert shot.is_file(), "the browser wrote no screenshot"
    img = np.asarray(Image.open(shot).convert("RGB"))
    assert img.shape[0] >= 2000
    # table headers (#d7e3f4) of the overall ranking and of each problem: many header cells
    header_rows = np.flatnonzero((np.abs(img.astype(int) - (0xd7, 0xe3, 0xf4)).max(axis=2) <= 6).sum(axis=1) > 100)
    assert len(header_rows) > 5 * 10, "no table headers visible"
    # the heat map: viridis ends (rank 1 yellow-ish, worst purple-ish) in large blocks
    assert _count(img, (253, 231, 37), 40) > 500 and _count(img, (68, 1, 84), 40) > 500, "no heat map"
    # the distribution plot's red points (#d62728)
    assert _count(img, (0xd6, 0x27, 0x28), 30) > 20, "no distribution points"
    # no broken-image placeholders: both images decoded to real sizes (a broken one is ~16 px)
    assert (img.mean(axis=2) < 250).mean() > 0.03
