"""Run d3mkit in a subprocess as if some optional packages were not installed.

A ``sys.meta_path`` finder placed first refuses the named top-level modules with the
ModuleNotFoundError an absent package gives, so a test can show how d3mkit behaves on the
core install (no torch, no mlxtend) in a venv that has them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

PRELUDE = """
import importlib.abc, sys
BLOCKED = set(sys.argv.pop(1).split(","))
class _Absent(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, _Absent())
from d3mkit.cli import main
sys.exit(main(sys.argv[1:]))
"""


def run_without(modules: list[str], argv: list[str], cwd: Path | None = None,
                timeout: float = 600) -> subprocess.CompletedProcess:
    """``d3mkit ARGV`` with ``modules`` unimportable; text output captured."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-c", PRELUDE, ",".join(modules), *map(str, argv)],
                          capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)
