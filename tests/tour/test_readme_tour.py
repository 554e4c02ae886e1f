"""The README's tour runs as pasted (issue 23 section 2): every line of the ```bash block
under "A tour of the commands", in order, in one empty temporary directory, with
``d3mkit`` being this checkout; then the Python tour's block in the same directory. A line
with placeholders (``P``, ``S``) fails the test; a line marked ``# needs torch`` is skipped where
torch is absent (the core install)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
PLACEHOLDERS = {"P", "S", "DIR", "PATH"}


def _block(heading: str, lang: str) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"## {heading}")
    m = re.compile(rf"```{lang}\n(.*?)```", re.S).search(text, start)
    return m.group(1)


def tour_lines() -> list[str]:
    """The commands of the bash block, continuation lines joined."""
    return [line.strip() for line in _block("A tour of the commands", "bash").replace("\\\n", " ").splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def _tour_env(bin_dir: Path) -> dict:
    """The environment of the tour: a ``d3mkit`` on PATH that runs this checkout."""
    script = bin_dir / "d3mkit"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m d3mkit "$@"\n', encoding="utf-8")
    script.chmod(0o755)
    return dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
                PYTHONPATH=os.pathsep.join(p for p in [str(REPO), os.environ.get("PYTHONPATH", "")] if p))


def _torch_missing() -> bool:
    p = subprocess.run([sys.executable, "-c", "import torch"], capture_output=True)
    return p.returncode != 0


@pytest.mark.slow
def test_tour_runs_as_pasted(tmp_path):
    """Every line in order in one empty directory (one test: the lines depend on each other,
    and pytest-xdist may hand parametrized cases to different workers), then the Python tour
    in the same directory; what the tour left there is ignored by .gitignore, so a tour run in
    a checkout leaves ``git status`` clean."""
    import fnmatch
    d = tmp_path / "tour"
    d.mkdir()
    (tmp_path / "bin").mkdir()
    env = _tour_env(tmp_path / "bin")
    torch_missing = _torch_missing()
    ran = skipped = 0
    for line in tour_lines():
        words = set(shlex.split(line, comments=True))
        assert not words & PLACEHOLDERS, f"placeholders {sorted(words & PLACEHOLDERS)} in the README: {line}"
        if "needs torch" in line and torch_missing:
            skipped += 1           # the line says so; the core install has no torch
            continue
        p = subprocess.run(["bash", "-c", f"set -e; {line}"], cwd=d, env=env, capture_output=True, text=True,
                           timeout=900)
        assert p.returncode == 0, f"{line}\nexit {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}"
        ran += 1
    assert ran >= 15 and ran + skipped == len(tour_lines())
    code = _block("A tour of the Python API", "python")
    p = subprocess.run([sys.executable, "-c", code], cwd=d, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "accuracy" not in p.stderr and p.stdout.strip()
    patterns = [x.strip().strip("/") for x in (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()
                if x.strip() and not x.startswith("#")]
    written = {q.name for q in d.iterdir()} | {"d3mkit-demo"}
    missed = {w for w in written if not any(fnmatch.fnmatch(w, pat) for pat in patterns)}
    assert not missed, missed
