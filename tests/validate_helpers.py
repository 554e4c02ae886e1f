"""Fixtures for the validator tests: small valid task roots written with the skeleton's
document models and TaskRootWriter (validate=False), plus editing helpers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.documents import Column, DatasetDoc, ProblemDoc, Resource, Target
from d3mkit.taskroot.writer import TaskRootWriter
from d3mkit.tables import read_table, write_table

CLASSES = ["a"] * 20 + ["b"] * 12 + ["c"] * 8          # 40 rows
TEST_PER_CLASS = {"a": 5, "b": 3, "c": 2}              # testSize 0.25, exactly stratified


def build_tabular(out: Path, name: str = "t") -> Path:
    """A valid task root exercising every column type, a media collection and a
    foreign key; dataSplits holdOut 0.25, stratified on y."""
    n = len(CLASSES)
    rng = np.random.default_rng(0)
    y = list(rng.permutation(CLASSES))
    ld = pd.DataFrame({
        "d3mIndex": np.arange(n),
        "image": [f"img{i % 10}.png" for i in range(n)],
        "grp": [f"g{i % 3}" for i in range(n)],
        "x": rng.random(n).round(3),
        "k": rng.integers(0, 9, n),
        "flag": ["true" if i % 2 else "false" for i in range(n)],
        "when": [f"2020-01-{i % 28 + 1:02d}" for i in range(n)],
        "vec": [f"{i},{i + 1},{i + 2.5},{i + 3}" for i in range(n)],
        "meta": ['{"a": 1}'] * n,
        "y": y,
    })
    ld.loc[3, "x"] = np.nan                               # a missing value is fine
    groups = pd.DataFrame({"gid": ["g0", "g1", "g2"], "label": ["zero", "one", "two"]})
    cols = [Column(0, "d3mIndex", "integer", ("index",)),
            Column(1, "image", "string", ("attribute",), {"resID": "media", "resObject": "item"}),
            Column(2, "grp", "string", ("attribute",), {"resID": "groups", "resObject": {"columnName": "gid"}}),
            Column(3, "x", "real"), Column(4, "k", "integer"), Column(5, "flag", "boolean"),
            Column(6, "when", "dateTime"), Column(7, "vec", "realVector"), Column(8, "meta", "json"),
            Column(9, "y", "categorical", ("suggestedTarget",))]
    ds = DatasetDoc.new(f"{name}_dataset", name, [
        Resource.collection("media", "media/", "image", ["image/png"]),
        Resource.table("groups", "tables/groups.csv",
                       [Column(0, "gid", "string", ("index",)), Column(1, "label", "categorical")]),
        Resource.table("learningData", "tables/learningData.csv", cols)])
    pr = ProblemDoc.new(f"{name}_problem", name, "classification", "multiClass", f"{name}_dataset",
                        [Target(0, "learningData", 9, "y")], [{"metric": "accuracy"}, {"metric": "f1Macro"}],
                        splits={"method": "holdOut", "testSize": 0.25, "stratified": True})
    test = np.zeros(n, dtype=bool)
    for cls, k in TEST_PER_CLASS.items():
        test[[i for i in range(n) if y[i] == cls][:k]] = True
    splits = pd.DataFrame({"d3mIndex": np.arange(n), "type": np.where(test, "TEST", "TRAIN"),
                           "repeat": 0, "fold": 0})
    with TaskRootWriter(out, name, benchmark="test", validate=False) as w:
        w.write_table("tables/learningData.csv", ld)
        w.write_table("tables/groups.csv", groups)
        for i in range(10):
            w.media_path(f"media/img{i}.png").write_bytes(b"\x89PNG fake")
        w.write_dataset_doc(ds)
        w.write_problem_doc(pr, splits=splits)
    return out / name


def build_detection(out: Path, name: str = "od") -> Path:
    """A valid objectDetection task root: (d3mIndex, image) multi-index, boxes per image."""
    rows = []
    for img in range(10):
        for box in range(1 + img % 3):
            rows.append({"d3mIndex": img, "image": f"img{img}.png",
                         "bounding_box": f"{box},{box},{box + 10},{box + 12}"})
    ld = pd.DataFrame(rows)
    cols = [Column(0, "d3mIndex", "integer", ("index",)),
            Column(1, "image", "string", ("index",), {"resID": "0", "resObject": "item"}),
            Column(2, "bounding_box", "realVector", ("suggestedTarget", "boundaryIndicator", "boundingBox"),
                   {"resID": "1", "resObject": {"columnName": "image"}})]
    ds = DatasetDoc.new(f"{name}_dataset", name, [
        Resource.collection("0", "media/", "image", ["image/png"]),
        Resource.table("1", "tables/learningData.csv", cols)])
    pr = ProblemDoc.new(f"{name}_problem", name, "objectDetection", None, f"{name}_dataset",
                        [Target(0, "1", 2, "bounding_box")], [{"metric": "objectDetectionAP"}],
                        splits={"method": "holdOut", "testSize": 0.2, "stratified": False})
    test_imgs = {2, 7}
    splits = ld[["d3mIndex", "image"]].copy()
    splits["type"] = ["TEST" if d in test_imgs else "TRAIN" for d in ld["d3mIndex"]]
    splits["repeat"] = 0
    splits["fold"] = 0
    with TaskRootWriter(out, name, benchmark="test", validate=False) as w:
        w.write_table("tables/learningData.csv", ld)
        for i in range(10):
            w.media_path(f"media/img{i}.png").write_bytes(b"\x89PNG fake")
        w.write_dataset_doc(ds)
        w.write_problem_doc(pr, splits=splits[["d3mIndex", "image", "type", "repeat", "fold"]])
    return out / name


class Root:
    """Paths of a task root and small editing helpers for mutations."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.name = self.root.name
        self.dataset = self.root / f"{self.name}_dataset"
        self.problem = self.root / f"{self.name}_problem"
        self.ds_doc = self.dataset / "datasetDoc.json"
        self.pr_doc = self.problem / "problemDoc.json"
        self.ld = self.dataset / "tables" / "learningData.csv"
        self.splits = self.problem / "dataSplits.csv"

    def edit_json(self, path: Path, fn) -> None:
        data = json.loads(path.read_text())
        fn(data)
        path.write_text(json.dumps(data, indent=2))

    def ds(self, fn) -> None:
        self.edit_json(self.ds_doc, fn)

    def pr(self, fn) -> None:
        self.edit_json(self.pr_doc, fn)

    def ld_res(self, d: dict) -> dict:
        return next(r for r in d["dataResources"] if r["resID"] in ("learningData", "1"))

    def col(self, d: dict, name: str) -> dict:
        return next(c for c in self.ld_res(d)["columns"] if c["colName"] == name)

    def table(self, path: Path, fn) -> None:
        df = read_table(path)
        df = fn(df)
        write_table(df, path)

    def set_cell(self, path: Path, row: int, col: str, value: str) -> None:
        def f(df):
            df.loc[row, col] = value
            return df
        self.table(path, f)
