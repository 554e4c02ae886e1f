"""Validation of D3M documents and task roots (interim: document loading only)."""

from __future__ import annotations

from pathlib import Path

from d3mkit.docs.jsonio import load_json_issues
from d3mkit.errors import Issue


def validate_task_root(root: Path, datasets: tuple[Path, ...] = ()) -> list[Issue]:
    """All issues of the task root at ``root`` (problem, dataset, splits, files)."""
    issues: list[Issue] = []
    for doc in sorted(Path(root).glob("*_problem/problemDoc.json")) + \
            sorted(Path(root).glob("*_dataset/datasetDoc.json")):
        issues += load_json_issues(doc)[1]
    return issues
