"""Writing a prepared table as a D3M task root.

What this module owns: the task and metrics of a :class:`~d3mkit.importing.prepared.Prepared`
table, its datasetDoc and problemDoc, and the write through
:class:`d3mkit.taskroot.writer.TaskRootWriter` (atomic, validated, the same writer ``build``
uses; dataSplits by :func:`d3mkit.taskroot.splits.plan.make_splits` unless the source
brings its own), media files stored under neutral names.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.documents import Column, DatasetDoc, ProblemDoc, Resource, Target
from d3mkit.core.errors import EXIT_USAGE, Issue
from d3mkit.importing import infer
from d3mkit.importing.checks import fail
from d3mkit.importing.options import ImportOptions, Imported, as_list
from d3mkit.importing.multilabel import as_multilabel, long_form_target
from d3mkit.importing.prepared import Prepared, coltypes, is_multilabel

#: required): exports carry it as is (docs/interop.md)
UNKNOWN_LICENSE = "unknown"
MEDIA_DIR = "media"
MEDIA_RES = "media"


def _task(targets: list[str], types: dict[str, str], labels: dict[str, int], opts: ImportOptions,
          source: str) -> tuple[str, str]:
    if opts.task is not None and opts.task not in infer.TASKS:
        fail(source, "import.task", "", f"task {opts.task!r} is not one d3mkit imports "
              f"({', '.join(infer.TASKS)})", EXIT_USAGE)
    if opts.task == "classification":
        for t in targets:
            if types[t] not in infer.DISCRETE:
                types[t] = "categorical"
    if opts.task == "regression":
        for t in targets:
            if types[t] not in infer.NUMERIC:
                fail(source, "import.task", dict(column=t), f"a regression target must be integer or real; "
                      f"{t!r} is {types[t]}")
    found = infer.infer_task([types[t] for t in targets], [labels[t] for t in targets])
    if found is None:
        fail(source, "import.targets", "", f"the targets ({', '.join(targets)}) give no task d3mkit writes")
    task, subtype = found
    if opts.subtype is not None:
        if opts.subtype == "multiLabel":
            fail(source, "import.task", "", "a multiLabel task needs label targets: several label columns, "
                  "or one label column with a row per (index, label)", EXIT_USAGE)
        if opts.subtype not in infer.TASKS[task]:
            fail(source, "import.task", "", f"subtype {opts.subtype!r} does not apply to {task} "
                  f"({', '.join(infer.TASKS[task])})", EXIT_USAGE)
        subtype = opts.subtype
    return task, subtype


def _metrics(task: str, subtype: str, names: list[str | dict] | None, source: str) -> list[dict]:
    """performanceMetrics entries: the task's defaults, else ``names`` (a name, or an entry
    with its parameters, e.g. ``{"metric": "f1", "posLabel": "yes"}``), each in the registry.
    A registered metric that is not one of problemSchema 3.1.1's names (``hammingLoss``) is
    written as D3M writes a custom metric, ``{"metric": "other", "specifyOther": NAME}``."""
    if not names:
        return infer.default_metrics(task, subtype)
    from d3mkit.core.registry import registry
    known = registry()
    out = []
    for m in names:
        entry = dict(m) if isinstance(m, dict) else {"metric": m}
        name = entry.get("specifyOther") if entry.get("metric") == "other" else entry.get("metric")
        if name not in known:
            fail(source, "metric.unknown", "", f"metric {name!r} is not in the metric registry "
                  f"(d3mkit metrics lists them)", EXIT_USAGE)
        if entry.get("metric") != "other" and not known[name].standard:
            entry = {"metric": "other", "specifyOther": name, **{k: v for k, v in entry.items() if k != "metric"}}
        out.append(entry)
    return out


def package(prep: Prepared, opts: ImportOptions, out: Path | str, *, source: str,
            splits: pd.DataFrame | None = None, split_doc: dict | None = None,
            descriptions: dict[str, str] | None = None, labels: dict[str, list[str]] | None = None,
            parameters: dict | None = None, media_files: dict[str, Path] | None = None,
            media_kind: tuple[str, str, list[str]] | None = None) -> Imported:
    """Write the task root of a :class:`Prepared` table. ``splits`` (dataSplits rows) and
    ``split_doc`` (the problemDoc's dataSplits section) come from a source that brings its
    own folds; ``media_files`` maps a media column's values to files to copy, with
    ``media_kind`` ``(column, resType, formats)``; ``descriptions`` are colDescriptions and
    ``labels`` declared levels of categorical columns (ARFF)."""
    from d3mkit.io.atomic import copy_file, write_with
    from d3mkit.io.beside import beside
    from d3mkit.taskroot.writer import TaskRootWriter, dataset_id, problem_id
    from d3mkit.taskroot.splits.plan import make_splits
    targets = as_list(opts.target)
    kept = prep.kept
    counts, distinct = {}, {}       # distinct: (number of distinct non-empty cells, the first one)
    for t in targets:
        values = kept[t][kept[t] != ""]
        if (opts.types.get(t) or prep.given.get(t) or prep.evidence[t].coltype()) == "boolean":
            values = values.str.strip().str.lower().map(_TRUE.get)      # true/false however spelled
        distinct[t] = (int(values.nunique()), values.iloc[0] if len(values) else "")
        counts[t] = len((labels or {}).get(t) or ()) or distinct[t][0]
    types = coltypes(prep.evidence, targets, prep.given, opts.types, counts, opts.task)
    notes: list[Issue] = []
    origin: dict = {}
    if is_multilabel([types[t] for t in targets], opts):     # one label column, a row per label
        prep, types, counts, origin = as_multilabel(prep, targets, types, opts, source, notes,
                                                     list(prep.kept.columns[1:]))
        descriptions = {**(descriptions or {}), **origin["description"]}
        targets, kept = [origin["label"]], prep.kept
        task, subtype = "classification", "multiLabel"
    elif prep.long_form:                                      # already one row per (d3mIndex, label)
        origin = long_form_target(targets[0], kept[targets[0]].iloc[0], types, counts, opts, source)
        descriptions = {**origin["description"], **(descriptions or {})}
        task, subtype = "classification", "multiLabel"
    else:
        for t in targets:
            if distinct[t][0] < 2:
                fail(source, "import.target_constant", dict(column=t), f"target {t!r} has one value "
                      f"({distinct[t][1]!r}) on every row: nothing to learn or score")
        task, subtype = _task(targets, types, counts, opts, source)
        if task == "regression":
            _finite_targets(kept, targets, source)
    if splits is not None and prep.dropped:
        splits = splits[splits["d3mIndex"].astype(str).isin(set(kept["d3mIndex"].astype(str)))].reset_index(drop=True)
    metrics = _metrics(task, subtype, opts.metrics, source)
    if not origin:
        rules = [infer.target_rule(prep.given.get(t) or prep.evidence[t].coltype(), counts[t], types[t],
                                   declared=t in prep.given, user=t in opts.types) for t in targets]
        decided = infer.decision(targets, rules, [types[t] for t in targets], task, subtype, metrics,
                                 opts.task is not None)
    else:
        decided = f"targets {', '.join(origin['columns'])}: one label column {origin['label']!r}, " \
                  f"classification/multiLabel, metrics {', '.join(str(m.get('metric')) for m in metrics)}"
    media_col = media_kind[0] if media_kind is not None else None
    write, names = prep.write, {}
    if media_files:     # stored under neutral names: no file name in any view encodes a target
        from d3mkit.importing.media import neutral_names
        names = neutral_names(media_files)
        kept = kept.assign(**{media_col: kept[media_col].map(names)})
        write = _renaming(prep.write, media_col, names)
    name = opts.name or "imported"
    cols = [Column(0, "d3mIndex", "integer", ("index",))]
    for i, c in enumerate(prep.columns[1:], start=1):
        role = ("suggestedTarget",) if c in targets else ("attribute",)
        col_type = "string" if c == media_col else types[c]
        refers = {"resID": MEDIA_RES, "resObject": "item"} if c == media_col else None
        extra = {"colDescription": descriptions[c]} if c in (descriptions or {}) else {}
        cols.append(Column(i, c, col_type, role, refers, extra))
    resources = [Resource.table("learningData", "tables/learningData.csv", cols)]
    if media_col is not None:
        resources.insert(0, Resource.collection(MEDIA_RES, f"{MEDIA_DIR}/", media_kind[1], media_kind[2]))
    ddoc = DatasetDoc.new(dataset_id(name), name, resources, description=opts.description,
                          source=f"d3mkit import of {Path(source).name}", license=opts.license or UNKNOWN_LICENSE,
                          extra_about={k: v for k, v in (("citation", opts.citation), ("sourceURI", opts.source_url))
                                       if v} or None)
    # a label set has no one class to stratify on: multiLabel splits are drawn at random by default
    stratified = opts.stratified if opts.stratified is not None else (task == "classification"
                                                                     and subtype != "multiLabel")
    if split_doc is None:
        if opts.split not in ("holdOut", "kFold"):
            fail(source, "import.split", "", f"split method {opts.split!r} is not holdOut or kFold", EXIT_USAGE)
        split_doc = {"method": opts.split, "stratified": bool(stratified), "numRepeats": int(opts.repeats),
                     "randomSeed": int(opts.seed)}
        if opts.split == "holdOut":
            if not 0.0 < float(opts.test_size) < 1.0:
                fail(source, "import.split", "", f"test size must be between 0 and 1 (exclusive), "
                      f"got {opts.test_size}", EXIT_USAGE)
            split_doc["testSize"] = float(opts.test_size)
        else:
            split_doc["numFolds"] = int(opts.folds)
    target_objs = [Target(k, "learningData", prep.columns.index(t), t) for k, t in enumerate(targets)]
    pdoc = ProblemDoc.new(problem_id(name), name, task, subtype, dataset_id(name), target_objs, metrics,
                          description=opts.problem_description or f"Predict {', '.join(targets)} ({task}/{subtype}).",
                          splits=split_doc)
    params = {"source": Path(source).name, "targets": targets, "taskType": task, "taskSubType": subtype,
              "colTypes": types, "droppedRows": prep.dropped, **({"multiLabelFrom": origin["columns"],
                                                                 "multiLabelShape": origin["mode"]} if origin else {}),
              **(parameters or {})}
    with TaskRootWriter(out, name, benchmark="import", seed=int(opts.seed), parameters=params,
                        force=opts.force) as w:
        if opts.rai:
            w.manifest["rai"] = dict(opts.rai)       # what export croissant writes as rai: fields
        # learningData (file bytes and numpy: mostly outside the interpreter lock) is written in a
        # thread while the splits and the documents are made (d3mkit.io.beside); joined before commit
        with beside(write_with, w.media_path("tables/learningData.csv"), write):
            if splits is None:       # d3mkit's split code, on the index and target columns
                splits = make_splits(pdoc, kept[["d3mIndex", *targets]], ddoc)
            # every cell fed infer.Evidence or check_given; the index, target and media columns are in memory
            w.cells_checked("tables/learningData.csv", kept)
            copied = set()
            for v, src in (media_files or {}).items():
                if names[v] not in copied:     # equal bytes share one neutral name
                    copied.add(names[v])
                    copy_file(src, w.media_path(f"{MEDIA_DIR}/{names[v]}"))
            if names:
                from d3mkit.importing.media import SOURCES_TABLE, sources_table
                w.write_debug_table(SOURCES_TABLE, sources_table(names))
            w.write_dataset_doc(ddoc)
            w.write_problem_doc(pdoc, splits)
    return Imported(w.root, notes, decided)


_TRUE = {"true": "true", "t": "true", "yes": "true", "y": "true", "1": "true",
         "false": "false", "f": "false", "no": "false", "n": "false", "0": "false"}


def _finite_targets(kept: pd.DataFrame, targets: list[str], source: str) -> None:
    """A regression target cell that is infinite is refused, naming its row's d3mIndex: no
    prediction can be scored against it."""
    for t in targets:
        cells = kept[t].astype(str).str.strip().str.lower().str.lstrip("+-")
        bad = np.flatnonzero(cells.isin(["inf", "infinity"]).to_numpy())
        if len(bad):
            r = int(bad[0])
            fail(source, "import.target_infinite", dict(column=t), f"target {t!r} is {kept[t].iloc[r]!r} on the "
                  f"row with d3mIndex {kept['d3mIndex'].iloc[r]} ({len(bad)} row(s) in all): no prediction "
                  f"can be scored against an infinite value; remove or correct those rows")


def _renaming(write, column: str, names: dict[str, str]):
    """``write`` of learningData with the media ``column``'s values replaced by ``names``:
    the table is written by ``write``, then its column renamed in place."""
    from d3mkit.tables import read_table, write_table

    def renamed(path):
        write(path)
        df = read_table(path)
        df[column] = df[column].map(names)
        write_table(df, path)
    return renamed
