"""D3M documents: JSON I/O, the ProblemDoc and DatasetDoc models, 3.1.1 <-> 4.0.0 conversion."""

from d3mkit.documents.jsonio import dump_json, load_json, parse_json
from d3mkit.documents.problem import ProblemDoc, Target
from d3mkit.documents.dataset import Column, DatasetDoc, Resource

__all__ = ["ProblemDoc", "Target", "DatasetDoc", "Resource", "Column",
           "load_json", "parse_json", "dump_json"]
