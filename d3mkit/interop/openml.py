"""A task root as the two files OpenML serves for a task (``d3mkit export openml ROOT --out
DIR``): the one owner of the D3M -> OpenML mapping (docs/interop.md, "OpenML"). Written with
liac-arff (the ARFF writer openml-python uses; extra ``[arff]``), and read back by it before
the directory is put in place, so a file liac-arff cannot read is never left behind.

* ``dataset.arff``: learningData, column for column (d3mIndex first, as an ``INTEGER``
  attribute), its cells as written. colType ``integer`` is ``INTEGER``, ``real`` ``REAL``;
  ``categorical`` and ``boolean`` columns and every target of a classification problem are
  nominal (their labels, sorted); anything else (``string``, ``dateTime``, ...) is ``STRING``.
  An empty cell is missing (``?``).
* ``splits.arff``: OpenML's task-split layout, attributes ``type`` (``{TRAIN,TEST}``),
  ``rowid`` (the 0-based row of dataset.arff), ``repeat`` and ``fold``, one row per dataSplits
  row in its order.

``d3mkit import arff DIR/dataset.arff --splits DIR/splits.arff --target T`` gives back the
same learningData cells and dataSplits rows (numbers as their shortest text: ``1.50`` comes
back ``1.5``; tests/interop/test_openml_export.py). Refused (``export.unsupported``, nothing written):
a root with more than one table or a column referring to another resource (multi-table), media
collections, a multiLabel problem (D3M's long form repeats d3mIndex; an OpenML row is one
instance), task types other than classification and regression, and a column name or cell
liac-arff does not read back as written.
"""

from __future__ import annotations

from pathlib import Path

from d3mkit.core.errors import D3MKitError, Issue, MissingDependency, error

NOMINAL_TYPES = ("categorical", "boolean")
NUMERIC = {"integer": "INTEGER", "real": "REAL"}
SPLIT_ATTRIBUTES = [("type", ["TRAIN", "TEST"]), ("rowid", "INTEGER"), ("repeat", "INTEGER"),
                    ("fold", "INTEGER")]


def _arff():
    try:
        import arff
    except ImportError:
        raise MissingDependency("liac-arff", "arff", "export openml") from None
    return arff


def _refuse(task, where: str, why: str, **fields) -> D3MKitError:
    """``task`` has no OpenML form because ``why``; the place: ``where`` (a document's path)
    or ``fields`` (``row``, ``column``)."""
    return D3MKitError(error("export.unsupported", where, f"{why}: it has no OpenML (ARFF) form", str(task.root),
                             **fields))


def check_mappable(task) -> None:
    """Refuse what does not map to one ARFF table and its split file (module docstring)."""
    ddoc, pdoc = task.dataset, task.problem
    tables = [r for r in ddoc.resources if r.is_table]
    if any(r.is_collection for r in ddoc.resources):
        raise _refuse(task, "dataResources", "a media collection (the ARFF file would hold file names only)")
    if len(tables) > 1:
        raise _refuse(task, "dataResources", f"{len(tables)} tables (multi-table)")
    ld = ddoc.learning_data
    refs = [c.col_name for c in (ld.columns or ()) if getattr(c, "refers_to", None)]
    if refs:
        raise _refuse(task, "", "a column referring to another resource", column=refs[0])
    if pdoc.task_type not in ("classification", "regression"):
        raise _refuse(task, "about.taskType", f"task type {pdoc.task_type!r}")
    if pdoc.task_subtype == "multiLabel":
        raise _refuse(task, "about.taskSubType", "a multiLabel problem (one row per (d3mIndex, label))")


def arff_documents(task) -> tuple[dict, dict]:
    """The liac-arff objects of dataset.arff and splits.arff (cells as text, ``None`` missing)."""
    from d3mkit.tables import read_table
    ld = task.dataset.learning_data
    frame = read_table(task.dataset.resource_path(ld))
    types = {c.col_name: c.col_type for c in (ld.columns or ())}
    targets = set(task.problem.target_names)
    classification = task.problem.task_type == "classification"
    attributes = []
    for name in frame.columns:
        ctype = types.get(name, "string")
        if ctype in NOMINAL_TYPES or (classification and name in targets):
            labels = sorted({v for v in frame[name] if v != ""})
            attributes.append((name, labels))
        else:
            attributes.append((name, NUMERIC.get(ctype, "STRING")))
    rows = [[None if v == "" else v for v in row] for row in frame.itertuples(index=False, name=None)]
    splits = read_table(task.problem_dir / task.problem.splits_file)
    position = {v: i for i, v in enumerate(frame[ld.index_columns[0]])}
    missing = [v for v in splits["d3mIndex"] if v not in position]
    if missing:
        raise _refuse(task, "dataSplits", f"d3mIndex {missing[0]!r} of dataSplits is not in learningData")
    split_rows = [[t, position[i], int(r), int(f)] for t, i, r, f in
                  zip(splits["type"], splits["d3mIndex"], splits["repeat"], splits["fold"])]
    about = task.dataset.about
    dataset = {"relation": about.get("datasetName") or task.name,
               "description": f"{about.get('description') or task.name}\nD3M task root {task.name}; "
                              f"targets: {', '.join(task.problem.target_names)}",
               "attributes": attributes, "data": rows}
    split_doc = {"relation": f"{task.name}-splits", "description": "OpenML task split layout (type, rowid, "
                 "repeat, fold); rowid is the 0-based row of dataset.arff", "attributes": SPLIT_ATTRIBUTES,
                 "data": split_rows}
    return dataset, split_doc


def _read_back(arff, text: str, want: dict, task, name: str) -> None:
    """liac-arff reads ``text`` back with the same attribute names and cells."""
    try:
        got = arff.loads(text)
    except Exception as exc:      # liac-arff raises many kinds on what it wrote badly
        raise _refuse(task, name, f"liac-arff cannot read back what it wrote ({type(exc).__name__}: "
                      f"{str(exc)[:160]})") from None
    names = [a[0] for a in got["attributes"]]
    if names != [a[0] for a in want["attributes"]]:
        bad = next(w for g, w in zip(names + [None] * len(want["attributes"]), [a[0] for a in want["attributes"]])
                   if g != w)
        raise _refuse(task, "", "a column name liac-arff does not read back as written", column=bad)
    numeric = [not isinstance(a[1], list) and a[1] != "STRING" for a in want["attributes"]]
    for r, (g, w) in enumerate(zip(got["data"], want["data"])):
        for j, (gv, wv) in enumerate(zip(g, w)):
            if wv is None:
                ok = gv is None
            elif numeric[j]:
                ok = gv is not None and float(gv) == float(wv)
            else:
                ok = gv == wv
            if not ok:
                raise _refuse(task, "", f"the cell {wv!r} does not read back as written",
                              row=r + 1, column=names[j])


def export_openml(root: Path | str, out: Path | str, *, force: bool = False) -> list[Issue]:
    """Write ``out/dataset.arff`` and ``out/splits.arff`` of the task root ``root`` (a new
    directory, put in place atomically; an existing one replaced only with ``force``). A task
    root that does not validate, or does not map (:func:`check_mappable`), raises
    :class:`D3MKitError` with nothing written. Returns the warnings (none)."""
    from d3mkit.interop.exporting import start_export
    from d3mkit.io.atomic import StagedDir, write_text
    arff = _arff()
    task, out, errors = start_export(root, out)
    if errors:
        raise D3MKitError(errors)
    check_mappable(task)
    dataset, splits = arff_documents(task)
    texts = {}
    for name, doc in (("dataset.arff", dataset), ("splits.arff", splits)):
        texts[name] = arff.dumps(doc)
        _read_back(arff, texts[name], doc, task, name)
    with StagedDir(out, force=force) as tmp:
        for name, text in texts.items():
            write_text(tmp / name, text + "\n")
    return []
