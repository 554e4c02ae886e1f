"""Inferring what a user's table holds: each column's colType, the task its targets give,
and the default metrics of a task (docs/import.md states these rules; this module is their
one owner).

A column's colType, looking at its non-empty cells only (an empty cell is a missing value):

1. no non-empty cell: ``string``;
2. every cell a plain integer (``-12``, ``+3``, ``0``; no decimal point, no exponent):
   ``integer``;
3. every cell a number (``1.5``, ``1e-3``, ``nan``, ``inf``; what the ``real`` colType
   accepts): ``real``;
4. every cell, trimmed and lower-cased, one of ``true false t f yes no``: ``boolean``
   (``0``/``1`` columns are integers by rule 2);
5. every cell an ISO 8601 date or date-time (``2020-01-31``, ``2020-01-31T12:00``,
   ``2020-01-31 12:00:05.5+02:00``): ``dateTime`` (lenient forms such as ``Jan 3`` stay
   text: a column of them becomes categorical or string);
6. at most :data:`MAX_LEVELS` distinct values, each occurring at least twice on average
   (distinct values at most half the non-empty cells): ``categorical``;
7. otherwise ``string``.

A target column is always ``categorical`` when its cells are text or booleans of two
labels, and an ``integer`` target with exactly two distinct values is ``categorical`` too
(a 0/1 label): a classification target. ``--types`` (``types=`` in Python) overrides any
column; the cells must fit the colType given (:func:`d3mkit.validation.coltypes.bad_rows`).

The task (``taskType``/``taskSubType``), unless given: one target — categorical or boolean
with two labels: classification/binary, more labels: classification/multiClass, integer
or real: regression/univariate; several targets — all numeric: regression/multivariate;
otherwise classification/multiLabel, the label columns made one target with a row per
(d3mIndex, label) as D3M writes multi-label data (:mod:`d3mkit.importing.multilabel`).

>>> infer_coltype(pd.Series(["1", "-2", ""]))
'integer'
>>> infer_coltype(pd.Series(["1.5", "2", "nan"]))
'real'
>>> infer_coltype(pd.Series(["Yes", "no", "yes"]))
'boolean'
>>> infer_coltype(pd.Series(["2020-01-02", "2021-12-31T10:00:00Z"]))
'dateTime'
>>> infer_coltype(pd.Series(["a", "b", "a", "b"])), infer_coltype(pd.Series(["a", "b", "c"]))
('categorical', 'string')
>>> infer_task(["categorical"], [2]), infer_task(["real", "integer"], [50, 9])
(('classification', 'binary'), ('regression', 'multivariate'))
>>> [m["metric"] for m in default_metrics("classification", "binary")]
['accuracy', 'f1Macro']
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

COLTYPES = ("boolean", "integer", "real", "categorical", "dateTime", "string")
#: the colTypes ``types=`` may name: the inferred ones and the other datasetSchema types
OVERRIDABLE = COLTYPES + ("realVector", "json", "geojson")
NUMERIC = ("integer", "real")
DISCRETE = ("categorical", "boolean")
MAX_LEVELS = 100

_INT = re.compile(r"\s*[+-]?\d+\s*")
_BOOL = {"true", "false", "t", "f", "yes", "no"}
_ISO = re.compile(r"\s*\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\s*")

#: the default performanceMetrics of each (taskType, taskSubType)
DEFAULT_METRICS = {
    ("classification", "binary"): ["accuracy", "f1Macro"],
    ("classification", "multiClass"): ["accuracy", "f1Macro"],
    ("regression", "univariate"): ["rootMeanSquaredError"],
    ("regression", "multivariate"): ["rootMeanSquaredError"],
    ("classification", "multiLabel"): ["accuracy", "f1Macro"],
}
TASKS = {"classification": ("binary", "multiClass", "multiLabel"), "regression": ("univariate", "multivariate")}


def _all(values: np.ndarray, pattern: re.Pattern) -> bool:
    return all(pattern.fullmatch(v) for v in values)


_SPECIAL = ["nan", "inf", "-inf", "+inf", "infinity", "-infinity", "+infinity"]


class Evidence:
    """What the cells of one column seen so far allow: the rules of the module docstring
    kept as flags, so a file read in chunks and a column seen whole get the same colType.
    :meth:`add` takes each chunk's distinct non-empty cells and its count of non-empty cells.

    >>> e = Evidence().add(np.array(["1", "2"]), 2); e.coltype()
    'integer'
    >>> e.add(np.array(["2.5"]), 1).coltype()
    'real'
    """

    def __init__(self, na: frozenset[str] | set[str] = frozenset()):
        self.na = na                      # cells that are missing values in a numeric or date column
        self.na_seen: set[str] = set()    # those of them the column holds
        self.n_present = 0
        self.levels: set[str] | None = set()      # None: more than MAX_LEVELS distinct cells
        self.number = self.integer = self.boolean = self.date = True
        self.any_number = False
        self.any_date = False

    def add(self, levels: np.ndarray, n_present: int) -> "Evidence":
        self.n_present += int(n_present)
        if len(levels) == 0:
            return self
        levels = np.asarray(levels, dtype=object)
        every = levels
        if self.na:                       # the number and date rules look past missing-value tokens
            token = np.fromiter((v in self.na for v in levels.tolist()), dtype=bool, count=len(levels))
            if token.any():
                self.na_seen.update(levels[token].tolist())
                levels = levels[~token]
        # each test first on a prefix of the cells: a column of free text fails it there, so
        # its cost does not grow with the number of distinct cells
        for cut in (min(len(levels), 256), len(levels)):
            part = levels[:cut] if cut < len(levels) else levels
            if self.number:
                y = pd.to_numeric(pd.Series(part, dtype=object), errors="coerce")
                x = y.to_numpy(dtype=float)
                nan = np.isnan(x)
                if nan.any():
                    rest = pd.Series(part[nan], dtype=object).str.strip().str.lower()
                    self.number = bool(rest.isin(_SPECIAL).all())
                if cut == len(levels):
                    self.any_number = self.any_number or bool((~nan).any())
                    # pandas reads plain integers (sign and outer spaces allowed) as an integer
                    # dtype, anything with a point or an exponent as floats
                    if self.number and self.integer:
                        self.integer = pd.api.types.is_integer_dtype(y.dtype) or \
                            bool(pd.Series(part, dtype=object).str.fullmatch(_INT.pattern).all())
            if self.boolean:
                self.boolean = bool(pd.Series(part, dtype=object).str.strip().str.lower().isin(_BOOL).all()) \
                    and not self.na_seen
            if self.date and not self.number:
                self.date = _all(part, _ISO) and not pd.isna(pd.to_datetime(
                    pd.Series(part, dtype=object), format="ISO8601", errors="coerce", utc=True)).any()
                self.any_date = self.any_date or (self.date and len(part) > 0)
            if cut == len(levels) or not (self.number or self.boolean or self.date):
                break
        if not self.number:
            self.integer = False
        if self.levels is not None:
            self.levels.update(every[:MAX_LEVELS + 1].tolist())
            if len(self.levels) > MAX_LEVELS:
                self.levels = None
        return self

    def settled(self) -> bool:
        """True when no cell to come can change the colType but by the count of non-empty
        cells: no rule but ``string`` is left (not numbers, booleans or dates; more than
        :data:`MAX_LEVELS` distinct cells)."""
        return self.levels is None and not (self.number or self.boolean or self.date)

    def coltype(self) -> str:
        """The colType of the cells seen (rules 1-7)."""
        if self.n_present == 0:
            return "string"
        if self.number and self.any_number:
            return "integer" if self.integer else "real"
        if self.boolean:
            return "boolean"
        if self.date and (self.any_date or not self.na_seen):
            return "dateTime"
        if self.levels is not None and 2 * len(self.levels) <= self.n_present:
            return "categorical"
        return "string"


def coltype_of_levels(levels: np.ndarray, n_present: int) -> str:
    """The colType (rules 1-7 of the module docstring) of a column whose distinct non-empty
    cells are ``levels`` (strings) and which has ``n_present`` non-empty cells."""
    return Evidence().add(levels, n_present).coltype()


def levels_of(series: pd.Series) -> tuple[np.ndarray, int]:
    """``(distinct non-empty cells as strings, count of non-empty cells)`` of a column of
    text cells (``""`` is missing)."""
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    uniq = np.asarray([str(u) for u in uniques], dtype=object)
    empty = np.flatnonzero(uniq == "")
    present = codes >= 0
    if len(empty):
        present &= codes != empty[0]
        uniq = np.delete(uniq, empty)
    return uniq, int(present.sum())


def infer_coltype(series: pd.Series) -> str:
    """The colType of a column of text cells (rules in the module docstring)."""
    levels, n = levels_of(series)
    return coltype_of_levels(levels, n)


#: an integer target with at most this many distinct values is a class label (classification)
MAX_INTEGER_CLASSES = 10
#: the cells that are missing values in an otherwise numeric or date column (``--na-values``
#: replaces them, ``--keep-text`` keeps them as text); an empty cell is always missing
NA_TOKENS = frozenset({"NA", "N/A", "n/a", "NaN", "nan", "null", "NULL", "?"})


def target_coltype(inferred: str, n_labels: int, several: bool = False) -> str:
    """The colType of a target column whose cells gave ``inferred`` (rule after 7): text and
    dates are labels (categorical), an integer column of at most :data:`MAX_INTEGER_CLASSES`
    distinct values too (of one of ``several`` targets: two, a 0/1 label column);
    booleans stay boolean (two classes, however spelled)."""
    if inferred in ("string", "categorical", "dateTime"):
        return "categorical"
    if inferred == "integer" and (n_labels == 2 if several else n_labels <= MAX_INTEGER_CLASSES):
        return "categorical"
    return inferred


def target_rule(inferred: str, n_labels: int, col_type: str, declared: bool = False,
                user: bool = False) -> tuple[str, str]:
    """Why a target got ``col_type`` (``inferred`` from its cells, or ``declared`` by the
    source; ``user``: given by ``--types``), and the option that changes it: the words of
    the import's decision line."""
    said = f"is declared {inferred} and " if declared else ""
    if user:
        return f"is given colType {col_type} (--types)", "--types to change"
    if inferred == "integer" and col_type == "categorical":
        return (f"{said}holds {n_labels} integer values (at most {MAX_INTEGER_CLASSES}: class labels)",
                "--task regression to change")
    if inferred == "integer":
        return (f"{said}holds {n_labels} integer values (more than {MAX_INTEGER_CLASSES}: a quantity)",
                "--task classification to change")
    if inferred == "boolean":
        return f"{said}holds true/false values (compared trimmed and in any case)", "--types to change"
    if inferred == "real":
        return f"{said}holds real numbers", "--task classification to change"
    return f"{said}holds {n_labels} {inferred} values (labels)", "--types to change"


def decision(targets: list[str], rules: list[tuple[str, str]], types: list[str], task: str, subtype: str,
             metrics: list[dict], task_given: bool) -> str:
    """The line an import prints about what it decided, with the option that changes it.

    >>> decision(["y"], [target_rule("integer", 3, "categorical")], ["categorical"],
    ...          "classification", "multiClass", [{"metric": "accuracy"}], False)
    "target 'y' holds 3 integer values (at most 10: class labels): colType categorical, classification/multiClass, metrics accuracy (--task regression to change)"
    """
    what = "; ".join(f"target {t!r} {r[0]}: colType {c}" for t, r, c in zip(targets, rules, types))
    how = "--task given" if task_given else "; ".join(dict.fromkeys(r[1] for r in rules))
    return f"{what}, {task}/{subtype}, metrics {', '.join(str(m.get('metric')) for m in metrics)} ({how})"


def infer_task(target_types: list[str], n_labels: list[int]) -> tuple[str, str] | None:
    """``(taskType, taskSubType)`` from the targets' colTypes and label counts, or None
    when the targets give no task d3mkit writes (several non-numeric targets)."""
    if len(target_types) == 1:
        if target_types[0] in NUMERIC:
            return "regression", "univariate"
        return "classification", "binary" if n_labels[0] == 2 else "multiClass"
    if all(t in NUMERIC for t in target_types):
        return "regression", "multivariate"
    return None


def default_metrics(task_type: str, subtype: str) -> list[dict]:
    """The performanceMetrics entries a task gets unless metrics are given."""
    return [{"metric": m} for m in DEFAULT_METRICS[(task_type, subtype)]]
