"""The API is lazy where it says so (issue 19 item 5): ``iter_issues`` yields as the
validator goes and ``is_valid`` stops at the first error; a plain directory gets an
answer; wrong argument types raise TypeError naming the parameter; a file that is not in
a task root is named, not its directory."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import d3mkit
from d3mkit.benchmarks.tabular import build_task_root
from d3mkit.validation import run


@pytest.fixture
def tree(tmp_path):
    """Three wine task roots; the first one's datasetDoc is broken JSON."""
    for name in ("a", "b", "c"):
        build_task_root(tmp_path, "wine", name=name)
    (tmp_path / "a" / "a_dataset" / "datasetDoc.json").write_text("{broken", encoding="utf-8")
    return tmp_path


@pytest.fixture
def counted(monkeypatch):
    calls = []
    real = run.check_dataset

    def check_dataset(d, report, **kw):
        calls.append(Path(d).parent.name)
        return real(d, report, **kw)
    monkeypatch.setattr(run, "check_dataset", check_dataset)
    return calls


def test_iter_issues_yields_before_the_rest_is_checked(tree, counted):
    issues = d3mkit.iter_issues(tree)
    assert counted == []                           # nothing read until iterated
    first = next(issues)
    assert first.code.startswith("json.") and "a_dataset" in first.path
    assert counted == ["a_dataset"]                # b and c not yet checked
    rest = list(issues)
    assert counted == ["a_dataset", "b_dataset", "c_dataset"]
    assert {i.code for i in [first, *rest]} == {i.code for i in d3mkit.validation.validate_paths([tree]).issues()}


def test_is_valid_stops_at_the_first_error(tree, counted):
    assert d3mkit.is_valid(tree) is False
    assert counted == ["a_dataset"]
    counted.clear()
    assert d3mkit.is_valid(tree / "b") is True and counted == ["b_dataset"]


def test_a_plain_directory_or_file_gets_an_answer(tmp_path):
    (tmp_path / "notes.txt").write_text("hello\n", encoding="utf-8")
    assert d3mkit.is_valid(tmp_path) is False
    assert d3mkit.is_valid(tmp_path / "notes.txt") is False
    [issue] = d3mkit.iter_issues(tmp_path)
    assert issue.is_error and issue.path == str(tmp_path)
    with pytest.raises(d3mkit.D3MKitError) as exc:     # a missing path is still an exception
        d3mkit.is_valid(tmp_path / "nothere")
    assert exc.value.exit_code == 2


def test_wrong_argument_types_raise_type_error(tmp_path):
    root = build_task_root(tmp_path, "wine")
    cases = [
        (lambda: d3mkit.validate(3), "paths"),
        (lambda: d3mkit.iter_issues(root, datasets=5), "datasets"),
        (lambda: d3mkit.iter_issues([root, None]), "paths"),
        (lambda: d3mkit.is_valid(b"bytes"), "paths"),
        (lambda: d3mkit.is_valid(root, strict="yes"), "strict"),
        (lambda: d3mkit.TaskRoot.open(None), "path"),
        (lambda: d3mkit.make_splits(str(root), pd.DataFrame()), "problem"),
        (lambda: d3mkit.make_splits(d3mkit.TaskRoot.open(root).problem, [1, 2]), "learning_data"),
        (lambda: d3mkit.write_views(root, 7), "out"),
        (lambda: d3mkit.write_views(root, tmp_path / "v", repeat="0"), "repeat"),
    ]
    for call, param in cases:
        with pytest.raises(TypeError, match=f"^{param}: expected"):
            call()
    assert not (tmp_path / "v").exists()


def test_a_file_outside_a_task_root_is_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("notes.txt").write_text("x", encoding="utf-8")
    for call in (lambda: d3mkit.TaskRoot.open("notes.txt"), lambda: d3mkit.write_views("notes.txt", "views")):
        with pytest.raises(d3mkit.D3MKitError) as exc:
            call()
        assert exc.value.issues[0].path == "notes.txt" and "not inside a task root" in str(exc.value)


def test_the_report_is_the_same_either_way(tmp_path):
    root = build_task_root(tmp_path, "wine")
    doc = root / "wine_problem" / "problemDoc.json"
    data = json.loads(doc.read_text())
    data["inputs"]["performanceMetrics"].append({"metric": "accuracy", "K": 3})
    doc.write_text(json.dumps(data))
    streamed = sorted(i.format() for i in d3mkit.iter_issues(tmp_path))
    assert streamed == sorted(i.format() for i in d3mkit.validation.validate_paths([tmp_path]).issues())
    assert streamed
