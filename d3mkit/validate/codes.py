"""The catalogue of validator issue codes: each stable code, its usual severity and a
one-line description. Every issue the validator emits uses a code listed here (the
``schema.*`` codes are emitted by :mod:`d3mkit.validate.schema`).

``d3mkit validate --list-codes`` prints this table.

>>> CODES["splits.overlap"][0]
'error'
>>> make("target.index_duplicate", "inputs.data[0].targets[1].targetIndex", "dup", "p.json").severity
'error'
"""

from __future__ import annotations

from d3mkit.errors import Issue

E, W = "error", "warning"

CODES: dict[str, tuple[str, str]] = {
    # files and JSON syntax (emitted by d3mkit.docs.jsonio and the table reader)
    "file.missing": (E, "a file the documents name does not exist"),
    "file.unreadable": (E, "a file exists but cannot be read (permissions, I/O error)"),
    "file.is_directory": (E, "a directory was found where a file is expected"),
    "file.too_large": (E, "a file is over its size limit (D3MKIT_MAX_FILE_BYTES, D3MKIT_MAX_JSON_BYTES)"),
    "file.not_regular": (E, "a FIFO, device, socket or other non-regular file where a file is expected (refused unread)"),
    "file.binary": (E, "a text file contains NUL bytes (binary garbage)"),
    "file.encoding": (E, "a text file is not valid UTF-8"),
    "json.empty": (E, "a JSON document is empty"),
    "json.syntax": (E, "JSON syntax error (trailing comma, comment, quote, ...), with line and column"),
    "json.duplicate_key": (E, "a JSON object names the same key twice (parsers disagree on which value wins)"),
    "json.nonfinite": (E, "NaN, Infinity or -Infinity (not JSON), or a number too large for a float"),
    "json.big_number": (E, "a JSON integer outside the 64-bit range"),
    "json.surrogate": (E, "a JSON string holds a lone UTF-16 surrogate escape (not valid Unicode)"),
    "doc.not_object": (E, "the top level of a problemDoc/datasetDoc is not a JSON object"),
    "doc.unknown_kind": (E, "a JSON file is neither a problemDoc nor a datasetDoc"),
    # schema violations (emitted by d3mkit.validate.schema; other JSON Schema keywords
    # fall back to schema.<keyword>)
    "schema.required": (E, "a required field is missing"),
    "schema.unknown_field": (E, "a field the schema does not allow in a closed object"),
    "schema.type": (E, "a value has the wrong JSON type"),
    "schema.enum": (E, "a value is not one of the allowed values"),
    "schema.range": (E, "a number is out of its allowed range"),
    "schema.empty": (E, "an empty string where a value is needed"),
    "schema.min_items": (E, "a list is shorter than allowed (e.g. no targets)"),
    "schema.dependency": (E, "a field is only allowed with another value (K without precisionAtTopK, ...)"),
    "schema.one_of": (E, "a value matches none of the allowed forms (e.g. resObject)"),
    "schema.version": (E, "the declared problemSchemaVersion/datasetSchemaVersion is missing or not supported"),
    # CSV reading
    "csv.empty": (E, "a CSV file has no header row"),
    "csv.parse": (E, "a CSV file cannot be parsed (e.g. an unclosed quote)"),
    "csv.bad_row": (E, "a CSV row has more fields than the header"),
    "csv.duplicate_header": (E, "a CSV header names the same column twice"),
    "csv.too_wide": (E, "a CSV header has more columns than D3MKIT_MAX_COLUMNS (or a header line over 16 MiB)"),
    # dataset resources and columns
    "path.escape": (E, "a path (resPath, splitsFile, collection item) leaves its root: absolute, '..' or a symlink"),
    "resource.missing": (E, "a resource's resPath does not exist"),
    "resource.kind": (E, "a collection's resPath is not a directory, or a single resource's is not a file"),
    "resource.duplicate_id": (E, "two dataResources share a resID"),
    "dataset.no_learning_data": (E, "the dataset has no learningData table"),
    "columns.col_index": (E, "declared colIndex values of a table are not 0..n-1, each once (4.0.0 minimal "
                             "metadata: each at most once)"),
    "table.columns_count": (E, "a 4.0.0 resource's columnsCount differs from the number of columns of its file"),
    "columns.duplicate_name": (E, "two declared columns of a table share a colName"),
    "table.header": (E, "a table's CSV header does not match the declared columns by name and colIndex order"),
    "index.count": (E, "a table does not have exactly one index column (objectDetection: d3mIndex and image)"),
    "index.name": (E, "learningData's index column is not called d3mIndex"),
    "index.empty": (E, "an index cell is empty"),
    "index.duplicate": (E, "an index value occurs on more than one row (objectDetection: one d3mIndex, two images)"),
    "coltype.integer": (E, "a value of an integer column is not an integer"),
    "coltype.real": (E, "a value of a real column is not a number"),
    "coltype.boolean": (E, "a value of a boolean column is not true/false/1/0"),
    "coltype.dateTime": (E, "a value of a dateTime column is not a date or time"),
    "coltype.realVector": (E, "a value of a realVector column is not comma-separated numbers"),
    "coltype.categorical": (W, "a categorical value has leading or trailing whitespace"),
    "coltype.json": (E, "a value of a json/geojson column is not valid JSON"),
    "refers.resource_missing": (E, "refersTo names a resID the dataset does not have"),
    "refers.kind": (E, "refersTo's resObject does not fit the referenced resource's type"),
    "refers.column_missing": (E, "refersTo names a column the referenced table does not have"),
    "refers.value_missing": (E, "a foreign-key value is absent from the referenced column"),
    "collection.item_missing": (E, "a row refers to a collection item that is not on disk"),
    # problem <-> dataset
    "problem.dataset_missing": (E, "the problem's datasetID is found neither in its task root nor on --datasets"),
    "problem.dataset_unchecked": (W, "a problemDoc validated on its own (no dataset beside it, no --datasets): "
                                     "its own checks ran, the checks against the dataset and dataSplits did not"),
    "target.resource_missing": (E, "a target's resID is not a resource of the dataset"),
    "target.not_table": (E, "a target's resID is not a table resource"),
    "target.column_missing": (E, "a target's colIndex and colName both name no column"),
    "target.column_mismatch": (E, "a target's colIndex and colName name different columns"),
    "target.index_duplicate": (E, "two targets share a targetIndex"),
    "target.index_range": (E, "targetIndex values are not 0..n-1"),
    "target.num_clusters": (E, "numClusters is given on a problem that is not clustering"),
    "task.subtype": (E, "taskSubType does not apply to taskType"),
    "metric.not_applicable": (W, "a metric does not fit the task type (e.g. rSquared on classification)"),
    "metric.requires_task": (E, "a metric needs another task type (objectDetectionAP needs objectDetection)"),
    "metric.unknown": (W, "a custom metric's specifyOther name is not in the metric registry"),
    # dataSplits.csv
    "splits.columns": (E, "dataSplits.csv lacks a required column (d3mIndex,type,repeat,fold; +image for objectDetection)"),
    "splits.type": (E, "a type value is not TRAIN or TEST"),
    "splits.value": (E, "a d3mIndex is empty, or a repeat/fold value is not a non-negative integer"),
    "splits.unknown_index": (E, "a d3mIndex (objectDetection: d3mIndex+image) is not in learningData"),
    "splits.overlap": (E, "an index is both TRAIN and TEST in the same repeat and fold"),
    "splits.duplicate": (W, "an index is listed twice in the same repeat and fold"),
    "splits.incomplete": (W, "a learningData index is in neither TRAIN nor TEST of a repeat/fold"),
    "splits.too_many": (E, "numRepeats x numFolds is over D3MKIT_MAX_SPLITS (refused before reading the splits)"),
    "splits.repeats": (E, "the repeats present do not match numRepeats (0 means one repeat, numbered 0)"),
    "splits.folds": (E, "the folds present do not match numFolds (holdOut or 0 means fold 0 only)"),
    "splits.test_size": (W, "the TEST share differs from testSize (kFold: 1/numFolds) by more than one row per class "
                            "(a warning: the documentation gives testSize no tolerance)"),
    "splits.stratification": (E, "a stratified split's TEST share of a class is off by more than one row"),
}


def severity_of(code: str) -> str:
    if code in CODES:
        return CODES[code][0]
    if code.startswith("schema."):
        return E
    raise KeyError(f"issue code {code!r} is not in the catalogue")


def make(code: str, location: str, message: str, path: str = "", severity: str | None = None) -> Issue:
    """An :class:`Issue` with the catalogue's severity (unless ``severity`` overrides it)."""
    return Issue(severity or severity_of(code), code, location, message, str(path))


def table() -> list[tuple[str, str, str]]:
    """(code, severity, description) rows, in catalogue order."""
    return [(c, s, d) for c, (s, d) in CODES.items()]
