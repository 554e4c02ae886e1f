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
from d3mkit.validation import files


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
    real = files.dataset_steps

    def dataset_steps(d, report, **kw):
        calls.append(Path(d).parent.name)
        return (yield from real(d, report, **kw))
    monkeypatch.setattr(files, "dataset_steps", dataset_steps)
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


def test_every_public_verb_names_the_parameter_of_a_wrong_type(tmp_path):
    """The rest of the public API (the importers, info, the document loaders, the metric
    registry): a TypeError naming the parameter, before anything is read or written, never
    Python's own "expected str, bytes or os.PathLike object" or "'int' object is not iterable"."""
    df = pd.DataFrame({"a": [1, 2, 3, 4], "y": ["p", "q", "p", "q"]})
    out = tmp_path / "out"
    cases = [
        (lambda: d3mkit.info(3), "path"),
        (lambda: d3mkit.ProblemDoc.load(5), "path"),
        (lambda: d3mkit.DatasetDoc.load(None), "path"),
        (lambda: d3mkit.import_table(5, target="y", out=out), "source"),
        (lambda: d3mkit.import_table(df, target=5, out=out), "target"),
        (lambda: d3mkit.import_table(df, target=["y", 3], out=out), "target"),
        (lambda: d3mkit.import_table(df, target="y", out=5), "out"),
        (lambda: d3mkit.import_table(df, target="y", out=out, folds="5"), "folds"),
        (lambda: d3mkit.import_table(df, target="y", out=out, test_size="0.2"), "test_size"),
        (lambda: d3mkit.import_table(df, target="y", out=out, force=1), "force"),
        (lambda: d3mkit.import_table(df, target="y", out=out, metrics=7), "metrics"),
        (lambda: d3mkit.import_table(df, target="y", out=out, types=[1]), "types"),
        (lambda: d3mkit.import_table(df, target="y", out=out, name=3), "name"),
        (lambda: d3mkit.import_arff(5, target="y", out=out), "source"),
        (lambda: d3mkit.import_arff(tmp_path / "x.arff", target="y", out=out, splits=4), "splits"),
        (lambda: d3mkit.import_images(5, out=out), "source"),
        (lambda: d3mkit.import_croissant(5, record_set="r", target="y", out=out), "source"),
        (lambda: d3mkit.import_croissant(tmp_path / "c.json", record_set=1, target="y", out=out), "record_set"),
        (lambda: d3mkit.get_metric(5), "name"),
        (lambda: d3mkit.register_metric(5), "name"),
        (lambda: d3mkit.register_metric(len), "name"),     # @register_metric without parentheses
    ]
    for call, param in cases:
        with pytest.raises(TypeError, match=f"^{param}: expected"):
            call()
    assert not out.exists()
    with pytest.raises(TypeError, match=r"write @register_metric\(\)"):
        d3mkit.register_metric(len)


def test_an_unknown_metric_name_says_which_was_meant():
    with pytest.raises(d3mkit.D3MKitError, match="unknown metric 'acuracy'; did you mean 'accuracy'"):
        d3mkit.get_metric("acuracy")


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


@pytest.fixture
def reads(monkeypatch):
    """The CSV files the validator reads, in order."""
    calls = []
    real = files.read_csv_checked

    def read_csv_checked(path, *a, **kw):
        calls.append(Path(path).name)
        return real(path, *a, **kw)
    monkeypatch.setattr(files, "read_csv_checked", read_csv_checked)
    return calls


def test_is_valid_stops_inside_the_dataset_check(tmp_path, reads):
    """A datasetDoc whose first error is in the document itself: is_valid answers without
    reading learningData (the whole dataset check used to run first)."""
    root = build_task_root(tmp_path, "wine")
    doc = root / "wine_dataset" / "datasetDoc.json"
    data = json.loads(doc.read_text())
    data["about"]["datasetSchemaVersion"] = 7          # a schema error in the document
    doc.write_text(json.dumps(data))
    reads.clear()                                        # the build validated what it wrote
    assert d3mkit.is_valid(root) is False
    assert reads == []
    every = list(d3mkit.iter_issues(root))
    assert every[0].code == "schema.version" and reads == ["learningData.csv"]   # iterating on reads the rest


def test_is_valid_stops_at_the_first_bad_column(tmp_path, monkeypatch):
    """Inside a table, each column's colType check is a step: the first bad column ends it
    (``strict``: a text cell in a real column is a warning, issue 20)."""
    root = build_task_root(tmp_path, "wine")
    ld = root / "wine_dataset" / "tables" / "learningData.csv"
    df = pd.read_csv(ld, dtype=str)
    first = df.columns[1]
    df[first] = "not-a-number"
    df.to_csv(ld, index=False)
    checked = []
    real = files.coltypes.bad_rows

    def bad_rows(s, ct):
        checked.append(s.at(0))   # the first cell of the column
        return real(s, ct)
    monkeypatch.setattr(files.coltypes, "bad_rows", bad_rows)
    issues = d3mkit.iter_issues(root)
    assert d3mkit.is_valid(root, strict=True) is False    # a bad number is a warning: strict stops there
    assert checked[-1] == "not-a-number" and checked.count("not-a-number") == 1, checked
    stopped_after = len(checked)
    checked.clear()
    list(issues)
    assert len(checked) > stopped_after + 5          # the other columns are checked when iterated on
