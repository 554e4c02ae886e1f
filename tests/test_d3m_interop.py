"""The D3M reference runtime on d3mkit's task roots (docs/d3m-interop.md).

Runs only when D3MKIT_D3M_PYTHON names the python of an environment built by
tools/d3m_reference/setup_env.sh (d3m 2022.5.5 + primitives + the d3mkit-d3m plugin);
skipped otherwise, as in CI. With it: d3m loads problems with custom metrics through the
plugin, loads value-detection after `d3mkit convert`, and `python -m d3m runtime fit-score`
on the tabular task root's views gives d3mkit's scores. (A fit-score takes ~20 s; the full
set of benchmark roots is `python tools/d3m_reference/fit_score.py ROOT...`.)
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
D3M_PYTHON = os.environ.get("D3MKIT_D3M_PYTHON", "")


def _ready() -> bool:
    if not D3M_PYTHON or not Path(D3M_PYTHON).is_file():
        return False
    probe = subprocess.run([D3M_PYTHON, "-c", "import importlib.util as u; "
                            "raise SystemExit(0 if u.find_spec('d3mkit_d3m') and u.find_spec('d3m') else 1)"])
    return probe.returncode == 0


pytestmark = pytest.mark.skipif(not _ready(), reason="set D3MKIT_D3M_PYTHON to the python of an environment "
                                "built by tools/d3m_reference/setup_env.sh (docs/d3m-interop.md)")


def _env():
    env = dict(os.environ)
    env["D3MKIT_COMMAND"] = f"{sys.executable} -m d3mkit"
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def check_load(*paths, plugin=True):
    cmd = [D3M_PYTHON, str(REPO / "tools" / "d3m_reference" / "check_load.py")]
    cmd += ["-M", "d3mkit_d3m"] if plugin else []
    return subprocess.run(cmd + [str(p) for p in paths], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, env=_env())


def test_custom_metric_problems_load_with_the_plugin():
    roots = [REPO / "problems" / n for n in ("value", "abstraction_rotation_example")]
    without = check_load(*roots, plugin=False)
    assert without.returncode == 1 and "KeyError: 'other'" in without.stdout
    with_plugin = check_load(*roots)
    assert with_plugin.returncode == 0, with_plugin.stdout
    assert "metrics=accuracy,expectedAccuracyWithoutAbstraction" in with_plugin.stdout


def test_value_detection_loads_after_conversion(tmp_path):
    from d3mkit.package import convert_tree
    from validate_helpers import build_detection
    root = build_detection(tmp_path / "src")
    assert "KeyError: 'boundingBox'" in check_load(root).stdout
    convert_tree(root, "4.0.0", tmp_path / "v4")
    result = check_load(tmp_path / "v4")
    assert result.returncode == 0, result.stdout


def test_fit_score_equals_d3mkit_score(tmp_path, capsys):
    sys.path.insert(0, str(REPO / "tools" / "d3m_reference"))
    try:
        import fit_score
    finally:
        sys.path.pop(0)
    from d3mkit.benchmarks.tabular import build_task_root
    root = build_task_root(tmp_path / "roots", "wine", seed=1)
    assert fit_score.main([str(root), "--python", D3M_PYTHON, "--work", str(tmp_path / "work")]) == 0
    out = capsys.readouterr().out
    assert "accuracy" in out and "f1Macro" in out and "False" not in out
