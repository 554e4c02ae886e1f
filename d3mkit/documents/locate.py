"""Finding documents on disk: a task root's parts, a problem's problemDoc, a problem's dataset.

This module owns the one search rule for "the dataset a problem names by datasetID", used
by ``validate``, ``split``, ``score``, ``views`` and the library alike:

1. the task root: every ``*/datasetDoc.json`` beside the problem's directory (sorted);
2. the documents the caller already found (``validate``: those under its PATHs), in order;
3. each search directory (``--datasets DIR``, in order): every datasetDoc.json in the tree
   under it (hidden directories skipped, a dataset directory not searched further).

The first datasetDoc.json whose ``about.datasetID`` equals the problem's wins; documents that
are not valid JSON objects are skipped (``validate`` reports them). A task root is a directory
holding ``<name>_problem/`` and ``<name>_dataset/`` (see docs/design.md).

Every search obeys the path policy (:mod:`d3mkit.io.paths`): a document found inside a
directory (beside the problem, under a PATH, under a ``--datasets`` directory) whose file or
directory is a symlink leading out of that directory is never read; when nothing inside
matches, the search names it in a ``path.escape`` error instead of "not found".

>>> import json, tempfile
>>> root = Path(tempfile.mkdtemp()) / "t"
>>> (root / "t_dataset").mkdir(parents=True); (root / "t_problem").mkdir()
>>> _ = (root / "t_dataset" / "datasetDoc.json").write_text(json.dumps({"about": {"datasetID": "t_dataset"}}))
>>> finder = DatasetFinder()
>>> finder.find("t_dataset", root / "t_problem" / "problemDoc.json") == root / "t_dataset" / "datasetDoc.json"
True
>>> finder.find("other", root / "t_problem" / "problemDoc.json") is None
True
>>> task_root_name(root)
't'
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Iterator

from d3mkit.documents.jsonio import load_json_issues
from d3mkit.core.errors import EXIT_INVALID, ArgumentError, D3MKitError, InvalidArgument, UsageError, error
from d3mkit.io.paths import escaped_error, outside_reason, partition_inside, require_inside

PROBLEM_DOC, DATASET_DOC = "problemDoc.json", "datasetDoc.json"
TASK_ROOT_PARTS = ("_dataset", "_problem", "_solution", "_debug")


# --------------------------------------------------------------------------------------
# task roots
# --------------------------------------------------------------------------------------
def task_root_name(root: Path) -> str | None:
    """The ``<name>`` of a task root directory (a ``<name>_problem`` with a
    ``<name>_dataset`` beside it preferred), or None if ``root`` is not one."""
    try:
        problems = sorted(p.name[:-len("_problem")] for p in Path(root).iterdir()
                          if p.is_dir() and p.name.endswith("_problem"))
    except OSError:
        return None
    for name in problems:
        if (Path(root) / f"{name}_dataset").is_dir():
            return name
    return problems[0] if problems else None


def locate_task_root(path: Path | str) -> tuple[Path, str]:
    """(task root directory, name) for the root itself, one of its ``<name>_*`` parts or a
    file inside one. Raises :class:`UsageError` (exit 2) otherwise."""
    given = p = Path(path)
    if not p.exists():
        raise UsageError("path does not exist", str(p), code="usage.path")
    if not p.is_dir():
        p = p.parent
    for suffix in TASK_ROOT_PARTS:
        if p.name.endswith(suffix) and (p.parent / (p.name[:-len(suffix)] + "_problem")).is_dir():
            return p.parent, p.name[:-len(suffix)]
    name = task_root_name(p)
    if name is None:
        raise UsageError("not a task root: expected <name>_problem/ and <name>_dataset/ inside" if p is given else
                         "not inside a task root: expected a task root (<name>_problem/ and "
                         "<name>_dataset/ inside) or a file in one of its parts", str(given))
    return p, name


def find_problem_doc(path: Path | str) -> Path:
    """problemDoc.json of a problemDoc path, a problem directory or a task root (or one of
    its parts). Raises :class:`UsageError` (exit 2) when there is none."""
    p = Path(path)
    if not p.exists():
        raise UsageError("path does not exist", str(p), code="usage.path")
    if not p.is_dir():   # a file, or a FIFO/device that the JSON reader refuses by name
        return p
    if (p / PROBLEM_DOC).exists():
        return require_inside(p, p / PROBLEM_DOC, what=PROBLEM_DOC, root_name=f"the directory {p}")
    root, name = locate_task_root(p)
    doc = root / f"{name}_problem" / PROBLEM_DOC
    if not doc.is_file():
        raise UsageError("no problemDoc.json in the task root's problem directory", str(doc.parent))
    return require_inside(root, doc, what=f"{name}_problem/{PROBLEM_DOC}", root_name="the task root")


def require_dataset_id(problem, path: Path | str) -> str:
    """The problem's ``inputs.data[0].datasetID``; a document without one is not a
    problemDoc to work with (exit 1, naming the file)."""
    did = problem.dataset_id
    if not isinstance(did, str) or not did:
        raise D3MKitError(error("problem.no_dataset_id", "inputs.data[0].datasetID",
                                "not a usable problemDoc: no datasetID (run 'd3mkit validate' on it)",
                                str(path)))
    return did


# --------------------------------------------------------------------------------------
# the dataset of a problem
# --------------------------------------------------------------------------------------
def walk_documents(root: Path | str, escaping: list | None = None,
                   unreadable: list | None = None) -> Iterator[tuple[str, Path]]:
    """("problem" | "dataset", path) of every problemDoc.json and datasetDoc.json under
    ``root``, in sorted order; hidden directories are skipped and a dataset directory (its
    tables and media) is not searched further. A directory named like a document is
    yielded too, so that its reader reports it. A document file or a directory that is a
    symlink leading out of ``root`` is not yielded (symlinked directories are never
    entered); ``(path, why)`` of each goes to ``escaping`` when given. A directory that
    cannot be listed (permissions, I/O) goes to ``unreadable`` as ``(path, why)``: what it
    holds was not seen, which the caller must not take for "nothing there"."""
    def out(p: Path) -> bool:
        why = outside_reason(root, p)
        if why and escaping is not None and all(q != p for q, _ in escaping):
            escaping.append((p, why))
        return why is not None

    def failed(exc: OSError) -> None:
        if unreadable is not None:
            unreadable.append((Path(exc.filename or root), exc.strerror or str(exc)))

    for dirpath, dirnames, filenames in os.walk(root, onerror=failed):
        here = Path(dirpath)
        named = set(filenames) | set(dirnames)
        for d in dirnames if DATASET_DOC not in named else ():
            if (here / d).is_symlink():
                out(here / d)
        if PROBLEM_DOC in named and not out(here / PROBLEM_DOC):
            yield "problem", here / PROBLEM_DOC
        if DATASET_DOC in named:
            if not out(here / DATASET_DOC):
                yield "dataset", here / DATASET_DOC
            dirnames[:] = []
        else:
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))


def _beside(problem_doc: Path) -> Path:
    """The task root of a problemDoc path: the parent of its directory."""
    return Path(os.path.normpath(problem_doc.parent / os.pardir))


def other_task(problem_dir: Path, dataset_dir: Path) -> bool:
    """Is ``dataset_dir`` (beside ``problem_dir``) another task's dataset? A
    ``<a>_dataset`` beside a ``<b>_problem`` (a != b) is: a directory of collected
    documents is not a task root, and its ``<a>_dataset`` is not the problem's.

    >>> other_task(Path("089_x_archive_problem"), Path("022_x_dataset")), other_task(Path("t_problem"), Path("t_dataset"))
    (True, False)
    """
    p, d = Path(problem_dir).name, Path(dataset_dir).name
    return p.endswith("_problem") and d.endswith("_dataset") and p[:-len("_problem")] != d[:-len("_dataset")]


def datasets_beside(problem_doc: Path | str) -> tuple[list[Path], list[tuple[Path, str]]]:
    """(datasetDoc.json files in the problem's task root, those that lead out of it): rule 1
    of this module's search; other tasks' datasets (:func:`other_task`) are not candidates."""
    problem_doc = Path(problem_doc)
    root = _beside(problem_doc)
    try:
        beside = sorted(root.glob(f"*/{DATASET_DOC}"))
    except OSError:
        beside = []
    inside, out = partition_inside(root, beside)
    # one leading out is always named (path policy), whatever its directory's name
    return [d for d in inside if not other_task(problem_doc.parent, d.parent)], out


class DatasetFinder:
    """The search rule of this module over ``found`` documents and ``search`` directories.
    datasetIDs are read once per file; each search directory is walked once."""

    def __init__(self, search: Iterable[Path | str] = (), found: Iterable[Path] = ()):
        self.search = [Path(s) for s in search]
        self._found = list(found)
        self._ids: dict[Path, str | None] = {}
        self._search_index: dict[str, Path] | None = None
        self.broken: list = []   # issues of candidates that could not be read
        for s in self.search:
            if not s.exists():
                raise UsageError("path does not exist", str(s), code="usage.path")
            if not s.is_dir():
                raise InvalidArgument("datasets", "needs a directory", str(s), code="usage.path")

    def dataset_id(self, doc: Path) -> str | None:
        """``about.datasetID`` of a datasetDoc.json, None when it has none or does not parse."""
        if doc not in self._ids:
            data, issues = load_json_issues(doc)
            self.broken += issues
            about = data.get("about") if not issues and isinstance(data, dict) else None
            did = about.get("datasetID") if isinstance(about, dict) else None
            self._ids[doc] = did if isinstance(did, str) else None
        return self._ids[doc]

    def _searched(self) -> dict[str, Path]:
        if self._search_index is None:
            self._search_index = {}
            for s in self.search:
                for kind, d in walk_documents(s):
                    did = self.dataset_id(d) if kind == "dataset" else None
                    if did is not None:
                        self._search_index.setdefault(did, d)
        return self._search_index

    def _beside_docs(self, problem_doc: Path | str) -> tuple[list[Path], list[tuple[Path, str]]]:
        return datasets_beside(problem_doc)

    def escaped_beside(self, problem_doc: Path | str) -> list[tuple[Path, str]]:
        """Datasets beside the problem that lead out of its task root (never read)."""
        return self._beside_docs(problem_doc)[1]

    def find(self, dataset_id: str, problem_doc: Path | str) -> Path | None:
        """The datasetDoc.json with ``dataset_id`` for the problem at ``problem_doc``."""
        beside = self._beside_docs(problem_doc)[0]
        for d in beside + self._found:
            if self.dataset_id(d) == dataset_id:
                return d
        return self._searched().get(dataset_id)

    def places(self, problem_doc: Path | str) -> list[str]:
        """Where :meth:`find` looked, for a message."""
        return [str(_beside(Path(problem_doc)))] + [str(s) for s in self.search]


def find_dataset_doc(problem_doc: Path | str, dataset_id: str,
                     search: Iterable[Path | str] = (), strict: bool = False) -> Path | None:
    """The datasetDoc.json a problem names, by the search rule of this module; None if none
    (a path.escape error when the only candidates beside it lead out of the task root;
    with ``strict``, :class:`D3MKitError` carrying the issues of candidates that could not
    be read, since one of them may be the dataset)."""
    finder = DatasetFinder(search)
    found = finder.find(dataset_id, problem_doc)
    if found is None and finder.escaped_beside(problem_doc):
        raise escaped_error(finder.escaped_beside(problem_doc), doc=problem_doc,
                            location="inputs.data[0].datasetID", wanted=f"dataset {dataset_id!r}",
                            root_name=f"the task root {_beside(Path(problem_doc))}")
    if found is None and finder.broken and strict:
        raise D3MKitError(finder.broken)
    return found


def dataset_of(problem, search: Iterable[Path | str] = ()):
    """The :class:`~d3mkit.documents.dataset.DatasetDoc` of a loaded ``ProblemDoc`` (its path
    tells where it lives). Raises :class:`D3MKitError` (exit 1) naming the places searched."""
    from d3mkit.documents.dataset import DatasetDoc
    path = problem.path if problem.path is not None else Path(PROBLEM_DOC)
    did = require_dataset_id(problem, path)
    finder = DatasetFinder(search)
    found = finder.find(did, path)
    if found is None and finder.escaped_beside(path):
        raise escaped_error(finder.escaped_beside(path), doc=path, location="inputs.data[0].datasetID",
                            wanted=f"dataset {did!r}", root_name=f"the task root {_beside(path)}")
    if found is None and finder.broken:   # a candidate that cannot be read may be the one
        raise D3MKitError(finder.broken)
    if found is None:
        raise ArgumentError([("problem.dataset_missing", "inputs.data[0].datasetID",
                              f"no datasetDoc.json with datasetID {did!r} in "
                              f"{', '.join(finder.places(path))} (pass {{datasets=DIR}})", str(path))],
                            EXIT_INVALID)
    return DatasetDoc.load(found)
