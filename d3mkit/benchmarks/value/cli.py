"""``d3mkit build value``: VALUE-synthetic (or VALUE release) images as a D3M task root.

    d3mkit build value --out DIR [--n-train N --n-test N] [--seed S]
                       [--pgn FILE | --random-games N | --from-release PATH] [--size 512]

The task root holds an image collection (``media/CV_%07d.jpg``) and learningData with
``d3mIndex``, ``image`` (refersTo the collection) and ``board`` (the FEN piece placement,
role suggestedTarget). The problemDoc is classification/multiClass scored with the five
VALUE metrics (exactMatch, boardF1, saneF1, contradictionRate, meanRuleViolations, each
``{"metric": "other", "specifyOther": NAME}``). dataSplits puts the first ``--n-train``
images in TRAIN and the rest in TEST. ``<name>_debug/`` holds the manifest, ``boards.csv``
(camera and lighting of each render) and ``boxes.csv`` (a bounding box per piece).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from d3mkit.benchmarks.value.metrics import NAMES as METRIC_NAMES
from d3mkit.benchmarks.value.source import (MEDIA_DIR, add_source_arguments, check_args,
                                            make_dataset, source_parameters, splits_frame)
from d3mkit.docs import Column, DatasetDoc, ProblemDoc, Resource, Target

EXAMPLE_ARGS = ["--n-train", "8", "--n-test", "4", "--size", "96", "--random-games", "2",
                "--max-plies", "40", "--workers", "1"]
DESCRIPTION = ("VALUE-synthetic chess board recognition: predict the full board state (FEN piece "
               "placement) from a rendered image of a board seen from a random camera with a1 "
               "nearest. Rendered with d3mkit's Pillow renderer, not the VALUE paper's Blender scene.")


def add_build_arguments(parser) -> None:
    add_source_arguments(parser)


def documents(name: str, n_train: int, n_test: int, seed: int, release: bool = False):
    cols = [Column(0, "d3mIndex", "integer", ("index",)),
            Column(1, "image", "string", ("attribute",), {"resID": "0", "resObject": "item"}),
            Column(2, "board", "categorical", ("suggestedTarget",),
                   extra={"colDescription": "FEN piece placement (8 ranks from rank 8, files a-h)"})]
    resources = [Resource.collection("0", f"{MEDIA_DIR}/", "image", ["image/jpeg"]),
                 Resource.table("learningData", "tables/learningData.csv", cols)]
    desc = DESCRIPTION if not release else "VALUE release images packaged by d3mkit (board as FEN placement)."
    ddoc = DatasetDoc.new(f"{name}_dataset", name, resources, description=desc,
                          source="VALUE release" if release else "d3mkit VALUE-synthetic")
    splits = {"method": "holdOut", "testSize": n_test / (n_train + n_test), "stratified": False,
              "numRepeats": 0, "randomSeed": seed}
    metrics = [{"metric": "other", "specifyOther": m, "applicabilityToTarget": "allTargets"}
               for m in METRIC_NAMES]
    pdoc = ProblemDoc.new(f"{name}_problem", name, "classification", "multiClass", f"{name}_dataset",
                          [Target(0, "learningData", 2, "board")], metrics,
                          description="Predict the board state (FEN placement) of each image; "
                                      "scored by exact match, F1, sane F1, contradiction rate and "
                                      "mean rule violations (VALUE paper eqs. 3-7).",
                          splits=splits)
    return ddoc, pdoc


def build_task_root(args) -> Path:
    from d3mkit.package import TaskRootWriter
    check_args(args)
    name = args.name or "value"
    rng = np.random.default_rng(args.seed)
    params = {"nTrain": args.n_train, "nTest": args.n_test, "size": args.size,
              "renderer": "d3mkit VALUE-synthetic (Pillow), not the paper's Blender scene",
              **source_parameters(args)}
    with TaskRootWriter(args.out, name, benchmark="value", seed=args.seed, parameters=params,
                        force=args.force) as w:
        rows, boxes = make_dataset(w, args, rng)
        w.write_table("tables/learningData.csv", rows[["d3mIndex", "image", "board"]])
        ddoc, pdoc = documents(name, args.n_train, len(rows) - args.n_train, args.seed,
                               release=args.from_release is not None)
        w.write_dataset_doc(ddoc)
        w.write_problem_doc(pdoc, splits_frame(rows))
        w.write_debug_table("boards.csv", rows)
        w.write_debug_table("boxes.csv", boxes)
    return w.root


def build(args) -> list[Path]:
    return [build_task_root(args)]
