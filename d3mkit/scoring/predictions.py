"""Step 2 of scoring, read: a predictions (or targets) file or a pandas DataFrame becomes
one table of strings, with the same checks either way.

The table is a :class:`~d3mkit.tables.columns.ColumnTable` (numpy columns; a label
column as codes into its distinct values). A path goes through
:func:`d3mkit.tables.csvread.read_columns` (the one CSV reader: a plain file is split
with numpy and pandas is never imported); a DataFrame is turned into the same strings here, never through a temporary file: each
cell as ``str()`` gives it, a missing cell (None, NaN, ``pd.NA``) as the empty string,
column names as strings. Its issues name the source ``"predictions (DataFrame)"`` and
count rows as the CSV of the frame would (the header is row 1, the frame's first row is
row 2), so a message reads ``predictions (DataFrame): row 3, column class: ...``.

A missing or unreadable path raises :class:`~d3mkit.core.errors.D3MKitError` with exit code 2
(usage); every other problem is an issue, and the table is None when any is an error.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from d3mkit.core.errors import EXIT_USAGE, D3MKitError, Issue, error, require_type
from d3mkit.core.lazy import is_frame
from d3mkit.core.lazy import pandas as pd   # a DataFrame's branches only
from d3mkit.scoring.values import INDEX, Source
from d3mkit.core.codes import make
from d3mkit.tables.columns import ColumnTable
from d3mkit.tables.csvread import read_columns, read_header

WIDE_HEADER = 1000   # predictions wider than this parse only the columns scoring uses
LABEL_TYPES = ("categorical", "boolean", "string")
_USAGE_CODES = ("file.missing", "file.unreadable", "file.is_directory")


def source_name(source, kind: str) -> Source:
    """How messages name ``source`` and number its rows (:class:`~d3mkit.scoring.values.Source`):
    its path and physical lines, or ``"KIND (DataFrame)"`` and the frame's CSV rows."""
    if is_frame(source):
        return Source(f"{kind} (DataFrame)")
    return Source(source, Path(source))


def check_source(source, name: str) -> None:
    """TypeError unless ``source`` is a path (str or os.PathLike) or a pandas DataFrame."""
    if not is_frame(source):
        require_type(name, source, (str, os.PathLike), "a path or a pandas DataFrame")


def _usage(issues: list[Issue], kind: str) -> list[Issue]:
    """A missing or unreadable path is a usage error (exit 2); anything else is returned."""
    for i in issues:
        if i.code in _USAGE_CODES:
            msg = f"{kind} file does not exist" if i.code == "file.missing" else i.message
            raise D3MKitError(error(i.code, i.location, msg, i.path), EXIT_USAGE)
    return issues


def header_of(source, kind: str) -> tuple[list[str] | None, list[Issue]]:
    """The column names of a file (its header row) or of a DataFrame."""
    if is_frame(source):
        return [str(c) for c in source.columns], []
    header, issues = read_header(Path(source))
    return header, _usage(issues, kind)


def _cell_strings(col) -> np.ndarray:
    """One DataFrame column as an object array of strings (missing cells are ``""``)."""
    a = col.to_numpy(dtype=object, na_value=None) if col.dtype.kind not in "iub" else None
    if a is None:   # integers and booleans have no missing value
        return col.astype(str).to_numpy(dtype=object)
    miss = pd.isna(col).to_numpy()
    if col.dtype.kind == "f":
        out = col.astype(str).to_numpy(dtype=object)
    else:
        out = np.array([v if isinstance(v, str) else str(v) for v in a], dtype=object) \
            if not pd.api.types.is_string_dtype(col.dtype) or miss.any() else a
    if miss.any():
        out = out.copy() if out is a else out
        out[miss] = ""
    return out


def frame_strings(frame, kind: str, usecols=None, int_cols=(INDEX,),
                  allow_empty: bool = False) -> tuple[ColumnTable | None, list[Issue]]:
    """``frame`` (a pandas DataFrame) as :func:`d3mkit.tables.csvread.read_columns`
    would read it back from a CSV: the same issues (``csv.duplicate_header``, ``csv.no_rows``), the same columns."""
    name = source_name(frame, kind)
    header = [str(c) for c in frame.columns]
    if not header:
        return None, [make("csv.empty", "", "no columns", name, row=1)]
    seen: set[str] = set()
    dups = [h for i, h in enumerate(header) if h in header[:i] and not seen.add(h)]
    if dups:
        return None, [make("csv.duplicate_header", "", "duplicate column names: "
                           + ", ".join(repr(d[:60]) for d in dict.fromkeys(dups)), name, row=1)]
    if len(frame) == 0 and not allow_empty:
        return None, [error("csv.no_rows", "", "the DataFrame has columns but no rows", name, row=1)]
    cols = [c for c in usecols if c in header] if usecols is not None else header
    data = {}
    for i, h in enumerate(header):
        if h not in cols:
            continue
        col = frame.iloc[:, i]
        if h in int_cols and col.dtype.kind in "iu" and col.dtype.kind != "b":
            data[h] = col.to_numpy().astype(np.int64)
        else:
            data[h] = _cell_strings(col)
    return ColumnTable({c: data[c] for c in cols}), []


def read_table(source, kind: str, usecols=None, int_cols=(INDEX,), text_cols=(), float_cols=()
               ) -> tuple[ColumnTable | None, list[Issue]]:
    """A file or a DataFrame as strings (``int_cols`` as int64 when they all are integers;
    from a file, ``text_cols`` as :class:`~d3mkit.tables.columns.Categorical` columns,
    which the label parse takes as they are, and, from a plain file, ``float_cols`` as
    float64 when every cell is a finite number); a missing or unreadable path raises (exit
    2), other problems are issues."""
    if is_frame(source):
        return frame_strings(source, kind, usecols, int_cols)
    df, issues = read_columns(source, usecols, tuple(int_cols), category_cols=tuple(text_cols),
                              float_cols=tuple(float_cols))
    return df, _usage(issues, kind)


def typed_columns(targets, col_types: dict, header=()) -> dict:
    """How the reader reads the scored columns: ``text_cols`` (label targets, as
    categoricals), ``int_cols`` (d3mIndex and the integer targets) and ``float_cols`` (the
    real targets and the ``confidence`` and ``rank`` columns of ``header``, any case)."""
    return {"text_cols": text_targets(targets, col_types),
            "int_cols": (INDEX, *(t for t in targets if col_types.get(t) == "integer")),
            "float_cols": (*(t for t in targets if col_types.get(t) == "real"),
                           *(c for c in header if c.lower() in ("confidence", "rank") and c not in targets))}


def text_targets(targets, col_types: dict) -> tuple[str, ...]:
    """The targets whose colType holds labels (read as categoricals): not numbers, not
    boxes."""
    return tuple(t for t in targets if col_types.get(t) in LABEL_TYPES)


def read_predictions(source, truth=None) -> tuple[ColumnTable | None, list[Issue]]:
    """Read the predictions (a path or a DataFrame, see :func:`read_table`). With ``truth``
    (a :class:`~d3mkit.scoring.truth.Truth`) and a file wider than ``WIDE_HEADER``
    columns, only the columns scoring uses are parsed (d3mIndex, the targets, the image
    column, any-case ``confidence``/``rank``); ``df.attrs["header"]`` keeps the whole
    header so that the layout step still names the ignored columns. Time is linear in the
    header."""
    if truth is None or is_frame(source):
        return read_table(source, "predictions")
    header, issues = header_of(source, "predictions")
    if header is None:
        return None, issues
    if len(header) <= WIDE_HEADER:   # parse every column: ragged rows are found by pandas
        return read_table(source, "predictions", **typed_columns(truth.targets, truth.col_types, header))
    keep = {INDEX, *truth.targets, truth.image_column}
    cols = [c for c in header if c in keep or c.lower() in ("confidence", "rank")]
    df, issues = read_table(source, "predictions", cols, **typed_columns(truth.targets, truth.col_types, cols))
    if df is not None:
        df.attrs["header"] = list(header)
    return df, issues
