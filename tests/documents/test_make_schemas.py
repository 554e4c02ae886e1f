"""``tools/make_schemas.py --check`` runs in CI (issue 19 item 7): the generated schema
files in d3mkit/schemas/ are what the tool would write, and the check sees a change."""

from __future__ import annotations

import pytest
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "tools" / "make_schemas.py"


@pytest.mark.slow
def test_generated_schemas_are_up_to_date():
    p = subprocess.run([sys.executable, str(TOOL), "--check"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_the_check_sees_a_stale_file(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("make_schemas_under_test", TOOL)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    schemas = tmp_path / "schemas"
    shutil.copytree(REPO / "d3mkit" / "schemas", schemas)
    tool.SCHEMAS = schemas
    assert tool.main(["--check"]) == 0
    generated = sorted(p for p in schemas.glob("*.json") if "-3.1.1." not in p.name and "-3.1.2." not in p.name)
    generated[0].write_text(generated[0].read_text(encoding="utf-8").replace('"', "'", 1), encoding="utf-8")
    assert tool.main(["--check"]) == 1
    assert generated[0].name in capsys.readouterr().out
