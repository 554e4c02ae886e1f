"""From the PATHs a user names to the documents to validate.

A PATH may be a problemDoc.json, a datasetDoc.json (any other ``*.json`` is sniffed), a
CSV inside a problem or dataset directory (its document is validated), a problem or
dataset directory, a task root, or any tree containing them (hidden directories are
skipped, and a dataset's own directory is not searched for further documents).

A problem finds its dataset by datasetID: first among the directories beside its own
(the task root), then among the documents found under the PATHs, then on the
``--datasets`` search path.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from d3mkit.docs.jsonio import load_json_issues
from d3mkit.errors import UsageError
from d3mkit.validate.common import as_dict, as_str

PROBLEM, DATASET = "problemDoc.json", "datasetDoc.json"


@dataclass
class Found:
    problems: list[Path] = field(default_factory=list)
    datasets: list[Path] = field(default_factory=list)
    unknown: list[Path] = field(default_factory=list)   # JSON files of no recognisable kind

    def add(self, kind: str, p: Path) -> None:
        lst = {"problem": self.problems, "dataset": self.datasets, "unknown": self.unknown}[kind]
        if p not in lst:
            lst.append(p)


def _check_readable(p: Path) -> None:
    if not p.exists() and not p.is_symlink():
        raise UsageError("path does not exist", str(p), code="usage.path")
    if not p.exists():
        raise UsageError("path is a broken symlink", str(p), code="usage.path")
    need = os.R_OK | (os.X_OK if p.is_dir() else 0)
    if not os.access(p, need):
        raise UsageError("path is not readable (permission denied)", str(p), code="usage.path")


def sniff(p: Path) -> str:
    """"problem", "dataset" or "unknown" for a JSON file by name, else by content."""
    if p.name == PROBLEM:
        return "problem"
    if p.name == DATASET:
        return "dataset"
    data, issues = load_json_issues(p)
    if issues:
        return "dataset" if "dataset" in p.name.lower() else "problem" if "problem" in p.name.lower() else "unknown"
    d = as_dict(data)
    if "dataResources" in d or "datasetID" in as_dict(d.get("about")):
        return "dataset"
    if "inputs" in d or "problemID" in as_dict(d.get("about")):
        return "problem"
    return "unknown"


def _walk(root: Path, found: Found) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        if PROBLEM in filenames:
            found.add("problem", here / PROBLEM)
        if DATASET in filenames:
            found.add("dataset", here / DATASET)
            dirnames[:] = []   # a dataset's media and tables hold no further documents
        else:
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))


def discover(paths: list[Path | str]) -> Found:
    """Documents under ``paths``; a missing or unreadable PATH raises :class:`UsageError`."""
    found = Found()
    for raw in paths:
        p = Path(raw)
        _check_readable(p)
        if p.is_dir():
            before = len(found.problems) + len(found.datasets)
            _walk(p, found)
            if len(found.problems) + len(found.datasets) == before:
                raise UsageError(f"no {PROBLEM} or {DATASET} found under this directory", str(p),
                                 code="usage.path")
        elif p.suffix.lower() == ".json":
            found.add(sniff(p), p)
        else:
            for parent in list(p.parents)[:3]:
                if (parent / DATASET).is_file():
                    found.add("dataset", parent / DATASET)
                    break
                if (parent / PROBLEM).is_file():
                    found.add("problem", parent / PROBLEM)
                    break
            else:
                raise UsageError("not a D3M document, and no problemDoc.json or datasetDoc.json "
                                 "in the directories above it", str(p), code="usage.path")
    found.problems.sort()
    found.datasets.sort()
    return found


class DatasetIndex:
    """datasetID -> datasetDoc.json, over the found documents and ``--datasets`` dirs."""

    def __init__(self, found: list[Path], search: list[Path | str] = ()):
        self._found = list(found)
        self._search = [Path(s) for s in search]
        self._ids: dict[Path, str | None] = {}
        self._search_index: dict[str, Path] | None = None
        for s in self._search:
            _check_readable(s)
            if not s.is_dir():
                raise UsageError("--datasets needs a directory", str(s), code="usage.path")

    def dataset_id(self, doc: Path) -> str | None:
        if doc not in self._ids:
            data, issues = load_json_issues(doc)
            self._ids[doc] = None if issues else as_str(as_dict(as_dict(data).get("about")).get("datasetID"))
        return self._ids[doc]

    def _search_paths(self) -> dict[str, Path]:
        if self._search_index is None:
            self._search_index = {}
            for s in self._search:
                f = Found()
                _walk(s, f)
                for d in f.datasets:
                    did = self.dataset_id(d)
                    if did is not None:
                        self._search_index.setdefault(did, d)
        return self._search_index

    def find(self, dataset_id: str, problem_doc: Path) -> Path | None:
        task_root = problem_doc.parent.parent
        try:
            siblings = sorted(task_root.glob(f"*/{DATASET}"))
        except OSError:
            siblings = []
        for d in siblings + self._found:
            if self.dataset_id(d) == dataset_id:
                return d
        return self._search_paths().get(dataset_id)
