"""Validation's checks are units in a registry (issue 31 item 5): the driver runs documents x
checks; a caller passes its own list, and a third party registers a check through the
``d3mkit.checks`` entry-point group, as the predictions check of the scoring layer does."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from d3mkit.core.errors import Issue
from d3mkit.validation.checks import Check, Checklist
from d3mkit.validation.plugins import load_checks
from d3mkit.validation.run import validate_paths, validate_predictions

from validate_helpers import build_tabular

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return build_tabular(tmp_path_factory.mktemp("checks"))


def _readme(doc, session):
    """A toy check: every datasetDoc needs a README.md beside it."""
    yield None                       # a step mark is allowed anywhere
    if not (doc.path.parent / "README.md").exists():
        yield Issue("warning", "toy.readme", "", "no README.md beside the datasetDoc", str(doc.path))


TOY = Check("toy.readme", "datasetDoc", _readme, "a README beside each datasetDoc")


def test_the_registry_holds_validations_and_scorings_checks():
    checks = load_checks()
    assert checks.names() == ["dataset", "problem.schema", "problem.dataset", "problem.splits", "predictions"]
    assert [c.name for c in checks.of_kind("predictions")] == ["predictions"]
    assert checks.issues == ()


def test_a_callers_check_runs_after_the_builtin_ones(root):
    plain = validate_paths([root])
    assert plain.valid(strict=True)
    report = validate_paths([root], checks=load_checks().extended(TOY))
    docs = [d for d in report.documents if d.kind == "datasetDoc"]
    assert [i.code for d in docs for i in d.issues] == ["toy.readme"]
    assert report.valid() and not report.valid(strict=True)
    (root / f"{root.name}_dataset" / "README.md").write_text("hello")
    try:
        assert validate_paths([root], checks=load_checks().extended(TOY)).valid(strict=True)
    finally:
        (root / f"{root.name}_dataset" / "README.md").unlink()


def test_a_checklist_is_read_only_and_without_removes(root, tmp_path):
    base = load_checks()
    more = base.extended(TOY)
    assert "toy.readme" not in base.names() and "toy.readme" in more.names()
    with pytest.raises(AttributeError):
        base.checks = ()          # frozen
    broken = shutil.copytree(root, tmp_path / "r")
    (broken / f"{root.name}_problem" / "dataSplits.csv").write_text("d3mIndex,type\n0,TRAIN\n")
    assert not validate_paths([broken]).valid()
    assert validate_paths([broken], checks=base.without("problem.splits")).valid()


def test_a_check_names_a_kind_the_driver_knows():
    with pytest.raises(ValueError, match="kind must be one of datasetDoc, problemDoc, predictions"):
        Check("toy", "readme", _readme)


def test_a_document_no_check_covers_is_an_error(root, tmp_path):
    pred = tmp_path / "p.csv"
    pred.write_text("d3mIndex,y\n0,a\n")
    report = validate_predictions([pred], root, checks=Checklist(load_checks().of_kind("datasetDoc")))
    assert [i.code for i in report.issues()] == ["check.missing"]
    assert not report.valid()


def _plugin(tmp_path: Path, body: str, value: str) -> dict:
    """A third-party distribution on sys.path: its module and the entry_points.txt of its
    metadata, as pip would install them."""
    site = tmp_path / "site"
    (site / "toy_checks-1.0.dist-info").mkdir(parents=True)
    (site / "toy_checks.py").write_text(textwrap.dedent(body))
    (site / "toy_checks-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-checks\nVersion: 1.0\n")
    (site / "toy_checks-1.0.dist-info" / "entry_points.txt").write_text(f"[d3mkit.checks]\ntoy = {value}\n")
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(site)]))


@pytest.mark.slow
def test_a_third_party_registers_a_check_through_the_entry_point_group(root, tmp_path):
    env = _plugin(tmp_path, '''
        from d3mkit.core.errors import Issue
        from d3mkit.validation.checks import Check

        def run(doc, session):
            yield Issue("error", "toy.name", "about.datasetName", "the dataset has a name", str(doc.path))

        CHECK = Check("toy.name", "datasetDoc", run)
    ''', "toy_checks:CHECK")
    out = subprocess.run([sys.executable, "-m", "d3mkit", "validate", str(root)], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1, out.stderr
    assert "about.datasetName: error [toy.name] the dataset has a name" in out.stdout


@pytest.mark.slow
def test_a_third_party_check_that_cannot_load_is_a_warning(root, tmp_path):
    env = _plugin(tmp_path, "raise ImportError('no such thing')\n", "toy_checks:CHECK")
    out = subprocess.run([sys.executable, "-m", "d3mkit", "validate", str(root)], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "warning [checks.plugin] could not be loaded (ImportError: no such thing)" in out.stderr


@pytest.mark.slow
def test_the_api_verbs_run_the_predictions_check_too(tmp_path):
    """The verbs run the same registered checks as the command: a predictions CSV inside a
    problem directory is checked (before the registry, the API found it and said valid)."""
    import d3mkit
    from d3mkit.tables import write_table
    from taskroot_helpers import true_test_rows, wine_root
    root = wine_root(tmp_path)
    rows = true_test_rows(root)
    f = root / "wine_problem" / "predictions.csv"
    write_table(rows.iloc[list(range(len(rows))) + [0]], f)
    assert not d3mkit.is_valid(f)
    assert "predictions.duplicate_index" in {i.code for i in d3mkit.iter_issues(f)}
    write_table(rows, f)
    assert d3mkit.is_valid(f, strict=True)
