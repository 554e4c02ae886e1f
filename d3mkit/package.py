"""Writing task roots atomically.

:class:`TaskRootWriter` builds a task root in a temporary sibling directory and renames it
into place only when everything was written and validated; an exception (or invalid
output) removes the temporary directory, so no half-written task root is ever left. An
existing task root is replaced only with ``force=True``.

Usage::

    with TaskRootWriter(out_dir, "wine", benchmark="tabular", seed=0, parameters={...}) as w:
        w.write_table("tables/learningData.csv", df)        # relative to <name>_dataset/
        w.write_dataset_doc(dataset_doc)
        w.write_problem_doc(problem_doc)                     # dataSplits made from the doc
    w.root   # the final path
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

from d3mkit import __version__
from d3mkit.docs import DatasetDoc, ProblemDoc
from d3mkit.docs.jsonio import save_json
from d3mkit.errors import D3MKitError, UsageError, has_errors, relocated_error
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
        self._dataset_doc: DatasetDoc | None = None
        self._problem_doc: ProblemDoc | None = None
        self._learning_data: pd.DataFrame | None = None
        self._splits_written = False

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
        if self.out_dir.exists() and not self.out_dir.is_dir():
            raise UsageError("--out exists and is not a directory", str(self.out_dir))
        if self.root.exists() and not self.force:
            raise UsageError(f"{self.root} already exists (pass --force to replace it)", str(self.root))
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.tmp = Path(tempfile.mkdtemp(prefix=f".{self.name}.tmp-", dir=self.out_dir))
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

    def write_dataset_doc(self, doc: DatasetDoc) -> None:
        self._dataset_doc = doc
        doc.save(self.dataset_dir / "datasetDoc.json")

    def write_problem_doc(self, doc: ProblemDoc, splits: pd.DataFrame | None = None) -> None:
        """Write problemDoc.json and dataSplits.csv (``splits`` given, or made from the
        doc's dataSplits section by :func:`d3mkit.splits.make_splits`)."""
        self._problem_doc = doc
        doc.save(self.problem_dir / "problemDoc.json")
        if splits is None:
            if self._learning_data is None or self._dataset_doc is None:
                raise RuntimeError("write learningData and the datasetDoc before the problemDoc")
            from d3mkit.splits import make_splits
            splits = make_splits(doc, self._learning_data, self._dataset_doc)
        write_table(splits, self.problem_dir / doc.splits_file)
        self._splits_written = True

    def write_debug_table(self, name: str, df: pd.DataFrame) -> Path:
        p = self.debug_dir / name
        write_table(df, p)
        return p

    # commit / rollback ------------------------------------------------------------------
    def __exit__(self, exc_type, exc, tb) -> bool:
        assert self.tmp is not None
        if exc_type is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            moved = relocated_error(exc, self.tmp, self.root)   # name the user's path
            if moved is not exc:
                raise moved from None
            return False
        try:
            save_json(self.debug_dir / "manifest.json", self.manifest)
            if self.validate:
                from d3mkit.validate import validate_task_root
                issues = validate_task_root(self.tmp)
                if has_errors(issues):
                    raise D3MKitError([i for i in issues if i.is_error])
            self._commit()
        except BaseException as err:
            shutil.rmtree(self.tmp, ignore_errors=True)
            moved = relocated_error(err, self.tmp, self.root)
            if moved is not err:
                raise moved from None
            raise
        return False

    def _commit(self) -> None:
        assert self.tmp is not None
        old = None
        if self.root.exists():
            if not self.force:
                raise UsageError(f"{self.root} already exists (pass --force to replace it)", str(self.root))
            old = self.out_dir / f".{self.name}.old-{os.getpid()}"
            os.rename(self.root, old)
        os.rename(self.tmp, self.root)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
