"""Dataset checks beyond the schema: resources on disk and the tables they hold.

* every resPath stays inside the dataset root (``path.escape``) and exists as a file, or a
  directory for a collection;
* declared columns: colIndex 0..n-1 once each, colNames unique;
* each table's CSV header matches its declared columns by name and colIndex order;
* index columns: exactly one (learningData: ``d3mIndex``; objectDetection: ``d3mIndex``
  plus the image column), no empty and no repeated values;
* colType of every value in every row;
* ``refersTo``: the resource and column exist; foreign-key values exist; every collection
  item a row names is on disk (and inside the root).

:func:`check_dataset` loads a datasetDoc, runs all of this and records issues in a
:class:`~d3mkit.validation.report.Report` (:func:`dataset_steps` is the same as a generator
of steps, for the lazy ``iter_issues``); the :class:`DatasetContext` it returns is what the
problem and dataSplits checks read (learningData, target columns, index keys).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Generator, Iterator

import numpy as np

from d3mkit.tables.held import NOTHING, Held
from d3mkit.documents.jsonio import load_json_issues
from d3mkit.core.errors import Issue
from d3mkit.validation import coltypes
from d3mkit.validation.coltypes import COLTYPE_CODES
from d3mkit.validation.codes import make
from d3mkit.validation.common import as_dict, as_int, as_list, as_str, row_issues, short
from d3mkit.tables.csvread import Table, read_csv_checked
from d3mkit.validation.keys import isin, keys
from d3mkit.validation.listing import item_faults, listing
from d3mkit.tables.tablecols import Column, Texts, distinct_values, first_row, lookup, raw_codes
from d3mkit.io.paths import escape_reason
from d3mkit.validation.report import Report
from d3mkit.documents.versions import minimal_metadata, supported_version

TABLE_TYPES = ("table", "timeseries", "edgeList")

INDEX_ROLES = ("index", "multiIndex")


@dataclass
class DatasetContext:
    """A loaded dataset: the parsed doc (or None) and what the checks read from disk."""

    doc_path: Path
    data: dict | None = None
    resources: list[tuple[int, dict]] = field(default_factory=list)
    tables: dict[str, Table] = field(default_factory=dict)
    learning_id: str | None = None
    object_detection: bool = False
    multi_label: bool = False     # a multiLabel problem's dataset: a d3mIndex repeats, one row per label
    _collections: dict[str, tuple[np.ndarray, dict[str, str]]] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.doc_path.parent

    @property
    def version(self) -> str | None:
        """The datasetSchemaVersion the doc declares, when d3mkit supports it."""
        return supported_version("dataset", self.data)

    @property
    def minimal_metadata(self) -> bool:
        """Columns may be undeclared (4.0.0 and later); colIndex is the CSV position."""
        return minimal_metadata(self.version)

    def csv_header(self, res_id) -> list[str] | None:
        t = self.tables.get(res_id) if isinstance(res_id, str) else None
        return t.header if t is not None else None

    @property
    def dataset_id(self) -> str | None:
        return as_str(as_dict(as_dict(self.data).get("about")).get("datasetID"))

    def resource(self, res_id) -> tuple[int, dict] | None:
        for i, r in self.resources:
            if r.get("resID") == res_id:
                return i, r
        return None

    @property
    def learning_table(self) -> Table | None:
        return self.tables.get(self.learning_id) if self.learning_id is not None else None

    def learning_columns(self) -> list[dict]:
        found = self.resource(self.learning_id)
        return declared_columns(found[1]) if found else []

    def index_column(self) -> str | None:
        """Name of learningData's d3mIndex (or its only index) column."""
        idx = [c["colName"] for c in self.learning_columns() if _roles(c) & set(INDEX_ROLES)]
        if "d3mIndex" in idx:
            return "d3mIndex"
        return idx[0] if len(idx) == 1 else None

    def image_column(self) -> str | None:
        """objectDetection: the index column beside d3mIndex (the image), or None."""
        from d3mkit.documents.dataset import Resource, image_index_column
        found = self.resource(self.learning_id)
        if not found:
            return None
        return image_index_column(Resource.from_dict({"columns": declared_columns(found[1])}))

    def collection_files(self, res: dict) -> tuple[np.ndarray, dict[str, str]]:
        """The collection's files (a sorted ``S`` array, :func:`~d3mkit.validation.listing.listing`)
        and its entries that are symlinks leaving the root."""
        rid = str(res.get("resID"))
        if rid not in self._collections:
            self._collections[rid] = listing(self.root, as_str(res.get("resPath")) or "")
        return self._collections[rid]


def _roles(col: dict) -> set:
    r = col.get("role")
    return {x for x in r if isinstance(x, str)} if isinstance(r, list) else set()


def declared_columns(res: dict) -> list[dict]:
    """Column dicts with an int colIndex and a str colName, in colIndex order."""
    cols = [c for c in as_list(res.get("columns")) if isinstance(c, dict)
            and as_int(c.get("colIndex")) is not None and isinstance(c.get("colName"), str)]
    return sorted(cols, key=lambda c: c["colIndex"])


def is_table(res: dict) -> bool:
    return res.get("resType") in TABLE_TYPES and res.get("isCollection") is not True


def find_learning(resources: list[tuple[int, dict]]) -> str | None:
    tables = [r for _, r in resources if is_table(r) and isinstance(r.get("resID"), str)]
    for r in tables:
        if str(r.get("resPath", "")).endswith("learningData.csv"):
            return r["resID"]
    for r in tables:
        if r["resID"] == "learningData":
            return r["resID"]
    return tables[0]["resID"] if len(tables) == 1 else None


def _schema(data: dict, path: str) -> list[Issue]:
    try:
        from d3mkit.validation.schema import check_dataset_schema
    except ImportError:
        return []
    return list(check_dataset_schema(data, path))


# ----------------------------------------------------------------------------- resources
def _check_resources(ctx: DatasetContext, p: str) -> list[Issue]:
    out: list[Issue] = []
    seen: dict = {}
    for i, r in ctx.resources:
        loc = f"dataResources[{i}]"
        rid = r.get("resID")
        if isinstance(rid, (str, int)) and not isinstance(rid, bool):
            if rid in seen:
                out.append(make("resource.duplicate_id", f"{loc}.resID",
                                f"resID {rid!r} is also dataResources[{seen[rid]}]", p))
            else:
                seen[rid] = i
        rel = as_str(r.get("resPath"))
        if rel is None:
            continue
        why = escape_reason(ctx.root, rel)
        if why:
            out.append(make("path.escape", f"{loc}.resPath", f"resPath {rel!r} leaves the dataset root: {why}", p))
            continue
        full = ctx.root / rel
        if not full.exists():
            out.append(make("resource.missing", f"{loc}.resPath", f"{rel!r} does not exist under {ctx.root}", p))
        elif r.get("isCollection") is True and not full.is_dir():
            out.append(make("resource.kind", f"{loc}.resPath", f"collection resPath {rel!r} is not a directory", p))
        elif r.get("isCollection") is not True and full.is_dir():
            out.append(make("resource.kind", f"{loc}.resPath",
                            f"resPath {rel!r} is a directory but isCollection is not true", p))
    return out


def _check_declarations(ctx: DatasetContext, p: str) -> list[Issue]:
    out: list[Issue] = []
    for i, r in ctx.resources:
        cols = as_list(r.get("columns"))
        if not cols:
            continue
        loc = f"dataResources[{i}].columns"
        idx = [as_int(c.get("colIndex")) for c in cols if isinstance(c, dict)]
        idx = [x for x in idx if x is not None]
        if ctx.minimal_metadata:
            dup = sorted({x for x in idx if idx.count(x) > 1})
            if dup:
                out.append(make("columns.col_index", loc,
                                f"colIndex values must each be declared once (repeated: {dup})", p))
        elif sorted(idx) != list(range(len(idx))):
            dup = sorted({x for x in idx if idx.count(x) > 1})
            gaps = sorted(set(range(len(idx))) - set(idx))
            detail = "; ".join(filter(None, [f"repeated: {dup}" if dup else "",
                                             f"missing: {gaps}" if gaps else ""]))
            out.append(make("columns.col_index", loc,
                            f"colIndex values must be 0..{len(idx) - 1}, each once ({detail})", p))
        names: dict[str, int] = {}
        for j, c in enumerate(cols):
            name = as_str(as_dict(c).get("colName"))
            if name is None:
                continue
            if name in names:
                out.append(make("columns.duplicate_name", f"{loc}[{j}].colName",
                                f"colName {name!r} is also {loc}[{names[name]}]", p))
            else:
                names[name] = j
    return out


# ----------------------------------------------------------------------------- tables
def _check_partial_header(t: Table, res: dict, cols: list[dict], doc: str, loc: str) -> list[Issue]:
    """4.0.0 minimal metadata: each declared column is the file's column at its colIndex
    (undeclared columns are allowed); columnsCount, when given, is the file's width."""
    p = str(t.path)
    out: list[Issue] = []
    header = t.header or []
    for c in cols:
        i, name = c["colIndex"], c["colName"]
        if i >= len(header):
            out.append(make("table.header", "",
                            f"declared column {name!r} has colIndex {i}, but the file has {len(header)} columns", p, row=1, column=name))
        elif header[i] != name:
            out.append(make("table.header", "",
                            f"file column {i} is {header[i]!r} but datasetDoc declares {name!r} at colIndex {i}", p, row=1, column=header[i]))
    count = as_int(res.get("columnsCount"))
    if count is not None and count != len(header):
        out.append(make("table.columns_count", f"{loc[:-len('.columns')]}.columnsCount",
                        f"columnsCount is {count}, but {t.path.name} has {len(header)} columns", doc))
    return out


def _check_header(t: Table, cols: list[dict]) -> list[Issue]:
    p = str(t.path)
    out: list[Issue] = []
    header = t.header or []
    declared = [c["colName"] for c in cols]
    for pos in range(max(len(header), len(declared))):
        have = header[pos] if pos < len(header) else None
        want = declared[pos] if pos < len(declared) else None
        if have == want:
            continue
        if want is None:
            msg = f"file column {pos} {have!r} is not declared in datasetDoc"
        elif have is None:
            msg = f"declared column {want!r} (colIndex {cols[pos]['colIndex']}) is missing from the file header"
        else:
            msg = f"file column {pos} is {have!r} but datasetDoc declares {want!r} at colIndex {cols[pos]['colIndex']}"
        out.append(make("table.header", "", msg, p, row=1, column=have if have is not None else want))
    return out


def _check_index(ctx: DatasetContext, res_id: str, t: Table, cols: list[dict], loc: str) -> list[Issue]:
    p = str(t.path)
    out: list[Issue] = []
    is_learning = res_id == ctx.learning_id
    idx_cols = [c for c in cols if _roles(c) & set(INDEX_ROLES)]
    names = [c["colName"] for c in idx_cols]
    multi = [c["colName"] for c in idx_cols if "multiIndex" in _roles(c)]
    if is_learning and ctx.object_detection and multi:
        # the 4.0.0 form: d3mIndex is the one multiIndex column, the image an item reference
        if names != ["d3mIndex"] or ctx.image_column() is None:
            out.append(make("index.count", loc, "a 4.0.0 objectDetection learningData needs d3mIndex as its "
                                                "only (multiIndex) index column and an image column referring "
                                                f"to a collection item; index columns declared: {names}",
                            str(ctx.doc_path)))
        else:
            names = ["d3mIndex", ctx.image_column()]
    elif is_learning and ctx.object_detection:
        others = [n for n in names if n != "d3mIndex"]
        if "d3mIndex" not in names or len(others) != 1:
            out.append(make("index.count", loc, "an objectDetection learningData needs the multi-index "
                                                f"(d3mIndex, image); index columns declared: {names}", str(ctx.doc_path)))
    elif is_learning and len(idx_cols) != 1:
        out.append(make("index.count", loc, f"learningData needs exactly one index column; declared: {names}",
                        str(ctx.doc_path)))
    elif len(idx_cols) > 1:
        out.append(make("index.count", loc, f"a table can have only one index column; declared: {names}",
                        str(ctx.doc_path)))
    if is_learning and idx_cols and "d3mIndex" not in names:
        out.append(make("index.name", loc, f"learningData's index column must be called d3mIndex, not {names[0]!r}",
                        str(ctx.doc_path)))
    if t.cols is None:
        return out
    for name in names:
        s = t.column(name)
        if s is None:
            continue
        empty = np.flatnonzero(s.missing())
        out += row_issues("index.empty", empty, name, lambda r: "index value is empty", p)
    main = "d3mIndex" if "d3mIndex" in names else (names[0] if len(names) == 1 else None)
    s = t.column(main) if main else None
    if s is None or (main in multi and not ctx.object_detection) or (is_learning and ctx.multi_label):
        return out   # a multiIndex repeats by definition (rows of one instance)
    if is_learning and ctx.object_detection and len(names) == 2:
        other = [n for n in names if n != "d3mIndex"][0]
        img = t.column(other)
        if img is not None:   # one d3mIndex must name one image (its boxes may repeat)
            ci, k = raw_codes(s)
            cm, _ = raw_codes(img)
            both = (ci >= 0) & (cm >= 0)
            first = first_row(np.where(both, ci, -1), k)      # the first full row of each d3mIndex
            fr = np.where(both, lookup(first, ci), -1)
            rows = np.flatnonzero(both & (cm != cm[np.maximum(fr, 0)]))
            out += row_issues("index.duplicate", rows, main,
                              lambda r: f"d3mIndex {short(s.at(r))} names image {short(img.at(r))}, "
                                        f"but an earlier row gives it image {short(img.at(int(fr[r])))}", p)
        return out
    codes, k = raw_codes(s)
    first = first_row(codes, k)
    fr = lookup(first, codes)
    rows = np.flatnonzero((codes >= 0) & (fr != np.arange(len(codes))))
    del codes
    out += row_issues("index.duplicate", rows, main,
                      lambda r: f"{main} {short(s.at(r))} already on row {int(fr[r]) + 2}", p)
    return out


def _column_types(t: Table, cols: list[dict]) -> Iterator[tuple[str, list[Issue]]]:
    """The colType issues of ``t``, one list per checked column (a step of its own), with
    the column's name."""
    p = str(t.path)
    for c in cols:
        ct = c.get("colType")
        if ct not in coltypes.CHECKED:
            continue
        s = t.column(c["colName"])
        if s is None:
            continue
        rows = coltypes.bad_rows(s, ct)
        what = coltypes.fault(ct)
        yield c["colName"], (row_issues(COLTYPE_CODES[ct], rows, c["colName"],
                                        lambda r: f"{short(s.at(r))} {what} (colType {ct})", p)
                             if len(rows) else [])


def _later_columns(ctx: DatasetContext, res_id: str, cols: list[dict], keep: frozenset[str]) -> set[str]:
    """The columns of table ``res_id`` that checks after its own read: index columns, refersTo
    columns and the columns other tables refer to (:func:`_check_refers`), suggested targets
    and ``keep`` (the problems' targets, the split check's classes)."""
    out = set(keep)
    out |= {c["colName"] for c in cols
            if _roles(c) & {"index", "multiIndex", "suggestedTarget"} or c.get("refersTo") is not None}
    for _, r in ctx.resources:
        for c in as_list(r.get("columns")):
            ref = as_dict(as_dict(c).get("refersTo"))
            obj = ref.get("resObject")
            if ref.get("resID") != res_id or not isinstance(obj, dict):
                continue
            if "columnName" in obj:
                if isinstance(obj["columnName"], str):
                    out.add(obj["columnName"])
            else:
                out |= {x["colName"] for x in cols if x["colIndex"] == obj.get("columnIndex")}
    return out


def _check_refers(ctx: DatasetContext, res_id: str, res_pos: int, t: Table, cols: list[dict]) -> list[Issue]:
    p_doc, p = str(ctx.doc_path), str(t.path)
    out: list[Issue] = []
    all_cols = as_list(ctx.resource(res_id)[1].get("columns"))
    for c in cols:
        ref = c.get("refersTo")
        if not isinstance(ref, dict):
            continue
        j = next((k for k, x in enumerate(all_cols) if x is c), c["colIndex"])
        loc = f"dataResources[{res_pos}].columns[{j}].refersTo"
        target_id = ref.get("resID")
        found = ctx.resource(target_id)
        if found is None:
            out.append(make("refers.resource_missing", f"{loc}.resID",
                            f"column {c['colName']!r} refers to resID {target_id!r}, which the dataset does not have", p_doc))
            continue
        _, target = found
        obj = ref.get("resObject")
        s = t.column(c["colName"])
        if obj == "item":
            if target.get("isCollection") is not True:
                out.append(make("refers.kind", f"{loc}.resObject",
                                f"resObject 'item' needs a collection, but resource {target_id!r} is not one", p_doc))
            elif s is not None and escape_reason(ctx.root, as_str(target.get("resPath")) or "") is None:
                out += _check_items(ctx, target, s, c["colName"], p)
        elif obj in ("node", "edge", "nodeAttribute", "edgeAttribute"):
            if target.get("resType") not in ("graph", "edgeList"):
                out.append(make("refers.kind", f"{loc}.resObject",
                                f"resObject {obj!r} needs a graph, but resource {target_id!r} is a {target.get('resType')!r}", p_doc))
        elif isinstance(obj, dict):
            if not is_table(target):
                out.append(make("refers.kind", f"{loc}.resObject",
                                f"a column reference needs a table, but resource {target_id!r} is a {target.get('resType')!r}", p_doc))
                continue
            tcols = declared_columns(target)
            if "columnName" in obj:
                tcol = next((x for x in tcols if x["colName"] == obj["columnName"]), None)
                key = f"columnName {obj['columnName']!r}"
            else:
                tcol = next((x for x in tcols if x["colIndex"] == obj.get("columnIndex")), None)
                key = f"columnIndex {obj.get('columnIndex')!r}"
            if tcol is None:
                out.append(make("refers.column_missing", f"{loc}.resObject",
                                f"resource {target_id!r} has no column with {key}", p_doc))
                continue
            if target_id == res_id:   # e.g. a bounding box pointing at its row's image
                continue
            tt = ctx.tables.get(target_id)
            pool = tt.column(tcol["colName"]) if tt is not None else None
            if s is None or pool is None:
                continue
            k = keys(s)
            missing = ~isin(k, keys(pool)) & ~k.missing()
            out += row_issues("refers.value_missing", np.flatnonzero(missing), c["colName"],
                              lambda r: f"{short(s.at(r))} is not in column {tcol['colName']!r} of {target_id!r}", p)
    return out


def _check_items(ctx: DatasetContext, coll: dict, s: Column, name: str, p: str) -> list[Issue]:
    files, escaping = ctx.collection_files(coll)
    base = as_str(coll.get("resPath")) or ""
    why: dict[int, str] = {}
    if isinstance(s, Texts) and s.cells is not None:     # many names: each row's bytes, looked up in blocks
        per_row = item_faults(files, escaping, s.cells, why)
        reason = why.__getitem__
    else:
        if isinstance(s, Texts) and s.raw is not None:
            codes, names = s.codes, s.raw
        else:
            codes, uniq = distinct_values(s)
            names = np.array([str(v).encode("utf-8", "surrogatepass") for v in uniq] or [b""])[:len(uniq)]
        per_row = lookup(item_faults(files, escaping, names, why), codes, 0)   # 0 ok, 1 missing, 2 escapes
        reason = lambda r: why[codes[r]]   # noqa: E731
    out = row_issues("collection.item_missing", np.flatnonzero(per_row == 1), name,
                     lambda r: f"item {short(s.at(r))} is not in collection {base!r}", p)
    out += row_issues("path.escape", np.flatnonzero(per_row == 2), name,
                      lambda r: f"item {short(s.at(r))} leaves the dataset root: {reason(r)}", p)
    return out


# ----------------------------------------------------------------------------- driver
def _looks_object_detection(ctx: DatasetContext) -> bool:
    cols = ctx.learning_columns()
    if any({"boundingBox", "boundingPolygon"} & _roles(c) for c in cols):
        return True
    idx = [c for c in cols if _roles(c) & set(INDEX_ROLES)]
    return len(idx) == 2 and any(c["colName"] == "d3mIndex" for c in idx) and \
        any(as_dict(c.get("refersTo")).get("resObject") == "item" for c in idx)


def check_dataset(doc_path: Path, report: Report, *, object_detection: bool = False,
                  multi_label: bool = False) -> DatasetContext:
    """Validate the dataset whose datasetDoc.json is ``doc_path``; record issues in ``report``."""
    steps = dataset_steps(doc_path, report, object_detection=object_detection, multi_label=multi_label)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def dataset_steps(doc_path: Path, report: Report, *, object_detection: bool = False,
                  multi_label: bool = False, keep: frozenset[str] = frozenset(),
                  held: Held = NOTHING) -> Generator[None, None, DatasetContext]:
    """:func:`check_dataset` as a generator that yields after each step recorded in
    ``report`` (the datasetDoc read, its schema, its resources; then per table: reading
    it, its header and index, each checked column's colType, its refersTo columns) and
    returns the :class:`DatasetContext`. A consumer that stops at an issue (``is_valid``)
    does no more: a datasetDoc with an error is the end, its tables are never read.

    Each column is let go once its own checks are done, unless a later check reads it
    (:func:`_later_columns`; ``keep``: learningData columns the problems name as targets).
    ``held``: what the caller holds of the tables (:class:`d3mkit.tables.held.Held`): a table
    whose every cell its writer checked is read for its index, target and refersTo columns
    only, and a frame it has just written is read instead of the file."""
    doc_path = Path(doc_path)
    p = str(doc_path)
    ctx = DatasetContext(doc_path)
    data, issues = load_json_issues(doc_path)
    report.add(p, "datasetDoc", issues)
    if issues:
        return ctx
    if not isinstance(data, dict):
        report.add(p, "datasetDoc", [make("doc.not_object", "", f"a datasetDoc is a JSON object, not {type(data).__name__}", p)])
        return ctx
    ctx.data = data
    report.add(p, "datasetDoc", _schema(data, p))
    yield
    ctx.resources = [(i, r) for i, r in enumerate(as_list(data.get("dataResources"))) if isinstance(r, dict)]
    doc_issues = _check_resources(ctx, p) + _check_declarations(ctx, p)
    ctx.learning_id = find_learning(ctx.resources)
    if ctx.learning_id is None:
        doc_issues.append(make("dataset.no_learning_data", "dataResources",
                               "no learningData table (a table resource with resPath ending in learningData.csv)", p))
    ctx.object_detection = object_detection or _looks_object_detection(ctx)
    ctx.multi_label = multi_label
    report.add(p, "datasetDoc", doc_issues)
    yield
    for i, r in ctx.resources:
        rid = r.get("resID")
        rel = as_str(r.get("resPath"))
        if not is_table(r) or rel is None or not isinstance(rid, str) or rid in ctx.tables:
            continue
        full = ctx.root / rel
        if escape_reason(ctx.root, rel) or not full.exists() or full.is_dir():
            continue   # reported above (a FIFO or device is refused unread by the reader)
        cols = declared_columns(r)
        numeric = {c["colName"]: c.get("colType") for c in cols if c.get("colType") in ("integer", "real")}
        only = None
        if held.checked(full):
            only = {c["colName"] for c in cols if _roles(c) & {"index", "multiIndex", "suggestedTarget"}
                    or c.get("refersTo") is not None}
        t = read_csv_checked(full, numeric, only, held.frame(full))
        ctx.tables[rid] = t
        kind = "learningData" if rid == ctx.learning_id else "table"
        report.add(str(full), kind, t.issues)
        yield
        if t.header is None:
            continue
        loc = f"dataResources[{i}].columns"
        if ctx.minimal_metadata:
            tissues = _check_partial_header(t, r, cols, p, loc)
        else:
            tissues = _check_header(t, cols) if as_list(r.get("columns")) else []
        tissues += _check_index(ctx, rid, t, cols, loc)
        report.add(str(full), kind, [x for x in tissues if x.path == str(full)])
        report.add(p, "datasetDoc", [x for x in tissues if x.path != str(full)])
        yield
        if t.cols is not None:
            later = _later_columns(ctx, rid, cols, keep if rid == ctx.learning_id else frozenset())
            for name, column_issues in _column_types(t, cols):
                if name not in later:
                    t.drop(name)
                report.add(str(full), kind, column_issues)
                yield
            t.keep(later)
    for i, r in ctx.resources:
        rid = r.get("resID")
        t = ctx.tables.get(rid) if isinstance(rid, str) else None
        if t is None or t.header is None:
            continue
        tissues = _check_refers(ctx, rid, i, t, declared_columns(r))
        report.add(str(t.path), "learningData" if rid == ctx.learning_id else "table",
                   [x for x in tissues if x.path == str(t.path)])
        report.add(p, "datasetDoc", [x for x in tissues if x.path != str(t.path)])
        yield
    ctx._collections.clear()                # the listings served the item checks
    for rid, t in ctx.tables.items():       # the split check reads learningData's index and targets only
        if rid == ctx.learning_id:
            t.keep({c["colName"] for c in ctx.learning_columns() if _roles(c) & set(INDEX_ROLES)}
                   | set(keep) | ({ctx.image_column()} if ctx.object_detection else set()))
        else:
            t.keep(())
    return ctx
