"""A task root as Croissant 1.1 JSON-LD (``d3mkit export croissant``): the one owner of the
mapping between D3M documents and Croissant (docs/interop.md has the table).

* **distribution**: a ``cr:FileObject`` per table resource and for dataSplits.csv, each with
  its sha256 (the digest the manifest recorded, :mod:`d3mkit.taskroot.digests`, when the file's size
  still matches; else hashed here), and a ``cr:FileSet`` per media collection. Every
  ``contentUrl`` is relative to the Croissant file, which must sit in a directory that holds
  the task root.
* **record sets**: ``learningData`` (key: the index column; each field typed from its colType:
  integer ``sc:Integer``, real ``sc:Float``, boolean ``sc:Boolean``, dateTime ``sc:Date``,
  anything else ``sc:Text``; targets also ``cr:Label``), one ``sc:Enumeration`` record set
  ``enumerations/<column>`` per categorical column listing its labels (as openml-croissant
  does; the column's description names it, see :func:`croissant_document`), ``splits`` (``cr:Split``: TRAIN is
  ``cr:TrainingSplit``, TEST ``cr:TestSplit``) and ``dataSplits`` (d3mIndex, type, repeat,
  fold: Croissant has no folds, so every repeat and fold is a row there).
* **the problem**: a Croissant Tasks ``cr:TaskProblem`` (``d3m:problem``, :func:`task_problem`):
  ``cr:input`` the dataset, ``cr:output`` a ``cr:OutputSpec`` whose ``cr:schema`` is the record
  set of predictions.csv (index and targets, ``cr:Label``), ``cr:evaluation`` a
  ``cr:EvaluationSpec`` naming the metrics (``cr:expectedMetric``); the splits are ``cr:Split`` (above).
  What the Tasks vocabulary has no term for stays ``d3m:`` (the D3M problemSchema's own names,
  namespace :data:`D3M_NS`): task type and subtype, metric parameters, split parameters.
* **description and RAI**: name, description, licence, citation (``citeAs``), version, and the
  ``rai:`` fields from ``--rai``, the manifest's ``"rai"`` or the card of the benchmark the
  manifest names (:class:`d3mkit.benchmarks.plugins.Card`, a field of its Benchmark record; so
  a third-party benchmark brings its own); a missing one of :data:`RAI_REQUIRED` is a
  ``croissant.rai_missing`` warning.

Nothing here imports mlcroissant: the document is built as plain JSON (mlcroissant checks it in
the tests and in tools/bench_export.py).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from d3mkit.core.errors import D3MKitError, Issue, UsageError, error, warning

CONFORMS = "http://mlcommons.org/croissant/1.1"
RAI_CONFORMS = "http://mlcommons.org/croissant/RAI/1.0"
D3M_NS = "https://gitlab.com/datadrivendiscovery/data-supply/-/blob/shared/documentation/"

# the Croissant 1.1 @context, as mlcroissant 1.1 writes it, plus the d3m: namespace
CONTEXT = {
    "@language": "en", "@vocab": "https://schema.org/", "arrayShape": "cr:arrayShape",
    "citeAs": "cr:citeAs", "column": "cr:column", "conformsTo": "dct:conformsTo",
    "containedIn": "cr:containedIn", "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/", "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"}, "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"}, "extract": "cr:extract",
    "field": "cr:field", "fileProperty": "cr:fileProperty", "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet", "format": "cr:format", "includes": "cr:includes",
    "isArray": "cr:isArray", "isLiveDataset": "cr:isLiveDataset", "jsonPath": "cr:jsonPath",
    "key": "cr:key", "md5": "cr:md5", "parentField": "cr:parentField", "path": "cr:path",
    "recordSet": "cr:recordSet", "references": "cr:references", "regex": "cr:regex",
    "repeated": "cr:repeated", "replace": "cr:replace", "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/", "separator": "cr:separator", "source": "cr:source",
    "subField": "cr:subField", "transform": "cr:transform",
    "d3m": D3M_NS,
}

from d3mkit.importing.croissant import DATA_TYPES, id_part  # noqa: E402  (colType -> dataType, ids: the reader's)

# Croissant RAI properties (rai: namespace) the NeurIPS datasets track asks for
RAI_REQUIRED = ("dataCollection", "dataBiases", "dataLimitations", "personalSensitiveInformation",
                "dataUseCases")
SPLIT_URLS = {"TRAIN": "cr:TrainingSplit", "TEST": "cr:TestSplit"}
MEDIA_FORMATS = {"image": "image/png", "audio": "audio/wav", "video": "video/mp4", "text": "text/plain"}


def field_id(record_set: str, column: str) -> str:
    """The ``@id`` of the field ``column`` of ``record_set`` (the key of its records)."""
    return f"{id_part(record_set)}/{id_part(column)}"


_fid = field_id


def enumeration_id(column: str) -> str:
    return f"enumerations/{id_part(column)}"


def collection_formats(folder: Path) -> list[str]:
    """The media types of the files under ``folder`` (by extension, :mod:`mimetypes`; an
    unknown one ``application/octet-stream``), sorted: a FileSet's ``encodingFormat`` names
    the formats present, not the first the datasetDoc lists."""
    import mimetypes
    found = set()
    for _dir, _subs, files in os.walk(folder):
        for f in files:
            found.add(mimetypes.guess_type(f, strict=False)[0] or "application/octet-stream")
    return sorted(found)


def _rel(path: Path, base: Path) -> str:
    return Path(os.path.relpath(path, base)).as_posix()


class _Digests:
    """sha256 of a file of the task root: the manifest's when its size still matches (only
    the entries of ``paths`` are read from the manifest, :meth:`TaskRoot.recorded_digests`)."""

    def __init__(self, task, paths: list[Path]):
        self.root = task.root
        self.recorded = task.recorded_digests([_rel(p, task.root) for p in paths])[0] or {}

    def __call__(self, path: Path) -> str:
        from d3mkit.taskroot.digests import file_sha256
        rel = _rel(path, self.root)
        rec = self.recorded.get(rel)
        if isinstance(rec, dict) and rec.get("bytes") == os.stat(path).st_size:
            return rec["sha256"]
        return file_sha256(path)[0]


def rai_fields(task, rai: dict | None, rai_path: str = "") -> tuple[dict, list[Issue]]:
    """The ``rai:`` fields: ``rai`` (from ``--rai``) over the manifest's ``"rai"`` over the
    benchmark's card; keys may be given with or without the ``rai:`` prefix. A missing
    required field is a ``croissant.rai_missing`` warning; a value that is not text (or a
    list of text) is a ``croissant.rai`` error."""
    from d3mkit.benchmarks.plugins import card
    merged: dict = {}
    for source in (card(task.benchmark).rai, task.manifest.get("rai") or {}, rai or {}):
        if isinstance(source, Mapping):
            merged.update({str(k).removeprefix("rai:"): v for k, v in source.items()})
    issues = []
    for k, v in merged.items():
        ok = isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v))
        if not ok:
            issues.append(error("croissant.rai", k, "an RAI field is text or a list of text", rai_path))
    for k in RAI_REQUIRED:
        if not merged.get(k):
            issues.append(warning("croissant.rai_missing", f"rai:{k}", f"the RAI field rai:{k} is missing "
                                  f"(give it in the RAI file or the build manifest's \"rai\")",
                                  rai_path or str(task.root)))
    return {f"rai:{k}": v for k, v in merged.items()}, issues


def about_citation(task) -> str:
    """The citation of a task root: the datasetDoc's, else the card of its benchmark's."""
    from d3mkit.benchmarks.plugins import card
    return task.dataset.about.get("citation") or card(task.benchmark).citation


def about_license(task) -> str:
    """The licence of a task root: the datasetDoc's, else its benchmark card's, else "unknown"."""
    from d3mkit.benchmarks.plugins import card
    lic = task.dataset.about.get("license")
    return lic if lic and str(lic).lower() != "unknown" else card(task.benchmark).license or "unknown"


# a D3M boolean cell (true/false/t/f/yes/no/1/0, any case and surrounding space) through
# mlcroissant's regex transform: the first group that matched is the value, and mlcroissant
# casts it with bool(): a true spelling stays itself, a false one becomes "" (False)
BOOL_REGEX = r"^\s*(?:((?i:true|t|yes|y|1))|(?i:false|f|no|n|0)())\s*$"
# the spellings pandas.read_csv (which mlcroissant reads a CSV with) turns into bool itself
_PANDAS_BOOL = {"True", "true", "TRUE", "False", "false", "FALSE"}


def pandas_reads_bool(spellings) -> bool:
    """Whether pandas reads a column whose distinct cells are ``spellings`` as booleans or
    0/1 numbers (mlcroissant's bool() of either is right); else the cells stay text, and
    bool("no") is True: the field needs :data:`BOOL_REGEX`."""
    cells = {str(v) for v in spellings} - {""}
    return cells <= _PANDAS_BOOL or cells <= {"0", "1"}


def _field(rs: str, col: str, dtype, file_id: str, description: str = "", references: str | None = None,
           transform: dict | None = None) -> dict:
    f = {"@type": "cr:Field", "@id": _fid(rs, col), "name": col, "dataType": dtype,
         "source": {"fileObject": {"@id": file_id}, "extract": {"column": col}}}
    if transform:
        f["source"]["transform"] = transform
    if description:
        f["description"] = description
    if references:
        f["references"] = {"field": {"@id": references}}
    return f


def croissant_document(task, base: Path, *, rai: dict | None = None, rai_path: str = "",
                       carried: list[Issue] = ()) -> tuple[dict, list[Issue]]:
    """The Croissant JSON-LD of ``task`` (a :class:`d3mkit.taskroot.model.TaskRoot`) with every
    ``contentUrl`` relative to the directory ``base``, and the warnings (RAI fields).
    ``carried`` are validation issues the task root has (exported anyway): the document says so."""
    ddoc, pdoc = task.dataset, task.problem
    about, pabout = ddoc.about, pdoc.about
    splits_path = task.problem_dir / pdoc.splits_file
    digests = _Digests(task, [ddoc.resource_path(r) for r in ddoc.resources if r.is_table] + [splits_path])
    issues: list[Issue] = []
    rai_values, rai_issues = rai_fields(task, rai, rai_path)
    issues += rai_issues
    citation = about_citation(task) or \
        f"{about.get('datasetName') or task.name}: {about.get('source') or 'a d3mkit task root'}"

    distribution, record_sets = [], []
    ld = ddoc.learning_data
    media = ddoc.media_columns(ld)
    for res in ddoc.resources:
        path = ddoc.resource_path(res)
        if res.is_collection:
            fmts = collection_formats(path) or [MEDIA_FORMATS.get(str(res.res_type), "application/octet-stream")]
            fmt = fmts[0] if len(fmts) == 1 else fmts
            distribution.append({"@type": "cr:FileSet", "@id": f"collection/{id_part(res.res_id)}",
                                 "name": f"collection {res.res_id}",
                                 "description": f"D3M collection resource {res.res_id!r} ({res.res_type}); "
                                                f"learningData names its files relative to this directory",
                                 "encodingFormat": fmt, "includes": f"{_rel(path, base)}/**"})
        elif res.is_table:
            distribution.append({"@type": "cr:FileObject", "@id": f"file/{id_part(res.res_id)}",
                                 "name": _rel(path, task.dataset_dir), "contentUrl": _rel(path, base),
                                 "encodingFormat": "text/csv", "sha256": digests(path)})
    distribution.append({"@type": "cr:FileObject", "@id": "file/dataSplits",
                         "name": _rel(splits_path, task.problem_dir), "contentUrl": _rel(splits_path, base),
                         "encodingFormat": "text/csv", "sha256": digests(splits_path)})

    # enumerations of categorical columns (labels as TaskRoot.frame() reads them, typed only
    # where needed: typing every column of a wide table is most of an export's time)
    targets = set(pdoc.target_names)
    categories, spellings, written = _column_values(task, ld)
    fields = []
    index_cols = ld.index_columns if ld is not None else []
    from d3mkit.interop.undeclared import all_columns      # minimal metadata: undeclared columns too
    for col in all_columns(task, ld):
        name, ctype = col.col_name, col.col_type
        dtype = DATA_TYPES.get(ctype, "sc:Text")
        desc = f"colType {ctype}; role {', '.join(col.role or [])}"
        if name in media:
            desc += f"; a file of FileSet collection/{id_part(media[name].res_id)}"
        transform = None
        if ctype == "boolean" and not pandas_reads_bool(spellings.get(name, ())):
            transform = {"regex": BOOL_REGEX}
            desc += "; read through a regex that leaves a false spelling empty (docs/interop.md)"
        changed = pandas_changes(written.get(name, ())) if ctype in ("categorical", "string") else {}
        if changed:
            first = next(iter(sorted(changed)))
            issues.append(warning("croissant.pandas_reads", "", f"mlcroissant reads {len(changed)} "
                                  f"distinct cell(s) of this column otherwise than written (pandas' defaults): "
                                  f"{first!r} as {changed[first]!r}", str(ddoc.resource_path(ld)), column=name))
        labels = categories.get(name, []) if ctype == "categorical" else []
        if labels:                       # never an empty enumeration: mlcroissant refuses `data: []`
            eid = enumeration_id(name)
            record_sets.append({
                "@type": "cr:RecordSet", "@id": eid, "name": eid, "dataType": "sc:Enumeration",
                "description": f"The labels of the categorical column {name!r} of learningData.",
                "key": {"@id": f"{eid}/value"},
                "field": [{"@type": "cr:Field", "@id": f"{eid}/value", "name": "value",
                           "dataType": "sc:Text"}],
                "data": [{f"{eid}/value": v} for v in labels]})
            # named, not "references": mlcroissant 1.1.1 joins on a reference, and the join fails
            # when pandas reads numeric labels as numbers (docs/interop.md)
            desc += f"; its labels are the enumeration record set {eid}"
        fields.append(_field("learningData", name, [dtype, "cr:Label"] if name in targets else dtype,
                             f"file/{id_part(ld.res_id)}", desc, transform=transform))
    rs_ld = {"@type": "cr:RecordSet", "@id": "learningData", "name": "learningData",
             "description": "The D3M learningData table, one record per row, typed from the datasetDoc's colTypes.",
             "field": fields}
    if index_cols:
        rs_ld["key"] = [{"@id": _fid("learningData", c)} for c in index_cols] if len(index_cols) > 1 \
            else {"@id": _fid("learningData", index_cols[0])}
    record_sets.insert(0, rs_ld)
    record_sets.append({
        "@type": "cr:RecordSet", "@id": "splits", "name": "splits", "dataType": "cr:Split",
        "description": "The D3M split types: TRAIN and TEST rows of each repeat and fold (record set dataSplits).",
        "key": {"@id": "splits/name"},
        "field": [{"@type": "cr:Field", "@id": "splits/name", "name": "name", "dataType": "sc:Text"},
                  {"@type": "cr:Field", "@id": "splits/url", "name": "url", "dataType": "sc:URL"}],
        "data": [{"splits/name": k, "splits/url": v} for k, v in SPLIT_URLS.items()]})
    index_type = fields[[f["name"] for f in fields].index(index_cols[0])]["dataType"] if index_cols else "sc:Text"
    record_sets.append({
        "@type": "cr:RecordSet", "@id": "dataSplits", "name": "dataSplits",
        "description": "dataSplits.csv: which learningData rows (d3mIndex) are TRAIN or TEST in each repeat "
                       "and fold (Croissant has no folds: holdOut has repeat 0, fold 0 only).",
        "field": [_field("dataSplits", "d3mIndex", index_type, "file/dataSplits"),
                  _field("dataSplits", "type", "sc:Text", "file/dataSplits",
                         "TRAIN or TEST, a name of the record set splits", "splits/name"),
                  _field("dataSplits", "repeat", "sc:Integer", "file/dataSplits"),
                  _field("dataSplits", "fold", "sc:Integer", "file/dataSplits")]})

    description = " ".join(x for x in (about.get("description"), pabout.get("problemDescription")) if x) \
        or f"The D3M task root {task.name}."
    if carried:
        description += (f" NOTE: exported although the task root does not validate ({len(carried)} "
                        f"issue(s), listed in d3m:validationIssues).")
    doc = {
        "@context": CONTEXT, "@type": "sc:Dataset",
        "name": about.get("datasetName") or task.name,
        "description": description,
        "conformsTo": [CONFORMS, RAI_CONFORMS],
        "citeAs": citation,
        "license": about_license(task),
        "url": f"{_rel(task.root, base)}/",
        "version": _version(about.get("datasetVersion")),
        "datePublished": _written(task),
        "distribution": distribution,
        "recordSet": record_sets,
        "d3m:datasetID": ddoc.dataset_id,
        **rai_values,
    }
    doc["d3m:problem"] = task_problem(task, doc, fields, index_cols)
    if about.get("source"):
        doc["isBasedOn"] = about["source"]
    if carried:
        doc["d3m:validationIssues"] = [i.format() for i in carried]
    return {k: v for k, v in doc.items() if v is not None}, issues


def task_problem(task, doc: dict, fields: list[dict], index_cols: list[str]) -> dict:
    """The problem as a Croissant Tasks ``cr:TaskProblem`` (github.com/mlcommons/croissant,
    tasks/): its input is the dataset ``doc`` describes, its expected output (``cr:OutputSpec``)
    has the schema of predictions.csv (the index and the targets, each a ``cr:Label``), its
    evaluation (``cr:EvaluationSpec``) names the metrics (``cr:expectedMetric``). What the Tasks
    vocabulary has no term for stays ``d3m:``: the task type and subtype, the metrics with their
    parameters and the split parameters (the problemDoc's JSON as text)."""
    pdoc = task.problem
    pid = f"problem/{id_part(pdoc.problem_id)}"
    by_name = {f["name"]: f for f in fields}
    out_fields = []
    for col in [*index_cols[:1], *[t.col_name for t in pdoc.targets]]:
        f = by_name.get(col, {"dataType": "sc:Text"})
        out_fields.append({"@type": "cr:Field", "@id": f"{pid}/predictions/{id_part(col)}", "name": col,
                           "dataType": f["dataType"],
                           "references": {"field": {"@id": _fid("learningData", col)}}})
    return {
        "@type": "cr:TaskProblem", "@id": pid, "name": pdoc.problem_id,
        "description": pdoc.about.get("problemDescription") or f"The D3M problem of {task.name}.",
        "cr:input": {"@id": doc["url"]},            # the dataset (its url; mlcroissant reads a nested sc:Dataset as a second one)
        "cr:output": {"@type": "cr:OutputSpec", "@id": f"{pid}/output", "name": "predictions.csv",
                      "description": "One prediction per TEST row: the index and each target.",
                      "cr:schema": {"@type": "cr:RecordSet", "@id": f"{pid}/predictions", "name": "predictions",
                                    "field": out_fields}},
        "cr:evaluation": {"@type": "cr:EvaluationSpec", "@id": f"{pid}/evaluation",
                          # the Tasks shapes ask for expectedMetric, an xsd:string (not @language en)
                          "cr:expectedMetric": [{"@value": n} for n in pdoc.metric_names]},
        "d3m:taskType": pdoc.task_type,
        "d3m:taskSubType": pdoc.task_subtype,
        "d3m:performanceMetrics": json.dumps(pdoc.metrics),
        "d3m:dataSplits": json.dumps(pdoc.splits),
    }


def _column_values(task, ld):
    """The labels of each categorical column of learningData, as :meth:`TaskRoot.frame` reads
    them, sorted; the distinct cells of each boolean column as written; and those of each
    categorical and string column as written (up to :data:`MAX_SURVEYED`). Only those
    columns are read, a block at a time (the memory holds the distinct cells, not the rows)."""
    from d3mkit.tables import read_table_chunks
    from d3mkit.validation.coltypes import typed
    from d3mkit.interop.undeclared import all_columns
    cols = all_columns(task, ld) if ld is not None else []
    wanted = [c.col_name for c in cols if c.col_type in ("categorical", "string")]
    bools = [c.col_name for c in cols if c.col_type == "boolean"]
    labels: dict[str, set] = {c: set() for c in wanted}
    raw: dict[str, set | None] = {c: set() for c in wanted}     # the cells as written (pandas_changes)
    spellings: dict[str, set] = {c: set() for c in bools}
    if wanted or bools:
        for chunk in read_table_chunks(task.dataset.resource_path(ld), usecols=wanted + bools):
            for c in chunk.columns:
                if c in raw and raw[c] is not None:
                    raw[c].update(chunk[c].unique())
                    if len(raw[c]) > MAX_SURVEYED:
                        raw[c] = None
                if c in labels and (labels[c] is not None):
                    labels[c].update(str(v) for v in typed(chunk[c], "categorical").dropna().unique())
                    if len(labels[c]) > MAX_SURVEYED:
                        labels[c] = None         # a free-text column: not surveyed further
                if c in spellings and len(spellings[c]) < 64:
                    spellings[c].update(chunk[c].unique())
    return ({c: sorted(v) for c, v in labels.items() if v is not None}, spellings,
            {c: sorted(v) for c, v in raw.items() if v is not None})


MAX_SURVEYED = 100_000


def pandas_changes(cells) -> dict[str, str | None]:
    """The cells of a text column that mlcroissant does not read back as written: it reads
    a CSV with pandas' defaults, which turn ``NA``, ``null``, ``None``... into missing
    values, a column of ``TRUE``/``FALSE`` into booleans and a column of numbers into
    numbers (``007`` -> ``7``). ``{cell: what mlcroissant yields (None: missing)}``, found by
    reading the distinct cells the way mlcroissant reads the file."""
    import csv
    import io

    import pandas as pd
    empty = "" in cells                  # an empty cell makes pandas read numbers as floats (2 -> 2.0)
    cells = [c for c in cells if c != ""]
    if not cells:
        return {}
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["c", "k"])
    w.writerows([c, 0] for c in cells)
    if empty:
        w.writerow(["", 0])
    read = pd.read_csv(io.StringIO(buf.getvalue()))["c"].tolist()
    out = {}
    for c, v in zip(cells, read):
        got = None if pd.isna(v) else str(v)
        if got != c:
            out[c] = got
    return out


def _written(task) -> str:
    """The day the task root was written (its manifest's, else its datasetDoc's mtime), UTC."""
    import datetime as dt
    p = task.debug_dir / "manifest.json"
    p = p if p.is_file() else task.dataset.path
    return dt.datetime.fromtimestamp(os.stat(p).st_mtime, dt.timezone.utc).date().isoformat()


def _version(v) -> str:
    """schema.org version as Croissant wants it (MAJOR.MINOR.PATCH)."""
    parts = str(v or "1.0").split(".")
    parts = [p if p.isdigit() else "0" for p in parts][:3]
    return ".".join(parts + ["0"] * (3 - len(parts)))


def default_out(root: Path | str) -> Path:
    """``<task root name>.croissant.json`` beside the task root."""
    from d3mkit.taskroot.model import TaskRoot
    task = TaskRoot.open(root)
    return task.root.parent / f"{task.name}.croissant.json"


def read_rai(path: Path | str) -> dict:
    """The RAI fields of a JSON file (an object); else :class:`D3MKitError` naming it."""
    from d3mkit.documents.jsonio import load_json
    data = load_json(path)
    if not isinstance(data, dict):
        raise D3MKitError(error("croissant.rai", "", f"an RAI file is a JSON object of field -> text, "
                                f"not {type(data).__name__}", str(path)))
    return data


def check_place(root: Path, out: Path) -> None:
    """``out`` may hold the Croissant file of the task root ``root``: not inside the root,
    and in a directory that holds it (every contentUrl is relative to the file)."""
    from d3mkit.io.paths import outside_reason
    r, o = root.resolve(), out.parent.resolve() / out.name
    if outside_reason(root, out) is None or r == o or r in o.parents:
        raise UsageError("the output is inside the task root; write it beside the task root", str(out))
    if o.parent not in r.parents:
        raise UsageError(f"the Croissant file names the task root's files relative to itself: write it "
                         f"in {r.parent} or a directory above it", str(out))


def export_croissant(root: Path | str, out: Path | str, *, rai: dict | None = None, rai_path: str = "",
                     force: bool = False) -> list[Issue]:
    """Write the Croissant file of the task root at ``root`` to ``out`` atomically; return the
    warnings. A task root that does not validate raises :class:`D3MKitError` with its errors,
    unless ``force`` (then the file lists them)."""
    from d3mkit.taskroot.model import TaskRoot
    task = TaskRoot.open(root)
    out = Path(out)
    check_place(task.root, out)
    errors = root_errors(task.root)
    if errors and not force:
        raise D3MKitError(errors)
    escapes = [i for i in errors if i.code == "path.escape"]
    if escapes:
        raise D3MKitError(escapes)       # never described, even with force
    doc, issues = croissant_document(task, out.parent, rai=rai, rai_path=rai_path, carried=errors)
    if any(i.is_error for i in issues):
        raise D3MKitError(issues)
    from d3mkit.io.atomic import atomic_path
    with atomic_path(out) as tmp:                 # beside ``out``: the contentUrls resolve the same
        tmp.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        issues += loads_back(tmp, out)
        if any(i.is_error for i in issues):
            raise D3MKitError([i for i in issues if i.is_error])
    return issues + ([invalid_root(task.root, errors, "the file lists them in d3m:validationIssues")]
                     if errors else [])


def root_errors(root: Path) -> list[Issue]:
    """The validation errors of the task root an export reads, without the consequences of
    one already reported: a datasetDoc that does not load or validate makes the problemDoc's
    dataset "missing" too (``problem.dataset_missing``), which is not said twice."""
    from d3mkit.validation import validate_task_root
    errors = [i for i in validate_task_root(root) if i.is_error]
    if any(str(i.path or "").endswith("datasetDoc.json") for i in errors):
        errors = [i for i in errors if i.code != "problem.dataset_missing"]
    return errors


def loads_back(path: Path, named: Path) -> list[Issue]:
    """mlcroissant's verdict on the Croissant file at ``path`` (reported as ``named``, the
    file the user asked for): each error it finds is a ``croissant.unloadable`` error, so
    d3mkit never reports success on a file mlcroissant cannot load. Without mlcroissant, one
    ``croissant.unchecked`` warning naming the extra."""
    import contextlib
    import io
    import logging
    try:
        import mlcroissant as mlc
    except ImportError:
        return [warning("croissant.unchecked", "", "not loaded back: mlcroissant is not installed "
                        "(pip install \"d3mkit[croissant]\")", str(named))]
    quiet = logging.getLogger()
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            try:
                found = list(mlc.Dataset(str(path)).metadata.ctx.issues.errors)
            except mlc.ValidationError as exc:
                found = [str(exc)]
    finally:
        quiet.setLevel(level)
    return [error("croissant.unloadable", "", f"mlcroissant cannot load the file d3mkit wrote: "
                  f"{' '.join(str(e).split())}", str(named)) for e in sorted(found)]


def invalid_root(root, errors: list[Issue], where: str) -> Issue:
    """The warning of an export of a task root with validation ``errors`` (with force)."""
    return warning("export.invalid_root", "", f"exported with {len(errors)} validation error(s) "
                   f"(first: [{errors[0].code}] {errors[0].message}); {where}", str(root))
