"""Task roots the tests make or rewrite: :func:`wine_root` (the tabular wine root, seed 1)
with :func:`true_test_rows` (its TEST rows' truth: perfect predictions), :func:`detection_root`
(a small objectDetection root) and :func:`rename_media` (a media column and its collection's directory get other
names, so a reader that hard-codes either one fails)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd


def wine_root(out: Path, with_predictions: bool = False) -> Path:
    """``d3mkit build tabular --dataset wine --seed 1`` under ``out``; with
    ``with_predictions``, ``out/predictions.csv`` holds :func:`true_test_rows`."""
    from d3mkit.benchmarks.tabular import build_task_root
    root = build_task_root(Path(out), "wine", seed=1)
    if with_predictions:
        true_test_rows(root).to_csv(root.parent / "predictions.csv", index=False)
    return root


def true_test_rows(root: Path) -> pd.DataFrame:
    """d3mIndex and class of the TEST rows (repeat 0, fold 0) of a wine root: a perfect
    predictions.csv."""
    from d3mkit.tables import read_table
    ld = read_table(Path(root) / "wine_dataset" / "tables" / "learningData.csv")
    sp = read_table(Path(root) / "wine_problem" / "dataSplits.csv")
    test = set(sp.loc[(sp["type"] == "TEST") & (sp["repeat"] == "0") & (sp["fold"] == "0"), "d3mIndex"])
    return ld.loc[ld["d3mIndex"].isin(test), ["d3mIndex", "class"]].reset_index(drop=True)


def detection_root(out: Path, rows: list[dict], n_images: int, *, shade: int = 20,
                   split_seed: int | None = None) -> Path:
    """An objectDetection task root ``out/t/det``: learningData ``rows`` (d3mIndex, image,
    bounding_box; image ``img<k>.png`` is a 4x4 grey image of value k x ``shade``), the
    image column an index referring to collection ``0`` (``media/``), holdOut 0.5 not
    stratified (``randomSeed`` ``split_seed`` when given). Returns the root."""
    from PIL import Image

    from d3mkit.documents import Column, DatasetDoc, ProblemDoc, Resource, Target
    from d3mkit.taskroot.writer import TaskRootWriter
    cols = [Column(0, "d3mIndex", "integer", ("index",)),
            Column(1, "image", "string", ("index",), {"resID": "0", "resObject": "item"}),
            Column(2, "bounding_box", "realVector", ("suggestedTarget", "boundaryIndicator", "boundingBox"),
                   {"resID": "learningData", "resObject": {"columnName": "image"}})]
    ddoc = DatasetDoc.new("det_dataset", "det", [Resource.collection("0", "media/", "image", ["image/png"]),
                                                 Resource.table("learningData", "tables/learningData.csv", cols)])
    splits = {"method": "holdOut", "testSize": 0.5, "stratified": False}
    if split_seed is not None:
        splits["randomSeed"] = split_seed
    pdoc = ProblemDoc.new("det_problem", "det", "objectDetection", None, "det_dataset",
                          [Target(0, "learningData", 2, "bounding_box")], [{"metric": "objectDetectionAP"}],
                          splits=splits)
    with TaskRootWriter(Path(out) / "t", "det", benchmark="test", seed=0) as w:
        for k in range(n_images):
            Image.new("L", (4, 4), color=k * shade).save(w.media_path(f"media/img{k}.png"))
        w.write_table("tables/learningData.csv", pd.DataFrame(rows))
        w.write_dataset_doc(ddoc)
        w.write_problem_doc(pdoc)
    return w.root


def rename_media(root: Path, column: str, new_column: str, collection: str, new_dir: str) -> None:
    """Rename ``column`` in every table of the dataset (datasetDoc and CSV header) and move
    the collection ``collection`` (resID) to ``new_dir`` (a path inside the dataset)."""
    ddir = next(Path(root).glob("*_dataset"))
    doc_path = ddir / "datasetDoc.json"
    doc = json.loads(doc_path.read_text())
    for res in doc["dataResources"]:
        if res["resID"] == collection:
            old = ddir / res["resPath"]
            (ddir / new_dir).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(old), str(ddir / new_dir))
            res["resPath"] = new_dir.rstrip("/") + "/"
        for col in res.get("columns") or ():
            if col["colName"] == column:
                col["colName"] = new_column
                table = ddir / res["resPath"]
                head, rest = table.read_text().split("\n", 1)
                table.write_text(",".join(new_column if h == column else h for h in head.split(","))
                                 + "\n" + rest)
    doc_path.write_text(json.dumps(doc, indent=2))


def prism_images(folder: Path, n: int = 6) -> list[dict]:
    """``n`` small PNGs ``p0.png``… in a new ``folder`` and the PRISM manifest records that
    name them (labels alternate prevent/allow)."""
    from PIL import Image
    folder.mkdir()
    recs = []
    for i in range(n):
        Image.new("RGB", (8, 8), (i * 40, 0, 0)).save(folder / f"p{i}.png")
        recs.append({"hypothesis": f"a cup holds water {i}", "image": f"p{i}.png",
                     "label": "allow" if i % 2 else "prevent"})
    return recs
