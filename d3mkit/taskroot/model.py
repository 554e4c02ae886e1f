"""Locating and reading a task root (``<name>_dataset``, ``<name>_problem``, ...).

A task root is a directory holding ``<name>_dataset/`` and ``<name>_problem/`` (and, when
written by d3mkit, ``<name>_debug/`` and later ``<name>_solution/``). :meth:`TaskRoot.open`
accepts the root itself or any of those subdirectories. Each ``<name>_*`` directory and
each document must lie inside the task root (a symlink leading out is an error,
:mod:`d3mkit.io.paths`).

The loader an AutoML system uses: :meth:`TaskRoot.frame` is learningData with each column
as its colType means (:func:`d3mkit.validation.coltypes.typed`), :meth:`TaskRoot.train_test`
the TRAIN and TEST rows of a repeat and fold, :attr:`TaskRoot.targets` the target columns
and :meth:`TaskRoot.media_paths` the files a media column names, resolved.

>>> import tempfile
>>> from d3mkit.benchmarks.tabular import build_task_root
>>> task = TaskRoot.open(build_task_root(Path(tempfile.mkdtemp()), "iris"))
>>> task.targets, str(task.frame()["sepal_length_cm"].dtype)
(['species'], 'float64')
>>> train, test = task.train_test(repeat=0, fold=0)
>>> len(train), len(test), str(test["d3mIndex"].dtype)
(120, 30, 'Int64')
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import pandas as pd

from d3mkit.taskroot.digests import MANIFEST, load_manifest, recorded, verify
from d3mkit.documents import DatasetDoc, ProblemDoc
from d3mkit.documents.locate import locate_task_root
from d3mkit.core.errors import D3MKitError, UsageError, error, require_path
from d3mkit.io.paths import require_inside
from d3mkit.tables import read_table

@dataclass
class TaskRoot:
    root: Path
    name: str

    @classmethod
    def open(cls, path: Path | str) -> "TaskRoot":
        require_path("path", path)
        root, name = locate_task_root(path)
        return cls(root, name)

    def _part(self, suffix: str) -> Path:
        """``root/<name><suffix>``; one that leads out of the task root is an error."""
        return require_inside(self.root, self.root / f"{self.name}{suffix}",
                              what=f"{self.name}{suffix}", root_name="the task root")

    @property
    def dataset_dir(self) -> Path:
        return self._part("_dataset")

    @property
    def problem_dir(self) -> Path:
        return self._part("_problem")

    @property
    def solution_dir(self) -> Path:
        return self._part("_solution")

    @property
    def debug_dir(self) -> Path:
        return self._part("_debug")

    def item_path(self, collection: Path, item: str) -> Path:
        """``collection/item`` for a media item a learningData cell names; an item that
        leaves the collection (absolute, ``..``) or the dataset directory (a symlink out)
        is a ``path.escape`` error naming learningData (:mod:`d3mkit.io.paths`)."""
        from d3mkit.core.errors import D3MKitError
        from d3mkit.io.paths import CODE, lexical_escape
        where = str(self.dataset_dir / "tables" / "learningData.csv")
        why = lexical_escape(str(item))
        if why:
            raise D3MKitError(error(CODE, f"item {str(item)[:200]!r}",
                                    f"media item leaves its collection: {why}", where))
        return require_inside(self.dataset_dir, Path(collection) / str(item), doc=where,
                              location=f"item {str(item)[:200]!r}", what="media item",
                              root_name="the dataset directory")

    def _doc(self, path: Path) -> Path:
        return require_inside(self.root, path, what=path.name, root_name="the task root")

    @cached_property
    def problem(self) -> ProblemDoc:
        """The problemDoc; one without a datasetID or targets is an error naming it (run
        ``d3mkit validate`` for the full list of what is wrong)."""
        p = self._doc(self.problem_dir / "problemDoc.json")
        doc = ProblemDoc.load(p)
        try:
            ok = isinstance(doc.data, dict) and isinstance(doc.dataset_id, str) and bool(doc.target_names)
        except Exception:  # noqa: BLE001 - malformed targets
            ok = False
        if not ok:
            raise D3MKitError(error("problem.unusable", "inputs.data[0]",
                                    "not a usable problemDoc: no datasetID or no targets "
                                    "(run 'd3mkit validate' on it)", str(p)))
        return doc

    @cached_property
    def dataset(self) -> DatasetDoc:
        return DatasetDoc.load(self._doc(self.dataset_dir / "datasetDoc.json"))

    @cached_property
    def manifest(self) -> dict:
        """``<name>_debug/manifest.json`` (``{}`` when absent) with its ``"digests"`` left
        empty: they are read one at a time and dropped (:func:`d3mkit.taskroot.digests.load_manifest`;
        :meth:`recorded_digests` and ``validate --verify-digests`` read them)."""
        p = self._doc(self.debug_dir / "manifest.json")
        data = load_manifest(p, keep=()) if p.exists() else {}
        if not isinstance(data, dict):
            raise D3MKitError(error("manifest.type", "", f"manifest must be a JSON object, "
                                    f"not {type(data).__name__}", str(p)))
        return data

    def recorded_digests(self, rels) -> tuple[dict[str, dict] | None, list]:
        """:func:`d3mkit.taskroot.digests.recorded` of the manifest's digests of the files ``rels``
        (paths relative to the task root) only, read without holding the others."""
        p = self._doc(self.debug_dir / "manifest.json")
        if not p.exists():
            return None, []
        data = load_manifest(p, keep=rels)
        return recorded(data if isinstance(data, dict) else {}, str(p))

    @property
    def benchmark(self) -> str | None:
        return self.manifest.get("benchmark")

    def learning_data(self) -> pd.DataFrame:
        """learningData as strings (see :mod:`d3mkit.tables`)."""
        res = self.dataset.learning_data
        if res is None:
            raise UsageError("dataset has no learningData table", str(self.dataset.path))
        return _read(self.dataset.resource_path(res), "learningData")

    def table(self, res_id: str) -> pd.DataFrame:
        """The dataset's table resource ``res_id`` as strings (UsageError if absent)."""
        res = self.dataset.resource(res_id)
        if res is None or not res.is_table:
            raise UsageError(f"dataset has no table {res_id!r}", str(self.dataset.path))
        return _read(self.dataset.resource_path(res), res_id)

    @property
    def targets(self) -> list[str]:
        """The problem's target column names, in targetIndex order."""
        return list(self.problem.target_names)

    def frame(self, rows: pd.DataFrame | None = None) -> pd.DataFrame:
        """learningData (or ``rows`` of it, as read by :meth:`learning_data`) with every
        declared column converted to the type its colType means; undeclared columns stay
        text; empty cells are missing values. No cell is ever dropped: a column holding a
        cell its colType cannot read (``Y``/``N`` in a boolean column) is kept as its text
        (the coercion policy, :func:`d3mkit.validation.coltypes.coerce`), and each such
        column is reported: ``frame.attrs["issues"]`` lists the cells (coltype.* warnings,
        as ``d3mkit validate`` reports them) and one :class:`~d3mkit.core.errors.CoercionWarning`
        names the columns."""
        import warnings

        from d3mkit.core.errors import CoercionWarning
        from d3mkit.validation.codes import make
        from d3mkit.validation.coltypes import COLTYPE_CODES, coerce, fault
        from d3mkit.validation.common import row_issues, short
        raw = self.learning_data() if rows is None else rows
        res = self.dataset.learning_data
        path = str(self.dataset.resource_path(res)) if res is not None else ""
        out = raw.copy()
        issues = []
        kept = []
        for col in (res.columns or ()) if res is not None else ():
            if col.col_name in out.columns and isinstance(col.col_type, str):
                name, ct = col.col_name, col.col_type
                out[name], bad = coerce(out[name], ct)
                if len(bad) and ct in COLTYPE_CODES:
                    kept.append(f"{name} ({ct}, {len(bad)} cell(s))")
                    cells = raw[name]
                    if rows is None:   # the whole table: file rows
                        issues += row_issues(COLTYPE_CODES[ct], bad, name,
                                             lambda r: f"{short(cells.iloc[r])} {fault(ct)}; column kept as text", path)
                    else:
                        idx = raw["d3mIndex"] if "d3mIndex" in raw.columns else raw.index.to_series()
                        issues += [make(COLTYPE_CODES[ct], f"d3mIndex {idx.iloc[r]}, column {name}",
                                        f"{short(cells.iloc[r])} {fault(ct)}; column kept as text", path)
                                   for r in bad[:10]]
        out.attrs["issues"] = issues
        if kept:
            warnings.warn(CoercionWarning(f"{path}: kept as text, since some cells do not read as their "
                                          f"colType: {', '.join(kept)} (frame.attrs['issues'] lists them)"),
                          stacklevel=2)
        return out

    def train_test(self, repeat: int = 0, fold: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
        """(TRAIN rows, TEST rows) of learningData for one repeat and fold of dataSplits, in
        learningData order, typed as :meth:`frame` types them (every row of a d3mIndex goes
        with it, so multiLabel and objectDetection rows stay together)."""
        raw = self.learning_data()
        train, test = self.split_indices(repeat, fold)
        if not train and not test:
            raise D3MKitError(error("views.no_fold", "", f"no rows for repeat {repeat}, fold {fold}",
                                    str(self.problem_dir / self.problem.splits_file)))
        index = raw["d3mIndex"] if "d3mIndex" in raw.columns else raw.iloc[:, 0]
        return (self.frame(raw[index.isin(set(train))].reset_index(drop=True)),
                self.frame(raw[index.isin(set(test))].reset_index(drop=True)))

    def media_paths(self, column: str | None = None, rows: pd.DataFrame | None = None,
                    table: str = "learningData") -> pd.Series:
        """The files a media column of ``table`` (default learningData) names (default: the
        first column that refers to a collection, :meth:`DatasetDoc.media_columns`), as
        resolved paths under the collection's directory, aligned with ``rows`` (default all
        rows of the table). Baselines read their images through this, never through a
        column or directory name of their own."""
        res_t = self.dataset.learning_data if table == "learningData" else self.dataset.resource(table)
        if res_t is None or not res_t.is_table:
            raise UsageError(f"dataset has no table {table!r}", str(self.dataset.path))
        media = self.dataset.media_columns(res_t)
        if not media:
            raise UsageError(f"{table} has no column referring to a media collection", str(self.dataset.path))
        column = column or next(iter(media))
        if column not in media:
            raise UsageError(f"column {column!r} does not refer to a collection (media columns: "
                             f"{', '.join(media)})", str(self.dataset.path))
        from d3mkit.io.paths import resolve_inside
        res = media[column]
        base = self.dataset.resource_path(res).resolve()
        if rows is None:
            rows = self.learning_data() if table == "learningData" else self.table(table)
        if column not in rows.columns:
            raise UsageError(f"{table} has no column {column!r}", str(self.dataset.path))
        names = rows[column].astype(str)
        return names.map(lambda f: resolve_inside(base, f, doc=self.dataset.path,
                                                  location=f"column {column}", what="media item",
                                                  root_name=f"collection {res.res_id!r}"))

    def splits(self) -> pd.DataFrame:
        """dataSplits.csv; its columns d3mIndex, type, repeat, fold are checked."""
        from d3mkit.taskroot.splits.read import splits_path
        p = splits_path(self.problem_dir, self.problem.splits_file)
        s = _read(p, "dataSplits")
        missing = [c for c in ("d3mIndex", "type", "repeat", "fold") if c not in s.columns]
        if missing:
            raise D3MKitError(error("splits.columns", "", f"missing column(s) {', '.join(missing)} "
                                    f"(run 'd3mkit split' to rewrite it)", str(p), row=1))
        for col in ("repeat", "fold"):
            bad = ~s[col].str.fullmatch(r"-?[0-9]+")
            if bad.any():
                i = int(bad.to_numpy().nonzero()[0][0])
                raise D3MKitError(error("splits.type", "",
                                        f"{s[col].iloc[i]!r} is not an integer", str(p), row=i + 2, column=col))
        return s

    def split_indices(self, repeat: int = 0, fold: int = 0) -> tuple[list[str], list[str]]:
        """(TRAIN d3mIndex values, TEST d3mIndex values) for one repeat and fold, in
        file order, without duplicates (objectDetection lists an index per box)."""
        from d3mkit.taskroot.splits.read import select
        s = self.splits()
        train, test = select(s, repeat, fold, self.problem_dir / self.problem.splits_file)
        return (list(dict.fromkeys(s.loc[train, "d3mIndex"])),
                list(dict.fromkeys(s.loc[test, "d3mIndex"])))


def _read(path: Path, what: str) -> pd.DataFrame:
    """A CSV of the task root; a file that exists but cannot be parsed is an error naming it."""
    try:
        return read_table(path)
    except (OSError, D3MKitError):
        raise
    except Exception as exc:  # pandas parser errors, encoding errors
        raise D3MKitError(error("csv.unreadable", "", f"cannot read {what}: {exc}", str(path))) from None


def verify_task_root(path: Path | str) -> tuple[str, list[Issue]]:
    """(the manifest's path, :func:`verify` issues) of the task root at or above ``path``
    (:meth:`TaskRoot.open`); no manifest is ``digest.none``."""
    task = TaskRoot.open(path)
    mpath = task.debug_dir / MANIFEST
    if not mpath.is_file():
        return str(mpath), [error("digest.none", "", "the task root has no manifest, so no digests "
                                  "to verify", str(mpath))]
    manifest = load_manifest(mpath)                 # every digest (TaskRoot.manifest has none)
    if not isinstance(manifest, dict):
        return str(mpath), [error("manifest.type", "", f"manifest must be a JSON object, "
                                  f"not {type(manifest).__name__}", str(mpath))]
    return str(mpath), verify(task.root, task.name, manifest, str(mpath))
