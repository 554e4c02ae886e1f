"""The D3M blind-evaluation views of a task root: TRAIN/, TEST/ and SCORE/.

What this module owns: :func:`write_views`, which splits one task root into the
physical views the D3M data supply uses for blind evaluation (overview.md, "Dataset
views"), for one repeat and fold of its splits file (repeat 0, fold 0 by default)::

    OUT/
      TRAIN/dataset_TRAIN/   datasetID <id>_TRAIN: only TRAIN rows, only the media they reference
      TRAIN/problem_TRAIN/   problemID <id>_TRAIN: problemDoc + the TRAIN rows of the splits file
      TEST/dataset_TEST/     datasetID <id>_TEST: TEST rows, target values emptied
      TEST/problem_TEST/     problemDoc + the TEST rows of the splits file
      SCORE/dataset_SCORE/   datasetID <id>_SCORE: TEST rows with their targets
      SCORE/problem_SCORE/   problemDoc + the TEST rows of the splits file
      SCORE/targets.csv      d3mIndex (+ image for objectDetection) and the target columns

Each view's problemDoc names its own dataset (``datasetID`` suffixed like the dataset);
each view's dataSplits section is rewritten to what its splits file holds: one ``holdOut``
(no numFolds, numRepeats 0) with testSize 0.0 (TRAIN: every row TRAIN) or 1.0 (TEST and
SCORE: every row TEST), rows written as repeat 0, fold 0; so the views validate as they are.
learningData rows keep their exact cell text. Other tables and non-collection resources
are copied whole; a collection (media/) keeps only the items that the view's tables
reference through ``refersTo`` … ``"resObject": "item"``. Every path is checked to stay
inside the dataset root (:mod:`d3mkit.io.paths`). The views are built in a temporary sibling
of OUT and put in place atomically (:class:`d3mkit.io.atomic.StagedDir`); an existing OUT is
replaced only with ``force``. A task root that ``d3mkit validate`` rejects is refused
before anything is written, with validate's errors.

The TEST view tells nothing about the targets: its learningData and dataSplits hold one
row per split unit (per d3mIndex; per image for objectDetection, whatever the number of
true boxes; per d3mIndex for multiLabel, whatever the number of labels), sorted by the
unit's key, with the target columns empty; its media are the items those rows name.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pandas as pd

from d3mkit.io.atomic import StagedDir, check_output_dir, copy_file, copy_tree
from d3mkit.documents import DatasetDoc, ProblemDoc
from d3mkit.documents.jsonio import save_json
from d3mkit.core.errors import (D3MKitError, InvalidArgument, OutputExists, OutputInsideInput, require_path,
                           require_type)
from d3mkit.io.paths import CODE as PATH_ESCAPE, lexical_escape, outside_reason, resolve_inside, walk_files
from d3mkit.taskroot.splits.read import read_splits, select, splits_path
from d3mkit.tables import write_table
from d3mkit.taskroot.model import TaskRoot

VIEWS = ("TRAIN", "TEST", "SCORE")


def _inside(root: Path, rel: str, doc_path: Path, location: str) -> Path:
    """``root/rel`` if it stays inside ``root`` (:func:`d3mkit.io.paths.resolve_inside`)."""
    return resolve_inside(root, rel, doc=doc_path, location=location, what="path",
                          root_name="the dataset directory")


def _key(df: pd.DataFrame, cols: list[str]) -> pd.Series:
    if len(cols) == 1:
        return df[cols[0]].astype(str)
    return df[cols].astype(str).agg("\x1f".join, axis=1)


class _Source:
    """What the views are cut from: the task root's documents, tables and one fold."""

    def __init__(self, task: TaskRoot, repeat: int, fold: int):
        self.task = task
        self.problem: ProblemDoc = task.problem
        self.dataset: DatasetDoc = task.dataset
        self.ld_res = self.dataset.learning_data
        if self.ld_res is None:
            raise D3MKitError.single(self.dataset.path, "views.no_learning_data", "dataResources",
                                     "dataset has no learningData table")
        self.ld = task.learning_data()
        sp_path = splits_path(task.problem_dir, self.problem.splits_file)
        if not sp_path.exists():
            raise D3MKitError.single(sp_path, "file.missing", "",
                                     "splits file does not exist (run d3mkit split)")
        splits = read_splits(sp_path)
        sel = splits[(splits["repeat"] == repeat) & (splits["fold"] == fold)]
        if sel.empty:
            raise D3MKitError.single(sp_path, "views.no_fold", "",
                                     f"no rows for repeat {repeat}, fold {fold}")
        self.key_cols = ["d3mIndex"] + (["image"] if "image" in sel.columns and "image" in self.ld.columns else [])
        for c in self.key_cols:
            if c not in self.ld.columns:
                raise D3MKitError.single(self.dataset.resource_path(self.ld_res), "views.no_index",
                                         "header", f"learningData has no {c} column")
        train, test = select(splits, repeat, fold, sp_path)   # the one owner of a fold's rows
        self.split_rows = {"TRAIN": splits[train].copy(), "TEST": splits[test].copy()}
        ld_key = _key(self.ld, self.key_cols)
        self.rows = {t: self.ld[ld_key.isin(set(_key(self.split_rows[t], self.key_cols)))]
                     for t in ("TRAIN", "TEST")}
        both = set(_key(self.split_rows["TRAIN"], self.key_cols)) & set(_key(self.split_rows["TEST"], self.key_cols))
        if both:
            raise D3MKitError.single(sp_path, "splits.overlap", f"repeat {repeat}, fold {fold}",
                                     f"{len(both)} index value(s) are both TRAIN and TEST "
                                     f"(e.g. {sorted(both)[0]!r})")
        self.targets = [t.col_name for t in self.problem.targets
                        if t.col_name in self.ld.columns and t.res_id in (self.ld_res.res_id, None)]


def _copy(src: Path, dst: Path, root: Path, doc_path: Path, location: str) -> None:
    """Copy a file or a directory of the dataset; a symlink inside a copied directory
    that leads out of the dataset root is an error (nothing outside is copied)."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    if src.is_dir():
        _files, escaping = walk_files(root, str(src.relative_to(root)))
        if escaping:
            rel, why = sorted(escaping.items())[0]
            raise D3MKitError.single(doc_path, PATH_ESCAPE, location,
                                     f"{src.relative_to(root).as_posix()}/{rel}: {why}")
        copy_tree(src, dst)          # umask modes; FIFOs, devices and oversize files refused
    else:
        copy_file(src, dst)


def _rows_of_view(src: _Source, res: dict, path: Path, rows: pd.DataFrame) -> pd.DataFrame | None:
    """The rows of a secondary table that belong to the view: a table with a column that
    refers to a learningData column (e.g. per-cell rows keyed by d3mIndex) keeps the rows whose
    value is among the view's learningData rows; None for a table without such a column."""
    if res.get("resType") not in ("table", "timeseries", "edgeList") or not path.is_file():
        return None
    ld_cols = list(rows.columns)
    for c in res.get("columns") or []:
        ref = c.get("refersTo") if isinstance(c, dict) else None
        if not isinstance(ref, dict) or ref.get("resID") != src.ld_res.res_id:
            continue
        obj = ref.get("resObject")
        target = obj.get("columnName") if isinstance(obj, dict) else None
        if target is None and isinstance(obj, dict) and isinstance(obj.get("columnIndex"), int) \
                and 0 <= obj["columnIndex"] < len(ld_cols):
            target = ld_cols[obj["columnIndex"]]
        if target not in ld_cols:
            continue
        from d3mkit.tables import read_table
        df = read_table(path)
        if c.get("colName") not in df.columns:
            continue
        return df[df[c["colName"]].isin(set(rows[target].astype(str)))]
    return None


def _write_dataset(src: _Source, view: str, rows: pd.DataFrame, dest: Path) -> None:
    ds = src.dataset
    root = ds.root
    data = copy.deepcopy(ds.data)
    data["about"]["datasetID"] = f"{ds.dataset_id}_{view}"
    dest.mkdir(parents=True)
    tables: list[tuple[dict, pd.DataFrame | None]] = []
    collections = {}
    for i, r in enumerate(data.get("dataResources", [])):
        loc = f"dataResources[{i}].resPath"
        rel = r.get("resPath", "")
        path = _inside(root, rel, ds.path, loc)
        if r.get("resID") == src.ld_res.res_id:
            write_table(rows, dest / rel)
            tables.append((r, rows))
        elif r.get("isCollection"):
            collections[r.get("resID")] = r
            (dest / rel).mkdir(parents=True, exist_ok=True)
        else:
            if not path.exists():
                raise D3MKitError.single(ds.path, "file.missing", loc, f"{rel!r} does not exist")
            sub = _rows_of_view(src, r, path, rows)
            if sub is not None:
                write_table(sub, dest / rel)
            else:
                _copy(path, dest / rel, root, ds.path, loc)
            tables.append((r, sub))
    # the collection items the view's tables refer to
    for r, df in tables:
        for c in r.get("columns") or []:
            ref = c.get("refersTo") if isinstance(c, dict) else None
            if not isinstance(ref, dict) or ref.get("resObject") != "item" or ref.get("resID") not in collections:
                continue
            if df is None:
                from d3mkit.tables import read_table
                df = read_table(_inside(root, r["resPath"], ds.path, "dataResources"))
            coll = collections[ref["resID"]]
            for item in dict.fromkeys(df[c["colName"]].astype(str)) if c.get("colName") in df.columns else ():
                if not item:
                    continue
                where = f"resource {coll['resID']}, item {item!r}"
                why = lexical_escape(item)          # an item is relative to its collection
                if why:
                    raise D3MKitError.single(ds.path, PATH_ESCAPE, where,
                                             f"collection item {item!r} leaves the collection: {why}")
                rel = coll["resPath"].rstrip("/") + "/" + item
                srcp = _inside(root, rel, ds.path, where)
                if not srcp.exists():
                    raise D3MKitError.single(ds.path, "file.missing", f"resource {coll['resID']}",
                                             f"collection item {rel!r} does not exist")
                if not (dest / rel).exists():
                    _copy(srcp, dest / rel, root, ds.path, f"resource {coll['resID']}, item {item!r}")
    save_json(dest / "datasetDoc.json", data)


def _write_problem(src: _Source, view: str, split_rows: pd.DataFrame, dest: Path,
                   test_share: float) -> None:
    pb = src.problem
    data = copy.deepcopy(pb.data)
    data["about"]["problemID"] = f"{pb.problem_id}_{view}"
    for entry in data.get("inputs", {}).get("data", []):
        if isinstance(entry, dict) and entry.get("datasetID") == src.dataset.dataset_id:
            entry["datasetID"] = f"{src.dataset.dataset_id}_{view}"
    # a view's splits file is one holdOut whose rows are all TRAIN (TRAIN view) or all TEST
    # (TEST and SCORE views): its dataSplits says so, whatever the source's method was
    ds = data.get("inputs", {}).get("dataSplits")
    if isinstance(ds, dict):
        ds["method"] = "holdOut"
        ds["testSize"] = test_share
        ds.pop("numFolds", None)
        if "numRepeats" in ds:
            ds["numRepeats"] = 0
    dest.mkdir(parents=True)
    save_json(dest / "problemDoc.json", data)
    rows = split_rows.copy()
    rows["repeat"] = 0
    rows["fold"] = 0
    write_table(rows, dest / pb.splits_file)


def _require_valid(task: TaskRoot) -> None:
    """Views are cut only from a task root that ``d3mkit validate`` accepts (warnings
    allowed): views of a rejected root would fail validation themselves. Raises
    :class:`D3MKitError` carrying validate's errors."""
    from d3mkit.validation.run import validate_paths
    errors = [i for i in validate_paths([task.problem_dir, task.dataset_dir]).issues() if i.is_error]
    if errors:
        raise D3MKitError(errors)


def write_views(task_root: Path | str, out: Path | str, *, force: bool = False,
                repeat: int = 0, fold: int = 0, views: tuple[str, ...] = VIEWS,
                durable: bool = True) -> dict[str, Path]:
    """Write TRAIN/, TEST/ and SCORE/ under ``out`` (see the module docstring); return
    ``{"TRAIN": out/TRAIN, ...}``. ``views``: only these of them (``d3mkit run`` writes
    TRAIN and TEST: a system's sandbox never holds a SCORE view); ``durable=False``: the
    tree is not flushed to the disk as a whole (a scratch directory such as that sandbox)."""
    require_path("task_root", task_root)
    require_path("out", out)
    require_type("force", force, bool, "a bool")
    require_type("repeat", repeat, int, "an int")
    require_type("fold", fold, int, "an int")
    require_type("durable", durable, bool, "a bool")
    if not isinstance(views, tuple) or not views or set(views) - set(VIEWS):
        raise InvalidArgument("views", f"must be a non-empty tuple of {', '.join(VIEWS)}, not {views!r}")
    out = check_output_dir(out, "out")
    task = TaskRoot.open(task_root)
    if outside_reason(task.root, out) is None or outside_reason(out, task.root) is None:
        # force=True would replace the task root itself (or a directory holding it)
        raise OutputInsideInput(out, task_root, "out", "the task root")
    if out.exists() and not force:        # before reading anything (StagedDir checks again)
        raise OutputExists(out)
    task.problem            # an unusable problemDoc is named as such before validate's errors
    _require_valid(task)
    src = _Source(task, repeat, fold)
    with StagedDir(out, force=force, durable=durable) as tmp:
        test_rows = src.rows["TEST"]
        plan = {"TRAIN": (src.rows["TRAIN"], src.split_rows["TRAIN"]),
                "TEST": blind_test(src),
                "SCORE": (test_rows, src.split_rows["TEST"])}
        for view, (rows, split_rows) in plan.items():
            if view not in views:
                continue
            _write_dataset(src, view, rows, tmp / view / f"dataset_{view}")
            _write_problem(src, view, split_rows, tmp / view / f"problem_{view}",
                           0.0 if view == "TRAIN" else 1.0)
        if "SCORE" in views:
            write_table(test_rows[src.key_cols + [t for t in src.targets if t not in src.key_cols]],
                        tmp / "SCORE" / "targets.csv")
    return {v: out / v for v in VIEWS if v in views}


def _unit_cols(src: _Source) -> list[str]:
    """The columns naming a split unit: the image for objectDetection, else d3mIndex."""
    if src.problem.task_type == "objectDetection" and "image" in src.key_cols:
        return ["image"]
    return ["d3mIndex"]


def _sorted_by(df: pd.DataFrame, cols: list[str]) -> pd.DataFrame:
    """``df`` sorted by ``cols`` (numbers as numbers, else as text), stably."""
    keys = []
    for c in cols:
        num = pd.to_numeric(df[c], errors="coerce")
        keys.append(num if not num.isna().any() else df[c].astype(str))
    order = pd.DataFrame({f"k{i}": k.to_numpy() for i, k in enumerate(keys)}, index=df.index)
    return df.loc[order.sort_values(list(order.columns), kind="stable").index]


def blind_test(src: _Source) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The TEST view's learningData rows and dataSplits rows, sorted by their key, target
    columns empty, so that neither the row count nor the order tells a target:
    objectDetection keeps one row per image (the first d3mIndex of its boxes); other
    tasks keep the distinct rows once the targets are emptied (multiLabel: one row per
    d3mIndex whatever its number of labels)."""
    unit = _unit_cols(src)
    rows = src.rows["TEST"].copy()
    for t in src.targets:
        if t not in src.key_cols:
            rows[t] = ""
    rows = rows.drop_duplicates(unit if unit == ["image"] else None, keep="first")
    rows = _sorted_by(rows, src.key_cols)
    split_rows = src.split_rows["TEST"]
    split_rows = _sorted_by(split_rows.drop_duplicates(unit, keep="first"), src.key_cols)
    return rows, split_rows
