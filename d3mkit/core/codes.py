"""The one catalogue of issue codes: every stable code any part of d3mkit emits, its
severity and a one-line description. Validation, scoring, conversion, the benchmarks and the
commands all use these codes; ``tests/architecture/test_codes_catalogue.py`` scans the sources for code
literals and fails on one that is not here or is emitted with another severity.

``d3mkit codes`` (and ``d3mkit validate --list-codes``) prints this table.

>>> CODES["splits.overlap"][0]
'error'
>>> make("target.index_duplicate", "inputs.data[0].targets[1].targetIndex", "dup", "p.json").severity
'error'
"""

from __future__ import annotations

from d3mkit.core.errors import Issue

E, W = "error", "warning"

# the codes validation emits (d3mkit validate; tests/validation/test_validate_codes.py provokes each one)
VALIDATION: dict[str, tuple[str, str]] = {
    # files and JSON syntax (emitted by d3mkit.documents.jsonio and the table reader)
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
    # schema violations (emitted by d3mkit.validation.schema; other JSON Schema keywords
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
    "csv.bad_row": (E, "a CSV row has more or fewer fields than the header"),
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
    # a cell that does not read as its colType is a warning (--strict: an error): the schema
    # gives such cells no encoding, the FAQ asks curators to leave data as it is, and d3m's
    # column parser reads them as missing values (docs/validation.md, "Cells and colTypes")
    "coltype.integer": (W, "a value of an integer column is not an integer"),
    "coltype.real": (W, "a value of a real column is not a number"),
    "coltype.boolean": (W, "a value of a boolean column is not true/false/1/0/yes/no"),
    "coltype.dateTime": (W, "a value of a dateTime column is not a date or time"),
    "coltype.realVector": (W, "a value of a realVector column is not comma-separated numbers"),
    "coltype.categorical": (W, "a categorical value has leading or trailing whitespace"),
    "coltype.json": (W, "a value of a json/geojson column is not valid JSON"),
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
    "metric.unregistered": (W, "a custom metric's specifyOther name is not in this installation's metric "
                               "registry (validation: the document is fine, d3mkit here cannot score it)"),
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
    "splits.stratification": (W, "a split declaring stratified: true has a class whose TEST share is off by more "
                                 "than one row (the documentation gives no tolerance)"),
}

# the codes the rest of d3mkit emits: scoring, splitting, views, conversion, the benchmarks
OTHER: dict[str, tuple[str, str]] = {
    # problems as the scorer, split, views and baselines read them
    "problem.no_dataset_id": (E, "a problemDoc without inputs.data[0].datasetID cannot be worked with"),
    "problem.no_metrics": (E, "a problemDoc lists no performanceMetrics to score"),
    "problem.no_targets": (E, "a problemDoc names no targets"),
    "problem.unusable": (E, "a problemDoc without a datasetID or targets cannot be worked with"),
    "manifest.type": (E, "a task root's <name>_debug/manifest.json is not a JSON object"),
    "task_root.changed": (E, "a task root was replaced again and again while it was read (no one version to score)"),
    # digests of a task root's files (d3mkit.taskroot.digests; d3mkit validate --verify-digests)
    "digest.changed": (E, "a file's bytes differ from the sha256 its manifest recorded (or it became a symlink)"),
    "digest.missing": (E, "a file the manifest's digests record is gone"),
    "digest.unexpected": (E, "a file of the task root that the manifest's digests do not record"),
    "digest.none": (E, "the manifest records no digests to verify (written before d3mkit recorded them)"),
    "digest.malformed": (E, "the manifest's digests field is not path -> {sha256, bytes}"),
    # metrics and the registry
    "metric.unknown": (E, "a metric name is not in the metric registry (scoring cannot go on)"),
    "metric.missing": (E, "a performanceMetrics entry names no metric ('other' needs specifyOther)"),
    "metric.params": (E, "a metric entry has parameters the metric does not take"),
    "metric.task_type": (E, "a metric does not fit the problem's taskType (scoring)"),
    "metric.multilabel": (E, "a metric that cannot score multiLabel label sets on a multiLabel problem"),
    "metric.metadata": (E, "a metric needs rows of a <name>_debug/ file that are missing"),
    "metric.failed": (E, "a metric's computation raised on the aligned rows"),
    "metrics.plugin": (W, "a third-party d3mkit.metrics entry point could not be loaded"),
    "checks.plugin": (W, "a third-party d3mkit.checks entry point could not be loaded (its checks are left out)"),
    "check.missing": (E, "no registered check validates a document of this kind (d3mkit's own checks are not installed)"),
    "benchmarks.plugin": (W, "a third-party d3mkit.benchmarks entry point could not be loaded (the benchmark is left out)"),
    # AutoML systems (d3mkit systems / run / benchmark; d3mkit.systems)
    "systems.plugin": (W, "a third-party d3mkit.systems entry point could not be loaded (the system is left out)"),
    "systems.unknown": (E, "a system name is neither registered nor command:TEMPLATE (exit 2)"),
    "systems.refused": (E, "the system does not handle the task root's task type (nothing run)"),
    "systems.not_ready": (E, "the system is not installed here (exit 3; d3mkit systems says what it needs)"),
    "systems.install": (E, "d3mkit systems install could not prepare the system (a pip or venv step failed)"),
    # truth and predictions (scoring)
    "truth.none": (E, "no truth: neither a dataset nor a targets.csv"),
    "truth.columns": (E, "the truth lacks a target or index column"),
    "truth.no_index": (E, "the truth has no d3mIndex column"),
    "truth.image": (E, "objectDetection truth has no image column"),
    "truth.duplicate_index": (E, "the truth repeats a d3mIndex where only classification truth may"),
    "truth.multilabel": (W, "a classification truth repeats d3mIndex: scored as multiLabel label sets"),
    "predictions.csv": (E, "predictions.csv cannot be read as CSV"),
    "predictions.empty": (E, "predictions.csv has a header and no rows"),
    "predictions.no_index": (E, "predictions.csv has no d3mIndex column"),
    "predictions.no_target": (E, "predictions.csv lacks a target column"),
    "predictions.column": (E, "predictions.csv lacks a column a metric needs"),
    "predictions.extra_column": (W, "predictions.csv has columns the scorer ignores"),
    "predictions.duplicate_index": (E, "a d3mIndex appears on more than one row where one row per index is expected"),
    "predictions.duplicate_confidence": (E, "predictions.csv has several confidence columns"),
    "predictions.index_set": (E, "the predicted d3mIndex values differ from the TEST set"),
    "predictions.mixed_layout": (E, "predictions.csv mixes one-row-per-index and one-row-per-class rows"),
    "predictions.no_confidence": (E, "a metric needs a confidence column and there is none"),
    "predictions.confidence_range": (E, "a confidence value is outside [0, 1]"),
    "predictions.no_rank": (E, "a ranking metric needs a rank column"),
    "predictions.rank": (E, "a rank is below 1"),
    "predictions.unseen_label": (W, "a predicted label never occurs in a closed-label truth"),
    "predictions.all_labels": (W, "every index lists every label: hard-label metrics cannot tell them apart"),
    "predictions.too_many_labels": (E, "multiLabel label matrices would exceed D3MKIT_MAX_LABELS"),
    "predictions.no_image": (E, "objectDetection predictions lack the image column"),
    "predictions.image_set": (E, "objectDetection predictions name images that are not TEST images"),
    "predictions.image_missing": (W, "a TEST image has no detections"),
    "predictions.bad_box": (E, "a bounding box has x_max < x_min or y_max < y_min"),
    "predictions.targets": (E, "objectDetection predictions with more than one target"),
    "predictions.board": (E, "a predicted chess board (FEN placement) is malformed"),
    "predictions.confidence": (E, "a confidence value is not a number"),
    "predictions.missing_value": (E, "a predicted target value is blank or NaN"),
    "predictions.not_numeric": (E, "a predicted value of a numeric target is not a number"),
    "predictions.bad_value": (E, "a predicted value does not parse as the target's colType"),
    "predictions.duplicate_label": (W, "a multiLabel (index, label) pair repeats in predictions.csv"),
    "truth.missing_value": (E, "a truth target value is blank or NaN"),
    "truth.not_numeric": (E, "a truth value of a numeric target is not a number"),
    "truth.bad_value": (E, "a truth value does not parse as the target's colType"),
    "truth.duplicate_label": (W, "a multiLabel (index, label) pair repeats in the truth"),
    # CSV reading beyond validation
    "csv.delimiter": (E, "a CSV file is separated by something other than commas"),
    "csv.no_rows": (E, "a CSV file has a header and no rows where rows are needed"),
    "csv.unreadable": (E, "a CSV file of a task root cannot be parsed"),
    # splits and views (writing)
    "splits.bad_value": (E, "a value of the problemDoc's dataSplits section is unusable (not an object, testSize outside [0, 1], stratified not a boolean)"),
    "splits.method": (E, "dataSplits.method is neither holdOut nor kFold"),
    "splits.num_folds": (E, "numFolds is larger than the units there are to split"),
    "splits.num_repeats": (E, "numRepeats is negative"),
    "splits.empty": (E, "learningData has no rows to split"),
    "splits.no_index": (E, "learningData has no d3mIndex column to split on"),
    "splits.no_image": (E, "objectDetection learningData has no image column to split on"),
    "splits.no_test": (E, "a repeat/fold has no TEST rows"),
    "splits.target_missing": (E, "the column to stratify on is not in learningData"),
    "splits.path_escapes": (E, "splitsFile leaves the problem directory"),
    "views.no_fold": (E, "dataSplits has no rows for the repeat/fold asked for"),
    "views.no_index": (E, "learningData has no index column to write views from"),
    "views.no_learning_data": (E, "the dataset has no learningData table to write views from"),
    "views.path_escapes": (E, "a resource path leaves the dataset directory"),
    # conversion (d3mkit convert)
    "convert.version": (E, "the document's schema version cannot be converted to the one asked for"),
    "convert.not_problem": (E, "the document to convert is not a problemDoc"),
    "convert.not_dataset": (E, "the document to convert is not a datasetDoc"),
    "convert.task_type": (E, "a taskType has no taskKeywords equivalent in the D3M reference package"),
    "convert.task_subtype": (E, "a taskSubType has no taskKeywords equivalent in the D3M reference package"),
    "convert.task_keywords": (E, "taskKeywords is not a list of strings, or names no or two 3.1.1 task types"),
    "convert.dropped_keywords": (W, "taskKeywords without a 3.1.1 equivalent are dropped"),
    "convert.metric": (E, "a metric the target version does not have (a warning when the D3M loader only "
                          "does not know it)"),
    "convert.dropped_field": (W, "a field without an equivalent in the target datasetSchema is dropped"),
    "convert.partial_columns": (E, "a 4.0.0 table declares only some of its columns; 3.1.2 needs all"),
    "convert.table_values": (E, "converting the document would change table values (convert the task root)"),
    "convert.box": (E, "a bounding box or polygon value cannot be converted"),
    "convert.polygon_shape": (W, "polygons that are not axis-aligned rectangles become their bounding boxes"),
    # reproductions' run logs (d3mkit.benchmarks.runlog)
    "runlog.columns": (E, "a reproduction's CSV run log lacks a column its report needs"),
    "runlog.value": (E, "a reproduction's CSV run log holds text where a number belongs"),
    # writing outputs (d3mkit.io.atomic)
    "output.exists": (E, "an output exists and is replaced only when asked (--force; force=True from Python) (exit 2)"),
    "dependency.missing": (E, "an optional dependency is not installed; the message names the pip extra (exit 3)"),
    "file.os": (E, "the operating system refused to read or write a path (permission, no space, ...) (exit 2)"),
    "dependency.data": (E, "benchmark data a baseline needs is not in the task root (exit 3, nothing trained)"),
    "output.not_regular": (E, "an output path is a FIFO, device, socket or other non-regular file (refused)"),
    "output.is_input": (E, "an output would replace a file the same run read, or a directory holding one (refused, nothing written)"),
    "output.unusable": (E, "an output path cannot be written (a directory, read-only, or its parent is not a directory)"),
    # Croissant and Hugging Face export and import (d3mkit.interop)
    "croissant.rai": (E, "an RAI file is not a JSON object of field -> text (or list of text)"),
    "croissant.rai_missing": (W, "a required Croissant RAI field (dataCollection, dataBiases, dataLimitations, "
                                 "personalSensitiveInformation, dataUseCases) is given nowhere"),
    "export.invalid_root": (W, "a task root that does not validate was exported with --force (a Croissant file "
                               "lists its issues in d3m:validationIssues)"),
    "export.kept_text": (W, "a column whose cells do not all read as its colType is a string feature of the "
                            "Hugging Face dataset (its cells as written)"),
    "export.board": (E, "an evaluate board's scores.csv or aggregates.csv lacks a column or holds a value that is not "
                        "a finite number (export croissant --results)"),
    "export.unsupported": (E, "a task root export openml cannot write: multi-table, media, multiLabel, a task type "
                              "other than classification/regression, or a cell liac-arff does not read back"),
    "croissant.context": (E, "a JSON-LD file whose @context or conformsTo is not Croissant 1.0/1.1, or a Croissant "
                             "Tasks file with a remote @context or that rdflib cannot read"),
    "croissant.url": (E, "a Croissant file or contentUrl that is a URL, or a Croissant Tasks problem whose input "
                         "is only a URL (nothing is downloaded)"),
    "croissant.unloadable": (E, "mlcroissant cannot load the Croissant file export croissant wrote (not kept)"),
    "croissant.unchecked": (W, "the Croissant file was not loaded back: mlcroissant is not installed"),
    "export.wide_dates": (W, "a dateTime column with a date outside 1677-2262 is a timestamp[us] feature of the "
                             "exported HF dataset"),
    "croissant.pandas_reads": (W, "a text column with cells mlcroissant reads otherwise than written (pandas' "
                                  "NA tokens, TRUE/FALSE, numbers with leading zeros)"),
    "croissant.duplicate_field": (E, "two fields of the imported record set have one name"),
    "croissant.key": (E, "the record set's key names no field of it"),
    "croissant.record_set": (E, "the record set asked for, or its source file, is not in the Croissant file"),
    "croissant.column": (E, "a field extracts a column the CSV file does not have"),
    "croissant.nested": (E, "a record set with nested records (subField, parentField, repeated, isArray)"),
    "croissant.unsupported": (E, "a Croissant source d3mkit has no reader for (archives, non-CSV, transforms, "
                                 "fileProperty, joins of several files)"),
    "croissant.split": (E, "a Croissant split that is neither training nor test, or a fold record set whose "
                          "rows do not fit the imported record set"),
    "croissant.split_validation": (W, "a Croissant validation split imported as TRAIN rows (D3M has no "
                                      "validation split)"),
    "croissant.problem": (E, "a Croissant file's d3m:problem or a Croissant Tasks TaskProblem d3mkit cannot take "
                             "(not JSON, a task d3mkit does not import, no dataset given, no target in its output)"),
    "croissant.digest": (E, "a Croissant FileObject's sha256 differs from the file's bytes"),
    # command line
    "usage": (E, "bad arguments (exit 2)"),
    "usage.path": (E, "a path argument does not exist, is a broken symlink or cannot be read (exit 2)"),
    # images, IDX and PGN files read by the benchmarks (d3mkit.io.images, visudo.idx, value.games)
    "image.too_large": (E, "an image declares more pixels than D3MKIT_MAX_IMAGE_PIXELS (a decompression bomb)"),
    "image.unreadable": (E, "an image file is not an image Pillow can decode, or is truncated or corrupt"),
    "idx.too_large": (E, "an IDX header promises more data than D3MKIT_MAX_IDX_BYTES"),
    "pgn.too_large": (E, "a PGN file has more games, more half-moves in a game, or a longer line than its limit"),
    # benchmarks
    "abstraction.image": (E, "an abstraction image is not 28x28"),
    "abstraction.n_test": (E, "the abstraction test set cannot hold every shape"),
    "abstraction.n_train": (E, "the abstraction training set cannot hold every shape"),
    "abstraction.noise": (E, "an abstraction noise level is not a number >= 0"),
    "abstraction.size": (E, "more abstraction images than one task root may hold"),
    "abstraction.train_transformed_only": (E, "--train-transformed-only with a transformation that has only the identity"),
    "abstraction.transform": (E, "an unknown abstraction transformation"),
    "abstraction.transformed": (E, "K (shapes seen transformed) out of range"),
    "pgn.empty": (E, "a PGN file holds no games"),
    "pgn.game": (E, "a PGN game's moves cannot be read"),
    "pgn.no_moves": (E, "a PGN file's games have no moves"),
    "release.board": (E, "a VALUE release label is not an 8x8 board in the release encoding"),
    "release.box": (E, "a VALUE release piece box is malformed"),
    "release.boxes": (E, "a VALUE release box names a piece that is not on the board"),
    "release.image": (E, "a VALUE release image is in more than one split"),
    "release.key": (E, "a VALUE release index appears twice"),
    "release.labels": (E, "a VALUE release labels file is not an index -> board object"),
    "value.no_images": (E, "learningData has no column referring to an image collection"),
    "value.no_positions": (E, "the VALUE board source gave no positions"),
    "value.target": (E, "the targets of a VALUE task root do not hold boards"),
    "idx.truncated": (E, "an IDX image/label file is shorter than its header or declared shape needs"),
    "idx.magic": (E, "an IDX file's magic number is not 0x0000TTNN with a known type, or declares 0 dimensions"),
    "idx.trailing": (E, "an IDX file has bytes after the data its header declares"),
    "idx.unreadable": (E, "an IDX file cannot be read"),
    "idx.gzip": (E, "a gzip-compressed IDX file is a broken gzip stream"),
    "visudo.checksum": (E, "a downloaded IDX file's MD5 does not match"),
    "visudo.dimension": (E, "a Sudoku dimension without an integer square root >= 2"),
    "visudo.download": (E, "downloading an IDX source failed"),
    "visudo.idx_labels": (E, "IDX labels out of the source's range"),
    "visudo.idx_shape": (E, "IDX images are not Nx28x28"),
    "visudo.name": (E, "--name with more than one --split index"),
    "visudo.source": (E, "a ViSudo-PC source is unknown or listed twice"),
    "visudo.source_dir": (E, "an IDX source without --source-dir"),
    "visudo.source_missing": (E, "an IDX source file is not in --source-dir (and --download was not given)"),
    "visudo.split": (E, "no valid ViSudo-PC split index"),
    "visudo.strategy": (E, "an unknown ViSudo-PC label strategy"),
    "visudo.count": (E, "a ViSudo-PC puzzle count is negative, over the limit, or zero for train/test"),
    "visudo.overlap": (E, "a negative ViSudo-PC overlap constant"),
    "visudo.corrupt_chance": (E, "a ViSudo-PC corrupt chance outside [0, 1)"),
    "visudo.sources": (E, "the basic/transfer tasks with other than one source"),
    "visudo.images": (E, "a source has too few images of a label for the puzzles asked for"),
    "visudo.labels": (E, "the sources provide too few labels, or no correct puzzle could be drawn"),
    "visudo.corruption": (E, "no incorrect puzzle could be made from a correct one"),
    "prism.captions": (E, "no caption could be read from a captions file"),
    "prism.lf": (E, "a labeling-function record lacks fields"),
    "prism.manifest": (E, "a PRISM manifest has no records"),
    "prism.manifest.column": (E, "a PRISM CSV manifest lacks columns"),
    "prism.manifest.field": (E, "a PRISM manifest record lacks fields"),
    "prism.manifest.record": (E, "a PRISM manifest record is malformed"),
    "prism.manifest.split": (E, "a PRISM PVLI manifest lacks the tuning or test records its layout needs"),
}

# bringing your own data (d3mkit import; d3mkit.importing)
IMPORT: dict[str, tuple[str, str]] = {
    "import.target": (E, "a target column that is not in the table, the index as a target, or no target given"),
    "import.missing_values": (W, "missing-value tokens (NA, N/A, NaN, null, ?) in a numeric or date column were "
                                 "written as empty cells (counted)"),
    "import.target_infinite": (E, "a regression target cell is infinite (no prediction can be scored against it)"),
    "import.header_trimmed": (W, "column names with surrounding whitespace were trimmed"),
    "import.index_column": (W, "an empty first header name (the row index pandas and R write) became d3mIndex or "
                               "a named column"),
    "import.ignore": (E, "--ignore names a column that is not in the table"),
    "import.skipped": (W, "entries of an image folder that are not images were skipped (listed and counted; "
                          "--strict refuses them)"),
    "import.target_empty": (E, "every cell of the target column is empty"),
    "import.target_constant": (E, "the target holds one value on every row: nothing to learn or score"),
    "import.target_missing": (W, "rows with an empty target cell were left out of the task root (counted)"),
    "import.targets": (E, "targets that give no D3M task d3mkit writes"),
    "import.index": (E, "the index column is missing, not integers, or repeats a value (outside the long multiLabel form)"),
    "import.long_form": (E, "a table in D3M's long multiLabel form (the index repeated) whose rows of one index differ "
                            "outside the target, or list a label twice"),
    "import.column_name": (E, "a column name is empty, has control characters or leading/trailing whitespace"),
    "import.types": (E, "a colType override names an unknown column or colType, or the column's cells contradict it"),
    "import.task": (E, "a task or subtype that does not fit the targets"),
    "import.split": (E, "a split method or test size that cannot be used"),
    "import.too_wide": (E, "a table with more columns than D3MKIT_MAX_IMPORT_COLUMNS"),
    "import.gzip": (E, "a .gz table that is not a readable gzip stream"),
    "import.format": (E, "a Parquet file that cannot be read, or pyarrow is not installed"),
    "import.media": (E, "no column names files under the media directory, or a named media file is missing, "
                        "empty or of an unknown or mixed kind"),
    "import.arff": (E, "an ARFF file that cannot be parsed (with the line)"),
    "import.arff_date": (E, "an ARFF DATE value that does not match the attribute's declared date format, "
                            "or a format d3mkit cannot read"),
    "import.splits_file": (E, "an OpenML split file that lacks type/rowid/repeat/fold or holds bad values"),
    "import.splits_rows": (E, "a split file names a row that does not exist, or leaves rows out of a repeat/fold"),
    "import.images": (E, "an image folder with no class folders, an empty class, a non-image, a nested folder "
                         "or a symlink"),
    "info.path": (E, "info was given something that is neither a task root nor a D3M document"),
}

# the failure codes of an evaluation campaign (d3mkit evaluate writes them to failures.csv);
# a failed submission's own scoring issues keep their codes from the tables above
EVALUATE: dict[str, tuple[str, str]] = {
    "submission.missing": (E, "a system has no submission for a problem"),
    "submission.no_predictions": (E, "an entry directory without predictions.csv"),
    "submission.unknown_problem": (E, "the entry names no problem of --problems"),
    "submission.duplicate": (E, "two entries of one system for the same problem (none is scored)"),
    "submission.stray": (E, "a file where a system or entry directory is expected"),
    "submission.bad_pipeline": (E, "a pipelineDoc.json that is unreadable or names no problemID"),
    "system.case_clash": (E, "system names that differ only in case (none of them is scored)"),
    "name.encoding": (E, "a file name that is not valid UTF-8"),
    "name.control": (E, "a file name holding control characters (shown escaped; not scored)"),
    "submission.missing_fold": (E, "a fold of the problem's dataSplits has no predictions file"),
    "evaluate.nothing_scored": (E, "a campaign scored no submission at all (no usable problem, no system, "
                                   "or every submission failed)"),
    "path.outside_tree": (E, "a symlink that leaves the submissions tree (not followed)"),
    "problem.duplicate_id": (E, "two problem directories with the same problemID (neither is used)"),
    "internal": (E, "d3mkit failed on one unit of work (a bug: please report it)"),
}

# the evaluation server (d3mkit challenge, serve, submit; docs/server.md): the "code" of an
# HTTP error answer {"error": {"code", "message"}}, or of an issue the command prints
SERVER: dict[str, tuple[str, str]] = {
    "server.auth": (E, "no valid team token (Authorization: Bearer TOKEN); HTTP 401"),
    "server.bad_token": (E, "a team token was sent but is not valid (wrong, truncated, revoked); HTTP 401"),
    "server.not_cancellable": (E, "a team asked to cancel a submission that is no longer queued; HTTP 409"),
    "server.platform_failure": (E, "a submission failed on the platform (worker deaths, timeouts, memory) too often; never charged"),
    "server.redirect": (E, "d3mkit submit: the server answered with a redirect, which is not followed (the token stays)"),
    "server.organiser": (E, "an organiser's token used to submit, or a team's to read the queue; HTTP 403"),
    "server.hidden": (E, "the board of the phase open now is hidden from teams until the phase ends; HTTP 403"),
    "server.csrf": (E, "a form post without its CSRF token, or from another site; HTTP 403"),
    "server.content_type": (E, "the request is not multipart/form-data, or the file part is not CSV; HTTP 415"),
    "server.too_large": (E, "the upload passes the challenge's size cap (--max-size-mb); HTTP 413"),
    "server.form": (E, "a malformed form: no file, a field too long, too many parts; HTTP 400"),
    "server.unknown_problem": (E, "the problem field names no problem of the challenge; HTTP 400"),
    "server.quota": (E, "the team's daily quota is used up; HTTP 429"),
    "server.rate_limit": (E, "too many requests a minute from one team (or login attempts); HTTP 429"),
    "server.closed": (E, "the challenge is finalized and takes no more submissions; HTTP 409"),
    "server.not_found": (E, "no such submission of this team, or no such file; HTTP 404"),
    "server.not_final": (E, "the private leaderboard before the challenge is finalized; HTTP 403"),
    "server.scoring_error": (E, "the server could not score a submission (its own files or a bug; logged)"),
    "server.unreachable": (E, "d3mkit submit could not reach the server"),
    "server.timeout": (E, "d3mkit submit --wait: still queued when the timeout passed"),
    "server.http": (E, "d3mkit submit: an HTTP error the server did not explain"),
    "challenge.config": (E, "a challenge directory's challenge.json is not one this d3mkit reads"),
    "challenge.no_problems": (E, "challenge create found no problemDoc.json under --problems"),
    "challenge.metadata": (E, "challenge create: a problem's metrics read a per-row metadata file its task root's _debug directory lacks"),
    "team.exists": (E, "challenge team add: a team of that name exists"),
    "team.name": (E, "challenge team add: an empty, too long or unprintable team name"),
    "store.url": (E, "--db is not a database URL SQLAlchemy can use (or its driver is missing)"),
    "store.unreachable": (E, "the database cannot be opened or reached"),
    "store.version": (E, "the database's schema is newer than this d3mkit"),
}

CODES: dict[str, tuple[str, str]] = {**VALIDATION, **OTHER, **IMPORT, **EVALUATE, **SERVER}


def severity_of(code: str) -> str:
    """The catalogue's severity of ``code``; ``schema.<keyword>`` codes not listed are errors."""
    if code in CODES:
        return CODES[code][0]
    if code.startswith("schema."):
        return E
    raise KeyError(f"issue code {code!r} is not in the catalogue (d3mkit/core/codes.py)")


def make(code: str, location: str, message: str, path: str = "", severity: str | None = None, *,
         row: int | None = None, column: str | int | None = None, line: int | None = None,
         json_path: str | None = None) -> Issue:
    """An :class:`Issue` with the catalogue's severity (unless ``severity`` overrides it);
    where it sits as fields (``row``, ``column``, ``line``, ``json_path``) or ``location`` text."""
    return Issue(severity or severity_of(code), code, location, message, str(path), json_path, row, column, line)


def table() -> list[tuple[str, str, str]]:
    """(code, severity, description) rows, in catalogue order."""
    return [(c, s, d) for c, (s, d) in CODES.items()]
