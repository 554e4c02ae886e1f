"""``d3mkit build value-detection``: the VALUE-synthetic renders as a 3.1.1 objectDetection problem.

    d3mkit build value-detection --out DIR [same options as build value]

Same boards and renders as ``build value`` (same seed, same images). learningData has
one row per piece: the multi-index ``d3mIndex`` + ``image`` (refersTo the image
collection) and ``bounding_box`` ``"x_min,y_min,x_max,y_max"`` in pixels (role
suggestedTarget, refersTo the image column); with ``--from-release`` the release's own
bounding boxes (:mod:`.release`). The metric is objectDetectionAP; all pieces
are one class, as that metric scores boxes only - the piece symbol and square of every
box are in ``<name>_debug/boxes.csv``. Images (not boxes) are split: the first
``--n-train`` images are TRAIN.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.benchmarks.value.source import (MEDIA_DIR, ValueBuildConfig, add_source_arguments,
                                            make_dataset, open_writer)
from d3mkit.documents import Column, DatasetDoc, ProblemDoc, Resource, Target
from d3mkit.core.errors import InvalidArgument, UsageError


def add_build_arguments(parser) -> None:
    add_source_arguments(parser)


def documents(name: str, n_train: int, n_test: int, seed: int):
    cols = [Column(0, "d3mIndex", "integer", ("index",)),
            Column(1, "image", "string", ("index",), {"resID": "0", "resObject": "item"}),
            Column(2, "bounding_box", "realVector", ("suggestedTarget", "boundaryIndicator", "boundingBox"),
                   {"resID": "learningData", "resObject": {"columnName": "image"}},
                   extra={"colDescription": "x_min,y_min,x_max,y_max in pixels"})]
    ddoc = DatasetDoc.new(f"{name}_dataset", name,
                          [Resource.collection("0", f"{MEDIA_DIR}/", "image", ["image/jpeg"]),
                           Resource.table("learningData", "tables/learningData.csv", cols)],
                          description="VALUE-synthetic chess pieces: one bounding box per piece on "
                                      "boards rendered by d3mkit's Pillow renderer (not the VALUE "
                                      "paper's Blender scene).",
                          source="d3mkit VALUE-synthetic")
    splits = {"method": "holdOut", "testSize": n_test / (n_train + n_test), "stratified": False,
              "numRepeats": 0, "randomSeed": seed}
    pdoc = ProblemDoc.new(f"{name}_problem", name, "objectDetection", None, f"{name}_dataset",
                          [Target(0, "learningData", 2, "bounding_box")], [{"metric": "objectDetectionAP"}],
                          description="Find every chess piece (one class) in each image.", splits=splits)
    return ddoc, pdoc


def build_task_root(args) -> Path:
    """Build the task root of ``args`` (a :class:`~.source.ValueBuildConfig` or an
    argparse namespace of the same fields); returns its path."""
    args = ValueBuildConfig.of(args)
    name = args.name or "value_detection"
    rng = np.random.default_rng(args.seed)
    with open_writer(args, name, "value-detection") as w:
        rows, boxes = make_dataset(w, args, rng)
        if args.from_release is not None and boxes.empty:
            raise InvalidArgument("from_release", f"{args.from_release}: value-detection needs bounding "
                                  "boxes and the release has no bounding-box file")
        box = boxes[["x_min", "y_min", "x_max", "y_max"]].to_numpy()
        ld = pd.DataFrame({"d3mIndex": boxes["d3mIndex"].to_numpy(dtype=np.int64),
                           "image": boxes["image"].to_numpy(),
                           "bounding_box": [",".join(f"{v:g}" for v in b) for b in box]})
        empty = sorted(set(rows["d3mIndex"]) - set(ld["d3mIndex"]))
        if empty:
            raise UsageError(f"image(s) without any visible piece: d3mIndex {empty[:5]}")
        w.write_table("tables/learningData.csv", ld)
        n_train = int((rows["split"] == "TRAIN").sum())        # a release's own split gives the counts
        ddoc, pdoc = documents(name, n_train, len(rows) - n_train, args.seed)
        w.write_dataset_doc(ddoc)
        side = dict(zip(rows["d3mIndex"], rows["split"]))
        splits = pd.DataFrame({"d3mIndex": ld["d3mIndex"], "image": ld["image"],
                               "type": [side[i] for i in ld["d3mIndex"]], "repeat": 0,
                               "fold": 0}).drop_duplicates(["d3mIndex", "image"], ignore_index=True)
        w.write_problem_doc(pdoc, splits)
        w.write_debug_table("boards.csv", rows)
        w.write_debug_table("boxes.csv", boxes)
    return w.root


def build(args) -> list[Path]:
    return [build_task_root(args)]
