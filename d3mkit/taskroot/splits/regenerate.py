"""(Re)writing a problem's dataSplits file from its problemDoc: :func:`regenerate`, what
``d3mkit split`` runs."""


from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from d3mkit.core.errors import D3MKitError, OutputExists, error
from d3mkit.core.lazy import pandas as pd
from d3mkit.documents import DatasetDoc, ProblemDoc
from d3mkit.io.limits import file_issue
from d3mkit.tables import read_table
from d3mkit.taskroot.splits.plan import SplitSpec, make_splits, spec_issues
from d3mkit.taskroot.splits.read import splits_path
from d3mkit.taskroot.splits.write import splits_bytes, write_splits

def find_dataset(problem: ProblemDoc, search: tuple[Path, ...] = ()) -> DatasetDoc:
    """The dataset a problem names (the search rule of :mod:`d3mkit.documents.locate`)."""
    from d3mkit.documents.locate import dataset_of
    return dataset_of(problem, search)


@dataclass(frozen=True)
class SplitsWritten:
    """What :func:`regenerate` did: the file, its rows, the spec and whether it changed."""

    path: Path
    splits: pd.DataFrame
    spec: SplitSpec
    changed: bool


def regenerate(problem_path: Path | str, search: tuple[Path, ...] = (), *,
               force: bool = False) -> SplitsWritten:
    """(Re)write the splits file of the problem at ``problem_path`` (a problemDoc, a problem
    directory or a task root) from its ``dataSplits`` section. An up-to-date file is left
    alone; one with other content is replaced only with ``force`` (else OutputExists)."""
    from d3mkit.documents.locate import find_problem_doc, require_dataset_id
    doc_path = find_problem_doc(problem_path)
    problem = ProblemDoc.load(doc_path)
    require_dataset_id(problem, doc_path)
    spec, issues = spec_issues(problem)
    if spec is None:
        raise D3MKitError(issues)
    dataset = find_dataset(problem, tuple(search))
    res = dataset.learning_data
    if res is None:
        raise D3MKitError(error("dataset.no_learning_data", "dataResources",
                                "dataset has no learningData table", str(dataset.path)))
    ld_path = dataset.resource_path(res)
    try:
        learning_data = read_table(ld_path)
    except D3MKitError:
        raise
    except Exception as exc:  # pandas parser errors, encoding errors
        raise D3MKitError.single(ld_path, "csv.unreadable", "", f"cannot read learningData: {exc}") from None
    splits = make_splits(problem, learning_data, dataset)
    out = splits_path(doc_path.parent, spec.splits_file)
    new = splits_bytes(splits)
    refused = file_issue(out, "dataSplits file") if os.path.lexists(out) else None
    if refused is not None:          # a FIFO or device named like the splits file: never read
        raise D3MKitError(refused)
    same = out.exists() and out.read_bytes() == new
    if out.exists() and not same and not force:
        raise OutputExists(out, detail="exists with different content")
    if not same:
        write_splits(splits, out)
    return SplitsWritten(out, splits, spec, not same)
