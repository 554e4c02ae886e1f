"""From the PATHs a user names to the documents to validate.

A PATH may be a problemDoc.json, a datasetDoc.json (any other ``*.json`` is sniffed), a
CSV inside a problem or dataset directory (its document is validated), a problem or
dataset directory, a task root, or any tree containing them (hidden directories are
skipped, and a dataset's own directory is not searched for further documents).

A problem finds its dataset by datasetID with the one search rule of
:mod:`d3mkit.documents.locate` (its task root, then the documents found under the PATHs, then
the ``--datasets`` directories).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from d3mkit.documents.jsonio import load_json_issues
from d3mkit.documents.locate import DATASET_DOC as DATASET
from d3mkit.documents.locate import PROBLEM_DOC as PROBLEM
from d3mkit.documents.locate import DatasetFinder, datasets_beside, walk_documents
from d3mkit.core.errors import UsageError
from d3mkit.validation.common import as_dict



@dataclass
class Found:
    problems: list[Path] = field(default_factory=list)
    datasets: list[Path] = field(default_factory=list)
    unknown: list[Path] = field(default_factory=list)   # JSON files of no recognisable kind
    # CSV files in a problem directory that are not its splits file: predictions of that problem
    predictions: list[tuple[Path, Path]] = field(default_factory=list)
    escaping: list[tuple[Path, str]] = field(default_factory=list)  # symlinked out of the PATH: not read

    def add(self, kind: str, p: Path) -> None:
        lst = {"problem": self.problems, "dataset": self.datasets, "unknown": self.unknown}[kind]
        if p not in lst:
            lst.append(p)


def check_readable(p: Path) -> None:
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
    unreadable: list[tuple[Path, str]] = []
    for kind, p in walk_documents(root, found.escaping, unreadable):
        found.add(kind, p)
    if unreadable:   # never a silent pass over what could not be seen
        where, why = unreadable[0]
        more = f" (and {len(unreadable) - 1} more)" if len(unreadable) > 1 else ""
        raise UsageError(f"directory cannot be listed ({why}){more}: the documents in it cannot be "
                         f"validated", str(where), code="usage.path")


def _is_splits_file(problem_doc: Path, csv: Path) -> bool:
    data, issues = load_json_issues(problem_doc)
    split = as_dict(as_dict(as_dict(data).get("inputs")).get("dataSplits")) if not issues else {}
    rel = split.get("splitsFile", "dataSplits.csv")
    rel = rel if isinstance(rel, str) else "dataSplits.csv"
    try:
        return (problem_doc.parent / rel).resolve() == csv.resolve()
    except OSError:
        return csv.name == "dataSplits.csv"


def discover(paths: list[Path | str]) -> Found:
    """Documents under ``paths``; a missing or unreadable PATH, or a directory under one
    that cannot be listed, raises :class:`UsageError` (exit 2) naming it."""
    found = Found()
    for raw in paths:
        p = Path(raw)
        check_readable(p)
        if p.is_dir():
            before = len(found.problems) + len(found.datasets) + len(found.escaping)
            _walk(p, found)
            if len(found.problems) + len(found.datasets) + len(found.escaping) == before:
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
                    if p.suffix.lower() == ".csv" and not _is_splits_file(parent / PROBLEM, p):
                        found.predictions.append((p, parent / PROBLEM))
                    else:
                        found.add("problem", parent / PROBLEM)
                    break
            else:
                raise UsageError("not a D3M document, and no problemDoc.json or datasetDoc.json "
                                 "in the directories above it", str(p), code="usage.path")
    found.problems.sort()
    found.datasets.sort()
    return found


def _dataset_dir(name: str) -> bool:
    """Named as a task root names its dataset (``<name>_dataset``, ``dataset_<VIEW>``)."""
    return name.endswith("_dataset") or name.startswith("dataset_")


class DatasetIndex(DatasetFinder):
    """datasetID -> datasetDoc.json over the found documents and the ``--datasets``
    directories (:class:`d3mkit.documents.locate.DatasetFinder`); a search directory that is
    missing or unreadable is a usage error."""

    def __init__(self, found: list[Path], search: list[Path | str] = ()):
        for s in search:
            check_readable(Path(s))
        super().__init__(search, found)

    def has_siblings(self, problem_doc: Path) -> bool:
        """Is there a dataset of this task root beside the problem's directory (a
        ``<name>_dataset`` or ``dataset_<VIEW>`` directory; not another task's,
        :func:`d3mkit.documents.locate.other_task`)? Without one, a problem whose dataset is not
        found was validated on its own (``problem.dataset_unchecked``)."""
        inside, out = datasets_beside(problem_doc)
        return any(_dataset_dir(d.parent.name) for d in inside + [p for p, _ in out])

    def unreadable_beside(self, problem_doc: Path) -> tuple[Path, str] | None:
        """A directory in the problem's task root that cannot be listed (it may be the
        dataset), as ``(path, why)``; None when every one can."""
        root = Path(os.path.normpath(problem_doc.parent / os.pardir))
        try:
            with os.scandir(root) as it:
                dirs = sorted(Path(e.path) for e in it if not e.name.startswith(".") and e.is_dir())
        except OSError as exc:
            return root, exc.strerror or str(exc)
        for d in dirs:
            try:
                with os.scandir(d):
                    pass
            except OSError as exc:
                return d, exc.strerror or str(exc)
        return None
