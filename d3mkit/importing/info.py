"""What a task root (or one D3M document) holds: ``d3mkit info PATH [--format json]``.

What this module owns: the description of a root someone sent you, as data
(:func:`info`, a dict of plain JSON values) and as text (:func:`format_text`): the
schema versions; learningData's rows, its instances (distinct d3mIndex values) when they are
fewer, and its columns by role and colType; each target's summary and missing cells; the
task, the metrics and the dataSplits section; TRAIN/TEST instances per repeat and fold of the
splits file; each media collection's file count and total bytes. It reads through the
project's readers (:class:`d3mkit.taskroot.model.TaskRoot`, :func:`d3mkit.taskroot.splits.read.folds`), so a
root it cannot read gets the same one-line issue ``validate`` would give.

A target is summarised by what it holds (:func:`target_kind`): labels (categorical and
boolean targets, integer or undeclared ones of a label task such as classification, string
ones whose values repeat) by their class balance, the most frequent first, ties by label;
numbers (real, and integer or undeclared ones of a regression task) by their range; free text
and vectors by their count of distinct values. A multiLabel target (one row per (d3mIndex,
label)) is counted over instances: how many instances carry each label, how many labels an
instance has, and its label rows beside; an objectDetection target by its boxes and the
images (the image column's distinct values) they are on, and the folds in images.

>>> import tempfile
>>> from d3mkit.benchmarks.tabular import build_task_root
>>> d = info(build_task_root(Path(tempfile.mkdtemp()), "iris"))
>>> d["kind"], d["rows"], d["targets"][0]["classes"]
('taskRoot', 150, {'setosa': 50, 'versicolor': 50, 'virginica': 50})
>>> d["splits"]["folds"], d["instances"]
([{'repeat': 0, 'fold': 0, 'train': 120, 'test': 30}], 150)
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.documents import DatasetDoc, ProblemDoc
from d3mkit.core.errors import D3MKitError, EXIT_USAGE, UsageError, error, require_path

TOP_CLASSES = 20


def _kind_of(path: Path) -> str:
    """``taskRoot``, ``dataset`` or ``problem`` for a path, else an ``info.path`` issue."""
    from d3mkit.documents.jsonio import load_json
    from d3mkit.documents.locate import task_root_name
    if path.is_dir():
        if (path / "datasetDoc.json").is_file():
            return "dataset"
        if (path / "problemDoc.json").is_file():
            return "problem"
        if task_root_name(path) is not None:
            return "taskRoot"
    elif path.is_file() and path.suffix == ".json":
        data = load_json(path)
        about = data.get("about") if isinstance(data, dict) else None
        if isinstance(about, dict) and "datasetID" in about:
            return "dataset"
        if isinstance(about, dict) and "problemID" in about:
            return "problem"
    raise D3MKitError(error("info.path", "", "neither a task root nor a datasetDoc/problemDoc (or the directory "
                            "holding one)", str(path)), EXIT_USAGE)


def _columns(res) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for c in res.columns or ():
        for role in c.role or ("(no role)",):
            by_type = out.setdefault(role, {})
            by_type[str(c.col_type)] = by_type.get(str(c.col_type), 0) + 1
    return out


def _media(ddoc: DatasetDoc) -> list[dict]:
    """Each collection: its resID, resType, file count and total bytes (regular files under
    its directory; symlinks are not followed)."""
    out = []
    for res in ddoc.resources:
        if not res.is_collection:
            continue
        try:
            base = ddoc.resource_path(res)
        except D3MKitError:
            out.append({"resID": res.res_id, "resType": res.res_type, "files": None, "bytes": None})
            continue
        files = size = 0
        for d, _, names in os.walk(base):
            for n in names:
                st = os.lstat(os.path.join(d, n))
                if not os.path.islink(os.path.join(d, n)) and st.st_size >= 0:
                    files += 1
                    size += st.st_size
        out.append({"resID": res.res_id, "resType": res.res_type, "files": files, "bytes": size})
    return out


def target_kind(col_type: str | None, task_type: str | None, cells: pd.Series) -> str:
    """How a target is summarised: ``classes``, ``range`` or ``distinct`` (module docstring),
    from its colType, the task and its non-empty ``cells`` (text)."""
    from d3mkit.core.registry import CLASSIFICATION, REGRESSION
    if col_type in ("categorical", "boolean"):
        return "classes"
    if col_type == "real":
        return "range"
    if col_type in ("integer", None):
        if task_type in CLASSIFICATION:
            return "classes"
        if task_type in REGRESSION or (col_type == "integer" and task_type is not None):
            return "range"
        numeric = pd.to_numeric(cells, errors="coerce").notna().all()
        return "range" if numeric and len(cells) else "classes"
    if col_type == "string" and 2 * cells.nunique() <= len(cells):
        return "classes"
    return "distinct"


def _balance(values: pd.Series) -> dict:
    """``classes`` (the :data:`TOP_CLASSES` most frequent of ``values``, ties by label) and
    ``otherClasses``."""
    vc = values.astype(str).value_counts()
    counts = pd.Series(vc.to_numpy(), index=vc.index).iloc[np.lexsort((vc.index.to_numpy(dtype=str),
                                                                       -vc.to_numpy()))]
    d = {"classes": {str(k): int(v) for k, v in counts.iloc[:TOP_CLASSES].items()}}
    if len(counts) > TOP_CLASSES:
        d["otherClasses"] = int(len(counts) - TOP_CLASSES)
    return d


def _spread(x: np.ndarray) -> dict:
    return {"min": float(x.min()), "max": float(x.max()), "mean": float(x.mean())} if len(x) else {}


def _target(name: str, col_type: str | None, cells: pd.Series | None, task: tuple[str | None, str | None] = (None, None),
            index: pd.Series | None = None, images: pd.Series | None = None) -> dict:
    """One target's summary: ``cells`` its text cells, ``index`` the rows' d3mIndex values,
    ``images`` an objectDetection table's image column."""
    d: dict = {"name": name, "colType": col_type}
    if cells is None:
        return d
    keep = (cells.astype(str).str.strip() != "").to_numpy()
    present = cells[keep]
    d["missing"] = int(len(cells) - len(present))
    task_type, subtype = task
    if task_type == "objectDetection" and images is not None:
        per_image = images[keep].astype(str).value_counts().to_numpy()
        d.update(boxes=int(len(present)), images=int(images.nunique()),
                 boxesPerImage=_spread(per_image.astype(float)))
        return d
    if subtype == "multiLabel" and index is not None:
        pairs = pd.DataFrame({"i": index[keep].astype(str).to_numpy(), "label": present.astype(str).to_numpy()})
        pairs = pairs.drop_duplicates()
        d.update(labelRows=int(len(present)), instances=int(pairs["i"].nunique()),
                 labelsPerInstance=_spread(pairs["i"].value_counts().to_numpy().astype(float)))
        d.update(_balance(pairs["label"]))          # instances per label
        return d
    kind = target_kind(col_type, task_type, present)
    if kind == "range":
        x = pd.to_numeric(present, errors="coerce").to_numpy(dtype=float)
        x = x[np.isfinite(x)]
        if len(x):
            d["range"] = _spread(x)
    elif kind == "classes":
        d.update(_balance(present))
    else:
        d["distinct"] = int(present.nunique())
    return d


def _dataset_part(ddoc: DatasetDoc, d: dict, columns: list[str] = ()) -> tuple[pd.DataFrame | None, str | None]:
    """The dataset's part of ``d``; learningData (returned, with the name of its image index
    column if it has one) is read for its rows, its index, that image column and ``columns``
    (the targets) only, through the checked reader."""
    from d3mkit.core.errors import EXIT_USAGE
    from d3mkit.tables.csvread import read_strings
    d["dataset"] = {"id": ddoc.dataset_id, "name": ddoc.about.get("datasetName"),
                    "datasetSchemaVersion": ddoc.about.get("datasetSchemaVersion")}
    res = ddoc.learning_data
    ld = image = None
    if res is not None:
        d["columns"] = _columns(res)
        from d3mkit.documents.dataset import image_index_column
        names = res.column_names
        first = ["d3mIndex"] if "d3mIndex" in names else names[:1]
        image = image_index_column(res, names)
        wanted = list(dict.fromkeys([*first, *([image] if image else []), *columns]))
        ld, issues = read_strings(ddoc.resource_path(res), usecols=wanted, allow_empty=True)
        if ld is None:
            usage = issues[0].code in ("file.missing", "file.unreadable", "file.is_directory")
            raise D3MKitError(issues, EXIT_USAGE if usage else 1)
        d["rows"] = int(len(ld))
        if first and first[0] in ld.columns:
            d["instances"] = int(ld[first[0]].nunique())
        image = image if image in ld.columns else None
    d["media"] = _media(ddoc)
    return ld, image


def _problem_part(pdoc: ProblemDoc, d: dict, ddoc: DatasetDoc | None, ld: pd.DataFrame | None,
                  image: str | None = None) -> None:
    d["problem"] = {"id": pdoc.problem_id, "taskType": pdoc.task_type, "taskSubType": pdoc.task_subtype,
                    "problemSchemaVersion": pdoc.schema_version}
    d["metrics"] = [m.get("metric") if m.get("metric") != "other" else m.get("specifyOther")
                    for m in pdoc.metrics if isinstance(m, dict)]
    res = ddoc.learning_data if ddoc is not None else None
    d["targets"] = []
    index = ld.get("d3mIndex") if ld is not None else None
    images = ld[image] if ld is not None and image else None
    for t in pdoc.targets:
        col = res.column(t.col_name) if res is not None else None
        cells = ld[t.col_name] if ld is not None and t.col_name in ld.columns else None
        d["targets"].append(_target(t.col_name, col.col_type if col is not None else None, cells,
                                    (pdoc.task_type, pdoc.task_subtype), index, images))
    d["splits"] = {"section": dict(pdoc.splits)}


def _splits_part(pdoc: ProblemDoc, problem_dir: Path, d: dict, ld: pd.DataFrame | None = None,
                 image: str | None = None) -> None:
    """TRAIN/TEST per repeat and fold: instances (distinct d3mIndex values; images for
    objectDetection, by the splits file's image column) and, when learningData has several
    rows per instance (multiLabel), its rows on each side."""
    from d3mkit.taskroot.splits.read import folds, splits_path
    from d3mkit.tables import read_table
    p = splits_path(problem_dir, pdoc.splits_file)
    if not p.exists():
        d["splits"]["folds"] = None
        return
    s = read_table(p)
    missing = [c for c in ("d3mIndex", "type", "repeat", "fold") if c not in s.columns]
    if missing:
        raise D3MKitError(error("splits.columns", "", f"missing column(s) {', '.join(missing)}", str(p), row=1))
    by_image = pdoc.task_type == "objectDetection" and image in s.columns
    rows_of = None
    if ld is not None and not by_image and "d3mIndex" in ld.columns and d.get("instances", 0) < d.get("rows", 0):
        rows_of = ld["d3mIndex"].str.strip().value_counts()     # learningData rows per instance
    try:
        out = []
        for r, f, tr, te in folds(s):
            entry = {"repeat": r, "fold": f, "train": len(tr), "test": len(te)}
            if by_image:
                sel = s[(s["repeat"].astype(np.int64) == r) & (s["fold"].astype(np.int64) == f)]
                entry["train"], entry["test"] = (int(sel.loc[sel["type"] == side, image].nunique())
                                                 for side in ("TRAIN", "TEST"))
            if rows_of is not None:
                entry["trainRows"], entry["testRows"] = (int(rows_of.reindex([str(i).strip() for i in ids])
                                                             .fillna(0).sum()) for ids in (tr, te))
            out.append(entry)
        d["splits"]["folds"] = out
        d["splits"]["unit"] = "image" if by_image else "instance"
    except (ValueError, TypeError):
        raise D3MKitError(error("splits.value", "", "a repeat or fold value is not an integer", str(p))) from None


def info(path: Path | str) -> dict:
    """What the task root, dataset or problem at ``path`` holds (module docstring), as a
    dict of JSON values. Raises :class:`~d3mkit.core.errors.D3MKitError` naming what cannot be
    read."""
    from d3mkit.taskroot.model import TaskRoot
    require_path("path", path)
    path = Path(path)
    if not path.exists():
        raise UsageError("path does not exist", str(path), code="usage.path")
    kind = _kind_of(path)
    d: dict = {"path": str(path), "kind": kind}
    if kind == "taskRoot":
        task = TaskRoot.open(path)
        ld, image = _dataset_part(task.dataset, d, list(task.targets))
        _problem_part(task.problem, d, task.dataset, ld, image)
        _splits_part(task.problem, task.problem_dir, d, ld, image)
    elif kind == "dataset":
        ddoc = DatasetDoc.load(path / "datasetDoc.json" if path.is_dir() else path)
        _dataset_part(ddoc, d)
    else:
        doc_path = path / "problemDoc.json" if path.is_dir() else path
        pdoc = ProblemDoc.load(doc_path)
        _problem_part(pdoc, d, None, None)
        _splits_part(pdoc, doc_path.parent, d)
    return d


def _counts(by_type: dict[str, int]) -> str:
    return ", ".join(f"{t} {n}" for t, n in by_type.items())


def _bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:,} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1024
    return str(n)


def _short(v) -> str:
    """A dataSplits field for one line: a datasetViewMaps object by its keys."""
    if isinstance(v, dict):
        return "(" + ", ".join(str(k) for k in v) + ")"
    if isinstance(v, list):
        return f"({len(v)} entries)"
    return str(v)


def format_text(d: dict) -> list[str]:
    """The lines ``d3mkit info`` prints for :func:`info`'s dict."""
    lines = [f"{d['kind']:<10} {d['path']}"]
    if "dataset" in d:
        ds = d["dataset"]
        lines.append(f"{'dataset':<10} {ds['id']} (datasetSchemaVersion {ds['datasetSchemaVersion']})")
    if "rows" in d:
        several = d.get("instances") is not None and d["instances"] < d["rows"]
        lines.append(f"{'rows':<10} {d['rows']:,}" + (f" ({d['instances']:,} instances: distinct d3mIndex)"
                                                     if several else ""))
    for role, by_type in (d.get("columns") or {}).items():
        lines.append(f"{'columns':<10} {role}: {sum(by_type.values())} ({_counts(by_type)})")
    if "problem" in d:
        pr = d["problem"]
        lines.append(f"{'task':<10} {pr['taskType']}/{pr['taskSubType']} ({pr['id']}, problemSchemaVersion "
                     f"{pr['problemSchemaVersion']})")
        lines.append(f"{'metrics':<10} {', '.join(str(m) for m in d['metrics'])}")
    for t in d.get("targets", []):
        if "classes" in t:
            shown = ", ".join(f"{k} {v}" for k, v in t["classes"].items())
            more = f", and {t['otherClasses']} more" if t.get("otherClasses") else ""
            n = len(t["classes"]) + t.get("otherClasses", 0)
            if "instances" in t:            # multiLabel: instances per label
                per = t["labelsPerInstance"]
                what = (f"multiLabel, {n} label{'s' * (n != 1)} on {t['instances']:,} instances ({t['labelRows']:,} "
                        f"label rows; {per['min']:g}-{per['max']:g} labels per instance, mean {per['mean']:.3g}); "
                        f"instances per label: {shown}{more}")
            else:
                what = f"{n} class{'es' * (n != 1)}: {shown}{more}"
        elif "boxes" in t:
            per = t["boxesPerImage"]
            what = f"{t['boxes']:,} boxes on {t['images']:,} images" + (
                f" ({per['min']:g}-{per['max']:g} per image, mean {per['mean']:.3g})" if per else "")
        elif "distinct" in t:
            what = f"{t['distinct']:,} distinct values"
        elif "range" in t:
            r = t["range"]
            what = f"range {r['min']:g} .. {r['max']:g}, mean {r['mean']:g}"
        else:
            what = "(no learningData read)"
        missing = f"; {t['missing']} missing" if t.get("missing") else ""
        lines.append(f"{'target':<10} {t['name']} ({t['colType'] or 'colType not declared'}): {what}{missing}")
    if "splits" in d:
        sec = d["splits"]["section"]
        how = ", ".join(f"{k} {_short(v)}" for k, v in sec.items() if k != "splitsFile")
        lines.append(f"{'splits':<10} {how}")
        folds = d["splits"].get("folds")
        if folds is None:
            lines.append(f"{'':<10} no splits file")
        unit = {"image": " images", "instance": " instances"}.get(d["splits"].get("unit"), "")
        for f in folds or []:
            rows = f" (rows: TRAIN {f['trainRows']:,}, TEST {f['testRows']:,})" if "trainRows" in f else ""
            lines.append(f"{'':<10} repeat {f['repeat']} fold {f['fold']}: TRAIN {f['train']:,}, "
                         f"TEST {f['test']:,}{unit}{rows}")
    if "media" in d:
        if not d["media"]:
            lines.append(f"{'media':<10} none")
        for m in d["media"]:
            size = "unreadable" if m["files"] is None else f"{m['files']:,} files, {_bytes(m['bytes'])}"
            lines.append(f"{'media':<10} {m['resID']} ({m['resType']}): {size}")
    return lines
