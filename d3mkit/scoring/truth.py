"""Step 3 of scoring, the truth: the TEST rows of learningData for one repeat/fold of
dataSplits (or every row of an explicit targets table), checked and in d3mIndex order.

:func:`load_truth` reads only the columns scoring uses (d3mIndex, the targets, the image
column of objectDetection) through :mod:`d3mkit.scoring.predictions` (a path or a
DataFrame, the same reader as the predictions) and decides whether the truth holds label
sets (several rows per d3mIndex: multiLabel). The target colTypes come from the
datasetDoc, else from the task type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from d3mkit.core.errors import EXIT_USAGE, D3MKitError, Issue, error, warning
from d3mkit.scoring.predictions import header_of, read_table, source_name, typed_columns
from d3mkit.scoring.values import INDEX, Source, index_values, lines, lookup, rows_text, same_kind, unique_in_order
from d3mkit.tables.columns import ColumnTable

MULTILABEL_TASKS = ("classification", "semiSupervisedClassification")
REGRESSION_TASKS = ("regression", "timeSeriesForecasting", "collaborativeFiltering",
                    "semiSupervisedRegression")


@dataclass
class Truth:
    """TEST rows of the truth: strings as read, in d3mIndex order (file order for
    objectDetection)."""

    frame: ColumnTable
    index: np.ndarray
    targets: list[str]
    col_types: dict[str, str]
    image_column: str | None
    path: str
    issues: list[Issue] = field(default_factory=list)
    multilabel: bool = False   # several rows per d3mIndex, one per label
    rows: np.ndarray | None = None   # each frame row's 0-based data row in the file



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
    """The column that keys objectDetection rows (:func:`d3mkit.documents.dataset.image_index_column`);
    None for other tasks."""
    if problem.task_type != "objectDetection":
        return None
    from d3mkit.documents.dataset import image_index_column
    return image_index_column(dataset.learning_data if dataset is not None else None, columns)


def _truth_table(source, kind: str, problem, dataset) -> tuple[ColumnTable, str | None, list[Issue]]:
    """The truth's columns of ``source`` (a path or a DataFrame: d3mIndex, the image column
    of objectDetection, the targets), the image column, and the reader's warnings; raises
    on an unreadable file."""
    header, issues = header_of(source, kind)
    if header is None:
        raise D3MKitError(issues)
    img = image_column(problem, dataset, header)
    df, issues = read_table(source, kind, [INDEX] + ([img] if img else []) + problem.target_names,
                            **typed_columns(problem.target_names, _target_types(problem, dataset)))
    if df is None:
        raise D3MKitError(issues)
    return df, img, issues


def load_truth(problem, *, dataset=None, targets=None, splits_path=None,
               repeat: int = 0, fold: int = 0) -> Truth:
    """The truth for ``problem`` (a :class:`~d3mkit.documents.ProblemDoc`): ``targets`` (a
    targets.csv path or a DataFrame: every row), or the TEST rows of ``dataset``'s (a
    :class:`~d3mkit.documents.DatasetDoc`) learningData for ``repeat``/``fold`` of the splits
    file. Raises :class:`D3MKitError` when the truth cannot be read."""
    names = problem.target_names
    if not names:
        raise D3MKitError(error("problem.no_targets", "inputs.data[0].targets",
                                "the problemDoc names no targets", str(problem.path or "")))
    types = _target_types(problem, dataset)
    is_od = problem.task_type == "objectDetection"
    if targets is not None:
        path = source_name(targets, "targets")
        df, img, issues = _truth_table(targets, "targets", problem, dataset)
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
            sp = Source(splits_path, Path(splits_path))
        else:
            from d3mkit.taskroot.splits.read import splits_path as _splits_path
            sp = _splits_path(Path(problem.path).parent, problem.splits_file)
            sp = Source(sp, sp)
        splits, sissues = read_table(sp, "dataSplits", [INDEX, "type", "repeat", "fold"],
                                     int_cols=(INDEX, "repeat", "fold"), text_cols=("type",))
        if splits is None:
            raise D3MKitError(sissues)
        from d3mkit.taskroot.splits.read import select
        _train, sel = select(splits, repeat, fold, sp)
        test = index_values(splits[INDEX])[sel]
        if INDEX not in df.columns:
            raise D3MKitError(error("truth.no_index", "", f"no {INDEX} column", str(path), row=1))
        li = index_values(df[INDEX])
        li, test = same_kind(li, test)
        absent = lookup(li, test)[0] < 0
        if absent.any():
            rows = lines(np.flatnonzero(sel)[absent], sp)
            raise D3MKitError(error("splits.unknown_index", "",
                                    f"{int(absent.sum())} TEST d3mIndex value(s) of repeat {repeat}, "
                                    f"fold {fold} are not in learningData "
                                    f"({rows_text(unique_in_order(test[absent]))}; rows {rows_text(rows)}): "
                                    f"they cannot be scored", str(sp), row=rows[0], column=INDEX))
        rows = np.flatnonzero(lookup(test, li)[0] >= 0)
        df = df.take(rows)
    p = path if isinstance(path, Source) else Source(path, Path(path))
    missing = [c for c in [INDEX] + names if c not in df.columns]
    if missing:
        raise D3MKitError(error("truth.columns", "",
                                f"truth lacks column(s): {', '.join(missing)}", p, row=1))
    if is_od and img is None:
        raise D3MKitError(error("truth.image", "", "objectDetection truth has no image "
                                "column (an index column besides d3mIndex)", p, row=1))
    index = index_values(df[INDEX])
    if targets is not None:
        rows = None                  # the file's rows, in order
    if not is_od and len(index) > 1 and not (index[1:] >= index[:-1]).all():
        # (an index in order is left as it is: no argsort, no 8 bytes a row)
        order = np.argsort(index, kind="stable")
        df = df.take(order)
        index = index[order]
        rows = order if rows is None else rows[order]
    multilabel = problem.task_subtype == "multiLabel" and problem.task_type in MULTILABEL_TASKS
    if not is_od:   # sorted: a repeated index is equal to the one before it
        dup = np.zeros(len(index), dtype=bool)
        dup[1:] = index[1:] == index[:-1]
        if dup.any() and problem.task_type not in MULTILABEL_TASKS:
            raise D3MKitError(error("truth.duplicate_index", "",
                                    f"truth has several rows for d3mIndex "
                                    f"{rows_text(unique_in_order(index[dup]))} (only classification "
                                    f"truth may repeat an index: one row per label, multiLabel)", p))
        if dup.any() and not multilabel:
            multilabel = True
            issues = issues + [warning("truth.multilabel", "",
                                       f"truth has several rows for d3mIndex "
                                       f"{rows_text(unique_in_order(index[dup]))}: scored as multiLabel "
                                       f"label sets although the problem's taskSubType is "
                                       f"{problem.task_subtype or 'not given'}", p)]
    return Truth(df, index, names, types, img, p, issues, multilabel=multilabel, rows=rows)
