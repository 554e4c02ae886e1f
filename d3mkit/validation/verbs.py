"""The validation verbs of the public API, over one stream of issues (as jsonschema has
``iter_errors``, ``is_valid`` and ``validate``). ``from d3mkit import validate`` gives
:func:`validate`, a plain function; the validator itself is :mod:`d3mkit.validation`."""

from __future__ import annotations

import os
from typing import Iterable, Iterator

from d3mkit.errors import D3MKitError, Issue, has_errors


def _paths(paths) -> list:
    return [p for item in paths for p in ([item] if isinstance(item, (str, os.PathLike)) else item)]


def iter_issues(*paths, datasets: Iterable = ()) -> Iterator[Issue]:
    """Every issue of every document under ``paths`` (documents, problem or dataset
    directories, task roots, trees); a problem's dataset is also looked for in ``datasets``.
    A missing or unreadable path raises :class:`D3MKitError` (exit code 2)."""
    from d3mkit.validation.run import validate_paths
    yield from validate_paths(_paths(paths), list(datasets)).issues()


def is_valid(*paths, datasets: Iterable = (), strict: bool = False) -> bool:
    """True when the documents under ``paths`` have no error (with ``strict``, no issue)."""
    return not has_errors(iter_issues(*paths, datasets=datasets), strict=strict)


def validate(*paths, datasets: Iterable = (), strict: bool = False):
    """The validation :class:`~d3mkit.validation.report.Report` of ``paths``; raises
    :class:`D3MKitError` carrying every error (every issue with ``strict``) when invalid."""
    from d3mkit.validation.run import validate_paths
    report = validate_paths(_paths(paths), list(datasets))
    issues = list(report.issues())
    if has_errors(issues, strict=strict):
        raise D3MKitError([i for i in issues if strict or i.is_error])
    return report
