"""Cheap entry-point discovery (issue 19, start-up): :func:`d3mkit.core.entrypoints.scan` reads
only the ``entry_points.txt`` texts, never imports importlib.metadata, finds what
importlib.metadata finds, and sees a plug-in installed or removed since the last call."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from d3mkit.core import entrypoints
REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("group", ["console_scripts", "d3mkit.metrics", "d3mkit.benchmarks", "pytest11"])
def test_the_scan_finds_what_importlib_metadata_finds(group):
    mine = sorted((name, value) for _, name, value in entrypoints.scan(group))
    assert mine == sorted((ep.name, ep.value) for ep in entry_points(group=group))


def _install(site: Path, dist: str, body: str) -> Path:
    info = site / f"{dist}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(body)
    return info


def test_a_plugin_installed_later_is_seen_and_a_removed_one_is_gone(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    assert entrypoints.third_party("d3mkit.benchmarks") == []          # the first run
    info = _install(site, "late_bench", "[console_scripts]\nx = y:z\n\n[d3mkit.benchmarks]\n"
                                        "# a comment\nlate = late_bench:BENCHMARK [extra]\n\n[other]\nno = a:b\n")
    (site / "late_bench.py").write_text("BENCHMARK = 'the record'\n")
    eps = entrypoints.third_party("d3mkit.benchmarks")
    assert [(ep.name, ep.value) for ep in eps] == [("late", "late_bench:BENCHMARK [extra]")]
    assert eps[0].load() == "the record"
    shutil.rmtree(info)
    assert entrypoints.third_party("d3mkit.benchmarks") == []
    sys.modules.pop("late_bench", None)


def test_the_first_distribution_of_a_name_wins_and_d3mkit_is_not_third_party(tmp_path, monkeypatch):
    first, second = tmp_path / "a", tmp_path / "b"
    _install(first, "dup", "[d3mkit.metrics]\none = m:one\n")
    _install(second, "Dup", "[d3mkit.metrics]\ntwo = m:two\n")
    _install(second, "d3mkit", "[d3mkit.metrics]\nfake = m:fake\n")
    monkeypatch.syspath_prepend(str(second))
    monkeypatch.syspath_prepend(str(first))
    names = [ep.name for ep in entrypoints.third_party("d3mkit.metrics")]
    assert "one" in names and "two" not in names and "fake" not in names


def test_a_zip_on_sys_path_falls_back_to_importlib_metadata(tmp_path, monkeypatch):
    z = tmp_path / "plug.zip"
    with zipfile.ZipFile(z, "w") as f:
        f.writestr("zipped-0.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: zipped\nVersion: 0.1\n")
        f.writestr("zipped-0.1.dist-info/entry_points.txt", "[d3mkit.benchmarks]\nzb = zipped:B\n")
    monkeypatch.syspath_prepend(str(z))
    assert entrypoints.scan("d3mkit.benchmarks") is None
    assert [ep.name for ep in entrypoints.third_party("d3mkit.benchmarks")] == ["zb"]


@pytest.mark.slow
@pytest.mark.parametrize("args", [["build", "--help"], ["score", "--help"], ["validate", "--help"], ["--help"]])
def test_start_up_does_not_import_importlib_metadata(args):
    """Nor, for the list of commands, what a command needs only when it runs (the atomic
    writer's ctypes and secrets, json)."""
    probe = ("import sys\nfrom d3mkit.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n"
             "    pass\nprint(' '.join(m for m in ('importlib.metadata', 'ctypes', 'secrets', 'd3mkit.io.atomic')"
             " if m in sys.modules) or '-', file=sys.stderr)")
    p = subprocess.run([sys.executable, "-c", probe, *args], env=dict(os.environ, PYTHONPATH=str(REPO)),
                       capture_output=True, text=True)
    assert p.stderr.strip().splitlines()[-1] == "-", p.stderr
