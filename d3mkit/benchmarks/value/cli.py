"""``d3mkit build value``: VALUE-synthetic (or VALUE release) images as a D3M task root.

    d3mkit build value --out DIR [--n-train N --n-test N] [--seed S]
                       [--pgn FILE | --random-games N | --from-release PATH] [--size 512]

The task root holds an image collection (``media/CV_%07d.jpg``) and learningData with
``d3mIndex``, ``image`` (refersTo the collection) and 64 categorical targets ``a8, b8, ...,
h1`` (:data:`~.layout.SQUARES`), one per square, each one of the 13 symbols ``x p P n N b
B r R q Q k K`` (``x`` empty): the paper's 64 per-square classifications, learnable by a
generic classifier (a whole-board FEN target is not: test boards rarely occur in TRAIN).
The problemDoc is classification/multiClass scored with accuracy over all targets (mean
per-square accuracy, a standard metric an AutoML system can optimise) and the VALUE
metrics (:data:`~.metrics.NAMES`, each ``{"metric": "other", "specifyOther": NAME,
"applicabilityToTarget": "allTargets"}``), which read the 64 targets of a row as one
board. dataSplits puts the first ``--n-train`` images in TRAIN and the rest in TEST (a
release keeps its official train/test split). ``<name>_debug/`` holds the manifest,
``boards.csv`` (the FEN placement ``board`` of each image, camera and lighting of each
render) and ``boxes.csv`` (a bounding box per piece, when known).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from d3mkit.benchmarks.value.boards import fens_to_codes
from d3mkit.benchmarks.value.layout import SQUARES, codes_to_columns
from d3mkit.benchmarks.value.metrics import NAMES as METRIC_NAMES
from d3mkit.benchmarks.value.source import (MEDIA_DIR, ValueBuildConfig, add_source_arguments,
                                            make_dataset, open_writer, splits_frame)
from d3mkit.documents import Column, DatasetDoc, ProblemDoc, Resource, Target

DESCRIPTION = ("VALUE-synthetic chess board recognition: predict the symbol on each of the 64 "
               "squares (targets a8 ... h1) from a rendered image of a board seen from a random "
               "camera with a1 nearest. Rendered with d3mkit's Pillow renderer, not the VALUE "
               "paper's Blender scene.")
SQUARE_DESCRIPTION = ("symbol on square {sq}: x empty, p n b r q k black, P N B R Q K white "
                      "(pawn, knight, bishop, rook, queen, king)")


def add_build_arguments(parser) -> None:
    add_source_arguments(parser)


def documents(name: str, n_train: int, n_test: int, seed: int, release: bool = False):
    cols = [Column(0, "d3mIndex", "integer", ("index",)),
            Column(1, "image", "string", ("attribute",), {"resID": "0", "resObject": "item"})]
    cols += [Column(2 + j, sq, "categorical", ("suggestedTarget",),
                    extra={"colDescription": SQUARE_DESCRIPTION.format(sq=sq)})
             for j, sq in enumerate(SQUARES)]
    resources = [Resource.collection("0", f"{MEDIA_DIR}/", "image", ["image/jpeg"]),
                 Resource.table("learningData", "tables/learningData.csv", cols)]
    desc = DESCRIPTION if not release else ("VALUE release images packaged by d3mkit (the board as "
                                            "64 square targets a8 ... h1).")
    ddoc = DatasetDoc.new(f"{name}_dataset", name, resources, description=desc,
                          source="VALUE release" if release else "d3mkit VALUE-synthetic")
    splits = {"method": "holdOut", "testSize": n_test / (n_train + n_test), "stratified": False,
              "numRepeats": 0, "randomSeed": seed}
    metrics = [{"metric": "accuracy", "applicabilityToTarget": "allTargets"}]
    metrics += [{"metric": "other", "specifyOther": m, "applicabilityToTarget": "allTargets"}
                for m in METRIC_NAMES]
    targets = [Target(j, "learningData", 2 + j, sq) for j, sq in enumerate(SQUARES)]
    pdoc = ProblemDoc.new(f"{name}_problem", name, "classification", "multiClass", f"{name}_dataset",
                          targets, metrics,
                          description="Predict the symbol on each of the 64 squares of each image; "
                                      "scored by mean per-square accuracy and, reading a row's 64 "
                                      "targets as one board, by exact match, F1, sane F1, "
                                      "contradiction rate (fraction) and mean rule violations "
                                      "(VALUE paper eqs. 3-7; meanViolationSeverity is the "
                                      "paper-comparable muC).",
                          splits=splits)
    return ddoc, pdoc


def build_task_root(args) -> Path:
    """Build the task root of ``args`` (a :class:`~.source.ValueBuildConfig` or an
    argparse namespace of the same fields); returns its path."""
    args = ValueBuildConfig.of(args)
    name = args.name or "value"
    rng = np.random.default_rng(args.seed)
    with open_writer(args, name, "value") as w:
        rows, boxes = make_dataset(w, args, rng)
        squares = codes_to_columns(fens_to_codes(rows["board"].tolist()))
        ld = rows[["d3mIndex", "image"]].assign(**squares)
        w.write_table("tables/learningData.csv", ld)
        n_train = int((rows["split"] == "TRAIN").sum())        # a release's own split gives the counts
        ddoc, pdoc = documents(name, n_train, len(rows) - n_train, args.seed,
                               release=args.from_release is not None)
        w.write_dataset_doc(ddoc)
        w.write_problem_doc(pdoc, splits_frame(rows))
        w.write_debug_table("boards.csv", rows)
        w.write_debug_table("boxes.csv", boxes)
    return w.root


def build(args) -> list[Path]:
    return [build_task_root(args)]
