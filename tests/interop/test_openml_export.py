"""``d3mkit export openml ROOT --out DIR`` (issue 36): dataset.arff and splits.arff that
liac-arff reads, in OpenML's task-split layout, and that ``d3mkit import arff DIR/dataset.arff
--splits DIR/splits.arff --target T`` turns back into the same table and splits, for every
tabular task type OpenML has; multi-table, media and multiLabel roots are refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from _attack_util import refused, run
from _croissant_util import ROOTS
from _tasks_util import tabular_roots
from d3mkit.taskroot.model import TaskRoot

arff = pytest.importorskip("arff")
KINDS = ["binary", "multiclass", "regression", "multivariate"]


@pytest.fixture(scope="module")
def roots(tmp_path_factory):
    return tabular_roots(tmp_path_factory.mktemp("openml"))


def _same_table(a: pd.DataFrame, b: pd.DataFrame, numeric: set[str]) -> None:
    """Equal cells; numeric columns as numbers (the import writes them in their shortest form)."""
    assert list(a.columns) == list(b.columns) and len(a) == len(b)
    for c in a.columns:
        if c in numeric:
            pd.testing.assert_series_equal(pd.to_numeric(a[c].replace("", None)).astype(float),
                                           pd.to_numeric(b[c].replace("", None)).astype(float), check_names=False)
        else:
            assert a[c].tolist() == b[c].tolist(), c


def _roundtrip(root: Path, tmp: Path, capsys) -> None:
    task = TaskRoot.open(root)
    out = tmp / "openml"
    code, stdout, err = run(["export", "openml", root, "--out", out], capsys)
    assert code == 0, err
    with open(out / "dataset.arff", encoding="utf-8") as fh:
        data = arff.load(fh)
    with open(out / "splits.arff", encoding="utf-8") as fh:
        splits = arff.load(fh)
    ld = task.dataset.learning_data
    types = {c.col_name: c.col_type for c in ld.columns}
    attrs = dict(data["attributes"])
    assert list(attrs) == [c.col_name for c in ld.columns]
    for name, kind in attrs.items():
        if types[name] == "categorical" or (task.problem.task_type == "classification"
                                            and name in task.problem.target_names):
            assert isinstance(kind, list), name
        else:
            assert kind in ("INTEGER", "REAL", "STRING"), name
    assert [a[0] for a in splits["attributes"]] == ["type", "rowid", "repeat", "fold"]
    assert dict(splits["attributes"])["type"] == ["TRAIN", "TEST"]
    # rowid is the 0-based row of dataset.arff: its d3mIndex is the dataSplits row's
    ds = pd.read_csv(task.problem_dir / "dataSplits.csv", dtype=str, keep_default_na=False)
    index = [str(int(r[0])) for r in data["data"]]
    assert [[index[int(i)], t, str(int(r)), str(int(f))] for t, i, r, f in splits["data"]] == \
        ds[["d3mIndex", "type", "repeat", "fold"]].values.tolist()
    code, stdout, err = run(["import", "arff", out / "dataset.arff", "--splits", out / "splits.arff", "--target",
                             ",".join(task.problem.target_names), "--task", task.problem.task_type,
                             "--out", tmp / "back", "--name", root.name], capsys)
    assert code == 0, err
    back = TaskRoot.open(Path(stdout.strip()))
    rel = f"{root.name}_dataset/tables/learningData.csv"
    a = pd.read_csv(root / rel, dtype=str, keep_default_na=False)
    b = pd.read_csv(back.root / rel, dtype=str, keep_default_na=False)
    _same_table(a, b, {c for c, t in types.items() if t in ("integer", "real")})
    pd.testing.assert_frame_equal(ds, pd.read_csv(back.problem_dir / "dataSplits.csv", dtype=str,
                                                  keep_default_na=False))
    assert back.problem.target_names == task.problem.target_names
    assert (back.problem.task_type, back.problem.task_subtype) == (task.problem.task_type, task.problem.task_subtype)
    # and OpenML -> D3M -> OpenML: the same splits file, the same dataset rows and nominal levels
    code, _, err = run(["export", "openml", back.root, "--out", tmp / "again"], capsys)
    assert code == 0, err
    assert (tmp / "again" / "splits.arff").read_text().split("@RELATION")[1] == \
        (out / "splits.arff").read_text().split("@RELATION")[1]
    with open(tmp / "again" / "dataset.arff", encoding="utf-8") as fh:
        again = arff.load(fh)
    assert again["data"] == data["data"]
    assert [a for a in again["attributes"] if isinstance(a[1], list)] == \
        [a for a in data["attributes"] if isinstance(a[1], list)]


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_openml_roundtrip(roots, kind, tmp_path, capsys):
    _roundtrip(roots[kind], tmp_path, capsys)


@pytest.mark.slow
def test_openml_roundtrip_wine(tmp_path, capsys):
    wine = next(r for r in ROOTS if r.name == "wine")
    root = tmp_path / "wine"
    shutil.copytree(wine, root)
    _roundtrip(root, tmp_path, capsys)


def test_multilabel_refused(roots, tmp_path, capsys):
    out = tmp_path / "o"
    refused(["export", "openml", roots["multilabel"], "--out", out], capsys, "export.unsupported", 1)
    assert not out.exists()


def test_media_refused(tmp_path, capsys):
    img = next(r for r in ROOTS if r.name.startswith("visudo"))
    root = tmp_path / img.name
    shutil.copytree(img, root)
    out = tmp_path / "o"
    refused(["export", "openml", root, "--out", out], capsys, "export.unsupported", 1)
    assert not out.exists()


def test_multi_table_refused(roots, tmp_path, capsys):
    root = tmp_path / "binary"
    shutil.copytree(roots["binary"], root)
    ddoc_path = root / "binary_dataset" / "datasetDoc.json"
    ddoc = json.loads(ddoc_path.read_text())
    (root / "binary_dataset" / "tables" / "extra.csv").write_text("d3mIndex,note\n0,a\n", encoding="utf-8")
    ddoc["dataResources"].append({"resID": "extra", "resPath": "tables/extra.csv", "resType": "table",
                                  "resFormat": ["text/csv"], "isCollection": False,
                                  "columns": [{"colIndex": 0, "colName": "d3mIndex", "colType": "integer",
                                               "role": ["index"]},
                                              {"colIndex": 1, "colName": "note", "colType": "string",
                                               "role": ["attribute"]}]})
    ddoc_path.write_text(json.dumps(ddoc))
    out = tmp_path / "o"
    text = refused(["export", "openml", root, "--out", out], capsys, "export.unsupported", 1)
    assert "multi-table" in text and not out.exists()


def test_existing_out_needs_force(roots, tmp_path, capsys):
    out = tmp_path / "o"
    assert run(["export", "openml", roots["regression"], "--out", out], capsys)[0] == 0
    code, _, err = run(["export", "openml", roots["regression"], "--out", out], capsys)
    assert code == 2, err
    assert run(["export", "openml", roots["regression"], "--out", out, "--force"], capsys)[0] == 0
