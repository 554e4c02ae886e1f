"""Step 1 of scoring, resolve: from what a caller names (a task root, a problem directory,
a problemDoc.json or a loaded ProblemDoc; optionally a dataset, a targets table, a
metadata directory) to the documents scoring reads, as one :class:`Resolved` record.

This is the one place that decides, for the API (:func:`d3mkit.api.score`), ``d3mkit
score``, ``d3mkit validate PREDICTIONS --problem`` (:mod:`d3mkit.scoring.check`),
``d3mkit evaluate`` (:mod:`d3mkit.evaluate.discover`) and the baselines:

* the problemDoc of a path (:func:`d3mkit.documents.locate.find_problem_doc`);
* the dataset: the one given (a directory, a datasetDoc.json or a DatasetDoc), else the
  one whose datasetID the problem names, by the search rule of
  :mod:`d3mkit.documents.locate` (beside the problem, then the ``search`` directories); none
  is needed when a targets table is given;
* the metadata directory custom metrics read (:func:`metadata_dir_of`): the one given,
  else ``<name>_debug`` beside the problem's ``<name>_problem`` directory.

A dataset or targets path that does not exist, and a problem whose dataset cannot be
found when no targets are given, raise :class:`~d3mkit.core.errors.UsageError` (exit 2);
:class:`NoDataset` says which datasetID was looked for and where.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from d3mkit.documents import DatasetDoc, ProblemDoc
from d3mkit.documents.locate import require_dataset_id
from d3mkit.core.errors import UsageError, require_type
from d3mkit.core.lazy import is_frame
from d3mkit.scoring.predictions import check_source


class NoDataset(UsageError):
    """No dataset with the problem's datasetID was found, and no targets were given."""

    def __init__(self, dataset_id: str, problem_doc: Path | str, places: list[str]):
        self.dataset_id, self.places = dataset_id, places
        super().__init__(f"no dataset with datasetID {dataset_id!r} in {', '.join(places)}; "
                         f"give the dataset or a targets table", str(problem_doc), code="usage.path")


@dataclass(frozen=True)
class Resolved:
    """What one scoring reads: the problem, its dataset (None when ``targets`` is given and
    no dataset was), the targets table (a path or a DataFrame, or None: the TEST rows of
    the dataset) and the metadata directory (None: there is none)."""

    problem: ProblemDoc
    dataset: DatasetDoc | None
    targets: object = None
    metadata_dir: Path | None = None


def metadata_dir_of(problem_doc: Path | str | None) -> Path | None:
    """``<name>_debug`` beside the ``<name>_problem`` directory holding ``problem_doc``
    (whether or not it exists), or None when the problem is not in a task root: the one
    derivation of the per-row metadata directory.

    >>> metadata_dir_of("root/wine_problem/problemDoc.json").as_posix()
    'root/wine_debug'
    >>> metadata_dir_of("elsewhere/problemDoc.json") is None
    True
    """
    if problem_doc is None:
        return None
    pdir = Path(problem_doc).parent
    if pdir.name.endswith("_problem") and len(pdir.name) > len("_problem"):
        return pdir.parent / (pdir.name[:-len("_problem")] + "_debug")
    return None


def _problem(problem) -> ProblemDoc:
    if isinstance(problem, ProblemDoc):
        return problem
    require_type("problem", problem, (str, os.PathLike), "a path or a ProblemDoc")
    from d3mkit.documents.locate import find_problem_doc
    return ProblemDoc.load(find_problem_doc(problem))


def _dataset(dataset) -> DatasetDoc:
    if isinstance(dataset, DatasetDoc):
        return dataset
    require_type("dataset", dataset, (str, os.PathLike), "a path or a DatasetDoc")
    if not Path(dataset).exists():
        raise UsageError("path does not exist", str(dataset), code="usage.path")
    return DatasetDoc.load(dataset)


def resolve(problem, *, dataset=None, targets=None, metadata_dir=None, search=(),
            find_dataset: bool = True) -> Resolved:
    """The :class:`Resolved` record of ``problem`` (a task root, problem directory,
    problemDoc.json or ProblemDoc). ``dataset`` (a directory, datasetDoc.json or
    DatasetDoc) or ``targets`` (a targets.csv path or a DataFrame) name the truth; without
    either, the dataset is the one the problem names, found beside it or under the
    ``search`` directories (a :class:`NoDataset` error when there is none; with
    ``find_dataset`` False, a ProblemDoc without a dataset resolves to no dataset)."""
    doc = _problem(problem)
    if targets is not None:
        check_source(targets, "targets")
        if not is_frame(targets) and not Path(targets).is_file():
            raise UsageError("path does not exist" if not Path(targets).exists() else
                             "targets is a CSV file, not a directory", str(targets), code="usage.path")
    ds = _dataset(dataset) if dataset is not None else None
    if doc.path is not None:   # a problemDoc without a datasetID is not one to score with
        require_dataset_id(doc, doc.path)
    if ds is None and targets is None and doc.path is not None and find_dataset:
        from d3mkit.documents.locate import DatasetFinder, find_dataset_doc
        did = doc.dataset_id
        found = find_dataset_doc(doc.path, did, search, strict=True)
        if found is None:
            raise NoDataset(did, doc.path, DatasetFinder(search).places(doc.path))
        ds = DatasetDoc.load(found)
    mdir = Path(metadata_dir) if metadata_dir is not None else metadata_dir_of(doc.path)
    return Resolved(doc, ds, targets, mdir)
