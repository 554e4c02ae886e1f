"""``d3mkit import croissant FILE --record-set RS --target FIELD --out DIR``: one record set of a
local Croissant file as a task root, through the same core as the table import
(:func:`d3mkit.importing.table.import_frame`). This module owns what Croissant input d3mkit
accepts and the dataType <-> colType table both ways (:data:`DATA_TYPES` is the export's,
:mod:`d3mkit.interop.croissant`).

Each field becomes a column named by the field's ``name``; its colType comes from its
dataType (:data:`COL_TYPES`; a ``cr:Label`` or a field with an ``sc:Enumeration`` of its labels
is categorical, other text ``string``), overridden by ``types``; the record set's key (when it
is one integer field) becomes d3mIndex. The dataset's description, licence and citation become
the datasetDoc's (``description`` less the problem description the export appends, ``license``,
``citation``), its ``rai:`` fields the manifest's ``"rai"`` (which the export reads back).

**The problem.** When the file's ``d3m:problem`` (a ``cr:TaskProblem``, as d3mkit's export
writes it, :func:`read_problem`) is posed on the imported record set, its targets are the
default targets, and when the targets are its own, its task type and subtype, its metrics
with their parameters (``d3m:performanceMetrics``, else ``cr:evaluation``/``cr:metric``
names) and its description are the task root's unless the caller gives them; so export ->
import -> export gives the same ``d3m:problem``. A metric not in the registry is
``metric.unknown``, a task type or subtype d3mkit does not import or an unreadable
``d3m:performanceMetrics`` ``croissant.problem``.

A Croissant file is untrusted input. Accepted: a JSON-LD object whose ``@context`` binds
``cr`` to ``http://mlcommons.org/croissant/`` and whose ``conformsTo`` is Croissant 1.0 or
1.1; a record set with inline ``data``, or whose fields each extract a ``column`` of the same
CSV ``cr:FileObject`` (or ``cr:FileSet`` of CSV files, concatenated in name order) named by a
relative ``contentUrl``/``includes`` inside the Croissant file's directory. The CSV is read by
d3mkit's own reader, every cell as text (:func:`d3mkit.tables.read_table`), so ``007`` stays
``007``; a FileObject's ``sha256``, when given, must match the bytes.

**Splits.** The source's splits are carried over (then ``--split`` and its options do not
apply): a record set keyed like the imported one with a field referring to a ``cr:Split``
record set and integer ``repeat`` and ``fold`` fields (what d3mkit's export writes,
``dataSplits``) gives dataSplits.csv row for row; otherwise a field of the imported record set
referring to a ``cr:Split`` record set (Croissant's split field) gives a holdOut split, that
field leaving the table. A split is TRAIN when its url is ``cr:TrainingSplit`` (or it is named
train/training), TEST for ``cr:TestSplit`` (test/testing); a validation split
(``cr:ValidationSplit``, val/valid/validation/dev) becomes TRAIN with a
``croissant.split_validation`` warning (D3M has no validation split); any other split is a
``croissant.split`` error. The split parameters come from the file's ``d3m:problem``
(``d3m:dataSplits``) when it has them, else they are read off the rows.

Refused, one issue each (exit 1): a ``contentUrl`` that is a URL (``croissant.url``: nothing is
downloaded), one leaving the directory (``path.escape``), an unknown context or version
(``croissant.context``), a missing record set or column (``croissant.record_set``,
``croissant.column``), nested records (``subField``, ``parentField``, ``repeated``, ``isArray``:
``croissant.nested``), sources d3mkit has no reader for (archives, Parquet, JSON, a
``transform``, a ``fileProperty``, fields from several files: ``croissant.unsupported``), a
digest mismatch (``croissant.digest``) and a problem d3mkit cannot take (above).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from d3mkit.core.errors import D3MKitError, error, require_path, require_type

CR = "http://mlcommons.org/croissant/"
# D3M colType -> Croissant dataType (anything else is sc:Text): the export's mapping
DATA_TYPES = {"integer": "sc:Integer", "real": "sc:Float", "boolean": "sc:Boolean", "dateTime": "sc:Date"}
VERSIONS = ("http://mlcommons.org/croissant/1.0", "http://mlcommons.org/croissant/1.1")
# Croissant dataType -> D3M colType (anything else: string)
COL_TYPES = {"sc:Integer": "integer", "sc:Float": "real", "sc:Number": "real", "sc:Boolean": "boolean",
             "sc:Date": "dateTime", "sc:DateTime": "dateTime"}
def id_part(name: str) -> str:
    """``name`` as a piece of an ``@id``: letters (any script), digits, ``_``, ``-`` and ``.``
    as they are, every other character percent-encoded (UTF-8). mlcroissant refuses an
    ``@id`` with whitespace, and a ``/``, ``#``, ``?`` or quote would change what the id
    names; records are keyed by these ids (docs/interop.md).

    >>> id_part("x one"), id_part("größe"), id_part("a+b/c")
    ('x%20one', 'größe', 'a%2Bb%2Fc')
    """
    from urllib.parse import quote
    return "".join(c if c.isalnum() or c in "_-." else quote(c, safe="") for c in str(name))


NESTED = ("subField", "parentField", "repeated", "isArray", "cr:subField", "cr:parentField")


@dataclass
class RecordSetTable:
    """A record set read as text: ``frame`` (columns = field names), each field's Croissant
    dataTypes, the fields whose values are labels (``cr:Label`` or an enumeration), and the
    dataset's name, description, licence, citation and RAI fields (``rai:``, text or lists of
    text)."""
    frame: pd.DataFrame
    types: dict[str, list[str]]
    labels: set[str]
    about: dict

    def col_type(self, name: str) -> str:
        for t in self.types.get(name, []):
            if t in COL_TYPES:
                return COL_TYPES[t]
        return "categorical" if name in self.labels else "string"


def is_url(text) -> bool:
    """``text`` names a URL (``scheme:/...``; a pathlib.Path keeps one slash of ``://``).

    >>> is_url("https://example.org/x.json"), is_url(Path("https://example.org/x")), is_url("data/x.csv")
    (True, True, False)
    """
    return bool(re.match(r"^[A-Za-z][A-Za-z0-9+.-]+:/", str(text)))


def _issue(code: str, where: str, msg: str, path) -> D3MKitError:
    return D3MKitError(error(code, where, msg, str(path)))


def _list(v) -> list:
    return v if isinstance(v, list) else [] if v is None else [v]


def _id(v) -> str | None:
    if isinstance(v, dict):
        v = v.get("@id")
    return v if isinstance(v, str) else None


def _text(v) -> str | None:
    """A Croissant text value: plain, or a Croissant 1.1 language map (``{"en": ..., "de": ...}``,
    English first, else the first language given)."""
    if isinstance(v, dict) and "@id" not in v:
        v = v.get("en") or v.get("@value") or next((x for x in v.values() if isinstance(x, str)), None)
    return v if isinstance(v, str) else None


def _field_name(f: dict) -> str:
    return str(_text(f.get("name")) or str(f.get("@id", "")).rsplit("/", 1)[-1])


def _ref(field: dict) -> str:
    """The @id a field ``references`` (``{"field": {"@id"}}`` or ``{"@id"}``), or ""."""
    r = field.get("references")
    if isinstance(r, dict) and "field" in r:
        r = r["field"]
    return _id(r) or ""


def check_context(doc, path) -> None:
    if not isinstance(doc, dict):
        raise _issue("croissant.context", "", f"a Croissant file is a JSON-LD object, not {type(doc).__name__}", path)
    ctx = doc.get("@context")
    if not isinstance(ctx, dict) or ctx.get("cr") != CR:
        raise _issue("croissant.context", "@context", f"unknown context: 'cr' must be bound to {CR} "
                     "(not a Croissant file, or one d3mkit cannot read)", path)
    versions = [v for v in _list(doc.get("conformsTo")) if isinstance(v, str)]
    if not any(v in VERSIONS for v in versions):
        raise _issue("croissant.context", "conformsTo", f"conformsTo {versions or None} names no Croissant "
                     f"version d3mkit reads ({', '.join(VERSIONS)})", path)


def _local(folder: Path, rel, where: str, path) -> Path:
    from d3mkit.io.paths import resolve_inside
    if not isinstance(rel, str) or not rel:
        raise _issue("croissant.unsupported", where, "a file without a contentUrl", path)
    if is_url(rel) or rel.startswith(("data:", "file:")):
        raise _issue("croissant.url", where, f"{rel[:200]!r} is a URL: d3mkit reads only local files beside "
                     "the Croissant file and downloads nothing", path)
    return resolve_inside(folder, rel, doc=path, location=where, what="contentUrl",
                          root_name="the Croissant file's directory")


PARQUET = ("application/x-parquet", "application/vnd.apache.parquet", "application/parquet")


def _is_parquet(node: dict) -> bool:
    return any(isinstance(f, str) and f.split(";")[0].strip() in PARQUET for f in _list(node.get("encodingFormat")))


def _csv_format(node: dict, where: str, path) -> None:
    fmts = [f for f in _list(node.get("encodingFormat")) if isinstance(f, str)]
    if not any(f.split(";")[0].strip() in ("text/csv", *PARQUET) for f in fmts):
        raise _issue("croissant.unsupported", where, f"encodingFormat {fmts or None}: d3mkit reads CSV files "
                     "and Parquet files only (no reader for other formats)", path)
    if node.get("containedIn"):
        raise _issue("croissant.unsupported", where, "a file inside an archive (containedIn): no reader", path)


def _read_file(node: dict, folder: Path, where: str, path) -> pd.DataFrame:
    from d3mkit.tables import read_table
    _csv_format(node, where, path)
    if _is_parquet(node):               # the reader import table uses for Parquet (text cells)
        from d3mkit.importing.source import read_parquet

        def read_table(f):              # noqa: F811
            return read_parquet(f, str(f))
    if node.get("@type") in ("cr:FileObject", "sc:FileObject", "FileObject"):
        f = _local(folder, node.get("contentUrl"), f"{where}.contentUrl", path)
        if not f.is_file():
            raise _issue("file.missing", f"{where}.contentUrl", f"{node.get('contentUrl')!r} does not exist", path)
        if isinstance(node.get("sha256"), str):
            from d3mkit.taskroot.digests import file_sha256
            if file_sha256(f)[0] != node["sha256"].lower():
                raise _issue("croissant.digest", f"{where}.sha256", "the file's sha256 differs from the "
                             "Croissant file's", f)
        return read_table(f)
    includes = [i for i in _list(node.get("includes")) if isinstance(i, str)]
    if not includes:
        raise _issue("croissant.unsupported", where, "a FileSet without includes", path)
    files: list[Path] = []
    for pattern in includes:
        _local(folder, pattern.split("*")[0] or ".", f"{where}.includes", path)
        from d3mkit.io.paths import outside_reason
        for f in sorted(folder.glob(pattern)):
            why = outside_reason(folder, f)
            if why:
                raise _issue("path.escape", f"{where}.includes", f"{f} leaves the Croissant file's directory: {why}", path)
            if f.is_file():
                files.append(f)
    if not files:
        raise _issue("file.missing", f"{where}.includes", f"no file matches {includes}", path)
    return pd.concat([read_table(f) for f in files], ignore_index=True)


def read_record_set(path: Path | str, record_set: str) -> RecordSetTable:
    """The record set ``record_set`` (its ``@id`` or ``name``) of the Croissant file ``path``
    as a :class:`RecordSetTable`; anything d3mkit cannot map raises :class:`D3MKitError`."""
    from d3mkit.documents.jsonio import load_json
    path = Path(path)
    if is_url(path):
        raise _issue("croissant.url", "", "the Croissant file is a URL: give a local file (nothing is downloaded)", path)
    doc = load_json(path)
    check_context(doc, path)
    folder = path.parent
    sets = [r for r in _list(doc.get("recordSet")) if isinstance(r, dict)]
    k = next((i for i, r in enumerate(sets) if record_set in (r.get("@id"), _text(r.get("name")))), None)
    if k is None:
        names = ", ".join(str(r.get("@id") or _text(r.get("name"))) for r in sets) or "none"
        raise _issue("croissant.record_set", "recordSet", f"no record set {record_set!r} (record sets: {names})", path)
    rs, where = sets[k], f"recordSet[{k}]"
    fields = [f for f in _list(rs.get("field")) if isinstance(f, dict)]
    if not fields:
        raise _issue("croissant.unsupported", f"{where}.field", "a record set without fields", path)
    names = [_field_name(f) for f in fields]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:
        at = [i for i, n in enumerate(names) if n == dup]
        raise _issue("croissant.duplicate_field", f"{where}.field[{at[1]}]", f"fields {at[0]} and {at[1]} are both "
                     f"named {dup!r}: a D3M table has one column of a name (rename one in the Croissant file)", path)
    types = {n: [t for t in _list(f.get("dataType")) if isinstance(t, str)] for n, f in zip(names, fields)}
    enums = {str(r.get("@id")) for r in sets if "sc:Enumeration" in _list(r.get("dataType"))}
    labels = {n for n, f in zip(names, fields)
              if "cr:Label" in types[n] or _ref(f).rsplit("/", 1)[0] in enums or f"enumerations/{id_part(n)}" in enums}
    for i, f in enumerate(fields):
        nested = [key for key in NESTED if f.get(key)]
        if nested:
            raise _issue("croissant.nested", f"{where}.field[{i}]", f"nested records ({', '.join(nested)}) do not "
                         "map to one D3M table", path)
    if rs.get("data") is not None:
        data = rs["data"]
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            raise _issue("croissant.unsupported", f"{where}.data", "inline data is a list of records", path)
        ids = [str(f.get("@id")) for f in fields]
        frame = pd.DataFrame({n: ["" if r.get(i) is None else str(r.get(i)) for r in data]
                              for n, i in zip(names, ids)})
        return RecordSetTable(frame, types, labels, _about(doc))
    files = {}
    sources = []
    for i, f in enumerate(fields):
        src = f.get("source") if isinstance(f.get("source"), dict) else {}
        fid = _id(src.get("fileObject")) or _id(src.get("fileSet"))
        ext = src.get("extract") if isinstance(src.get("extract"), dict) else {}
        if fid is None or not isinstance(ext.get("column"), str):
            raise _issue("croissant.unsupported", f"{where}.field[{i}].source", "a field that does not extract a "
                         "column of a file (a fileProperty, jsonPath or another record set) has no reader", path)
        if src.get("transform"):
            raise _issue("croissant.unsupported", f"{where}.field[{i}].source.transform",
                         "transforms are not applied by d3mkit", path)
        files[fid] = i
        sources.append((fid, ext["column"]))
    if len(files) > 1:
        raise _issue("croissant.unsupported", f"{where}.field", f"fields from several files ({', '.join(files)}) "
                     "need a join; d3mkit imports a record set of one file", path)
    fid = next(iter(files))
    dist = [d for d in _list(doc.get("distribution")) if isinstance(d, dict)]
    j = next((i for i, d in enumerate(dist) if d.get("@id") == fid or d.get("name") == fid), None)
    if j is None:
        raise _issue("croissant.record_set", f"{where}.field", f"the source {fid!r} is not in distribution", path)
    table = _read_file(dist[j], folder, f"distribution[{j}]", path)
    missing = [c for _, c in sources if c not in table.columns]
    if missing:
        raise _issue("croissant.column", f"{where}.field", f"column(s) {', '.join(missing)} not in the file", path)
    frame = pd.DataFrame({n: table[c].to_numpy() for n, (_, c) in zip(names, sources)})
    return RecordSetTable(frame, types, labels, _about(doc))


def _about(doc: dict) -> dict:
    def text(v):
        if isinstance(v, dict):
            v = v.get("en") or next(iter(v.values()), None)
        return v if isinstance(v, str) else None
    rai = {k.removeprefix("rai:"): v for k, v in doc.items() if k.startswith("rai:")
           and (isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v)))}
    return {"name": text(doc.get("name")), "description": text(doc.get("description")),
            "license": text(doc.get("license")), "citation": text(doc.get("citeAs")), "rai": rai}


def _key(path: Path, record_set: str) -> list[str]:
    """The field names of the record set's key (read again: small)."""
    from d3mkit.documents.jsonio import load_json
    doc = load_json(path)
    rs = next(r for r in _list(doc.get("recordSet")) if isinstance(r, dict)
              and record_set in (r.get("@id"), _text(r.get("name"))))
    fields = {str(f.get("@id")): _field_name(f) for f in _list(rs.get("field")) if isinstance(f, dict)}
    keys = [_id(k) for k in _list(rs.get("key"))]
    unknown = [k for k in keys if k not in fields]
    if unknown:
        raise _issue("croissant.key", "key", f"the record set's key names {unknown[0]!r}, which is not one of its "
                     f"fields ({', '.join(fields)}): the rows cannot be numbered by it", path)
    return [fields[k] for k in keys]


SPLIT_KINDS = {"TrainingSplit": "TRAIN", "TestSplit": "TEST", "ValidationSplit": "VALIDATION"}
SPLIT_NAMES = {"train": "TRAIN", "training": "TRAIN", "test": "TEST", "testing": "TEST", "val": "VALIDATION",
               "valid": "VALIDATION", "validation": "VALIDATION", "dev": "VALIDATION"}
SPLIT_DOC_KEYS = ("method", "testSize", "numFolds", "stratified", "numRepeats", "randomSeed")


def _split_kinds(doc: dict, path) -> dict[str, dict[str, str]]:
    """``{field @id: {split name: TRAIN|TEST|VALIDATION|""}}`` of the name (key) field of each
    ``cr:Split`` record set with inline data ("" for a split that is neither)."""
    out = {}
    for r in _list(doc.get("recordSet")):
        if not isinstance(r, dict) or "cr:Split" not in _list(r.get("dataType")):
            continue
        fields = [f for f in _list(r.get("field")) if isinstance(f, dict)]
        key = _id(next(iter(_list(r.get("key"))), None)) or next(
            (str(f.get("@id")) for f in fields if f.get("name") == "name"), None)
        kinds: dict[str, str] = {}
        for row in _list(r.get("data")):
            if not isinstance(row, dict) or key not in row:
                continue
            name = str(row[key])
            urls = [str(v) for k, v in row.items() if k != key]
            kind = next((SPLIT_KINDS[u.rsplit("/", 1)[-1].removeprefix("cr:")] for u in urls
                         if u.rsplit("/", 1)[-1].removeprefix("cr:") in SPLIT_KINDS), None)
            kinds[name] = kind or SPLIT_NAMES.get(name.strip().lower(), "")
        if key:
            out[key] = kinds
    return out


def _split_types(values: pd.Series, kinds: dict[str, str], where: str, path) -> tuple[pd.Series, int]:
    """D3M types (TRAIN/TEST) of split names, and how many were validation rows."""
    kind = values.map(lambda v: kinds.get(v) or SPLIT_NAMES.get(str(v).strip().lower(), ""))
    bad = kind == ""
    if bad.any():
        first = values[bad].iloc[0]
        raise _issue("croissant.split", where, f"split {first!r} is neither a training nor a test split "
                     "(a TRAIN/TEST split or cr:TrainingSplit/cr:TestSplit/cr:ValidationSplit)", path)
    validation = kind == "VALIDATION"
    return kind.where(~validation, "TRAIN"), int(validation.sum())


def read_splits(path: Path, record_set: str, table: RecordSetTable, index: list[str], params: str | None = None):
    """``(dataSplits rows, the problemDoc's dataSplits section, the split field to drop, issues)``
    of the splits the Croissant file gives for ``record_set`` (see the module docstring), or
    ``(None, None, None, [])`` when it gives none. ``index`` is the d3mIndex each row of
    ``table`` gets."""
    import json as _json

    from d3mkit.documents.jsonio import load_json
    from d3mkit.core.errors import warning
    doc = load_json(path)
    kinds = _split_kinds(doc, path)
    if not kinds:
        return None, None, None, []
    problem = doc.get("d3m:problem") if isinstance(doc.get("d3m:problem"), dict) else {}
    try:
        given = _json.loads(params or problem.get("d3m:dataSplits") or "null")   # params: a TaskProblem's
    except (TypeError, ValueError):
        given = None
    split_doc = {k: given[k] for k in SPLIT_DOC_KEYS if k in given} if isinstance(given, dict) else None
    sets = [r for r in _list(doc.get("recordSet")) if isinstance(r, dict)]
    this = next(r for r in sets if record_set in (r.get("@id"), r.get("name")))
    key = _key(path, record_set)
    issues = []
    for r in sets:                                   # a fold record set (d3mkit's dataSplits)
        if r is this or r.get("data") is not None:
            continue
        fields = [f for f in _list(r.get("field")) if isinstance(f, dict)]
        names = {str(f.get("name")): f for f in fields}
        split_f = next((f for f in fields if _ref(f) in kinds), None)
        if split_f is None or not {"repeat", "fold"} <= set(names) or len(key) != 1 or key[0] not in names:
            continue
        rid = str(r.get("@id") or r.get("name"))
        rows = read_record_set(path, rid).frame
        types, n_val = _split_types(rows[str(split_f.get("name"))], kinds[_ref(split_f)], f"recordSet {rid}", path)
        splits = pd.DataFrame({"d3mIndex": rows[key[0]].to_numpy(), "type": types.to_numpy(),
                               "repeat": rows["repeat"].to_numpy(), "fold": rows["fold"].to_numpy()})
        for col in ("repeat", "fold"):
            if not splits[col].str.fullmatch(r"[0-9]+").all():
                raise _issue("croissant.split", f"recordSet {rid}, field {col}", f"{col} values are "
                             "non-negative integers", path)
        unknown = ~splits["d3mIndex"].isin(set(index))
        if unknown.any():
            raise _issue("croissant.split", f"recordSet {rid}", f"{int(unknown.sum())} row(s) name a "
                         f"{key[0]} that {record_set!r} does not have (first "
                         f"{splits['d3mIndex'][unknown].iloc[0]!r})", path)
        if n_val:
            issues.append(warning("croissant.split_validation", f"recordSet {rid}", f"{n_val:,} validation "
                                  "row(s) became TRAIN (D3M has no validation split)", str(path)))
        if split_doc is None:
            folds = int(splits["fold"].astype(int).max()) + 1
            repeats = int(splits["repeat"].astype(int).max()) + 1
            split_doc = {"method": "kFold" if folds > 1 else "holdOut", "stratified": False,
                         "numRepeats": repeats if repeats > 1 else 0}
            if folds > 1:
                split_doc["numFolds"] = folds
        return splits, _holdout_size(split_doc, splits), None, issues
    fields = [f for f in _list(this.get("field")) if isinstance(f, dict)]
    split_f = next((f for f in fields if _ref(f) in kinds), None)
    if split_f is None:
        return None, None, None, []
    col = str(split_f.get("name") or str(split_f.get("@id", "")).rsplit("/", 1)[-1])
    types, n_val = _split_types(table.frame[col], kinds[_ref(split_f)], f"field {col}", path)
    if n_val:
        issues.append(warning("croissant.split_validation", f"field {col}", f"{n_val:,} validation row(s) "
                              "became TRAIN (D3M has no validation split)", str(path)))
    splits = pd.DataFrame({"d3mIndex": index, "type": types.to_numpy(), "repeat": "0", "fold": "0"})
    splits = splits.drop_duplicates("d3mIndex", ignore_index=True)   # the long multiLabel form: one row a d3mIndex
    return splits, _holdout_size({"method": "holdOut", "stratified": False, "numRepeats": 0}, splits), col, issues


def _holdout_size(split_doc: dict, splits: pd.DataFrame) -> dict:
    """``split_doc`` with a holdOut's testSize read off the rows of repeat 0, fold 0 when absent."""
    if split_doc.get("method") == "holdOut" and "testSize" not in split_doc:
        first = (splits["repeat"].astype(str) == "0") & (splits["fold"].astype(str) == "0")
        split_doc = {**split_doc, "testSize": round(float((splits.loc[first, "type"] == "TEST").mean()), 6)}
    return split_doc


@dataclass
class CarriedProblem:
    """The problem a Croissant file poses on a record set, as d3mkit's export writes it
    (``d3m:problem``, a ``cr:TaskProblem``): the targets (the ``cr:Label`` fields of its output
    schema), the task type and subtype (``d3m:taskType``, ``d3m:taskSubType``), the metrics
    with their parameters (``d3m:performanceMetrics``, else the names of
    ``cr:evaluation``/``cr:metric``) and the problem description."""
    targets: list[str]
    task: str | None
    subtype: str | None
    metrics: list[dict] | None
    description: str | None


def _metric_entries(problem: dict, where: str, path) -> list[dict] | None:
    """The problem's metrics, each name checked against the metric registry (``metric.unknown``;
    the parameters are checked where every problemDoc's are, :mod:`d3mkit.scoring.plan`); a
    ``d3m:performanceMetrics`` that is not a JSON list of objects is ``croissant.problem``."""
    import json as _json

    from d3mkit.core.registry import registry
    raw = problem.get("d3m:performanceMetrics")
    if raw is not None:
        where = f"{where}.d3m:performanceMetrics"
        try:
            entries = _json.loads(raw) if isinstance(raw, str) else raw
        except ValueError as exc:
            raise _issue("croissant.problem", where, f"not JSON text: {exc}", path) from None
        if not isinstance(entries, list) or not all(isinstance(m, dict) for m in entries):
            raise _issue("croissant.problem", where, "a JSON list of metric objects ({\"metric\": NAME, "
                         "parameters...}) as a problemDoc's performanceMetrics", path)
    else:
        ev = problem.get("cr:evaluation") if isinstance(problem.get("cr:evaluation"), dict) else {}
        key = "cr:expectedMetric" if "cr:expectedMetric" in ev else "cr:metric"   # cr:metric: before issue 36
        where = f"{where}.cr:evaluation.{key}"
        names = [n.get("@value") if isinstance(n, dict) else n for n in _list(ev.get(key))]
        if not all(isinstance(n, str) for n in names):
            raise _issue("croissant.problem", where, "metric names are text", path)
        entries = [{"metric": n} for n in names]
    if not entries:
        return None
    known = registry()
    for i, m in enumerate(entries):
        name = m.get("specifyOther") if m.get("metric") == "other" else m.get("metric")
        if not isinstance(name, str) or name not in known:
            raise _issue("metric.unknown", f"{where}[{i}]", f"metric {name!r} is not in the metric registry "
                         "(d3mkit metrics lists them)", path)
    return [dict(m) for m in entries]


def read_problem(path: Path | str, record_set: str) -> CarriedProblem | None:
    """The :class:`CarriedProblem` of the Croissant file ``path`` when its ``d3m:problem`` is
    posed on ``record_set`` (its output fields refer to that record set's fields), else None.
    A task type, subtype or metric d3mkit cannot take raises :class:`D3MKitError`."""
    from d3mkit.documents.jsonio import load_json
    from d3mkit.importing.infer import TASKS
    path = Path(path)
    doc = load_json(path)
    problem = doc.get("d3m:problem")
    if not isinstance(problem, dict):
        return None
    rs = next((r for r in _list(doc.get("recordSet")) if isinstance(r, dict)
               and record_set in (r.get("@id"), r.get("name"))), None)
    if rs is None:
        return None
    names = {str(f.get("@id")): str(f.get("name") or str(f.get("@id", "")).rsplit("/", 1)[-1])
             for f in _list(rs.get("field")) if isinstance(f, dict)}
    output = problem.get("cr:output") if isinstance(problem.get("cr:output"), dict) else {}
    schema = output.get("cr:schema") if isinstance(output.get("cr:schema"), dict) else {}
    out_fields = [f for f in _list(schema.get("field")) if isinstance(f, dict)]
    if not any(_ref(f) in names for f in out_fields):
        return None                                   # posed on another record set
    targets = [names[_ref(f)] for f in out_fields if _ref(f) in names and "cr:Label" in _list(f.get("dataType"))]
    where = "d3m:problem"
    task, subtype = problem.get("d3m:taskType"), problem.get("d3m:taskSubType")
    if task is not None and task not in TASKS:
        raise _issue("croissant.problem", f"{where}.d3m:taskType", f"task type {task!r} is not one d3mkit "
                     f"imports ({', '.join(TASKS)})", path)
    if subtype is not None and (task is None or subtype not in TASKS[task]):
        raise _issue("croissant.problem", f"{where}.d3m:taskSubType", f"task subtype {subtype!r} does not "
                     f"apply to {task!r}", path)
    desc = problem.get("description")
    return CarriedProblem(targets, task, subtype, _metric_entries(problem, where, path),
                          desc if isinstance(desc, str) else None)


def import_croissant_result(source, *, record_set: str, target=None, out, **kwargs):
    """:func:`import_croissant` returning :class:`~d3mkit.importing.table.Imported`."""
    from d3mkit.core.errors import UsageError
    from d3mkit.importing.index import index_values
    from d3mkit.importing.options import options
    from d3mkit.importing.table import package_frame
    require_path("source", source)
    require_path("out", out)
    require_type("record_set", record_set, str, "a record set's name or @id (str)")
    split_params = kwargs.pop("split_params", None)    # a TaskProblem's d3m:dataSplits (importing/tasks.py)
    path = Path(source)
    table = read_record_set(path, record_set)
    problem = read_problem(path, record_set)
    if target is None or target == [] or target == "":
        if problem is None or not problem.targets:
            raise UsageError("no target given, and the Croissant file poses no problem on this record set "
                             "that names one: name the target field(s)", str(path), code="usage")
        target = problem.targets
    from d3mkit.importing.options import as_list
    if problem is not None and sorted(as_list(target)) == sorted(problem.targets):
        # the file's problem applies: its facts unless the caller gave them
        if len(problem.targets) > 1 and problem.task == "classification" and problem.subtype != "multiLabel" \
                and kwargs.get("subtype") is None:
            raise _issue("croissant.problem", "d3m:problem", f"a {problem.subtype or 'classification'} problem "
                         f"with {len(problem.targets)} targets does not map to an import, which makes several "
                         "label targets one multiLabel target (give the subtype, or fewer targets)", path)
        for key, value in (("task", problem.task), ("subtype", problem.subtype), ("metrics", problem.metrics),
                           ("problem_description", problem.description)):
            if kwargs.get(key) is None and value is not None:
                kwargs[key] = value
    # the dataTypes are what a CSV's cells would say: a source's hints, which the target rules
    # (infer.target_coltype) apply to as to a CSV column; --types overrides them
    hints = {c: table.col_type(c) for c in table.frame.columns}
    user = kwargs.pop("types", None)
    if user is not None and not isinstance(user, dict):
        from d3mkit.importing.options import read_types
        user = read_types(user)
    user = dict(user or {})
    types = {**hints, **user}
    key = _key(path, record_set)
    if kwargs.get("index") is None and len(key) == 1 and types.get(key[0]) == "integer":
        kwargs["index"] = key[0]
    if kwargs.get("name") is None:
        from d3mkit.importing.options import default_name
        kwargs["name"] = default_name(path)
    a = table.about
    if kwargs.get("license") is None and a.get("license"):
        kwargs["license"] = a["license"]
    if kwargs.get("citation") is None and a.get("citation"):
        kwargs["citation"] = a["citation"]
    if kwargs.get("rai") is None and a.get("rai"):
        kwargs["rai"] = a["rai"]
    if kwargs.get("description") is None:
        text = a.get("description") or ""
        tail = kwargs.get("problem_description")
        if tail and text.endswith(" " + tail):       # the export's description: the dataset's, then the problem's
            text = text[:-len(tail) - 1]
        kwargs["description"] = text or f"Imported from the Croissant record set {record_set!r} of {path.name}."
    # a repeated index is D3M's long multiLabel form when one target may be a label set (issue 36)
    from d3mkit.importing.prepared import long_form_possible
    repeats = long_form_possible(as_list(target), options(target, types=types, **kwargs))
    index = [str(v) for v in index_values(table.frame, kwargs.get("index"), str(path), repeats)]
    splits, split_doc, drop, issues = read_splits(path, record_set, table, index, split_params)
    frame = table.frame.drop(columns=[drop]) if drop else table.frame
    hints.pop(drop, None)
    user.pop(drop, None)
    opts = options(target, types=user, **kwargs)
    done = package_frame(frame, opts, out, source=str(path), splits=splits, split_doc=split_doc,
                         hints={c: t for c, t in hints.items() if c in frame.columns})
    done.issues[:0] = issues
    return done


def import_croissant(source, *, record_set: str, target=None, out, **kwargs) -> Path:
    """Package the record set ``record_set`` of the local Croissant file ``source`` as the task
    root ``out/<name>/`` and return its path; ``target`` (default: the targets of the file's
    ``d3m:problem``, :func:`read_problem`) and the other keywords are
    :func:`d3mkit.import_table`'s (``metrics`` may be performanceMetrics entries with
    parameters, ``{"metric": "f1", "posLabel": "yes"}``). Raises :class:`~d3mkit.core.errors.D3MKitError` naming the
    problem (see the module docstring), with nothing written."""
    return import_croissant_result(source, record_set=record_set, target=target, out=out, **kwargs).root
