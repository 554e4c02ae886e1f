"""The registry: decorator, specifyOther resolution, plugin discovery through the
``d3mkit.metrics`` entry-point group (a tiny distribution written to a tmp dir)."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from d3mkit.core.errors import D3MKitError
from d3mkit.core import registry as R
REPO = Path(__file__).resolve().parents[2]


def _plugin(tmp: Path, module_text: str, ep_value: str, name="demo_plugin") -> Path:
    site = tmp / "site"
    (site / f"{name}-0.1.dist-info").mkdir(parents=True)
    (site / f"{name}-0.1.dist-info" / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (site / f"{name}-0.1.dist-info" / "entry_points.txt").write_text(
        f"[d3mkit.metrics]\n{ep_value}\n")
    (site / f"{name}_mod.py").write_text(textwrap.dedent(module_text))
    return site


PLUGIN = """
from d3mkit.scoring.registry import Metric

def _half(y_true, y_pred):
    return 0.5

def metrics():
    return [Metric("pluginHalf", _half, True, 1.0, 0.0, description="always one half")]
"""


@pytest.fixture
def fresh_registry(monkeypatch):
    saved = dict(R._REGISTRY)
    monkeypatch.setattr(R, "_LOADED", False)
    monkeypatch.setattr(R, "_LOAD_ISSUES", [])
    yield
    R._REGISTRY.clear()
    R._REGISTRY.update(saved)


def test_plugin_discovered_in_process(tmp_path, monkeypatch, fresh_registry):
    site = _plugin(tmp_path, PLUGIN, "half = demo_plugin_mod:metrics")
    monkeypatch.syspath_prepend(str(site))
    reg = R.registry()
    m = reg["pluginHalf"]
    assert m([1], [2]) == 0.5
    assert m.source == "entry point half = demo_plugin_mod:metrics"
    assert R.resolve({"metric": "other", "specifyOther": "pluginHalf"}) is m
    assert "accuracy" in reg


def test_broken_plugin_is_a_warning(tmp_path, monkeypatch, fresh_registry):
    site = _plugin(tmp_path, "raise RuntimeError('boom')\n", "bad = demo_plugin_mod:metrics", name="bad_plugin")
    (site / "bad_plugin_mod.py").write_text("raise RuntimeError('boom')\n")
    (site / "bad_plugin-0.1.dist-info" / "entry_points.txt").write_text("[d3mkit.metrics]\nbad = bad_plugin_mod:metrics\n")
    monkeypatch.syspath_prepend(str(site))
    R.registry()
    issues = R.plugin_issues()
    assert issues and issues[0].severity == "warning" and "boom" in issues[0].message


@pytest.mark.slow
def test_plugin_listed_by_cli_and_scored(tmp_path):
    site = _plugin(tmp_path, PLUGIN, "half = demo_plugin_mod:metrics")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(site)]))
    out = subprocess.run([sys.executable, "-m", "d3mkit", "metrics", "--format", "json"],
                         capture_output=True, text=True, env=env, check=True).stdout
    by = {m["name"]: m for m in json.loads(out)["metrics"]}
    assert by["pluginHalf"]["source"].startswith("entry point half")
    assert by["pluginHalf"]["description"] == "always one half"


def test_decorator_and_unknown_name():
    @R.register_metric(name="testOnlyConst", higher_is_better=False, best=0.0, worst=1.0,
                       task_types=("regression",), params=("alpha",))
    def const(y_true, y_pred, alpha=0.0):
        """A constant (test)."""
        return alpha
    try:
        m = R.get_metric("testOnlyConst")
        assert m([1], [1], alpha=0.25) == 0.25
        assert m.description == "A constant (test)."
        assert m.applies_to("regression") and not m.applies_to("classification")
        with pytest.raises(ValueError, match="already registered"):
            R.register_metric(name="testOnlyConst", higher_is_better=True, best=1, worst=0)(const)
    finally:
        R.unregister_metric("testOnlyConst")
    with pytest.raises(D3MKitError) as exc:
        R.resolve({"metric": "other", "specifyOther": "nope"})
    assert "unknown metric 'nope'; known metrics: " in exc.value.issues[0].message
    assert "rocAuc" in exc.value.issues[0].message
