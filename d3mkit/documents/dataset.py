"""The datasetDoc model (datasetSchema 3.1.2).

Like :class:`~d3mkit.documents.problem.ProblemDoc`, a :class:`DatasetDoc` keeps the JSON object
as read and offers typed, read-only views of resources and columns.

>>> doc = DatasetDoc.new("wine_dataset", "wine", [Resource.table(
...     "learningData", "tables/learningData.csv",
...     [Column(0, "d3mIndex", "integer", ("index",)),
...      Column(1, "class", "categorical", ("suggestedTarget",))])])
>>> doc.learning_data.res_id, doc.learning_data.index_columns
('learningData', ['d3mIndex'])
>>> doc.learning_data.column("class").col_index
1
>>> doc.data["about"]["datasetSchemaVersion"]
'3.1.2'
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from d3mkit.documents.jsonio import JsonDocument
from d3mkit.io.paths import resolve_inside

SCHEMA_VERSION = "3.1.2"


def _col_order(c) -> int:
    """Sort key of a column: its colIndex (a malformed one last)."""
    return c.col_index if isinstance(c.col_index, int) and not isinstance(c.col_index, bool) else 1 << 30


@dataclass(frozen=True)
class Column:
    """One entry of a table resource's ``columns``."""

    col_index: int
    col_name: str
    col_type: str
    role: tuple[str, ...] = ("attribute",)
    refers_to: dict | None = None
    extra: dict = field(default_factory=dict)   # colDescription, timeGranularity, ...

    def to_dict(self) -> dict:
        d: dict[str, Any] = {"colIndex": self.col_index, "colName": self.col_name}
        if "colDescription" in self.extra:
            d["colDescription"] = self.extra["colDescription"]
        d["colType"] = self.col_type
        d["role"] = list(self.role)
        if self.refers_to is not None:
            d["refersTo"] = copy.deepcopy(self.refers_to)
        for k, v in self.extra.items():
            d.setdefault(k, v)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Column":
        extra = {k: v for k, v in d.items()
                 if k not in ("colIndex", "colName", "colType", "role", "refersTo")}
        role = d.get("role")
        return cls(d.get("colIndex"), d.get("colName"), d.get("colType"),
                   tuple(role) if isinstance(role, list) else (), d.get("refersTo"), extra)


@dataclass(frozen=True)
class Resource:
    """One entry of ``dataResources`` (a read-only view)."""

    res_id: str
    res_path: str
    res_type: str
    res_format: tuple[str, ...] | dict
    is_collection: bool = False
    columns: tuple[Column, ...] | None = None
    extra: dict = field(default_factory=dict)

    @classmethod
    def table(cls, res_id: str, res_path: str, columns: list[Column]) -> "Resource":
        return cls(res_id, res_path, "table", ("text/csv",), False, tuple(columns))

    @classmethod
    def collection(cls, res_id: str, res_path: str, res_type: str,
                   formats: list[str] | tuple[str, ...]) -> "Resource":
        path = res_path if res_path.endswith("/") else res_path + "/"
        return cls(res_id, path, res_type, tuple(formats), True, None)

    def to_dict(self) -> dict:
        d: dict[str, Any] = {"resID": self.res_id, "resPath": self.res_path,
                             "resType": self.res_type,
                             "resFormat": copy.deepcopy(self.res_format) if isinstance(self.res_format, dict)
                             else list(self.res_format),
                             "isCollection": self.is_collection}
        if self.columns is not None:
            d["columns"] = [c.to_dict() for c in self.columns]
        for k, v in self.extra.items():
            d.setdefault(k, v)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Resource":
        cols = d.get("columns")
        columns = tuple(Column.from_dict(c) for c in cols if isinstance(c, dict)) \
            if isinstance(cols, list) else None
        fmt = d.get("resFormat")
        fmt = fmt if isinstance(fmt, dict) else tuple(fmt or ())
        extra = {k: v for k, v in d.items() if k not in
                 ("resID", "resPath", "resType", "resFormat", "isCollection", "columns")}
        return cls(d.get("resID"), d.get("resPath"), d.get("resType"), fmt,
                   bool(d.get("isCollection", False)), columns, extra)

    @property
    def is_table(self) -> bool:
        return self.res_type == "table"

    def column(self, name: str) -> Column | None:
        for c in self.columns or ():
            if c.col_name == name:
                return c
        return None

    @property
    def column_names(self) -> list[str]:
        return [c.col_name for c in sorted(self.columns or (), key=_col_order)]

    @property
    def index_columns(self) -> list[str]:
        """Columns with role ``index`` (``multiIndex`` too), in colIndex order."""
        return [c.col_name for c in sorted(self.columns or (), key=_col_order)
                if "index" in c.role or "multiIndex" in c.role]


def image_index_column(resource: "Resource | None", columns=None) -> str | None:
    """The column that keys objectDetection rows by image: the first index column of
    ``resource`` (learningData) other than ``d3mIndex``, in colIndex order — the 3.1 (d3mIndex,
    image) multi-index; in the 4.0.0 form (d3mIndex is the one ``multiIndex`` column) the
    first column referring to a collection item; restricted to ``columns`` when given; else a
    column named ``image`` among ``columns``. The one owner of this rule (splits,
    validation, scoring).

    >>> ld = Resource.table("learningData", "tables/learningData.csv", [
    ...     Column(0, "d3mIndex", "integer", ("index",)), Column(1, "img", "string", ("index",))])
    >>> image_index_column(ld), image_index_column(ld, ["d3mIndex", "x"]), image_index_column(None, ["image"])
    ('img', None, 'image')
    """
    for name in (resource.index_columns if resource is not None else []):
        if name != "d3mIndex" and (columns is None or name in columns):
            return name
    if resource is not None and any("multiIndex" in c.role for c in resource.columns or ()):
        for c in sorted(resource.columns or (), key=_col_order):
            ref = c.refers_to if isinstance(c.refers_to, dict) else {}
            if ref.get("resObject") == "item" and (columns is None or c.col_name in columns):
                return c.col_name
    return "image" if columns is not None and "image" in columns else None


class DatasetDoc(JsonDocument):
    """datasetDoc.json as data plus typed accessors; ``root`` is the dataset directory
    (:class:`~d3mkit.documents.jsonio.JsonDocument`: ``load``, ``from_dict``, ``to_dict``,
    ``to_json``, ``save``)."""

    FILE_NAME = "datasetDoc.json"

    @property
    def root(self) -> Path | None:
        return self.path.parent if self.path is not None else None

    @classmethod
    def new(cls, dataset_id: str, name: str, resources: list[Resource], *,
            description: str | None = None, license: str = "CC0",
            source: str | None = None, extra_about: dict | None = None) -> "DatasetDoc":
        about: dict[str, Any] = {"datasetID": dataset_id, "datasetName": name}
        if description:
            about["description"] = description
        about["license"] = license
        if source:
            about["source"] = source
        about.update(extra_about or {})
        about["datasetVersion"] = "1.0"
        about["datasetSchemaVersion"] = SCHEMA_VERSION
        about["redacted"] = False
        return cls({"about": about, "dataResources": [r.to_dict() for r in resources]})

    # accessors ------------------------------------------------------------------------
    @property
    def about(self) -> dict:
        a = self.data.get("about") if isinstance(self.data, dict) else None
        return a if isinstance(a, dict) else {}

    @property
    def dataset_id(self) -> str | None:
        return self.about.get("datasetID")

    @property
    def resources(self) -> list[Resource]:
        rs = self.data.get("dataResources") if isinstance(self.data, dict) else None
        return [Resource.from_dict(r) for r in rs if isinstance(r, dict)] if isinstance(rs, list) else []

    def resource(self, res_id: str) -> Resource | None:
        for r in self.resources:
            if r.res_id == res_id:
                return r
        return None

    @property
    def learning_data(self) -> Resource | None:
        """The entry-point table: resPath ending in ``learningData.csv``, else resID
        ``learningData``, else the only table."""
        tables = [r for r in self.resources if r.is_table]
        for r in tables:
            if str(r.res_path).endswith("learningData.csv"):
                return r
        for r in tables:
            if r.res_id == "learningData":
                return r
        return tables[0] if len(tables) == 1 else None

    def media_columns(self, table: Resource | None = None) -> dict[str, Resource]:
        """Columns of ``table`` (default learningData) whose ``refersTo`` names an item of a
        collection resource, mapped to that collection, in colIndex order. The one owner of
        "which column holds the file names of the media, and where the files are"."""
        table = table if table is not None else self.learning_data
        out: dict[str, Resource] = {}
        for col in sorted(table.columns or (), key=_col_order) if table is not None else ():
            ref = col.refers_to
            if isinstance(ref, dict) and ref.get("resObject") == "item":
                res = self.resource(str(ref.get("resID")))
                if res is not None and res.is_collection:
                    out[col.col_name] = res
        return out

    def resource_path(self, res: Resource) -> Path:
        """Where ``res`` is on disk; a resPath that leaves the dataset directory
        (absolute, ``..``, a symlink out) is an error naming the datasetDoc
        (:func:`d3mkit.io.paths.resolve_inside`)."""
        if self.root is None:
            raise ValueError("document has no location on disk")
        rs = self.data.get("dataResources") if isinstance(self.data, dict) else None
        loc = next((f"dataResources[{i}].resPath" for i, r in enumerate(rs if isinstance(rs, list) else [])
                    if isinstance(r, dict) and r.get("resID") == res.res_id), "dataResources")
        return resolve_inside(self.root, res.res_path, doc=self.path, location=loc, what="resPath",
                              root_name="the dataset directory")

    def __repr__(self) -> str:
        return f"DatasetDoc({self.dataset_id!r}, {len(self.resources)} resources)"
