"""A task root's problem as a Croissant Tasks ``cr:TaskProblem`` file (``d3mkit export
croissant ROOT --tasks``): the one owner of the D3M problemDoc -> Croissant Tasks mapping
(docs/interop.md, "Croissant Tasks"). The Tasks vocabulary is mlcommons/croissant ``tasks/``
as of its pull request 1017 (the shapes its own runbook validates against).

The file is ``<name>_task.json``, written **beside** the Croissant file of the dataset (the
same directory, so the relative ``@id``\\ s of both documents name the same IRIs: the output
fields' ``references`` resolve to the dataset's learningData fields, ``d3m:splitRecordSet``
to its ``dataSplits`` record set). It holds one ``cr:TaskProblem``:

* ``cr:input``: the dataset, an ``sc:Dataset`` whose ``@id`` is the Croissant file (a given
  component, as the official examples give their datasets);
* ``cr:output``: a ``cr:OutputSpec`` whose ``cr:schema`` is the record set ``predictions``:
  the index field, then one field per target (dataType also ``cr:Label``), each
  ``references`` the learningData field it predicts;
* ``cr:evaluation``: a ``cr:EvaluationSpec`` with one ``cr:expectedMetric`` per performance
  metric (a custom metric under its ``specifyOther`` name), each ``{"@value": ...}`` so that
  the context's ``"@language": "en"`` does not make it a language-tagged literal (the shape
  asks for ``xsd:string``);
* ``cr:subTask``: one ``cr:TaskProblem`` per (repeat, fold) of dataSplits, sharing the input,
  output and evaluation, with ``d3m:repeat``/``d3m:fold`` and ``d3m:splitRecordSet`` (the
  Croissant file's ``dataSplits`` record set, whose ``type`` field refers to its ``cr:Split``
  record set ``splits``);
* what the vocabulary has no term for, ``d3m:`` (namespace :data:`d3mkit.interop.croissant.D3M_NS`): ``d3m:taskType``,
  ``d3m:taskSubType``, ``d3m:performanceMetrics`` (the problemDoc's metrics with their
  parameters, JSON text), ``d3m:dataSplits`` (the split parameters, JSON text),
  ``d3m:problemID`` and ``d3m:datasetID``.
"""

from __future__ import annotations

import json
from pathlib import Path

from d3mkit.importing.croissant import id_part
from d3mkit.interop.croissant import CONTEXT

DATASET_TYPES = {"integer": "sc:Integer", "real": "sc:Float", "boolean": "sc:Boolean", "dateTime": "sc:Date"}


def task_file(croissant_out: Path | str, name: str) -> Path:
    """Where the TaskProblem of the task root ``name`` goes: ``<name>_task.json`` beside its
    Croissant file ``croissant_out``."""
    return Path(croissant_out).parent / f"{name}_task.json"


def text(value: str) -> dict:
    """A plain ``xsd:string`` literal under a context that sets ``@language``."""
    return {"@value": value}


def fold_pairs(splits_path: Path) -> list[tuple[int, int]]:
    """The (repeat, fold) pairs of a dataSplits.csv, sorted (read a block at a time)."""
    from d3mkit.tables import read_table_chunks
    pairs: set[tuple[int, int]] = set()
    for chunk in read_table_chunks(splits_path, usecols=["repeat", "fold"]):
        pairs.update(zip(chunk["repeat"].astype(int), chunk["fold"].astype(int)))
    return sorted(pairs)


def task_problem_document(task, dataset_file: str) -> dict:
    """The TaskProblem JSON-LD of ``task`` (a :class:`d3mkit.taskroot.model.TaskRoot`) whose dataset
    is the Croissant file ``dataset_file`` (a reference relative to the task file)."""
    pdoc, ddoc = task.problem, task.dataset
    pid = pdoc.problem_id or f"{task.name}_problem"
    base = f"problem/{pid}"
    ld = ddoc.learning_data
    from d3mkit.interop.undeclared import all_columns
    cols = {c.col_name: c for c in all_columns(task, ld)} if ld is not None else {}
    index_cols = ld.index_columns if ld is not None else []
    out_fields = []
    for i, col in enumerate([*index_cols[:1], *pdoc.target_names]):
        c = cols.get(col)
        dtype = DATASET_TYPES.get(c.col_type if c is not None else "", "sc:Text")
        is_target = i > 0 or col not in index_cols
        out_fields.append({"@type": "cr:Field", "@id": f"{base}/predictions/{id_part(col)}", "name": col,
                           "dataType": [dtype, "cr:Label"] if is_target else dtype,
                           "references": {"field": {"@id": f"learningData/{id_part(col)}"}}})
    output = {"@type": "cr:OutputSpec", "@id": f"{base}/output", "name": pdoc.predictions_file,
              "description": "One prediction per TEST row: the index and each target.",
              "cr:schema": {"@type": "cr:RecordSet", "@id": f"{base}/predictions", "name": "predictions",
                            "field": out_fields}}
    if index_cols:
        output["cr:schema"]["key"] = {"@id": f"{base}/predictions/{id_part(index_cols[0])}"}
    evaluation = {"@type": "cr:EvaluationSpec", "@id": f"{base}/evaluation",
                  "name": f"the performance metrics of {pid}",
                  "cr:expectedMetric": [text(n) for n in pdoc.metric_names if isinstance(n, str)]}
    dataset = {"@type": "sc:Dataset", "@id": dataset_file,
               "name": ddoc.about.get("datasetName") or task.name, "url": dataset_file,
               "d3m:datasetID": ddoc.dataset_id}
    shared = {"cr:input": {"@id": dataset_file}, "cr:output": {"@id": output["@id"]},
              "cr:evaluation": {"@id": evaluation["@id"]}}
    subtasks = [{"@type": "cr:TaskProblem", "@id": f"{base}/repeat/{r}/fold/{f}",
                 "name": f"{pid}, repeat {r}, fold {f}",
                 "description": f"Train on the TRAIN rows and predict the TEST rows of repeat {r}, fold {f} "
                                f"(dataSplits records with repeat {r} and fold {f}).",
                 **shared, "d3m:repeat": r, "d3m:fold": f, "d3m:splitRecordSet": {"@id": "dataSplits"}}
                for r, f in fold_pairs(task.problem_dir / pdoc.splits_file)]
    return {
        "@context": CONTEXT,
        "@type": "cr:TaskProblem",
        "@id": base,
        "name": pid,
        "description": pdoc.about.get("problemDescription") or f"The D3M problem of {task.name}.",
        "conformsTo": "http://mlcommons.org/croissant/1.1",
        "cr:input": dataset,
        "cr:output": output,
        "cr:evaluation": evaluation,
        "cr:subTask": subtasks,
        "d3m:problemID": pid,
        "d3m:taskType": pdoc.task_type,
        "d3m:taskSubType": pdoc.task_subtype,
        "d3m:performanceMetrics": json.dumps(pdoc.metrics, sort_keys=True),
        "d3m:dataSplits": json.dumps(pdoc.splits, sort_keys=True),
        "d3m:splitRecordSet": {"@id": "dataSplits"},
    }


def export_task_problem(root: Path | str, croissant_out: Path | str) -> Path:
    """Write the TaskProblem of the task root ``root`` beside its Croissant file
    ``croissant_out`` (:func:`task_file`), atomically; return its path."""
    from d3mkit.io.atomic import write_text
    from d3mkit.taskroot.model import TaskRoot
    task = TaskRoot.open(root)
    out = task_file(croissant_out, task.name)
    doc = task_problem_document(task, Path(croissant_out).name)
    write_text(out, json.dumps({k: v for k, v in doc.items() if v is not None}, indent=2,
                               ensure_ascii=False) + "\n")
    return out
