"""Start-up (issue 11 §4): help and version never import the heavy modules; a builder's or a
baseline's options are added only when that command is parsed (commands.lazy_parser)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("pandas", "numpy", "sklearn", "torch", "scipy", "PIL")
PROBE = ("import sys\nfrom d3mkit.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
         "print(' '.join(m for m in %r if m in sys.modules), file=sys.stderr)" % (HEAVY,))


def _heavy(args):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    p = subprocess.run([sys.executable, "-c", PROBE, *args], env=env, capture_output=True, text=True)
    return p.stdout, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["build", "--help"], ["validate", "--help"],
                                  ["score", "--help"]])
def test_help_imports_nothing_heavy(args):
    out, heavy = _heavy(args)
    assert heavy == "", (args, heavy)
    if args == ["build", "--help"]:
        assert "tabular" in out and "visudo" in out and "ViSudo-PC task roots" in out


@pytest.mark.slow
def test_a_builders_options_are_there_when_it_is_parsed():
    out, _ = _heavy(["build", "tabular", "--help"])
    assert "--dataset" in out and "--out" in out
    out, _ = _heavy(["baseline", "--help"])
    assert "--abstraction-lr" in out
