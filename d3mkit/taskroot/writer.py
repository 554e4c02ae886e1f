"""Writing task roots atomically.

:class:`TaskRootWriter` builds a task root in a temporary sibling directory and puts it
into place only when everything was written and validated, through
:class:`d3mkit.io.atomic.StagedDir`: an exception (or invalid output) removes the temporary
directory, an existing task root is replaced only with ``force=True`` and then in one
atomic swap (the name holds the complete old or the complete new root at every instant,
even if the process is killed), and leftovers of killed runs are cleaned up first.

Usage::

    with TaskRootWriter(out_dir, "wine", benchmark="tabular", seed=0, parameters={...}) as w:
        w.write_table("tables/learningData.csv", df)        # relative to <name>_dataset/
        w.write_dataset_doc(dataset_doc)
        w.write_problem_doc(problem_doc)                     # dataSplits made from the doc
    w.root   # the final path

On commit the manifest (``<name>_debug/manifest.json``: the benchmark, seed, parameters and
d3mkit version) also records the sha256 of every file written (:mod:`d3mkit.taskroot.digests`), so
``d3mkit validate --verify-digests`` can name what changed later.

:func:`convert_tree` writes a task root (or TRAIN/TEST/SCORE views tree) converted to other D3M
schema versions (documents by :mod:`d3mkit.documents.convert` and
:mod:`d3mkit.documents.convert_dataset`, bounding-box columns of the tables rewritten) the same
way: into a temporary sibling, renamed into place when everything converted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from d3mkit import __version__
from d3mkit.io.atomic import StagedDir, check_output_dir, copy_tree
from d3mkit.io.beside import beside
from d3mkit.taskroot.digests import tree_digests
from d3mkit.io.paths import outside_reason, resolve_inside
from d3mkit.documents import DatasetDoc, ProblemDoc
from d3mkit.documents.jsonio import save_json
from d3mkit.core.errors import D3MKitError, Issue, OutputExists, OutputInsideInput, UsageError, error, has_errors, relocated_error, warning
from d3mkit.tables import write_table


def dataset_id(name: str) -> str:
    return f"{name}_dataset"


def problem_id(name: str) -> str:
    return f"{name}_problem"


class TaskRootWriter:
    """Context manager writing ``out_dir/<name>/`` atomically (see module docstring)."""

    def __init__(self, out_dir: Path | str, name: str, *, benchmark: str, seed: int | None = None,
                 parameters: dict[str, Any] | None = None, force: bool = False,
                 validate: bool = True):
        self.out_dir = Path(out_dir)
        self.name = name
        self.root = self.out_dir / name
        self.force = force
        self.validate = validate
        self.manifest: dict[str, Any] = {
            "name": name, "benchmark": benchmark, "seed": seed,
            "d3mkitVersion": __version__, "parameters": dict(parameters or {}),
        }
        self.tmp: Path | None = None
        self.notes: list[str] = []          # leftovers of killed runs that were cleaned up
        self._stage: StagedDir | None = None
        self._dataset_doc: DatasetDoc | None = None
        self._problem_doc: ProblemDoc | None = None
        self._learning_data: pd.DataFrame | None = None
        self._splits_written = False
        self._cells_checked: list[Path] = []
        self._in_memory: dict[Path, pd.DataFrame] = {}     # tables written from these frames

    # directories inside the temporary root ------------------------------------------
    def _sub(self, suffix: str) -> Path:
        assert self.tmp is not None, "use TaskRootWriter as a context manager"
        d = self.tmp / f"{self.name}{suffix}"
        d.mkdir(parents=True, exist_ok=True)
        return d

    @property
    def dataset_dir(self) -> Path:
        return self._sub("_dataset")

    @property
    def problem_dir(self) -> Path:
        return self._sub("_problem")

    @property
    def debug_dir(self) -> Path:
        return self._sub("_debug")

    @property
    def solution_dir(self) -> Path:
        return self._sub("_solution")

    def __enter__(self) -> "TaskRootWriter":
        if not self.name or self.name in (".", "..") or "/" in self.name or "\\" in self.name \
                or self.name.startswith("."):
            raise UsageError(f"task root name {self.name!r} must be a plain directory name "
                             f"(no '/', not empty, not starting with '.')", str(self.out_dir))
        check_output_dir(self.out_dir, "out")
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self._stage = StagedDir(self.root, force=self.force)
        self.tmp = self._stage.__enter__()
        self.notes = self._stage.notes
        return self

    # writers --------------------------------------------------------------------------
    def write_table(self, rel_path: str, df: pd.DataFrame) -> Path:
        """Write a CSV under ``<name>_dataset/``; learningData is remembered for splits."""
        p = self.dataset_dir / rel_path
        write_table(df, p)
        if rel_path.endswith("learningData.csv"):
            self._learning_data = df
        return p

    def media_path(self, rel_path: str) -> Path:
        """A path under ``<name>_dataset/`` for a media file; parents are created."""
        p = self.dataset_dir / rel_path
        p.parent.mkdir(parents=True, exist_ok=True)
        return p

    def cells_checked(self, rel_path: str, columns: pd.DataFrame | None = None) -> None:
        """Say that every cell of the table ``<name>_dataset/rel_path`` was checked against its
        colType by the caller as it was written (``d3mkit import`` infers the colTypes from
        the cells): the validation on commit reads only its index, target and refersTo
        columns (the documents, splits and every other file are validated in full).
        ``columns``, when given, holds those columns as written (text cells, row for row,
        columns by header name) and says every row of the file has the header's width: the
        validation takes them from memory instead of parsing the file again."""
        self._cells_checked.append(self.dataset_dir / rel_path)
        if columns is not None:
            self._in_memory[self.dataset_dir / rel_path] = columns

    def write_dataset_doc(self, doc: DatasetDoc) -> None:
        self._dataset_doc = doc
        doc.save(self.dataset_dir / "datasetDoc.json")

    def write_problem_doc(self, doc: ProblemDoc, splits: pd.DataFrame | None = None) -> None:
        """Write problemDoc.json and dataSplits.csv (``splits`` given, or made from the
        doc's dataSplits section by :func:`d3mkit.taskroot.splits.plan.make_splits`)."""
        self._problem_doc = doc
        doc.save(self.problem_dir / "problemDoc.json")
        if splits is None:
            if self._learning_data is None or self._dataset_doc is None:
                raise RuntimeError("write learningData and the datasetDoc before the problemDoc")
            from d3mkit.taskroot.splits.plan import make_splits
            splits = make_splits(doc, self._learning_data, self._dataset_doc)
        from d3mkit.taskroot.splits.write import write_splits
        path = self.problem_dir / doc.splits_file
        write_splits(splits, path)
        self._in_memory[path] = splits          # the commit's validation reads the frame, not the file
        self._splits_written = True

    def write_debug_table(self, name: str, df: pd.DataFrame) -> Path:
        p = self.debug_dir / name
        write_table(df, p)
        return p

    # commit / rollback ------------------------------------------------------------------
    def __exit__(self, exc_type, exc, tb) -> bool:
        assert self.tmp is not None and self._stage is not None
        if exc_type is None:
            try:
                debug = self.debug_dir
                issues: list[Issue] = []
                # the sha256 of every file written (d3mkit.taskroot.digests), the manifest itself aside: taken
                # in a thread while the root is validated (hashlib works outside the interpreter lock)
                with beside(tree_digests, self.tmp, self.name) as digests:
                    if self.validate:
                        from d3mkit.validation import validate_task_root
                        issues = validate_task_root(self.tmp, cells_checked=tuple(self._cells_checked),
                                                    in_memory=self._in_memory)
                self.manifest["digests"] = digests.result()
                save_json(debug / "manifest.json", self.manifest)
                if has_errors(issues):
                    raise D3MKitError([i for i in issues if i.is_error])
            except BaseException as e:
                self._stage.__exit__(type(e), e, e.__traceback__)   # raises it naming the root
                raise
        self._stage.__exit__(exc_type, exc, tb)   # commits when there was no exception
        return False



# ------------------------------------------------------------------------------ converting task roots
def _rewrite_column(csv: Path, column: str, kind: str, issues: list[Issue]) -> None:
    from d3mkit.documents.convert_dataset import box_to_polygon, polygon_to_box
    from d3mkit.tables import read_table, write_table
    df = read_table(csv)
    if column not in df.columns:
        return
    values = []
    lossy = 0
    for r, v in enumerate(df[column].tolist()):
        if v == "":
            values.append(v)
            continue
        try:
            if kind == "polygon":
                values.append(box_to_polygon(v))
            else:
                box, exact = polygon_to_box(v)
                lossy += not exact
                values.append(box)
        except D3MKitError:   # a ValueError too: an input problem already stated
            raise
        except ValueError as exc:
            raise D3MKitError(error("convert.box", "", str(exc), str(csv), row=r + 2, column=column))
    if lossy:
        issues.append(warning("convert.polygon_shape", "",
                              f"{lossy} polygon(s) are not axis-aligned rectangles; their bounding boxes "
                              f"are written", str(csv), column=column))
    df[column] = values
    write_table(df, csv)


def _to_problem_version(to: str) -> str:
    return "4.0.0" if to.startswith("4") else "3.1.1"


def _to_dataset_version(to: str) -> str:
    return "4.0.0" if to.startswith("4") else "3.1.2"


def convert_tree(root: Path | str, to: str, out: Path | str, *, force: bool = False) -> list[Issue]:
    """Convert every problemDoc and datasetDoc under ``root`` (a task root or a views tree)
    to ``to`` (``4.0.0``; or ``3.1.1``/``3.1.2``: problems 3.1.1, datasets 3.1.2) into the new
    directory ``out``, with the tables whose bounding-box columns change rewritten (and a
    views tree's ``SCORE/targets.csv``). Written into a temporary sibling, then renamed;
    raises :class:`D3MKitError` with every error and writes nothing when a document cannot
    be converted. Returns the warnings."""
    from d3mkit.documents.convert import convert_problem
    from d3mkit.documents.convert_dataset import convert_dataset
    from d3mkit.documents.jsonio import load_json, save_json
    from d3mkit.documents.locate import walk_documents
    root, out = Path(root), Path(out)
    if not root.is_dir():
        raise UsageError("not a directory", str(root), code="usage.path")
    if out.exists() and not force:
        raise OutputExists(out)
    if outside_reason(root, out) is None:
        raise OutputInsideInput(out, root, "out", "the tree")
    docs = list(walk_documents(root))
    if not docs:
        raise UsageError("no problemDoc.json or datasetDoc.json under this directory", str(root),
                         code="usage.path")
    check_output_dir(out, "out")
    with StagedDir(out, force=force) as dest:      # crash-safe, like task roots (d3mkit.io.atomic)
        copy_tree(root, dest, symlinks=True, what="file")   # umask modes, regular files only
        issues: list[Issue] = []
        errors: list[Issue] = []
        box_columns: set[str] = set()
        for kind, p in docs:
            rel = p.relative_to(root)
            target = dest / rel
            data = load_json(p)
            if kind == "problem":
                new, found = convert_problem(data, _to_problem_version(to), str(p))
                rewrites = []
            else:
                new, found, rewrites = convert_dataset(data, _to_dataset_version(to), str(p))
            (errors if any(i.is_error for i in found) else issues).extend(found)
            if new is None:
                continue
            save_json(target, new)
            for res_id, column, how in rewrites:
                res = next((r for r in new["dataResources"] if r.get("resID") == res_id), None)
                if res is not None and isinstance(res.get("resPath"), str):
                    csv = resolve_inside(target.parent, res["resPath"], doc=p, location=f"resource {res_id}",
                                         what="resPath", root_name="the dataset directory")
                    _rewrite_column(csv, column, how, issues)
                    box_columns.add((column, how))
        if errors:
            raise D3MKitError(errors + issues)
        # a views tree: the scorer's truth carries the same columns
        for targets in dest.glob("*/targets.csv"):
            for column, how in sorted(box_columns):
                _rewrite_column(targets, column, how, issues)
        # a task root's manifest records the digests of the converted files, not the old ones
        for manifest in dest.glob("*_debug/manifest.json"):
            data = load_json(manifest)
            if isinstance(data, dict) and "digests" in data:
                data["digests"] = tree_digests(dest, manifest.parent.name[:-len("_debug")])
                save_json(manifest, data)
    return issues
