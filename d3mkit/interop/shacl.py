"""Checking a JSON-LD document against the Croissant Tasks SHACL shapes with pyshacl (extra
``[tasks]``), the way mlcommons/croissant's own ``tasks/`` validator does: the document parsed
by rdflib, the ontology given as pyshacl's ``ont_graph``, RDFS inference. d3mkit ships no copy
of the shapes or the ontology: the caller names the directory holding
``croissant-tasks-shapes.ttl`` and ``croissant-tasks.ttl`` (pull request 1017's; the shapes
of the repository's main branch cannot validate a TaskProblem, docs/interop.md)."""

from __future__ import annotations

import json
from pathlib import Path

from d3mkit.core.errors import D3MKitError, EXIT_USAGE, MissingDependency, error

SHAPES = "croissant-tasks-shapes.ttl"
ONTOLOGY = "croissant-tasks.ttl"


def _libs():
    try:
        import pyshacl
        import rdflib
    except ImportError:
        raise MissingDependency("pyshacl", "tasks", "checking the Croissant Tasks shapes") from None
    return pyshacl, rdflib


def graph(doc: dict | Path | str, base: str | None = None):
    """The rdflib graph of a JSON-LD document (a dict, or a file: its URI is the base)."""
    _, rdflib = _libs()
    g = rdflib.Graph()
    if isinstance(doc, dict):
        g.parse(data=json.dumps(doc), format="json-ld", publicID=base)
    else:
        p = Path(doc).resolve()
        g.parse(data=p.read_text(encoding="utf-8"), format="json-ld", publicID=base or p.as_uri())
    return g


def conforms(doc: dict | Path | str, shapes_dir: Path | str, base: str | None = None) -> tuple[bool, str]:
    """``(conforms, pyshacl's report text)`` of ``doc`` against the shapes in ``shapes_dir``."""
    pyshacl, rdflib = _libs()
    d = Path(shapes_dir)
    if not (d / SHAPES).is_file() or not (d / ONTOLOGY).is_file():
        raise D3MKitError(error("file.missing", "", f"no {SHAPES} and {ONTOLOGY} here", str(d)), EXIT_USAGE)
    shapes = rdflib.Graph().parse(d / SHAPES, format="turtle")
    ontology = rdflib.Graph().parse(d / ONTOLOGY, format="turtle")
    ok, _, report = pyshacl.validate(graph(doc, base), shacl_graph=shapes, ont_graph=ontology,
                                     inference="rdfs")
    return bool(ok), str(report)
