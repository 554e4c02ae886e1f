"""datasetDoc conversion between datasetSchema 3.1.2 and 4.0.0.

This module owns what changes in a dataset between the two versions:

* ``resFormat``: 3.1.2 lists media types (``["image/png"]``), 4.0.0 maps each media type to
  its file extensions (``{"image/png": ["png"]}``; the extensions are the ones the D3M
  resource-format table gives, else the media subtype);
* bounding boxes: a 3.1.2 objectDetection column with role ``boundingBox`` holds
  ``x_min,y_min,x_max,y_max``; 4.0.0 has role ``boundingPolygon`` with the four corners,
  eight coordinates ``x_min,y_min,x_min,y_max,x_max,y_max,x_max,y_min`` (counter-clockwise,
  as the D3M seed datasets write them). Back to 3.1.2, a polygon becomes its bounding box
  (a polygon that is not an axis-aligned rectangle loses its shape: a warning);
* ``datasetSchemaVersion``; 4.0.0-only fields (``columnsCount``, ``timeGranularity``,
  ``digest``) are dropped on the way to 3.1.2 with a warning, and a 4.0.0 table that does
  not declare all its columns (minimal metadata) cannot be converted to 3.1.2.

:func:`convert_dataset` converts a parsed datasetDoc and says which CSV columns must be
rewritten (:func:`d3mkit.taskroot.writer.convert_tree` converts a whole task root or views tree,
tables included).

>>> box_to_polygon("10,20,30,40")
'10,20,10,40,30,40,30,20'
>>> polygon_to_box("10,20,10,40,30,40,30,20")
('10,20,30,40', True)
>>> doc = {"about": {"datasetID": "d", "datasetSchemaVersion": "3.1.2"}, "dataResources": [
...     {"resID": "learningData", "resPath": "tables/learningData.csv", "resType": "table",
...      "resFormat": ["text/csv"], "columns": [{"colIndex": 0, "colName": "box",
...      "colType": "realVector", "role": ["boundingBox"]}]}]}
>>> new, issues, rewrites = convert_dataset(doc, "4.0.0")
>>> new["dataResources"][0]["resFormat"], new["dataResources"][0]["columns"][0]["role"], rewrites
({'text/csv': ['csv']}, ['boundingPolygon'], [('learningData', 'box', 'polygon')])
"""

from __future__ import annotations

import copy
from typing import Any

from d3mkit.core.errors import Issue, error, warning

DATASET_VERSIONS = ("3.1.2", "4.0.0")

# media type -> file extensions (the D3M resource-format table of the 3.x datasets)
MEDIA_EXTENSIONS: dict[str, list[str]] = {
    "audio/aiff": ["aif", "aiff"], "audio/flac": ["flac"], "audio/ogg": ["ogg"], "audio/wav": ["wav"],
    "audio/mpeg": ["mp3"], "image/jpeg": ["jpeg", "jpg"], "image/png": ["png"], "video/mp4": ["mp4"],
    "video/avi": ["avi"], "text/csv": ["csv"], "text/plain": ["txt"], "text/gml": ["gml"],
}
FIELDS_NOT_IN_312 = {"about": ("digest",), "resource": ("columnsCount",), "column": ("timeGranularity",)}


def box_to_polygon(text: str) -> str:
    """``x_min,y_min,x_max,y_max`` -> the 8 coordinates of its corners (cell text kept)."""
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) != 4 or not all(_is_number(p) for p in parts):
        raise ValueError(f"{text!r} is not x_min,y_min,x_max,y_max")
    x0, y0, x1, y1 = parts
    return ",".join([x0, y0, x0, y1, x1, y1, x1, y0])


def polygon_to_box(text: str) -> tuple[str, bool]:
    """8 (or any even number of) coordinates -> (``x_min,y_min,x_max,y_max``, whether the
    polygon was exactly that axis-aligned rectangle)."""
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) < 4 or len(parts) % 2 or not all(_is_number(p) for p in parts):
        raise ValueError(f"{text!r} is not a list of x,y coordinates")
    xs, ys = parts[0::2], parts[1::2]
    fx, fy = [float(x) for x in xs], [float(y) for y in ys]
    x0, x1 = xs[fx.index(min(fx))], xs[fx.index(max(fx))]
    y0, y1 = ys[fy.index(min(fy))], ys[fy.index(max(fy))]
    corners = {(min(fx), min(fy)), (min(fx), max(fy)), (max(fx), max(fy)), (max(fx), min(fy))}
    exact = len(fx) == 4 and set(zip(fx, fy)) == corners
    return ",".join([x0, y0, x1, y1]), exact


def _is_number(s: str) -> bool:
    try:
        float(s)
        return s.strip() != ""
    except ValueError:
        return False


def dataset_version_of(doc: Any) -> str | None:
    """``"4.0.0"`` for a dataset in the 4.0 form (resFormat objects or declared 4.x),
    ``"3.1.2"`` for the 3.x form, None when it is not a datasetDoc."""
    if not isinstance(doc, dict) or not isinstance(doc.get("dataResources"), list):
        return None
    about = doc.get("about") if isinstance(doc.get("about"), dict) else {}
    declared = about.get("datasetSchemaVersion")
    if isinstance(declared, str) and declared.startswith("4."):
        return "4.0.0"
    if any(isinstance(r, dict) and isinstance(r.get("resFormat"), dict) for r in doc["dataResources"]):
        return "4.0.0"
    return "3.1.2"


def convert_dataset(doc: Any, to: str, path: str = "") -> tuple[dict | None, list[Issue], list[tuple]]:
    """Convert a parsed datasetDoc to ``to`` (3.1.2 or 4.0.0).

    Returns ``(document or None, issues, rewrites)``; ``rewrites`` lists
    ``(resID, colName, "polygon"|"box")``: the table columns whose values must be rewritten
    (:func:`box_to_polygon` / :func:`polygon_to_box`)."""
    if to not in DATASET_VERSIONS:
        raise ValueError(f"unknown target version {to!r}; expected one of {', '.join(DATASET_VERSIONS)}")
    source = dataset_version_of(doc)
    if source is None:
        return None, [error("convert.not_dataset", "", "not a datasetDoc: expected an object with a "
                                                        "\"dataResources\" list", path)], []
    out = copy.deepcopy(doc)
    about = out.setdefault("about", {})
    issues: list[Issue] = []
    rewrites: list[tuple] = []
    if source == to:
        return out, [], []
    for i, res in enumerate(out["dataResources"]):
        if not isinstance(res, dict):
            continue
        loc = f"dataResources[{i}]"
        fmt = res.get("resFormat")
        if to == "4.0.0" and isinstance(fmt, list):
            res["resFormat"] = {str(m): list(MEDIA_EXTENSIONS.get(str(m), [str(m).split("/")[-1]])) for m in fmt}
        elif to == "3.1.2" and isinstance(fmt, dict):
            res["resFormat"] = list(fmt)
        count = res.get("columnsCount") if isinstance(res.get("columnsCount"), int) else None
        if to == "3.1.2":
            issues += _drop_fields(res, "resource", loc, path)
        cols = res.get("columns")
        if not isinstance(cols, list):
            continue
        if to == "3.1.2" and res.get("resType") in ("table", "timeseries", "edgeList"):
            idx = sorted(c.get("colIndex") for c in cols if isinstance(c, dict) and isinstance(c.get("colIndex"), int))
            if idx != list(range(len(idx))) or (count is not None and count != len(idx)):
                issues.append(error("convert.partial_columns", f"{loc}.columns",
                                    "this 4.0.0 table declares only some of its columns (minimal metadata); "
                                    "datasetSchema 3.1.2 needs every column with its colType and role", path))
        _convert_multi_index(cols, to)
        for j, col in enumerate(cols):
            if not isinstance(col, dict) or not isinstance(col.get("role"), list):
                continue
            roles = col["role"]
            old, new, kind = ("boundingBox", "boundingPolygon", "polygon") if to == "4.0.0" else \
                ("boundingPolygon", "boundingBox", "box")
            if old in roles:
                col["role"] = [new if r == old else r for r in roles]
                rewrites.append((res.get("resID"), col.get("colName"), kind))
            if to == "3.1.2":
                issues += _drop_fields(col, "column", f"{loc}.columns[{j}]", path)
    if to == "3.1.2":
        issues += _drop_fields(about, "about", "about", path)
    about["datasetSchemaVersion"] = to
    if any(i.is_error for i in issues):
        return None, issues, []
    return out, issues, rewrites


def _drop_fields(obj: dict, kind: str, loc: str, path: str) -> list[Issue]:
    """Remove the 4.0.0-only fields of ``obj`` (an about, resource or column), one warning each."""
    out = []
    for f in FIELDS_NOT_IN_312[kind]:
        if f in obj:
            del obj[f]
            out.append(warning("convert.dropped_field", f"{loc}.{f}",
                               f"{f} has no datasetSchema 3.1.2 equivalent and is dropped", path))
    return out


def _convert_multi_index(cols: list, to: str) -> None:
    """objectDetection's multi-index: 3.1.2 gives both d3mIndex and the image column role
    ``index``; 4.0.0 allows one index column per table and writes d3mIndex as ``multiIndex``
    (rows of one image repeat it) and the image column as an attribute referring to the
    collection item, as the 4.0.0 seed datasets do."""
    dicts = [c for c in cols if isinstance(c, dict) and isinstance(c.get("role"), list)]
    if to == "4.0.0":
        index = [c for c in dicts if "index" in c["role"]]
        if len(index) < 2 or not any(c.get("colName") == "d3mIndex" for c in index):
            return
        for c in index:
            new = "multiIndex" if c.get("colName") == "d3mIndex" else "attribute"
            c["role"] = list(dict.fromkeys(new if r == "index" else r for r in c["role"]))
    else:
        multi = [c for c in dicts if "multiIndex" in c["role"]]
        if len(multi) != 1 or multi[0].get("colName") != "d3mIndex":
            return
        items = [c for c in dicts if isinstance(c.get("refersTo"), dict)
                 and c["refersTo"].get("resObject") == "item" and "attribute" in c["role"]]
        if not items or not any("boundingPolygon" in c["role"] for c in dicts):
            return
        multi[0]["role"] = ["index" if r == "multiIndex" else r for r in multi[0]["role"]]
        c = items[0]
        c["role"] = list(dict.fromkeys("index" if r == "attribute" else r for r in c["role"]))
