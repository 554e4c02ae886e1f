"""problems/: every shipped example task root validates, and ``d3mkit reproduce problems``
(d3mkit.benchmarks.problems) reproduces the directory byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from d3mkit.validation import validate_task_root

REPO = Path(__file__).resolve().parents[2]
PROBLEMS = REPO / "problems"


def _regen():
    from d3mkit.benchmarks import problems
    return problems


ROOTS = sorted(p for p in PROBLEMS.iterdir() if p.is_dir() and list(p.glob("*_problem")))


def test_problems_present():
    assert (PROBLEMS / "wine").is_dir()
    names = {p.name for p in ROOTS}
    assert names, "problems/ holds no task roots"


@pytest.mark.slow
@pytest.mark.parametrize("root", ROOTS, ids=[p.name for p in ROOTS])
def test_example_validates(root):
    errors = [i.format() for i in validate_task_root(root) if i.is_error]
    assert errors == []


@pytest.mark.slow
def test_regeneration_is_byte_for_byte(capsys):
    """``d3mkit reproduce problems --check`` on the checkout's problems/ (its default)."""
    from d3mkit.cli import main
    assert _regen().examples(), "no builder defines EXAMPLE_ARGS"
    assert _regen().default_problems_dir().resolve() == PROBLEMS.resolve()
    rc = main(["reproduce", "problems", "--check"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "up to date" in out


def test_compare_reports_differences(tmp_path):
    regen = _regen()
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        (d / "x").mkdir(parents=True)
        (d / "x" / "same.txt").write_text("1")
    (a / "x" / "changed.txt").write_text("1")
    (b / "x" / "changed.txt").write_text("2")
    (a / "gone.txt").write_text("")
    (b / "new.txt").write_text("")
    assert regen.compare(a, b) == ["missing: gone.txt", "extra: new.txt", "differs: x/changed.txt"]

