"""Planning a dataSplits table (holdOut and kFold, stratified or not).

What this module owns:

* the split arithmetic as pure functions on arrays — :func:`holdout_test_mask` and
  :func:`kfold_assignment` — driven by a ``numpy.random.Generator``;
* :func:`make_splits`, which turns a problemDoc's ``inputs.dataSplits`` section
  (method, testSize, numFolds, stratified, numRepeats, randomSeed) and learningData into
  the rows of the splits file (written by :mod:`d3mkit.taskroot.splits.write`, read by
  :mod:`d3mkit.taskroot.splits.read`).

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
from dataclasses import dataclass

import numpy as np

from d3mkit.documents import DatasetDoc, ProblemDoc
from d3mkit.core.lazy import pandas as pd   # imported on first use: select() on integer columns needs none
from d3mkit.documents.dataset import image_index_column
from d3mkit.core.errors import D3MKitError, Issue, error, require_type
from d3mkit.io.limits import how_to_raise, limit
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
    (:func:`d3mkit.documents.dataset.image_index_column`)."""
    return image_index_column(dataset.learning_data if dataset is not None else None, columns)


# --------------------------------------------------------------------------------------
# splits for a problem
# --------------------------------------------------------------------------------------
def str_codes(values, want_labels: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
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


def first_rows(codes: np.ndarray) -> np.ndarray:
    """Where each code of :func:`str_codes` first appears (codes are numbered in order of
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

    Raises :class:`~d3mkit.core.errors.D3MKitError` (exit 1) naming the problemDoc field or
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
    index_codes, _ = str_codes(raw_index, want_labels=False)
    od = is_object_detection(problem)
    row_image = None
    if od:
        img = image_column(dataset, columns)
        if img is None:
            raise D3MKitError.single(ld_path, "splits.no_image", "header",
                                     "objectDetection learningData has no image (multi-index) column")
        raw_image = learning_data[img].to_numpy()
        unit_codes, _ = str_codes(raw_image, want_labels=False)     # the split unit is the image
        pair = index_codes * (int(unit_codes.max(initial=0)) + 1) + unit_codes
        rows = first_rows(str_codes(pair, want_labels=False)[0])
        row_image = raw_image[rows]
    else:
        unit_codes = index_codes
        rows = first_rows(index_codes)
    row_index = raw_index[rows]                         # one output row per (multi-)index
    first = first_rows(unit_codes)                     # units in learningData order
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
            strata = label_set_strata(unit_codes, _sorted_ranks(*str_codes(cells)))
        else:
            strata = _sorted_ranks(*str_codes(cells[first]))

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


