"""``d3mkit import croissant TASK.json --out DIR``: a Croissant Tasks ``cr:TaskProblem`` with its
dataset as a D3M task root. This module owns what a TaskProblem file d3mkit accepts and how its
terms become the import's options; the dataset itself is read by the Croissant import
(:func:`d3mkit.importing.croissant.import_croissant_result`), so every rule of that import
(record sets, splits, refusals) holds.

The file is read as linked data (rdflib, extra ``[tasks]``), so any spelling of the terms
works: d3mkit's own (``cr:`` under the Croissant 1.1 context) and the official examples'
(``croissant:input``, ``schema:name``, ``croissant:dataType`` ``xsd:string``). Relative
``@id``\\ s resolve against the file, as JSON-LD says.

* **the dataset**: the TaskProblem's ``cr:input`` that is a local Croissant file in the task
  file's directory (its ``@id``, or its ``url``/``contentUrl``); an input that is only a URL is
  refused (``croissant.url``: nothing is downloaded), as is a problem with no dataset given
  (an ``InputSpec`` only: ``croissant.problem``);
* **the record set and the targets**: the output (``cr:output``/``cr:schema``) fields that
  refer to a record set's fields (``references``), else that share a field's ``name``; the
  targets are those marked ``cr:Label``, or, when none is, every such field but the record
  set's key;
* **the metrics**: ``d3m:performanceMetrics`` (with their parameters), else the
  ``cr:expectedMetric`` names, matched to the metric registry ignoring case, spaces and
  punctuation (``"F1 Macro"`` is ``f1Macro``); a name the registry does not have is
  ``metric.unknown``;
* **task type and subtype**: ``d3m:taskType``/``d3m:taskSubType``, else inferred as every
  import infers them (from the targets' colTypes);
* **the splits**: the dataset's split records (its ``dataSplits`` fold record set, or a split
  field), as the Croissant import reads them; their parameters from ``d3m:dataSplits`` (else
  the dataset file's, else read off the rows);
* **names**: the task root is named after ``d3m:problemID`` less ``_problem`` (d3mkit's
  export), else after the task file (less a ``_task`` or ``_problem`` ending); the problem
  description is the TaskProblem's, and the dataset's description loses it again (the
  Croissant export appends it), so D3M -> Tasks -> D3M gives the same documents (but
  ``about.source``, which names the file imported, and a multiLabel target's note of the
  wide columns it came from), tables and splits.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

from d3mkit.core.errors import D3MKitError, error

CR = "http://mlcommons.org/croissant/"
SC = "https://schema.org/"
D3M = "https://gitlab.com/datadrivendiscovery/data-supply/-/blob/shared/documentation/"


def _issue(code: str, where: str, msg: str, path) -> D3MKitError:
    return D3MKitError(error(code, where, msg, str(path)))


def is_task_problem(doc) -> bool:
    """The JSON-LD object ``doc`` is a TaskProblem (its top-level ``@type``, any prefix)."""
    if not isinstance(doc, dict):
        return False
    types = doc.get("@type")
    types = types if isinstance(types, list) else [types]
    return any(isinstance(t, str) and re.split(r"[:/#]", t)[-1] == "TaskProblem" for t in types)


def _remote_context(node) -> bool:
    """A ``@context`` anywhere in ``node`` that names a document (would be fetched)."""
    if isinstance(node, dict):
        ctx = node.get("@context")
        if ctx is not None:
            parts = ctx if isinstance(ctx, list) else [ctx]
            if any(isinstance(c, str) for c in parts):
                return True
        return any(_remote_context(v) for v in node.values())
    if isinstance(node, list):
        return any(_remote_context(v) for v in node)
    return False


@dataclass
class OutputField:
    name: str | None
    references: str | None
    label: bool


@dataclass
class TaskProblem:
    """What a TaskProblem file says, its IRIs resolved: the inputs, the output fields, the
    expected metrics and the ``d3m:`` facts (None when absent)."""
    inputs: list[str]
    input_specs: int
    outputs: list[OutputField]
    expected_metrics: list[str]
    description: str | None
    d3m: dict = field(default_factory=dict)


def read_task_problem(path: Path | str) -> TaskProblem:
    """The :class:`TaskProblem` of the file ``path``; anything unreadable raises
    :class:`D3MKitError` (one issue)."""
    from d3mkit.documents.jsonio import load_json
    path = Path(path)
    doc = load_json(path)
    if not is_task_problem(doc):
        raise _issue("croissant.problem", "@type", "not a Croissant Tasks TaskProblem", path)
    if _remote_context(doc):
        raise _issue("croissant.context", "@context", "a @context that names a remote document: d3mkit reads "
                     "inline contexts only (nothing is downloaded)", path)
    try:
        import rdflib
        from rdflib import RDF, Namespace, URIRef
    except ImportError:
        from d3mkit.core.errors import MissingDependency
        raise MissingDependency("rdflib", "tasks", "reading a Croissant Tasks file", str(path)) from None
    cr, sc, d3m = Namespace(CR), Namespace(SC), Namespace(D3M)
    g = rdflib.Graph()
    try:
        g.parse(data=json.dumps(doc), format="json-ld", publicID=path.resolve().as_uri())
    except Exception as exc:      # rdflib's JSON-LD processor raises many kinds on odd input
        raise _issue("croissant.context", "", f"not JSON-LD d3mkit can read: {type(exc).__name__}: "
                     f"{str(exc)[:200]}", path) from None
    problems = set(g.subjects(RDF.type, cr.TaskProblem))
    subs = set(g.objects(None, cr.subTask))
    top = sorted(problems - subs, key=str) or sorted(problems, key=str)
    if not top:
        raise _issue("croissant.problem", "@type", "no cr:TaskProblem in the file", path)
    s = top[0]

    def text(node, prop):
        v = g.value(node, prop)
        return None if v is None else str(v)

    inputs, specs = [], 0
    for node in g.objects(s, cr.input):
        if (node, RDF.type, cr.InputSpec) in g:
            specs += 1
            continue
        ref = node if isinstance(node, URIRef) else (g.value(node, sc.url) or g.value(node, sc.contentUrl))
        if ref is not None:
            inputs.append(str(ref))
    outputs = []
    for out in g.objects(s, cr.output):
        for schema in g.objects(out, cr.schema):
            for f in g.objects(schema, cr.field):
                ref = g.value(f, cr.references)
                if ref is not None and not isinstance(ref, URIRef):
                    ref = g.value(ref, cr.field)
                dtypes = {str(t) for t in g.objects(f, cr.dataType)}
                outputs.append(OutputField(text(f, sc.name), str(ref) if ref is not None else None,
                                           CR + "Label" in dtypes))
    metrics = []
    for ev in g.objects(s, cr.evaluation):
        for m in g.objects(ev, cr.expectedMetric):
            metrics.append(str(m).rstrip("/").rsplit("/", 1)[-1] if isinstance(m, URIRef) else str(m))
    facts = {k: text(s, d3m[k]) for k in ("taskType", "taskSubType", "performanceMetrics", "dataSplits",
                                          "problemID")}
    return TaskProblem(sorted(set(inputs)), specs, outputs, sorted(set(metrics), key=metrics.index),
                       text(s, sc.description), {k: v for k, v in facts.items() if v is not None})


def _local_dataset(problem: TaskProblem, path: Path) -> Path:
    """The local Croissant file among the problem's inputs (inside the task file's directory)."""
    from d3mkit.io.paths import resolve_inside
    folder = path.resolve().parent
    local = [i for i in problem.inputs if urlparse(i).scheme == "file"]
    if not local:
        if problem.inputs:
            raise _issue("croissant.url", "cr:input", f"the problem's input {problem.inputs[0][:200]!r} is a URL: "
                         "give the dataset as a Croissant file beside the task file (nothing is downloaded)", path)
        raise _issue("croissant.problem", "cr:input", "the problem gives no dataset (an InputSpec asks a "
                     "solution to bring one): d3mkit imports a problem posed on a given dataset", path)
    rel = Path(unquote(urlparse(local[0]).path))
    try:
        rel = rel.relative_to(folder)
    except ValueError:
        raise _issue("path.escape", "cr:input", f"the dataset {local[0]!r} is not in the task file's "
                     "directory", path) from None
    f = resolve_inside(folder, rel.as_posix(), doc=path, location="cr:input", what="dataset",
                       root_name="the task file's directory")
    if not f.is_file():
        raise _issue("file.missing", "cr:input", f"the dataset {rel.as_posix()!r} does not exist", path)
    return f


def _pick_record_set(problem: TaskProblem, dataset: Path, path: Path) -> tuple[str, list[str]]:
    """The record set the output fields refer to (or name) and the targets."""
    from d3mkit.documents.jsonio import load_json
    doc = load_json(dataset)
    base = dataset.resolve().as_uri()
    best = None
    for r in (x for x in (doc.get("recordSet") or []) if isinstance(x, dict)):
        fields = [f for f in r.get("field") or [] if isinstance(f, dict)] if isinstance(r.get("field"), list) \
            else [r["field"]] if isinstance(r.get("field"), dict) else []
        by_iri = {urljoin(base, str(f.get("@id"))): str(f.get("name")) for f in fields if f.get("@id")}
        names = {str(f.get("name")) for f in fields}
        key = r.get("key")
        keys = [k.get("@id") for k in (key if isinstance(key, list) else [key]) if isinstance(k, dict)]
        key_names = {by_iri.get(urljoin(base, str(k))) for k in keys}
        matched = []
        for o in problem.outputs:
            name = by_iri.get(o.references) if o.references else None
            if name is None and o.references is None and o.name in names:
                name = o.name
            if name is not None:
                matched.append((name, o.label))
        if matched and (best is None or len(matched) > len(best[1])):
            best = (str(r.get("@id") or r.get("name")), matched, key_names)
    if best is None:
        raise _issue("croissant.problem", "cr:output", f"no output field refers to (or is named like) a field "
                     f"of a record set of {dataset.name}", path)
    rs, matched, key_names = best
    labels = [n for n, is_label in matched if is_label]
    targets = labels or [n for n, _ in matched if n not in key_names and n != "d3mIndex"]
    if not targets:
        raise _issue("croissant.problem", "cr:output", "the output names no target (only the record set's key)",
                     path)
    return rs, targets


def metric_entries(problem: TaskProblem, path: Path) -> list[dict] | None:
    """The metrics: ``d3m:performanceMetrics`` entries, else the expected metric names matched
    to the registry (ignoring case and punctuation); a registered metric that is not one of
    problemSchema 3.1.1's names becomes ``other`` + ``specifyOther``, as D3M writes it."""
    from d3mkit.core.registry import registry
    raw = problem.d3m.get("performanceMetrics")
    if raw is not None:
        try:
            entries = json.loads(raw)
        except ValueError as exc:
            raise _issue("croissant.problem", "d3m:performanceMetrics", f"not JSON text: {exc}", path) from None
        if not isinstance(entries, list) or not all(isinstance(m, dict) for m in entries):
            raise _issue("croissant.problem", "d3m:performanceMetrics", "a JSON list of metric objects", path)
        return entries or None
    known = registry()
    folded = {re.sub(r"[^0-9a-z]", "", n.lower()): n for n in known}
    out = []
    for i, m in enumerate(problem.expected_metrics):
        name = m if m in known else folded.get(re.sub(r"[^0-9a-z]", "", m.lower()))
        if name is None:
            raise _issue("metric.unknown", f"cr:expectedMetric[{i}]", f"metric {m!r} is not in the metric "
                         "registry (d3mkit metrics lists them)", path)
        out.append({"metric": name} if known[name].standard else {"metric": "other", "specifyOther": name})
    return out or None


def import_task_problem_result(source, *, out, target=None, **kwargs):
    """Import the TaskProblem file ``source`` with its dataset (see the module docstring);
    returns :class:`~d3mkit.importing.table.Imported`. Keywords as
    :func:`~d3mkit.importing.croissant.import_croissant`'s, given ones over the file's."""
    from d3mkit.documents.jsonio import load_json
    from d3mkit.importing.croissant import import_croissant_result
    from d3mkit.importing.options import default_name
    path = Path(source)
    problem = read_task_problem(path)
    dataset = _local_dataset(problem, path)
    from d3mkit.importing.croissant import check_context
    check_context(load_json(dataset), dataset)      # a Croissant 1.0/1.1 dataset, else croissant.context
    record_set, targets = _pick_record_set(problem, dataset, path)
    for key, value in (("task", problem.d3m.get("taskType")), ("subtype", problem.d3m.get("taskSubType")),
                       ("problem_description", problem.description)):
        if kwargs.get(key) is None and value is not None:
            kwargs[key] = value
    if kwargs.get("metrics") is None:
        kwargs["metrics"] = metric_entries(problem, path)
    if kwargs.get("name") is None:
        pid = problem.d3m.get("problemID")
        stem = re.sub(r"_(task|problem)$", "", default_name(path)) or "imported"
        kwargs["name"] = pid.removesuffix("_problem") if pid and pid.endswith("_problem") else stem
    doc = load_json(dataset)
    desc, tail = doc.get("description"), kwargs.get("problem_description")
    if kwargs.get("description") is None and isinstance(desc, str) and tail:
        # the Croissant export's description: the dataset's, then the problem's (or a stand-in)
        if desc == tail or desc.startswith("The D3M task root "):
            kwargs["description"] = ""
        elif desc.endswith(" " + tail):
            kwargs["description"] = desc[:-len(tail) - 1]
    if kwargs.get("citation") is None and doc.get("citeAs") == f"{doc.get('name')}: {doc.get('isBasedOn')}":
        kwargs["citation"] = ""        # the export's stand-in when the root had none
    if problem.d3m.get("dataSplits") is not None:
        kwargs["split_params"] = problem.d3m["dataSplits"]    # over the dataset file's d3m:problem
    return import_croissant_result(dataset, record_set=record_set, target=target or targets, out=out, **kwargs)
