"""The D3M reference runtime on d3mkit's task roots (docs/d3m-interop.md).

Runs only when D3MKIT_D3M_PYTHON names the python of an environment built by
tools/d3m_reference/setup_env.sh (d3m 2022.5.5 + primitives + the d3mkit-d3m plugin);
skipped otherwise, as in CI. With it: d3m loads problems with custom metrics through the
plugin and value-detection after `d3mkit convert` (not before), and `python -m d3m runtime
fit-score` on ViSudo-PC and value-detection roots built here by `d3mkit build` gives
d3mkit's rocAuc and objectDetectionAP on the same predictions (from d3m's
construct_confidence). About 45 s on the shared machine; every benchmark and metric is
`python tools/d3m_reference/fit_score.py --build` (about 2-3 minutes).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
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


def test_custom_metrics_load_with_the_plugin_and_boxes_after_conversion(tmp_path):
    from d3mkit.taskroot.writer import convert_tree
    from validate_helpers import build_detection
    detection = build_detection(tmp_path / "src")
    roots = [REPO / "problems" / n for n in ("value", "abstraction_rotation_example")]
    without = check_load(*roots, detection, plugin=False)
    assert without.returncode == 1
    assert "KeyError: 'other'" in without.stdout and "KeyError: 'boundingBox'" in without.stdout
    convert_tree(detection, "4.0.0", tmp_path / "v4")
    with_plugin = check_load(*roots, tmp_path / "v4")
    assert with_plugin.returncode == 0, with_plugin.stdout
    assert "metrics=accuracy,expectedAccuracyWithoutAbstraction" in with_plugin.stdout


def test_fit_score_equals_d3mkit_score_with_confidences(tmp_path, capsys):
    sys.path.insert(0, str(REPO / "tools" / "d3m_reference"))
    try:
        import fit_score
    finally:
        sys.path.pop(0)
    code = fit_score.main(["--build", "--only", "visudo,value-detection", "--confidence-only",
                           "--python", D3M_PYTHON, "--work", str(tmp_path / "work"), "--json"])
    rows = __import__("json").loads(capsys.readouterr().out)
    assert code == 0, rows
    got = {(r["benchmark"], r["metric"]): r for r in rows}
    assert set(got) == {("visudo", "rocAuc"), ("value-detection", "objectDetectionAP")}
    for r in rows:
        assert r["equal"] is True and r["fit-score"] == "ok" and r["d3m"] not in ("", "empty"), r
    assert got[("value-detection", "objectDetectionAP")]["loads"] == "yes (4.0.0)"
    assert got[("visudo", "rocAuc")]["pipeline"] == "classification+confidence"


def test_imported_roots_fit_score_like_d3mkit(tmp_path, capsys):
    """Roots written by `d3mkit import table` (a classification and a kFold regression) load in
    d3m and fit-score with the values d3mkit gives (issue 21)."""
    sys.path.insert(0, str(REPO / "tools" / "d3m_reference"))
    try:
        import fit_score
    finally:
        sys.path.pop(0)
    code = fit_score.main(["--build", "--only", "imported,imported-regression", "--python", D3M_PYTHON,
                           "--work", str(tmp_path / "work"), "--json"])
    rows = __import__("json").loads(capsys.readouterr().out)
    assert code == 0, rows
    assert {(r["benchmark"], r["metric"]) for r in rows} == {
        ("imported", "accuracy"), ("imported", "f1Macro"), ("imported-regression", "rootMeanSquaredError")}
    assert all(r["equal"] is True and r["fit-score"] == "ok" and r["loads"] == "yes" for r in rows), rows
