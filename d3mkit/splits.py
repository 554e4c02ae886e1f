"""dataSplits.csv generation and reading (holdOut and kFold, stratified or not).

What this module owns:

* the split arithmetic as pure functions on arrays — :func:`holdout_test_mask` and
  :func:`kfold_assignment` — driven by a ``numpy.random.Generator``;
* :func:`make_splits`, which turns a problemDoc's ``inputs.dataSplits`` section
  (method, testSize, numFolds, stratified, numRepeats, randomSeed) and learningData into
  the rows of the splits file;
* :func:`write_splits` (atomic) and the readers :func:`read_splits`, :func:`folds` and
  :func:`summary`.

Conventions (problemSchema 3.1.1):

* columns ``d3mIndex,type,repeat,fold``; objectDetection problems use the multi-index
  ``d3mIndex,image,type,repeat,fold`` and every box of an image falls on the same side
  (the split unit is the image);
* ``numRepeats`` 0 means one repeat numbered 0, ``N`` means repeats ``0..N-1``; holdOut
  writes fold 0; kFold writes, for every fold ``f``, the rows of fold ``f`` as TEST and
  all others as TRAIN;
* a stratified split stratifies on the first target's column when the problem is a
  classification problem (or the target column is categorical/boolean); regression and
  objectDetection targets are split at random;
* a unit (d3mIndex; image for objectDetection) with several learningData rows, as in
  multiLabel problems, is split as one and listed once; a stratified multiLabel split
  stratifies the instances on their label sets (each distinct set of labels one stratum,
  :func:`label_set_strata`);
* holdOut puts ``round(testSize * n)`` units in TEST, each class within one unit of
  ``testSize * n_class``; kFold fold sizes (and per-class counts) differ by at most one.

Same problemDoc and learningData, same bytes: every draw comes from one
``numpy.random.default_rng(randomSeed)`` (0 when the document has no seed).

>>> rng = np.random.default_rng(0)
>>> mask = holdout_test_mask(10, 0.3, rng, strata=np.array([0] * 5 + [1] * 5))
>>> int(mask.sum()), int(mask[:5].sum()) in (1, 2)
(3, True)
>>> folds_ = kfold_assignment(7, 3, np.random.default_rng(1))
>>> sorted(np.bincount(folds_).tolist())
[2, 2, 3]
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from d3mkit.docs import DatasetDoc, ProblemDoc
from d3mkit.lazy import pandas as pd   # imported on first use: select() on integer columns needs none
from d3mkit.docs.dataset import image_index_column
from d3mkit.errors import D3MKitError, Issue, OutputExists, error, require_type
from d3mkit.limits import file_issue, how_to_raise, limit
from d3mkit.paths import resolve_inside
from d3mkit.tables import read_table, write_table
from d3mkit.validation.common import sorted_unique

COLUMNS = ["d3mIndex", "type", "repeat", "fold"]
OD_COLUMNS = ["d3mIndex", "image", "type", "repeat", "fold"]
DISCRETE_COLTYPES = ("categorical", "boolean")
STRATIFIABLE_TASKS = ("classification", "vertexNomination")


# --------------------------------------------------------------------------------------
# pure split arithmetic
# --------------------------------------------------------------------------------------
def folds_present(repeats, folds) -> str:
    """Which (repeat, fold) pairs a splits file has, for a message about a missing one.

    >>> folds_present(np.array([0, 0, 1]), np.array([0, 1, 0]))
    'the file has repeat 0 fold 0, repeat 0 fold 1, repeat 1 fold 0'
    >>> folds_present(np.array([]), np.array([]))
    'the file has no such rows'
    """
    if not len(repeats):
        return "the file has no such rows"
    pairs = np.unique(np.stack([np.asarray(repeats, dtype=float), np.asarray(folds, dtype=float)], axis=1),
                      axis=0)
    shown = ", ".join(f"repeat {int(r)} fold {int(f)}" for r, f in pairs[:8])
    return f"the file has {shown}" + (f" and {len(pairs) - 8} more" if len(pairs) > 8 else "")


def _strata_codes(strata: np.ndarray | None, n: int) -> tuple[np.ndarray, int]:
    """Each label's rank among the sorted distinct labels (``np.unique``'s inverse); integer
    labels by a sort (numpy 2.3+ hashes a plain ``np.unique`` of ints, ~10x slower)."""
    if strata is None:
        return np.zeros(n, dtype=np.int64), 1
    strata = np.asarray(strata)
    if strata.dtype.kind in "iu":
        codes = np.searchsorted(sorted_unique(strata), strata).astype(np.int64)
    else:
        _, codes = np.unique(strata, return_inverse=True)
    codes = codes.reshape(-1)
    return codes, int(codes.max()) + 1 if n else 0


def holdout_test_count(n: int, test_size: float) -> int:
    """Units in TEST for a holdOut of ``n`` units: ``testSize * n`` rounded half up,
    kept in ``1..n-1`` when ``0 < testSize < 1`` and ``n >= 2`` (both sides non-empty).

    >>> holdout_test_count(178, 0.2), holdout_test_count(5, 0.01), holdout_test_count(5, 0.99), holdout_test_count(10, 0.25)
    (36, 1, 4, 3)
    """
    k = int(math.floor(test_size * n + 0.5))
    if 0.0 < test_size < 1.0 and n >= 2:
        k = min(max(k, 1), n - 1)
    return k


def holdout_test_mask(n: int, test_size: float, rng: np.random.Generator,
                      strata: np.ndarray | None = None) -> np.ndarray:
    """Boolean TEST mask over ``n`` units.

    Parameters
    ----------
    n : number of units.
    test_size : share of units in TEST, in ``[0, 1]``.
    rng : the generator every draw comes from.
    strata : optional labels (any sortable values) to stratify on.

    Returns
    -------
    numpy.ndarray of bool, ``holdout_test_count(n, test_size)`` of them True. With ``strata``,
    class ``c`` gets ``floor(test_size * n_c)`` or one more TEST units (the extra units
    go to the classes with the largest remainders, ties broken at random).

    >>> m = holdout_test_mask(6, 0.5, np.random.default_rng(3), strata=np.array(list("aabbcc")))
    >>> [int(m[i:i + 2].sum()) for i in (0, 2, 4)]
    [1, 1, 1]
    """
    codes, n_classes = _strata_codes(strata, n)
    mask = np.zeros(n, dtype=bool)
    if n == 0:
        return mask
    total = holdout_test_count(n, test_size)
    counts = np.bincount(codes, minlength=n_classes)
    quota = test_size * counts
    per_class = np.floor(quota + 1e-9).astype(np.int64)
    extra = total - int(per_class.sum())
    tie = rng.permutation(n_classes)
    if extra > 0:
        room = per_class < counts
        frac = np.where(room, quota - per_class, -1.0)
        order = np.lexsort((tie, -frac))
        order = order[room[order]]
        per_class[order[:extra]] += 1
    elif extra < 0:  # only when clipping to n-1 forced fewer TEST units
        order = np.lexsort((tie, -(per_class - quota)))
        for c in order:
            if extra == 0:
                break
            if per_class[c] > 0:
                per_class[c] -= 1
                extra += 1
    for c in range(n_classes):
        members = np.flatnonzero(codes == c)
        if per_class[c]:
            mask[members[rng.permutation(len(members))[:per_class[c]]]] = True
    return mask


def kfold_assignment(n: int, num_folds: int, rng: np.random.Generator,
                     strata: np.ndarray | None = None) -> np.ndarray:
    """Fold number (``0..num_folds-1``) of each of ``n`` units.

    Units are shuffled within each class, classes laid end to end and dealt to the folds
    in turn, then the fold numbers are permuted: fold sizes differ by at most one, and
    so do the counts of any class across folds.

    >>> f = kfold_assignment(9, 3, np.random.default_rng(0), strata=np.array(list("aaabbbccc")))
    >>> [sorted(f[i:i + 3].tolist()) for i in (0, 3, 6)]
    [[0, 1, 2], [0, 1, 2], [0, 1, 2]]
    """
    if num_folds < 1:
        raise ValueError("num_folds must be >= 1")
    codes, n_classes = _strata_codes(strata, n)
    order = np.concatenate([np.flatnonzero(codes == c)[rng.permutation(int((codes == c).sum()))]
                            for c in range(n_classes)]) if n else np.zeros(0, dtype=np.int64)
    relabel = rng.permutation(num_folds)
    fold = np.empty(n, dtype=np.int64)
    fold[order] = relabel[np.arange(n) % num_folds]
    return fold


# --------------------------------------------------------------------------------------
# the problemDoc's dataSplits section
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SplitSpec:
    """``inputs.dataSplits`` with defaults applied and types checked."""

    method: str
    test_size: float
    num_folds: int
    stratified: bool
    num_repeats: int
    seed: int
    splits_file: str

    @property
    def repeats(self) -> int:
        """How many repeats are written (``numRepeats`` 0 means one)."""
        return max(1, self.num_repeats)

    def describe(self) -> str:
        how = (f"holdOut testSize={self.test_size:g}" if self.method == "holdOut"
               else f"kFold numFolds={self.num_folds}")
        return f"{how}, {self.repeats} repeat(s), randomSeed={self.seed}"


def spec_issues(problem: ProblemDoc) -> tuple[SplitSpec | None, list[Issue]]:
    """Read and check ``inputs.dataSplits``; ``(spec, [])`` or ``(None, issues)``."""
    path = str(problem.path or "")
    loc = "inputs.dataSplits"
    inputs = problem.data.get("inputs") if isinstance(problem.data, dict) else None
    raw = inputs.get("dataSplits", {}) if isinstance(inputs, dict) else {}
    if not isinstance(raw, dict):
        return None, [error("splits.bad_value", loc, "dataSplits must be an object", path)]
    s = problem.splits
    issues: list[Issue] = []

    def num(key, kind, default):
        v = s.get(key, default)
        if v is None:
            v = default
        if isinstance(v, bool) or not isinstance(v, (int, float)) or \
                (kind is int and isinstance(v, float) and not v.is_integer()):
            issues.append(error("splits.bad_value", f"{loc}.{key}",
                                f"{key} must be a{'n integer' if kind is int else ' number'}, got {v!r}", path))
            return default
        return kind(v)

    method = s.get("method", "holdOut")
    if method not in ("holdOut", "kFold"):
        issues.append(error("splits.method", f"{loc}.method",
                            f"unknown split method {method!r} (holdOut or kFold)", path))
    test_size = num("testSize", float, 0.2)
    num_folds = num("numFolds", int, 0)
    num_repeats = num("numRepeats", int, 0)
    seed = num("randomSeed", int, 0)
    stratified = s.get("stratified", True)
    if not isinstance(stratified, bool):
        issues.append(error("splits.bad_value", f"{loc}.stratified",
                            f"stratified must be true or false, got {stratified!r}", path))
        stratified = True
    if method == "holdOut" and not 0.0 <= test_size <= 1.0:
        issues.append(error("splits.bad_value", f"{loc}.testSize",
                            f"testSize must be between 0.0 and 1.0, got {test_size!r}", path))
    if method == "kFold" and num_folds < 2:
        issues.append(error("splits.num_folds", f"{loc}.numFolds",
                            f"kFold needs numFolds >= 2, got {num_folds}", path))
    if num_repeats < 0:
        issues.append(error("splits.num_repeats", f"{loc}.numRepeats",
                            f"numRepeats must be >= 0, got {num_repeats}", path))
    if seed < 0 or seed >= 2 ** 63:
        issues.append(error("splits.bad_value", f"{loc}.randomSeed",
                            f"randomSeed must be a non-negative integer, got {seed}", path))
    groups = max(1, num_repeats) * (num_folds if method == "kFold" and num_folds > 0 else 1)
    if groups > limit("MAX_SPLITS"):
        key = "numRepeats" if num_repeats > 1 else "numFolds"
        issues.append(error("splits.too_many", f"{loc}.{key}",
                            f"numRepeats {num_repeats} x numFolds {num_folds} asks for {groups:,} "
                            f"(repeat, fold) pairs, over the {how_to_raise('MAX_SPLITS')}", path))
    splits_file = s.get("splitsFile") or "dataSplits.csv"
    if not isinstance(splits_file, str):
        issues.append(error("splits.bad_value", f"{loc}.splitsFile", "splitsFile must be a string", path))
        splits_file = "dataSplits.csv"
    if issues:
        return None, issues
    return SplitSpec(method, test_size, num_folds, stratified, num_repeats, seed, splits_file), []


def is_object_detection(problem: ProblemDoc) -> bool:
    return problem.task_type == "objectDetection"


def _first_target(problem: ProblemDoc):
    ts = sorted(problem.targets, key=lambda t: (not isinstance(t.target_index, int), t.target_index or 0))
    return ts[0] if ts else None


def stratify_column(problem: ProblemDoc, dataset: DatasetDoc | None) -> str | None:
    """The column a stratified split stratifies on, or None (not stratified, not a
    classification problem, objectDetection, or no target)."""
    if not problem.splits.get("stratified", True) or is_object_detection(problem):
        return None
    target = _first_target(problem)
    if target is None or not target.col_name:
        return None
    col_type = None
    if dataset is not None:
        res = dataset.resource(target.res_id) if target.res_id else None
        res = res or dataset.learning_data
        col = res.column(target.col_name) if res is not None else None
        col_type = col.col_type if col is not None else None
    if problem.task_type in STRATIFIABLE_TASKS or col_type in DISCRETE_COLTYPES:
        return target.col_name
    return None


def image_column(dataset: DatasetDoc | None, columns: list[str]) -> str | None:
    """The image column of an objectDetection learningData
    (:func:`d3mkit.docs.dataset.image_index_column`)."""
    return image_index_column(dataset.learning_data if dataset is not None else None, columns)


# --------------------------------------------------------------------------------------
# splits for a problem
# --------------------------------------------------------------------------------------
def _str_codes(values, want_labels: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """``(codes, labels)`` of cells compared as their canonical strings (``str(v)``, so an int
    frame and its CSV split identically): ``labels[codes]`` are the cells' strings, ``labels``
    in order of first appearance. One hash pass over the cells and ``str`` of the distinct
    values only (integers are distinct exactly when their strings are; their labels are made
    only ``want_labels``, else None)."""
    arr = values.to_numpy() if isinstance(values, pd.Series) else np.asarray(values)
    if arr.dtype.kind in "iu":
        codes, uniq = pd.factorize(arr)
        return codes.astype(np.int64), np.array([str(u) for u in uniq.tolist()], dtype=object) if want_labels else None
    arr = np.asarray(arr, dtype=object)
    codes, uniq = pd.factorize(arr)
    na = codes < 0
    if not na.any() and pd.api.types.infer_dtype(uniq, skipna=False) == "string":
        return codes.astype(np.int64), np.asarray(uniq, dtype=object)    # str already (a C check)
    labels = [str(u) for u in uniq]
    if na.any():        # None, NaN, NA: their own strings ("None", "nan", "<NA>")
        na_codes, na_labels = pd.factorize(np.array([str(v) for v in arr[na]], dtype=object))
        codes[na] = len(labels) + na_codes
        labels += list(na_labels)
    merged, labels = pd.factorize(np.array(labels, dtype=object))     # 1 and "1": one string
    codes = merged[codes]
    if na.any():        # NA labels were numbered last: renumber in order of appearance
        codes, order = pd.factorize(codes)
        labels = labels[order]
    return codes.astype(np.int64), np.asarray(labels, dtype=object)


def _first_rows(codes: np.ndarray) -> np.ndarray:
    """Where each code of :func:`_str_codes` first appears (codes are numbered in order of
    first appearance, so a code is new exactly where it exceeds every code before it)."""
    if not len(codes):
        return np.zeros(0, dtype=np.int64)
    before = np.maximum.accumulate(np.concatenate(([-1], codes[:-1])))
    return np.flatnonzero(codes > before)


def _sorted_ranks(codes: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Each code's label's rank among the sorted labels (``np.unique`` of the strings)."""
    order = np.argsort(labels, kind="stable")
    rank = np.empty(len(labels), dtype=np.int64)
    rank[order] = np.arange(len(labels))
    return rank[codes]


def label_set_strata(unit_codes: np.ndarray, label_ranks: np.ndarray) -> np.ndarray:
    """The stratum of each unit of a multiLabel table (one row per (unit, label)): its set of
    labels as text (the labels' ranks, sorted, joined by commas), indexed by unit code
    (``unit_codes`` numbered 0..n-1, each unit at least one row).

    >>> label_set_strata(np.array([0, 0, 1, 2, 2, 2]), np.array([1, 0, 1, 0, 1, 0])).tolist()
    ['0,1', '1', '0,1']
    """
    k = int(label_ranks.max(initial=0)) + 1
    pairs = np.unique(unit_codes.astype(np.int64) * k + label_ranks)      # by unit, then label; each once
    units, ranks = pairs // k, pairs % k
    bounds = np.flatnonzero(np.diff(units)) + 1
    return np.array([",".join(map(str, r.tolist())) for r in np.split(ranks, bounds)], dtype=object)


def make_splits(problem: ProblemDoc, learning_data: pd.DataFrame,
                dataset: DatasetDoc | None = None) -> pd.DataFrame:
    """dataSplits rows (``d3mIndex,type,repeat,fold``; objectDetection adds ``image``
    after d3mIndex) for ``learning_data`` as the problemDoc's dataSplits section says.

    Raises :class:`~d3mkit.errors.D3MKitError` (exit 1) naming the problemDoc field or
    learningData column when the section or the table cannot be split; arguments of the
    wrong type raise :class:`TypeError`.
    """
    require_type("problem", problem, ProblemDoc, "a d3mkit.ProblemDoc")
    require_type("learning_data", learning_data, pd.DataFrame, "a pandas DataFrame")
    if dataset is not None:
        require_type("dataset", dataset, DatasetDoc, "a d3mkit.DatasetDoc or None")
    spec, issues = spec_issues(problem)
    if spec is None:
        raise D3MKitError(issues)
    ld_path = ""
    if dataset is not None and dataset.root is not None and dataset.learning_data is not None:
        ld_path = str(dataset.resource_path(dataset.learning_data))
    columns = [str(c) for c in learning_data.columns]
    if "d3mIndex" not in columns:
        raise D3MKitError.single(ld_path, "splits.no_index", "header",
                                 "learningData has no d3mIndex column")
    raw_index = learning_data["d3mIndex"].to_numpy()
    index_codes, _ = _str_codes(raw_index, want_labels=False)
    od = is_object_detection(problem)
    row_image = None
    if od:
        img = image_column(dataset, columns)
        if img is None:
            raise D3MKitError.single(ld_path, "splits.no_image", "header",
                                     "objectDetection learningData has no image (multi-index) column")
        raw_image = learning_data[img].to_numpy()
        unit_codes, _ = _str_codes(raw_image, want_labels=False)     # the split unit is the image
        pair = index_codes * (int(unit_codes.max(initial=0)) + 1) + unit_codes
        rows = _first_rows(_str_codes(pair, want_labels=False)[0])
        row_image = raw_image[rows]
    else:
        unit_codes = index_codes
        rows = _first_rows(index_codes)
    row_index = raw_index[rows]                         # one output row per (multi-)index
    first = _first_rows(unit_codes)                     # units in learningData order
    n = len(first)
    if n == 0:
        raise D3MKitError.single(ld_path, "splits.empty", "", "learningData has no rows to split")

    strata = None
    strat_col = stratify_column(problem, dataset)
    if strat_col is not None:
        if strat_col not in columns:
            raise D3MKitError.single(ld_path, "splits.target_missing", "header",
                                     f"target column {strat_col!r} (first target of "
                                     f"{problem.path or 'the problemDoc'}) is not in learningData")
        cells = learning_data[strat_col].to_numpy()
        if problem.task_subtype == "multiLabel":
            strata = label_set_strata(unit_codes, _sorted_ranks(*_str_codes(cells)))
        else:
            strata = _sorted_ranks(*_str_codes(cells[first]))

    if spec.method == "kFold" and spec.num_folds > n:
        raise D3MKitError.single(problem.path or "", "splits.num_folds", "inputs.dataSplits.numFolds",
                                 f"numFolds={spec.num_folds} but learningData has only {n} "
                                 f"{'images' if od else 'rows'} to split")

    n_out = len(row_index) * spec.repeats * (spec.num_folds if spec.method == "kFold" else 1)
    if n_out > limit("MAX_SPLIT_ROWS"):
        raise D3MKitError.single(problem.path or "", "splits.too_many", "inputs.dataSplits",
                                 f"{spec.describe()} of {len(row_index):,} rows would write {n_out:,} "
                                 f"dataSplits rows, over the {how_to_raise('MAX_SPLIT_ROWS')}")
    rng = np.random.default_rng(spec.seed)
    unit_pos = unit_codes[rows]
    frames = []
    for r in range(spec.repeats):
        if spec.method == "holdOut":
            test = holdout_test_mask(n, spec.test_size, rng, strata)[unit_pos]
            frames.append(_rows(row_index, row_image, test, r, 0))
        else:
            fold_of = kfold_assignment(n, spec.num_folds, rng, strata)[unit_pos]
            for f in range(spec.num_folds):
                frames.append(_rows(row_index, row_image, fold_of == f, r, f))
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)


_TYPES = np.array(["TRAIN", "TEST"], dtype=object)


def _rows(index, images, test, repeat, fold) -> pd.DataFrame:
    d = {"d3mIndex": pd.Series(index, dtype=index.dtype if index.dtype.kind in "iu" else object)}
    if images is not None:
        d["image"] = pd.Series(images, dtype=images.dtype if images.dtype.kind in "iu" else object)
    d["type"] = pd.Series(_TYPES[test.astype(np.intp)], dtype=object)     # two str objects, shared
    d["repeat"] = np.full(len(index), repeat, dtype=np.int64)
    d["fold"] = np.full(len(index), fold, dtype=np.int64)
    return pd.DataFrame(d)


# --------------------------------------------------------------------------------------
# files
# --------------------------------------------------------------------------------------
def splits_path(problem_dir: Path, splits_file: str) -> Path:
    """``splitsFile`` under ``problem_dir``; one that leaves it (absolute, ``..``, a
    symlink out) is an error (:func:`d3mkit.paths.resolve_inside`)."""
    return resolve_inside(problem_dir, splits_file, doc=Path(problem_dir) / "problemDoc.json",
                          location="inputs.dataSplits.splitsFile", what="splitsFile",
                          root_name="the problem directory")


def write_splits(splits: pd.DataFrame, path: Path | str) -> None:
    """Write a splits table atomically: :func:`splits_bytes`, the bytes
    :func:`d3mkit.tables.write_table` would write."""
    from d3mkit.atomic import write_bytes
    write_bytes(path, splits_bytes(splits))


_NEEDS_QUOTES = (",", '"', "\n", "\r")


def _plain_strings(col: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """``(codes, strings)`` of a column of strings that pandas' CSV writer writes as they are
    (``strings[codes]`` are the cells), or None (a missing cell, one that is not a string, or
    one it would quote). Only the distinct cells are looked at."""
    codes, uniq = pd.factorize(np.asarray(col.to_numpy(), dtype=object))
    uniq = np.asarray(uniq, dtype=object)
    if (codes < 0).any() or pd.api.types.infer_dtype(uniq, skipna=False) not in ("string", "empty"):
        return None
    joined = "\x00".join(uniq)
    return None if any(ch in joined for ch in _NEEDS_QUOTES) else (codes, uniq)


def splits_bytes(splits: pd.DataFrame) -> bytes:
    """The exact bytes :func:`write_splits` writes: pandas' CSV (no index, ``\\n`` line
    endings). A table of the usual columns with integer or plain string cells is formatted
    here instead of through ``DataFrame.to_csv`` (5x slower at 10^6 rows): the
    type/repeat/fold part of a row takes one of few values, each formatted once, and integer
    d3mIndex values become text with numpy (:mod:`d3mkit.numtext`)."""
    from d3mkit.numtext import int_rows
    cols = [str(c) for c in splits.columns]
    plain = len(splits) and cols[-3:] == ["type", "repeat", "fold"] and \
        cols[:-3] in (["d3mIndex"], ["d3mIndex", "image"])
    typ = _plain_strings(splits["type"]) if plain else None
    reps, folds_ = (splits["repeat"].to_numpy(), splits["fold"].to_numpy()) if plain else (None, None)
    if typ is None or reps.dtype.kind not in "iu" or folds_.dtype.kind not in "iu":
        return splits.to_csv(index=False, lineterminator="\n").encode("utf-8")
    tcodes, tnames = typ
    reps, folds_ = reps.astype(np.int64), folds_.astype(np.int64)
    width = int(max(reps.max(), folds_.max(), 0)) + 1
    tail = _str_codes((tcodes.astype(np.int64) * width + reps) * width + folds_, want_labels=False)[0]
    texts = [f",{tnames[tcodes[i]]},{reps[i]},{folds_[i]}".encode() for i in _first_rows(tail).tolist()]
    head = ",".join(cols).encode() + b"\n"
    index = splits["d3mIndex"].to_numpy()
    if len(cols) == 4 and (index.dtype.kind == "i" or (index.dtype.kind == "u" and index.max() < 2 ** 63)):
        return head + int_rows(index, texts, tail)
    heads = [np.array([str(v) for v in splits[c].tolist()], dtype=object) if splits[c].dtype.kind in "iu"
             else _plain_strings(splits[c]) for c in cols[:-3]]
    if any(h is None for h in heads):
        return splits.to_csv(index=False, lineterminator="\n").encode("utf-8")
    heads = [h if isinstance(h, np.ndarray) else h[1][h[0]] for h in heads]
    lines = heads[0]
    for h in heads[1:]:
        lines = lines + "," + h
    lines = lines + np.array([t.decode() for t in texts], dtype=object)[tail]
    return head + ("\n".join(lines) + "\n").encode("utf-8")


def read_splits(path: Path | str) -> pd.DataFrame:
    """A splits file with ``repeat``/``fold`` as integers (other cells as strings).

    Raises :class:`~d3mkit.errors.D3MKitError` on a missing column or a non-integer
    repeat/fold (the validator reports such files in full; this is the reader)."""
    df = read_table(path)
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise D3MKitError.single(path, "splits.columns", "header",
                                 f"missing column(s) {', '.join(missing)}")
    for col in ("repeat", "fold"):
        num = pd.to_numeric(df[col], errors="coerce")
        bad = num.isna() | (num != num.round())
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0]) + 1
            raise D3MKitError.single(path, "splits.bad_value", f"row {row}, column {col}",
                                     f"{col} must be an integer, got {df[col].iloc[row - 1]!r}")
        df[col] = num.astype(np.int64)
    return df


def _index_keys(col: pd.Series) -> np.ndarray:
    """d3mIndex cells as comparable keys without a Python call per cell: the integers
    as read, else each distinct stripped string's code (one factorize; stripping runs on
    the distinct values only, and ``isin`` never goes through pandas' Arrow strings, which
    build one ``pyarrow.scalar`` per value)."""
    a = np.asarray(col)
    if a.dtype.kind in "iu":
        return a
    codes, uniq = pd.factorize(np.asarray(a, dtype=object))
    if not len(uniq):
        return codes
    stripped = np.array([str(u).strip() for u in uniq], dtype=str)
    merged = np.unique(stripped, return_inverse=True)[1].astype(np.int64)
    return np.where(codes < 0, -1, merged[codes])


def _fold_masks(splits, repeat: int, fold: int, p: str, first_row: int = 0
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(train mask, test mask, repeat numbers, fold numbers) of the rows of a dataSplits
    table (or of a block of it starting at data row ``first_row``) for one repeat and fold;
    a non-integer repeat/fold or another type than TRAIN/TEST in the fold raises."""
    missing = [c for c in COLUMNS if c not in splits.columns]
    if missing:
        raise D3MKitError.single(p, "splits.columns", "row 1", f"missing column(s) {', '.join(missing)}")
    nums = {}
    for col in ("repeat", "fold"):
        raw = np.asarray(splits[col])
        x = raw if raw.dtype.kind in "iu" else \
            pd.to_numeric(pd.Series(raw, dtype=object).astype(str).str.strip(),
                          errors="coerce").to_numpy(dtype=float)
        bad = np.flatnonzero(~np.isfinite(x) | (x != np.round(x))) if x.dtype.kind == "f" else []
        if len(bad):
            raise D3MKitError.single(p, "splits.value", f"row {first_row + bad[0] + 2}, column {col}",
                                     f"{len(bad)} {col} value(s) are not integers (first "
                                     f"{str(raw[bad[0]])[:40]!r})")
        nums[col] = x
    sel = (nums["repeat"] == repeat) & (nums["fold"] == fold)
    typ = np.asarray(splits["type"]).astype(str)
    train, test = sel & (typ == "TRAIN"), sel & (typ == "TEST")
    other = np.flatnonzero(sel & ~train & ~test)
    if len(other):
        raise D3MKitError.single(p, "splits.type", f"row {first_row + other[0] + 2}, column type",
                                 f"{len(other)} row(s) of repeat {repeat}, fold {fold} have a type other "
                                 f"than TRAIN or TEST (first {str(typ[other[0]])[:40]!r})")
    return train, test, nums["repeat"][typ == "TEST"], nums["fold"][typ == "TEST"]


def fold_members(path: Path | str, repeat: int = 0, fold: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(TRAIN members, TEST members) of one repeat and fold of the dataSplits file ``path``,
    read in blocks (:func:`d3mkit.tables.read_table_chunks`) so that only the indices are held,
    with the checks of :func:`select` and the same codes. When every d3mIndex is a small
    non-negative integer (D3M's rule; at most 4 times the rows read + 65,536) each side is a
    bitmap, a boolean array indexed by d3mIndex (1 byte a value, no sort); otherwise a sorted
    array of the indices (int64, else stripped strings). :func:`member_mask` tests a block's
    cells against either."""
    from d3mkit.tables import read_table_chunks
    p = str(path)
    bits: list[np.ndarray] | None = [np.zeros(0, dtype=bool), np.zeros(0, dtype=bool)]
    keys: list[list[np.ndarray]] = [[], []]
    reps = []
    first = 0
    for chunk in read_table_chunks(path):
        train, test, r, f = _fold_masks(chunk, repeat, fold, p, first)
        idx = _members_of(chunk["d3mIndex"])
        first += len(chunk)
        reps.append(np.unique(np.stack([r, f], axis=1), axis=0) if len(r) else np.empty((0, 2)))
        if bits is not None and idx.dtype.kind == "i" and (not len(idx) or (
                idx.min() >= 0 and idx.max() < 4 * first + 65536)):
            top = int(idx.max()) + 1 if len(idx) else 0
            if top > len(bits[0]):
                size = max(top, 2 * len(bits[0]))
                bits = [np.concatenate([b, np.zeros(size - len(b), dtype=bool)]) for b in bits]
            bits[0][idx[train]] = True
            bits[1][idx[test]] = True
            continue
        if bits is not None:                        # not small integers: sorted arrays from here on
            keys = [[np.flatnonzero(b).astype(np.int64)] for b in bits]
            bits = None
        keys[0].append(np.unique(idx[train]))
        keys[1].append(np.unique(idx[test]))
    if bits is not None:
        train, test = bits
        n_test, both = int(test.sum()), np.flatnonzero(train[:len(test)] & test)
    else:
        if any(a.dtype.kind != "i" for a in keys[0] + keys[1]):       # text on any block: all as text
            keys = [[a.astype(str) for a in k] for k in keys]
        train, test = (np.unique(np.concatenate(k)) if k else np.array([], dtype=np.int64) for k in keys)
        n_test, both = len(test), test[member_mask(test, train)]
    if not n_test:
        rf = np.concatenate(reps) if reps else np.empty((0, 2))
        raise D3MKitError.single(p, "splits.no_test", "", f"no TEST rows for repeat {repeat}, fold {fold} "
                                 f"({folds_present(rf[:, 0], rf[:, 1])})")
    if len(both):
        raise D3MKitError.single(p, "splits.overlap", "column d3mIndex",
                                 f"{len(both)} TEST d3mIndex value(s) of repeat {repeat}, fold {fold} are also "
                                 f"TRAIN ({', '.join(map(str, both[:10]))}); a split cannot score them")
    return train, test


def _members_of(cells) -> np.ndarray:
    """A block's d3mIndex cells as int64 when each is an integer (surrounding blanks allowed),
    else as stripped strings; numpy only (pandas' string methods go through pyarrow, whose
    memory pool keeps what a block used: ~70 bytes a row over 10^5 rows)."""
    text = np.char.strip(np.asarray(cells, dtype=object).astype(str))
    if len(text) and np.all(np.char.isdigit(np.char.lstrip(text, "+-")) & (np.char.str_len(text) <= 18)):
        try:
            return text.astype(np.int64)
        except ValueError:           # '+-1'
            pass
    return text


def member_mask(cells, members: np.ndarray) -> np.ndarray:
    """Which of ``cells`` (d3mIndex cells of a block, as read, or an array of keys) are among
    ``members`` from :func:`fold_members` (a bitmap, or sorted keys: a binary search per
    cell), so the memory is the block's, whatever the number of members."""
    keys = np.asarray(cells)
    if keys.dtype.kind not in "iu":
        keys = _members_of(keys)
    if members.dtype == bool:
        out = np.zeros(len(keys), dtype=bool)
        if keys.dtype.kind != "i":                   # text cells: those that are integers can match
            digits = np.char.isdigit(keys) & (np.char.str_len(keys) <= 18)
            out[digits] = member_mask(keys[digits].astype(np.int64), members)
            return out
        inside = (keys >= 0) & (keys < len(members))
        out[inside] = members[keys[inside]]
        return out
    if keys.dtype.kind != members.dtype.kind:                    # text on one side: compare as text
        keys, members = keys.astype(str), np.sort(members.astype(str))
    if not len(members):
        return np.zeros(len(keys), dtype=bool)
    at = np.searchsorted(members, keys)
    return members[np.minimum(at, len(members) - 1)] == keys


def select(splits, repeat: int = 0, fold: int = 0, path: Path | str = ""
           ) -> tuple[np.ndarray, np.ndarray]:
    """Boolean masks ``(train, test)`` over the rows of a dataSplits table for one
    repeat and fold (``splits`` a DataFrame or the scorer's
    :class:`~d3mkit.tables.columns.ColumnTable`): the one place that picks a fold's rows
    (scoring, task roots and :func:`folds` use it). Raises :class:`~d3mkit.errors.D3MKitError` (exit 1) naming
    the rows when a repeat/fold cell is not an integer, a row of this repeat and fold
    has a type other than TRAIN/TEST, a d3mIndex is both TRAIN and TEST, or there are
    no TEST rows.

    >>> s = pd.DataFrame({"d3mIndex": ["0", "1", "2", "0"], "type": ["TRAIN", "TEST", "TEST", "TRAIN"],
    ...                   "repeat": ["0", "0", "0", "1"], "fold": ["0", "0", "0", "0"]})
    >>> [m.tolist() for m in select(s)]
    [[True, False, False, False], [False, True, True, False]]
    """
    p = str(path)
    train, test, test_repeats, test_folds = _fold_masks(splits, repeat, fold, p)
    if not test.any():
        raise D3MKitError.single(p, "splits.no_test", "", f"no TEST rows for repeat {repeat}, fold {fold} "
                                 f"({folds_present(test_repeats, test_folds)})")
    keys = _index_keys(splits["d3mIndex"])
    both = np.flatnonzero(test & np.isin(keys, keys[train]))
    if len(both):
        raw = np.asarray(splits["d3mIndex"])[both[:10]]
        shown = ", ".join(dict.fromkeys(str(k).strip() for k in raw))
        raise D3MKitError.single(p, "splits.overlap", f"row {both[0] + 2}, column d3mIndex",
                                 f"{len(both)} TEST row(s) of repeat {repeat}, fold {fold} name a d3mIndex "
                                 f"that is also TRAIN ({shown}); a split cannot score them")
    return train, test


def folds(splits: pd.DataFrame) -> Iterator[tuple[int, int, list[str], list[str]]]:
    """``(repeat, fold, train d3mIndex values, test d3mIndex values)`` per repeat and fold
    in file order; indices listed once each (objectDetection lists one per box)."""
    rep = splits["repeat"].astype(np.int64)
    fol = splits["fold"].astype(np.int64)
    keys = list(dict.fromkeys(zip(rep.tolist(), fol.tolist())))
    for r, f in keys:
        sel = splits[(rep == r) & (fol == f)]
        idx = sel["d3mIndex"].astype(str)
        yield (r, f, list(dict.fromkeys(idx[sel["type"] == "TRAIN"])),
               list(dict.fromkeys(idx[sel["type"] == "TEST"])))


def summary(splits: pd.DataFrame) -> list[str]:
    """One line per repeat and fold: ``repeat R fold F: TRAIN a, TEST b``."""
    return [f"repeat {r} fold {f}: TRAIN {len(tr)}, TEST {len(te)}"
            for r, f, tr, te in folds(splits)]


def find_dataset(problem: ProblemDoc, search: tuple[Path, ...] = ()) -> DatasetDoc:
    """The dataset a problem names (the search rule of :mod:`d3mkit.docs.locate`)."""
    from d3mkit.docs.locate import dataset_of
    return dataset_of(problem, search)


@dataclass(frozen=True)
class SplitsWritten:
    """What :func:`regenerate` did: the file, its rows, the spec and whether it changed."""

    path: Path
    splits: pd.DataFrame
    spec: SplitSpec
    changed: bool


def regenerate(problem_path: Path | str, search: tuple[Path, ...] = (), *,
               force: bool = False) -> SplitsWritten:
    """(Re)write the splits file of the problem at ``problem_path`` (a problemDoc, a problem
    directory or a task root) from its ``dataSplits`` section. An up-to-date file is left
    alone; one with other content is replaced only with ``force`` (else OutputExists)."""
    from d3mkit.docs.locate import find_problem_doc, require_dataset_id
    doc_path = find_problem_doc(problem_path)
    problem = ProblemDoc.load(doc_path)
    require_dataset_id(problem, doc_path)
    spec, issues = spec_issues(problem)
    if spec is None:
        raise D3MKitError(issues)
    dataset = find_dataset(problem, tuple(search))
    res = dataset.learning_data
    if res is None:
        raise D3MKitError(error("dataset.no_learning_data", "dataResources",
                                "dataset has no learningData table", str(dataset.path)))
    ld_path = dataset.resource_path(res)
    try:
        learning_data = read_table(ld_path)
    except D3MKitError:
        raise
    except Exception as exc:  # pandas parser errors, encoding errors
        raise D3MKitError.single(ld_path, "csv.unreadable", "", f"cannot read learningData: {exc}") from None
    splits = make_splits(problem, learning_data, dataset)
    out = splits_path(doc_path.parent, spec.splits_file)
    new = splits_bytes(splits)
    refused = file_issue(out, "dataSplits file") if os.path.lexists(out) else None
    if refused is not None:          # a FIFO or device named like the splits file: never read
        raise D3MKitError(refused)
    same = out.exists() and out.read_bytes() == new
    if out.exists() and not same and not force:
        raise OutputExists(out, detail="exists with different content")
    if not same:
        write_splits(splits, out)
    return SplitsWritten(out, splits, spec, not same)
