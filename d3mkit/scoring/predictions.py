"""Reading predictions.csv and the truth, checking them, and lining them up.

This is the one place that decides how a predictions file lines up with the truth
(docs/design.md). :func:`load_truth` reads the TEST rows of learningData for one repeat/fold of
dataSplits (or an explicit ``targets.csv``); :func:`read_predictions` reads the file;
:func:`align` checks everything and returns an :class:`Aligned` bundle of read-only
arrays in d3mIndex order, or the issues found (all of them).

Layouts of predictions.csv:

* ``rows`` — one row per TEST d3mIndex, target columns, optional ``confidence`` (any
  case): the confidence of that row's predicted label.
* ``classes`` — several rows per d3mIndex, one per (index, class), each carrying that
  class's ``confidence`` (the layout the D3M reference package reads). Used when a
  single-target classification file has a confidence column and **every** d3mIndex has
  two or more rows; a file where some indices repeat and others appear once mixes the
  two layouts and is an error naming the single rows (``predictions.mixed_layout``),
  never a silent switch. The confidences form a ``(rows, classes)`` matrix (classes not
  listed get 0) and the hard label is each index's most confident class (ties: the
  first class in sorted order).
* ``ranked`` — several rows per d3mIndex with a ``rank`` column (meanReciprocalRank,
  hitsAtK); the hard label is the rank-1 row's value.
* ``multiLabel`` — the truth has one row per (d3mIndex, label) (taskSubType multiLabel,
  or a classification truth that repeats d3mIndex) and so do the predictions, optionally
  with each label's ``confidence``; rows are grouped by d3mIndex into label sets
  (:class:`d3mkit.scoring.multilabel.LabelSets`). Every TEST index needs at least one
  row and no other index may appear; a repeated (index, label) pair is a warning.
* ``objectDetection`` — any number of rows per image, keyed by the image column
  (d3mIndex must be present but is not used to align).

Locations are ``row R, column NAME`` with R the line of the file (the header is row 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.errors import EXIT_USAGE, D3MKitError, Issue, error, warning
from d3mkit.limits import how_to_raise, limit
from d3mkit.validation import coltypes
from d3mkit.validation.csvread import read_header, read_strings

INDEX = "d3mIndex"
NUMERIC_TYPES = ("integer", "real")
MULTILABEL_TASKS = ("classification", "semiSupervisedClassification")
REGRESSION_TASKS = ("regression", "timeSeriesForecasting", "collaborativeFiltering",
                    "semiSupervisedRegression")
MISSING_STRINGS = ("", "nan", "NaN", "NAN", "NA", "N/A", "null", "NULL", "None")
MAX_RANK = 500.0
SHOW = 10   # how many offending rows/indices a message lists
WIDE_HEADER = 1000   # predictions wider than this parse only the columns scoring uses


# ---------------------------------------------------------------------------------------
# containers
# ---------------------------------------------------------------------------------------
@dataclass
class Truth:
    """TEST rows of the truth: strings as read, in d3mIndex order (file order for
    objectDetection)."""

    frame: pd.DataFrame
    index: np.ndarray
    targets: list[str]
    col_types: dict[str, str]
    image_column: str | None
    path: str
    issues: list[Issue] = field(default_factory=list)
    multilabel: bool = False   # several rows per d3mIndex, one per label
    rows: np.ndarray | None = None   # each frame row's 0-based data row in the file


@dataclass
class Aligned:
    """Truth and predictions lined up row by row (arrays are read-only).

    ``truth``/``pred`` map target name to arrays (floats for numeric colTypes, strings
    otherwise; ``(n, 4)`` boxes for objectDetection). ``confidence`` is 1-D per row, or
    2-D with ``classes``; ``ranks`` maps target to the rank of the true value. ``codes``
    (text targets of the rows layout) maps target to ``(truth codes, prediction codes,
    labels)`` with ``truth[t] == labels[truth codes]``: the integer form the parse already
    found, which the scorer hands to the label-encoding metrics."""

    layout: str
    index: np.ndarray
    targets: list[str]
    truth: dict[str, np.ndarray]
    pred: dict[str, np.ndarray]
    col_types: dict[str, str]
    confidence: np.ndarray | None = None
    classes: np.ndarray | None = None
    ranks: dict[str, np.ndarray] | None = None
    images_true: np.ndarray | None = None
    images_pred: np.ndarray | None = None
    issues: list[Issue] = field(default_factory=list)
    codes: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None

    @property
    def n_rows(self) -> int:
        return len(self.index)


def _ro(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.flags.writeable = False
    return a


def _rows_text(rows, total: int | None = None) -> str:
    rows = list(rows)
    shown = ", ".join(str(r) for r in rows[:SHOW])
    more = (total if total is not None else len(rows)) - min(len(rows), SHOW)
    return shown + (f" and {more} more" if more > 0 else "")


# ---------------------------------------------------------------------------------------
# CSV reading
# ---------------------------------------------------------------------------------------
_USAGE_CODES = ("file.missing", "file.unreadable", "file.is_directory")


def _usage(issues: list[Issue], kind: str) -> list[Issue]:
    """A missing or unreadable path is a usage error (exit 2); anything else is returned."""
    for i in issues:
        if i.code in _USAGE_CODES:
            msg = f"{kind} file does not exist" if i.code == "file.missing" else i.message
            raise D3MKitError(error(i.code, i.location, msg, i.path), EXIT_USAGE)
    return issues


def _header(path: Path, kind: str) -> tuple[list[str] | None, list[Issue]]:
    header, issues = read_header(path)
    return header, _usage(issues, kind)


def read_csv_checked(path: Path | str, kind: str, usecols: list[str] | None = None,
                     int_cols: tuple[str, ...] = (INDEX,)) -> tuple[pd.DataFrame | None, list[Issue]]:
    """Read a CSV as strings through :func:`d3mkit.validation.csvread.read_strings`; a
    missing or unreadable path raises (exit 2), other file problems are issues."""
    df, issues = read_strings(path, usecols, int_cols)
    return df, _usage(issues, kind)


def read_predictions(path: Path | str, truth: "Truth | None" = None
                     ) -> tuple[pd.DataFrame | None, list[Issue]]:
    """Read predictions.csv (see :func:`read_csv_checked`). With ``truth``, only the
    columns scoring uses are parsed (d3mIndex, the targets, the image column, any-case
    ``confidence``/``rank``); ``df.attrs["header"]`` keeps the whole header so that
    :func:`align` still names the ignored columns. Time is linear in the header."""
    if truth is None:
        return read_csv_checked(path, "predictions")
    header, issues = _header(Path(path), "predictions")
    if header is None:
        return None, issues
    if len(header) <= WIDE_HEADER:   # parse every column: ragged rows are found by pandas
        return read_csv_checked(path, "predictions")
    keep = {INDEX, *truth.targets, truth.image_column}
    cols = [c for c in header if c in keep or c.lower() in ("confidence", "rank")]
    df, issues = read_strings(path, cols, (INDEX,))
    issues = _usage(issues, "predictions")
    if df is not None:
        df.attrs["header"] = list(header)
    return df, issues


def _index_values(col: pd.Series) -> np.ndarray:
    """d3mIndex as int64 when every value is an integer, else stripped strings."""
    a = col.to_numpy()
    if a.dtype.kind in "iu":
        return a.astype(np.int64)
    try:
        return np.asarray(a, dtype=object).astype(np.int64)
    except (ValueError, OverflowError, TypeError):
        pass
    # the integer colType's canonical form: "1.0" and " 1" are index 1, exactly
    x, bad = coltypes.canonical(a, "integer")
    if len(x) and not bad.any():
        if x.dtype == float and (x == np.round(x)).all():
            return x.astype(np.int64)
        if x.dtype == object and all(isinstance(v, int) and -2 ** 63 <= v < 2 ** 63 for v in x):
            return x.astype(np.int64)
    return np.asarray([str(v).strip() for v in a], dtype=object)


def _same_kind(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if a.dtype.kind == b.dtype.kind:
        return a, b
    return a.astype(str).astype(object), b.astype(str).astype(object)


def lookup(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, bool]:
    """``(pos, unique)``: ``pos[i]`` is the position of ``values[i]`` among ``keys``, -1
    when absent; ``unique`` says whether ``keys`` has no repeated value (when it has, ``pos``
    only tells present, >= 0, from absent). Integer keys and values within a span of a few
    times their count (d3mIndex almost always is) go through one direct table, O(n) with
    no hashing; anything else through a pandas hash index.

    >>> pos, unique = lookup(np.array([10, 12, 11]), np.array([11, 13, 10]))
    >>> pos.tolist(), unique
    ([2, -1, 0], True)
    >>> lookup(np.array(["a", "b", "a"], dtype=object), np.array(["b", "c"], dtype=object))[1]
    False
    """
    if keys.dtype.kind == "i" and values.dtype.kind == "i" and len(keys):
        first, n = int(keys[0]), len(keys)
        if int(keys[-1]) - first == n - 1 and (n == 1 or bool((np.diff(keys) == 1).all())):
            pos = values - first            # keys are first, first + 1, ...: no table
            pos[(pos < 0) | (pos >= n)] = -1
            return pos, True
        lo = min(int(keys.min()), int(values.min()) if len(values) else int(keys.min()))
        hi = max(int(keys.max()), int(values.max()) if len(values) else int(keys.max()))
        if hi - lo < 4 * (len(keys) + len(values)) + 1024:
            table = np.full(hi - lo + 1, -1, dtype=np.int64)
            table[keys - lo] = np.arange(n)
            unique = int(np.count_nonzero(table >= 0)) == n   # a repeated key fills one slot
            return table[values - lo], unique
    index = pd.Index(keys)
    if index.is_unique:
        return index.get_indexer(values), True
    return np.where(np.isin(values, keys), 0, -1), False


# ---------------------------------------------------------------------------------------
# truth
# ---------------------------------------------------------------------------------------
def _target_types(problem, dataset) -> dict[str, str]:
    types: dict[str, str] = {}
    res = dataset.learning_data if dataset is not None else None
    for name in problem.target_names:
        col = res.column(name) if res is not None else None
        if col is not None and col.col_type:
            types[name] = col.col_type
        elif problem.task_type == "objectDetection":
            types[name] = "realVector"
        elif problem.task_type in REGRESSION_TASKS:
            types[name] = "real"
        else:
            types[name] = "categorical"
    return types


def image_column(problem, dataset, columns) -> str | None:
    """The column that keys objectDetection rows (:func:`d3mkit.docs.dataset.image_index_column`);
    None for other tasks."""
    if problem.task_type != "objectDetection":
        return None
    from d3mkit.docs.dataset import image_index_column
    return image_index_column(dataset.learning_data if dataset is not None else None, columns)


def _truth_table(path: Path, kind: str, problem, dataset) -> tuple[pd.DataFrame, str | None, list[Issue]]:
    """The truth's columns of ``path`` (d3mIndex, the image column of objectDetection, the
    targets), the image column, and the reader's warnings; raises on an unreadable file."""
    header, issues = _header(path, kind)
    if header is None:
        raise D3MKitError(issues)
    img = image_column(problem, dataset, header)
    df, issues = read_csv_checked(path, kind, [INDEX] + ([img] if img else []) + problem.target_names)
    if df is None:
        raise D3MKitError(issues)
    return df, img, issues


def load_truth(problem, *, dataset=None, targets_path=None, splits_path=None,
               repeat: int = 0, fold: int = 0) -> Truth:
    """The truth for ``problem``: ``targets_path`` (every row), or the TEST rows of the
    dataset's learningData for ``repeat``/``fold`` of the splits file. Raises
    :class:`D3MKitError` when the truth cannot be read."""
    targets = problem.target_names
    if not targets:
        raise D3MKitError(error("problem.no_targets", "inputs.data[0].targets",
                                "the problemDoc names no targets", str(problem.path or "")))
    types = _target_types(problem, dataset)
    is_od = problem.task_type == "objectDetection"
    if targets_path is not None:
        path = Path(targets_path)
        df, img, issues = _truth_table(path, "targets", problem, dataset)
    else:
        if dataset is None:
            raise D3MKitError(error("truth.none", "", "no truth: give the dataset or a targets.csv",
                                    str(problem.path or "")), EXIT_USAGE)
        res = dataset.learning_data
        if res is None:
            raise D3MKitError(error("dataset.no_learning_data", "dataResources",
                                    "dataset has no learningData table", str(dataset.path)))
        path = dataset.resource_path(res)
        df, img, issues = _truth_table(path, "learningData", problem, dataset)
        if splits_path is not None:
            sp = Path(splits_path)
        else:
            from d3mkit.splits import splits_path as _splits_path
            sp = _splits_path(Path(problem.path).parent, problem.splits_file)
        splits, sissues = read_csv_checked(sp, "dataSplits", [INDEX, "type", "repeat", "fold"],
                                           int_cols=(INDEX, "repeat", "fold"))
        if splits is None:
            raise D3MKitError(sissues)
        from d3mkit.splits import select
        _train, sel = select(splits, repeat, fold, sp)
        test = _index_values(splits[INDEX])[sel]
        if INDEX not in df.columns:
            raise D3MKitError(error("truth.no_index", "row 1", f"no {INDEX} column", str(path)))
        li = _index_values(df[INDEX])
        li, test = _same_kind(li, test)
        absent = ~pd.Index(test).isin(li)
        if absent.any():
            rows = _lines(np.flatnonzero(sel)[absent])
            raise D3MKitError(error("splits.unknown_index", f"row {rows[0]}, column {INDEX}",
                                    f"{int(absent.sum())} TEST d3mIndex value(s) of repeat {repeat}, "
                                    f"fold {fold} are not in learningData "
                                    f"({_rows_text(pd.unique(test[absent]))}; rows {_rows_text(rows)}): "
                                    f"they cannot be scored", str(sp)))
        keep = pd.Index(test).get_indexer(li) >= 0 if not pd.Index(test).has_duplicates else \
            np.isin(li, test)
        df = df[keep]
    p = str(path)
    missing = [c for c in [INDEX] + targets if c not in df.columns]
    if missing:
        raise D3MKitError(error("truth.columns", "row 1",
                                f"truth lacks column(s): {', '.join(missing)}", p))
    if is_od and img is None:
        raise D3MKitError(error("truth.image", "row 1", "objectDetection truth has no image "
                                "column (an index column besides d3mIndex)", p))
    index = _index_values(df[INDEX])
    if not is_od:
        order = np.argsort(index, kind="stable")
        if not (order == np.arange(len(order))).all():
            df = df.iloc[order]
            index = index[order]
    multilabel = problem.task_subtype == "multiLabel" and problem.task_type in MULTILABEL_TASKS
    if not is_od:   # sorted: a repeated index is equal to the one before it
        dup = np.zeros(len(index), dtype=bool)
        dup[1:] = index[1:] == index[:-1]
        if dup.any() and problem.task_type not in MULTILABEL_TASKS:
            raise D3MKitError(error("truth.duplicate_index", "",
                                    f"truth has several rows for d3mIndex "
                                    f"{_rows_text(pd.unique(index[dup]))} (only classification "
                                    f"truth may repeat an index: one row per label, multiLabel)", p))
        if dup.any() and not multilabel:
            multilabel = True
            issues = issues + [warning("truth.multilabel", "",
                                       f"truth has several rows for d3mIndex "
                                       f"{_rows_text(pd.unique(index[dup]))}: scored as multiLabel "
                                       f"label sets although the problem's taskSubType is "
                                       f"{problem.task_subtype or 'not given'}", p)]
    return Truth(df.reset_index(drop=True), index, targets, types, img, p, issues,
                 multilabel=multilabel, rows=df.index.to_numpy())


# ---------------------------------------------------------------------------------------
# checks on single columns
# ---------------------------------------------------------------------------------------
def _lines(pos: np.ndarray) -> np.ndarray:
    return pos + 2   # header is row 1


def _missing_mask(a: np.ndarray) -> np.ndarray:
    return np.isin(a, MISSING_STRINGS) if a.dtype == object else np.zeros(len(a), bool)


def _parse_numeric(a: np.ndarray, name: str, path: str, code: str, what: str,
                   issues: list[Issue], positions: np.ndarray | None = None,
                   exact: bool = False) -> np.ndarray:
    """Floats; with ``exact`` the integer colType's canonical form
    (:func:`d3mkit.validation.coltypes.exact_numbers`: an object array of exact Python numbers
    when an integral value is beyond 2**53)."""
    if exact:
        vals, bad = coltypes.canonical(a, "integer")
    else:
        vals = pd.to_numeric(pd.Series(a, dtype=object), errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(vals)
    if bad.any():
        pos = np.flatnonzero(bad)
        rows = _lines(pos if positions is None else positions[pos])
        sample = str(a[pos[0]])[:40]
        issues.append(error(code, f"row {rows[0]}, column {name}",
                            f"{len(pos)} value(s) in column {name!r} are not {what} "
                            f"(first: {sample!r}; rows {_rows_text(rows, len(pos))})", path))
    return vals


def _parse_target(a: np.ndarray, name: str, col_type: str, path: str,
                  issues: list[Issue], positions=None, kind: str = "predictions") -> np.ndarray:
    """Check blanks/NaN and parse per colType; returns floats or strings. Text colTypes
    are looked at once per distinct value (one factorize), then mapped back to rows."""
    return _parse_labels(a, name, col_type, path, issues, positions, kind)[0]


def _parse_labels(a: np.ndarray, name: str, col_type: str, path: str, issues: list[Issue],
                  positions=None, kind: str = "predictions"
                  ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
    """:func:`_parse_target` and, for text colTypes, ``(codes, distinct)``: the distinct
    parsed values and each row's position among them (``vals == distinct[codes]``), else
    None; callers need not hash the rows again."""
    codes = uniq = None
    if col_type not in NUMERIC_TYPES and a.dtype == object and len(a):
        codes, uniq = pd.factorize(a)
        uniq = np.asarray(uniq, dtype=object)
        miss = np.isin(uniq, MISSING_STRINGS)[codes] | (codes < 0)   # -1: None or NaN
    else:
        miss = _missing_mask(a)
    if miss.any():
        pos = np.flatnonzero(miss)
        rows = _lines(pos if positions is None else positions[pos])
        issues.append(error(f"{kind}.missing_value", f"row {rows[0]}, column {name}",
                            f"{len(pos)} blank or NaN value(s) in column {name!r} "
                            f"(rows {_rows_text(rows, len(pos))})", path))
    if col_type in NUMERIC_TYPES:
        ok = ~miss
        sub_issues: list[Issue] = []
        pos_ok = np.flatnonzero(ok)
        got = _parse_numeric(a[ok], name, path, f"{kind}.not_numeric",
                             f"numbers ({col_type})", sub_issues,
                             pos_ok if positions is None else positions[pos_ok],
                             exact=col_type == "integer")
        out = np.full(len(a), np.nan, dtype=got.dtype)
        out[ok] = got
        issues += sub_issues
        return out, None
    distinct = None
    if codes is None:
        vals, bad = coltypes.canonical(a, col_type)
    else:
        cu, bad_u = coltypes.canonical(uniq, col_type)
        same = len(cu) == len(uniq) and bool((cu == uniq).all())
        vals = np.asarray(a, dtype=object) if same else cu[codes]
        bad = bad_u[codes]
        if same:
            distinct = (codes, uniq)
        else:   # values that differ only in form (" a", "a") share one parsed value
            du = np.asarray(pd.unique(cu), dtype=object)
            distinct = (pd.Index(du).get_indexer(cu)[codes], du)
        if (codes < 0).any():
            distinct = None
    bad &= ~miss
    if bad.any():
        pos = np.flatnonzero(bad)
        rows = _lines(pos if positions is None else positions[pos])
        issues.append(error(f"{kind}.bad_value", f"row {rows[0]}, column {name}",
                            f"{len(pos)} value(s) in column {name!r} are {coltypes.describe(col_type)} "
                            f"(colType {col_type}; first: {str(a[pos[0]])[:40]!r}; rows "
                            f"{_rows_text(rows, len(pos))})", path))
    return vals, distinct


def _find_column(columns, name: str) -> tuple[str | None, list[str]]:
    hits = [c for c in columns if c.lower() == name]
    return (hits[0] if hits else None), hits


def _index_issues(pred_idx, truth_idx, path, issues, what="index", *, truth_pos=None,
                  pred_pos=None) -> tuple[np.ndarray, np.ndarray]:
    """Missing/extra d3mIndex values; returns (missing, extra) masks. ``truth_pos`` /
    ``pred_pos``, when the caller has them, are :func:`lookup` (truth_idx, pred_idx) and
    (pred_idx, truth_idx)."""
    pos = lookup(truth_idx, pred_idx)[0] if truth_pos is None else truth_pos
    extra_mask = pos < 0
    present = lookup(pred_idx, truth_idx)[0] if pred_pos is None else pred_pos
    missing_mask = present < 0
    if missing_mask.any() or extra_mask.any():
        miss = truth_idx[missing_mask]
        extra = pd.unique(pred_idx[extra_mask])
        parts = []
        if len(miss):
            parts.append(f"{len(miss)} TEST {what}(es) missing ({_rows_text(miss)})")
        if len(extra):
            parts.append(f"{len(extra)} not in the TEST set ({_rows_text(extra)})")
        loc = f"row {_lines(np.flatnonzero(extra_mask))[0]}, column {INDEX}" if len(extra) else ""
        issues.append(error("predictions.index_set", loc,
                            f"d3mIndex values differ from the TEST set: {'; '.join(parts)}", path))
    return missing_mask, extra_mask


def _unseen_labels(pred: np.ndarray, truth: np.ndarray, name: str, path: str, issues) -> None:
    pu = pd.unique(pred)
    unseen = pd.Index(pu).difference(pd.Index(pd.unique(truth)))
    unseen = [u for u in unseen if u not in MISSING_STRINGS]
    if unseen:
        issues.append(warning("predictions.unseen_label", f"column {name}",
                              f"{len(unseen)} predicted label(s) never occur in the truth: "
                              f"{_rows_text(repr(u) for u in sorted(map(str, unseen)))}", path))


def _confidence(df, col, path, issues) -> np.ndarray:
    vals = _parse_numeric(df[col].to_numpy(), col, path, "predictions.confidence",
                          "numbers", issues)
    out = (vals < 0) | (vals > 1)
    if out.any():
        pos = np.flatnonzero(out)
        rows = _lines(pos)
        issues.append(error("predictions.confidence_range", f"row {rows[0]}, column {col}",
                            f"{len(pos)} confidence value(s) outside [0, 1] "
                            f"(first {float(vals[pos[0]])}; rows {_rows_text(rows, len(pos))})", path))
    return vals


# ---------------------------------------------------------------------------------------
# alignment
# ---------------------------------------------------------------------------------------
# header-level errors after which the rows can still be checked
HEADER_ONLY = frozenset({"predictions.no_confidence", "predictions.duplicate_confidence"})


def align(truth: Truth, df: pd.DataFrame, path: str, *, task_type: str | None = None,
          needs_confidence: bool = False, ranked: bool = False) -> Aligned | list[Issue]:
    """Check ``df`` (the predictions) against ``truth`` and line them up; returns the
    :class:`Aligned` bundle, or the list of issues when any is an error."""
    issues: list[Issue] = []
    cols = list(df.attrs.get("header") or df.columns)
    if INDEX not in cols:
        near = [c for c in cols if c.lower() == INDEX.lower()]
        hint = f" (found {near[0]!r}: the name is case-sensitive)" if near else ""
        issues.append(error("predictions.no_index", "row 1", f"no {INDEX} column{hint}", path))
    missing_t = [t for t in truth.targets if t not in cols]
    if missing_t:
        issues.append(error("predictions.no_target", "row 1",
                            f"target column(s) missing: {', '.join(missing_t)} "
                            f"(columns are: {', '.join(cols[:20])})", path))
    conf_col, conf_hits = _find_column(cols, "confidence")
    if len(conf_hits) > 1:
        issues.append(error("predictions.duplicate_confidence", "row 1",
                            f"several confidence columns: {', '.join(conf_hits)}", path))
    rank_col, _ = _find_column(cols, "rank")
    if needs_confidence and conf_col is None:
        issues.append(error("predictions.no_confidence", "row 1",
                            "a metric of this problem needs a confidence column and there is none",
                            path))
    if truth.image_column and truth.image_column not in cols and INDEX in cols:
        # the D3M layout (d3mIndex, boxes, confidence): when every truth d3mIndex names one
        # image, a prediction's d3mIndex says its image
        image_of = _image_by_index(truth)
        if image_of is None:
            issues.append(error("predictions.no_image", "row 1",
                                f"objectDetection predictions need the {truth.image_column!r} column "
                                f"(a d3mIndex of the truth names several images)", path))
        else:
            pidx, tidx = _same_kind(_index_values(df[INDEX]), image_of.index.to_numpy())
            images = pd.Series(image_of.to_numpy(), index=pd.Index(tidx)).reindex(pidx).to_numpy()
            df = df.assign(**{truth.image_column: images})
            unknown = pd.isna(df[truth.image_column]).to_numpy()
            if unknown.any():
                pos = np.flatnonzero(unknown)
                issues.append(error("predictions.image_set", f"row {_lines(pos)[0]}, column {INDEX}",
                                    f"{len(pos)} row(s) have a d3mIndex that is not a TEST image's "
                                    f"(rows {_rows_text(_lines(pos), len(pos))})", path))
    known = {INDEX, *truth.targets, conf_col, rank_col, truth.image_column}
    extra_cols = [c for c in cols if c not in known]
    if extra_cols:
        issues.append(warning("predictions.extra_column", "row 1",
                              f"column(s) ignored: {', '.join(extra_cols[:10])}", path))
    # every issue at once: a missing or doubled confidence column does not stop the row
    # checks; a missing index, target or image does (the rows cannot be lined up)
    if any(i.is_error and i.code not in HEADER_ONLY for i in issues):
        return issues

    if truth.image_column:
        return _align_od(truth, df, path, conf_col, issues)
    if truth.multilabel:
        return _align_multilabel(truth, df, path, conf_col, issues)

    pred_idx = _index_values(df[INDEX])
    truth_idx = truth.index
    pred_idx, truth_idx = _same_kind(pred_idx, truth_idx)
    order, once_each = lookup(pred_idx, truth_idx)   # each truth row's prediction row
    repeated = not once_each
    if repeated and (ranked or rank_col is not None) and len(truth.targets) == 1:
        return _align_ranked(truth, truth_idx, df, pred_idx, path, rank_col, conf_col, issues)
    if repeated and conf_col is not None and len(truth.targets) == 1 \
            and truth.col_types[truth.targets[0]] not in NUMERIC_TYPES:
        once = ~pd.Index(pred_idx).duplicated(keep=False)
        if once.any():   # the layout is decided by the whole file: no silent switch
            rows = _lines(np.flatnonzero(once))
            issues.append(error("predictions.mixed_layout", f"row {rows[0]}, column {INDEX}",
                                f"the file mixes layouts: {int((~once).sum())} rows repeat their "
                                f"d3mIndex (one row per (index, class) with its confidence) but "
                                f"{len(rows)} d3mIndex value(s) have a single row (rows "
                                f"{_rows_text(rows)}); list every index once, or every index with "
                                f"two or more classes", path))
            return issues
        return _align_classes(truth, truth_idx, df, pred_idx, path, conf_col, issues)
    if ranked:
        issues.append(error("predictions.no_rank", "row 1",
                            "a ranking metric needs rows (d3mIndex, value, rank) with a rank "
                            "column", path))
    if repeated:
        dup = pd.Index(pred_idx).duplicated(keep=False)
        pos = np.flatnonzero(dup)
        vals = pd.unique(pred_idx[dup])
        issues.append(error("predictions.duplicate_index", f"row {_lines(pos)[0]}, column {INDEX}",
                            f"{len(vals)} d3mIndex value(s) appear more than once "
                            f"({_rows_text(vals)}; rows {_rows_text(_lines(pos), len(pos))})", path))
        _check_rows(truth, df, conf_col, path, issues)
        return issues
    missing_mask, extra_mask = _index_issues(pred_idx, truth_idx, path, issues, pred_pos=order)
    if missing_mask.any() or extra_mask.any():
        _check_rows(truth, df, conf_col, path, issues)
        return issues
    identity = bool((order == np.arange(len(order))).all())
    tvals, pvals, codes = {}, {}, {}
    for t in truth.targets:
        ctype = truth.col_types[t]
        tv, tcodes = _parse_labels(truth.frame[t].to_numpy(), t, ctype, truth.path, issues, kind="truth")
        pv, pcodes = _parse_labels(df[t].to_numpy(), t, ctype, path, issues)
        tv, pv = coltypes.comparable(tv, pv)      # integers beyond 2**53: exact on both sides
        tvals[t] = _ro(tv)
        pvals[t] = _ro(pv if identity else pv[order])
        if tcodes is not None and pcodes is not None:
            codes[t] = _joint_codes(tcodes, pcodes, None if identity else order)
        tu = pd.unique(tv) if tcodes is None else tcodes[1]
        if ctype == "categorical" and len(tu) < len(tv):
            # a closed label set (labels repeat in the truth); free-form targets such as
            # chess boards or rationales, where nearly every truth value is new, are not
            # warned about
            _unseen_labels(pv if pcodes is None else pcodes[1], tu, t, path, issues)
    conf = None
    if conf_col is not None:
        c = _confidence(df, conf_col, path, issues)
        conf = _ro(c if identity else c[order])
    if any(i.is_error for i in issues):
        return issues
    return Aligned("rows", _ro(truth_idx), truth.targets, tvals, pvals, truth.col_types,
                   confidence=conf, issues=issues, codes=codes or None)


def _check_rows(truth: Truth, df: pd.DataFrame, conf_col, path: str, issues: list[Issue]) -> None:
    """The checks of the prediction rows on their own — each target value parses as its
    colType, each confidence is a number in [0, 1] — for a file whose rows cannot be lined
    up with the truth (a repeated or wrong d3mIndex), so that its other problems are
    reported with it: every issue at once."""
    for t in truth.targets:
        _parse_labels(df[t].to_numpy(), t, truth.col_types[t], path, issues)
    if conf_col is not None:
        _confidence(df, conf_col, path, issues)


def _joint_codes(tcodes, pcodes, order) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(truth codes, prediction codes, labels)`` into one label list, from the codes
    each side's parse found (predictions put in truth order by ``order``); labels in no
    particular order. What :attr:`Aligned.codes` holds."""
    tc, tu = tcodes
    pc, pu = pcodes
    where = pd.Index(tu).get_indexer(pu)          # tu is distinct: a lookup over labels
    new = where < 0
    where[new] = len(tu) + np.arange(int(new.sum()))
    labels = np.concatenate([tu, pu[new]]) if new.any() else tu
    pc = where[pc]
    return tc, (pc if order is None else pc[order]), labels


def _truth_positions(pred_idx, truth_idx, path, issues):
    tpos = lookup(truth_idx, pred_idx)[0]
    missing_mask, extra_mask = _index_issues(pred_idx, truth_idx, path, issues, truth_pos=tpos)
    return tpos, (missing_mask.any() or extra_mask.any())


def _align_classes(truth, truth_idx, df, pred_idx, path, conf_col, issues):
    t = truth.targets[0]
    ctype = truth.col_types[t]
    tpos, bad = _truth_positions(pred_idx, truth_idx, path, issues)
    labels = _parse_target(df[t].to_numpy(), t, ctype, path, issues)
    conf = _confidence(df, conf_col, path, issues)
    tv = _parse_target(truth.frame[t].to_numpy(), t, ctype, truth.path, issues, kind="truth")
    if bad or any(i.is_error for i in issues):
        return issues
    tv, labels = coltypes.comparable(tv, labels)
    classes = np.asarray(sorted(set(pd.unique(tv)) | set(pd.unique(labels))), dtype=object)
    code = pd.Index(classes).get_indexer(labels)
    key = tpos.astype(np.int64) * len(classes) + code
    dup = pd.Index(key).duplicated(keep=False)
    if dup.any():
        pos = np.flatnonzero(dup)
        issues.append(error("predictions.duplicate_index", f"row {_lines(pos)[0]}, column {t}",
                            f"{len(pos)} rows repeat a (d3mIndex, {t}) pair "
                            f"(rows {_rows_text(_lines(pos), len(pos))})", path))
        return issues
    mat = np.zeros((len(truth_idx), len(classes)))
    mat[tpos, code] = conf
    hard = classes[np.argmax(mat, axis=1)]
    _unseen_labels(labels, tv, t, path, issues)
    return Aligned("classes", _ro(truth_idx), truth.targets, {t: _ro(tv)}, {t: _ro(hard)},
                   truth.col_types, confidence=_ro(mat), classes=_ro(classes), issues=issues)


def _align_ranked(truth, truth_idx, df, pred_idx, path, rank_col, conf_col, issues):
    t = truth.targets[0]
    if rank_col is None:
        issues.append(error("predictions.no_rank", "row 1",
                            "a ranking metric needs a rank column", path))
        return issues
    tpos, bad = _truth_positions(pred_idx, truth_idx, path, issues)
    ctype = truth.col_types[t]
    values = _parse_target(df[t].to_numpy(), t, ctype, path, issues)
    ranks = _parse_numeric(df[rank_col].to_numpy(), rank_col, path, "predictions.rank",
                           "numbers", issues)
    low = ranks < 1
    if low.any():
        pos = np.flatnonzero(low)
        issues.append(error("predictions.rank", f"row {_lines(pos)[0]}, column {rank_col}",
                            f"{len(pos)} rank(s) below 1", path))
    tv = _parse_target(truth.frame[t].to_numpy(), t, ctype, truth.path, issues, kind="truth")
    if bad or any(i.is_error for i in issues):
        return issues
    tv, values = coltypes.comparable(tv, values)
    pf = pd.DataFrame({"pos": tpos, "value": values.astype(str), "rank": ranks})
    if pf.duplicated(["pos", "value"]).any():
        pos = np.flatnonzero(pf.duplicated(["pos", "value"], keep=False).to_numpy())
        issues.append(error("predictions.duplicate_index", f"row {_lines(pos)[0]}, column {t}",
                            f"{len(pos)} rows repeat a (d3mIndex, {t}) pair", path))
        return issues
    tf = pd.DataFrame({"pos": np.arange(len(truth_idx)), "value": tv.astype(str)})
    merged = tf.merge(pf, on=["pos", "value"], how="left")
    r = merged["rank"].fillna(MAX_RANK).to_numpy(dtype=float)
    best = pf.sort_values(["pos", "rank", "value"], kind="stable").drop_duplicates("pos")
    hard = np.empty(len(truth_idx), dtype=values.dtype if values.dtype.kind == "f" else object)
    hard[best["pos"].to_numpy()] = values[best.index.to_numpy()]
    tvals = {t: _ro(tv)}
    pvals = {t: _ro(hard)}
    if any(i.is_error for i in issues):
        return issues
    return Aligned("ranked", _ro(truth_idx), truth.targets, tvals, pvals, truth.col_types,
                   ranks={t: _ro(r)}, issues=issues)


def parse_boxes(a: np.ndarray, name: str, path: str, issues: list[Issue]) -> np.ndarray:
    """``"x_min,y_min,x_max,y_max"`` strings (or 8-number rectangle polygons, the 4.x
    form) to an ``(n, 4)`` float array; bad boxes become issues."""
    n = len(a)
    out = np.full((n, 4), np.nan)
    miss = _missing_mask(np.asarray(a, dtype=object))
    parts = pd.Series(np.asarray(a, dtype=object)).str.split(",")
    lens = parts.str.len().to_numpy()
    for k in (4, 8):
        sel = (lens == k) & ~miss
        if sel.any():
            vals = pd.DataFrame(parts[sel].tolist()).apply(pd.to_numeric, errors="coerce").to_numpy(float)
            if k == 8:   # x_min,y_min, x_min,y_max, x_max,y_max, x_max,y_min
                vals = vals[:, [0, 1, 4, 5]]
            out[sel] = vals
    bad = ~np.isfinite(out).all(axis=1)
    if bad.any():
        pos = np.flatnonzero(bad)
        issues.append(error("predictions.bad_box", f"row {_lines(pos)[0]}, column {name}",
                            f"{len(pos)} bounding box(es) are not 4 comma-separated numbers "
                            f"x_min,y_min,x_max,y_max (first {str(a[pos[0]])[:40]!r}; "
                            f"rows {_rows_text(_lines(pos), len(pos))})", path))
    inverted = np.isfinite(out).all(axis=1) & ((out[:, 2] < out[:, 0]) | (out[:, 3] < out[:, 1]))
    if inverted.any():
        pos = np.flatnonzero(inverted)
        issues.append(error("predictions.bad_box", f"row {_lines(pos)[0]}, column {name}",
                            f"{len(pos)} bounding box(es) have x_max < x_min or y_max < y_min "
                            f"(rows {_rows_text(_lines(pos), len(pos))})", path))
    return out


def _image_by_index(truth) -> pd.Series | None:
    """d3mIndex -> image of an objectDetection truth, or None when a d3mIndex names
    several images (then predictions must carry the image column)."""
    pairs = pd.DataFrame({"i": truth.index, "m": truth.frame[truth.image_column].to_numpy()}).drop_duplicates()
    if pairs["i"].duplicated().any():
        return None
    return pd.Series(pairs["m"].to_numpy(), index=pd.Index(pairs["i"].to_numpy()))


def _align_od(truth, df, path, conf_col, issues):
    img = truth.image_column
    t = truth.targets[0]
    if len(truth.targets) != 1:
        issues.append(error("predictions.targets", "", "objectDetection supports one target "
                            "(the bounding box column)", path))
        return issues
    timg = truth.frame[img].to_numpy().astype(object)
    pimg = df[img].to_numpy().astype(object)
    tb = parse_boxes(truth.frame[t].to_numpy(), t, truth.path, issues)
    pb = parse_boxes(df[t].to_numpy(), t, path, issues)
    conf = _confidence(df, conf_col, path, issues) if conf_col is not None else None
    known = pd.Index(pd.unique(timg))
    extra = pd.Index(pd.unique(pimg)).difference(known)
    if len(extra):
        pos = np.flatnonzero(known.get_indexer(pimg) < 0)
        issues.append(error("predictions.image_set", f"row {_lines(pos)[0]}, column {img}",
                            f"{len(extra)} image(s) are not TEST images: "
                            f"{_rows_text(sorted(map(str, extra)))}", path))
    unseen = known.difference(pd.Index(pd.unique(pimg)))
    if len(unseen):
        issues.append(warning("predictions.image_missing", f"column {img}",
                              f"{len(unseen)} TEST image(s) have no detections: "
                              f"{_rows_text(sorted(map(str, unseen)))}", path))
    if any(i.is_error for i in issues):
        return issues
    return Aligned("objectDetection", _ro(truth.index), truth.targets, {t: _ro(tb)}, {t: _ro(pb)},
                   truth.col_types, confidence=None if conf is None else _ro(conf),
                   images_true=_ro(timg), images_pred=_ro(pimg), issues=issues)


def _ml_values(a: np.ndarray, name: str, col_type: str, path: str, issues: list[Issue],
               kind: str, skip_blank: bool, rows: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """A multiLabel target column's values parsed per colType, and the mask of rows kept
    (blank cells are skipped when the problem has several targets, else errors).
    ``rows`` maps each value to its data row in the file (for messages)."""
    keep = ~_missing_mask(a) if skip_blank else np.ones(len(a), bool)
    pos = np.flatnonzero(keep)
    if rows is not None:
        pos = rows[pos]
    vals = _parse_target(a[keep], name, col_type, path, issues, positions=pos, kind=kind)
    return vals, keep


def _align_multilabel(truth, df, path, conf_col, issues):
    """Group truth and prediction rows by d3mIndex into label sets (one
    :class:`~d3mkit.scoring.multilabel.LabelSets` per target)."""
    from d3mkit.scoring.multilabel import LabelSets, label_codes, matrix_from_pairs
    targets = truth.targets
    several = len(targets) > 1
    pred_idx, trow_idx = _same_kind(_index_values(df[INDEX]), truth.index)
    uniq = np.asarray(pd.unique(trow_idx))          # truth is sorted by d3mIndex
    missing_mask, extra_mask = _index_issues(pred_idx, uniq, path, issues)
    if missing_mask.any() or extra_mask.any():
        return issues
    uindex = pd.Index(uniq)
    ppos = uindex.get_indexer(pred_idx)
    tpos = uindex.get_indexer(trow_idx)
    conf = _confidence(df, conf_col, path, issues) if conf_col is not None else None
    if several:
        truth_rows = truth.rows if truth.rows is not None else np.arange(len(truth.frame))
        for frame, fpath, kind, where in ((df, path, "predictions", np.arange(len(df))),
                                          (truth.frame, truth.path, "truth", truth_rows)):
            blank = np.logical_and.reduce([_missing_mask(frame[t].to_numpy()) for t in targets])
            if blank.any():
                rows = np.sort(_lines(where[np.flatnonzero(blank)]))
                issues.append(error(f"{kind}.missing_value", f"row {rows[0]}",
                                    f"{len(rows)} row(s) have every target blank "
                                    f"(rows {_rows_text(rows)})", fpath))
    sets = {}
    n = len(uniq)
    for t in targets:
        ctype = truth.col_types[t]
        n_before = sum(i.is_error for i in issues)
        tv, tkeep = _ml_values(truth.frame[t].to_numpy(), t, ctype, truth.path, issues, "truth",
                               several, truth.rows)
        pv, pkeep = _ml_values(df[t].to_numpy(), t, ctype, path, issues, "predictions", several)
        if sum(i.is_error for i in issues) > n_before:
            continue
        tv, pv = coltypes.comparable(tv, pv)      # integers beyond 2**53: exact on both sides
        # sorted union of the labels (hash the rows, sort the few distinct values)
        labels = np.sort(np.asarray(pd.unique(np.concatenate([tv, pv]))))
        labels = labels.astype(object) if labels.dtype.kind not in "f" else labels
        k = len(labels)
        cells = n * k   # dense (indices x labels) matrices: bool, and float64 scores
        if k > limit("MAX_LABELS") or cells > limit("MAX_LABEL_CELLS"):
            name = "MAX_LABELS" if k > limit("MAX_LABELS") else "MAX_LABEL_CELLS"
            issues.append(error("predictions.too_many_labels", f"column {t}",
                                f"{k:,} distinct labels over {n:,} indices ({len(pd.unique(pv)):,} "
                                f"in the predictions) would need {cells:,} matrix cells, over the "
                                f"{how_to_raise(name)}", path))
            continue
        tcode, pcode = label_codes(tv, labels), label_codes(pv, labels)
        tp_, pp_ = tpos[tkeep], ppos[pkeep]
        truth_rows = truth.rows if truth.rows is not None else np.arange(len(truth.frame))
        for code, rowpos, kind, fpath, src, where in (
                (tcode, tp_, "truth", truth.path, tkeep, truth_rows),
                (pcode, pp_, "predictions", path, pkeep, np.arange(len(df)))):
            dup = pd.Index(rowpos.astype(np.int64) * k + code).duplicated(keep="first")
            if dup.any():
                rows = np.sort(_lines(where[np.flatnonzero(src)[dup]]))
                issues.append(warning(f"{kind}.duplicate_label", f"row {rows[0]}, column {t}",
                                      f"{len(rows)} row(s) repeat a (d3mIndex, {t}) pair; a label "
                                      f"counts once per index"
                                      + ("" if kind == "truth" or conf is None else
                                         " (its largest confidence is used)")
                                      + f" (rows {_rows_text(rows)})", fpath))
        scores = None
        if conf is not None:
            scores = np.zeros((n, k))
            np.maximum.at(scores, (pp_, pcode), conf[pkeep])
            scores = _ro(scores)
        if ctype == "categorical":
            _unseen_labels(pv, tv, t, path, issues)
        pmat = matrix_from_pairs(pp_, pcode, n, k)
        if k > 1 and n > 1 and pmat.all():
            issues.append(warning("predictions.all_labels", f"column {t}",
                                  f"every index lists all {k} labels: the hard-label metrics "
                                  f"(accuracy, f1, hammingLoss, ...) count every listed label as "
                                  f"predicted, whatever its confidence (as d3m.metrics does); "
                                  f"list only the predicted labels", path))
        sets[t] = LabelSets(_ro(matrix_from_pairs(tp_, tcode, n, k)),
                            _ro(pmat), _ro(labels), scores)
    if any(i.is_error for i in issues):
        return issues
    return Aligned("multiLabel", _ro(uniq), targets, sets, dict(sets), truth.col_types,
                   issues=issues)
