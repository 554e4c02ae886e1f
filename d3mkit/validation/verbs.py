"""The validation verbs of the public API, over one lazy stream of issues (as jsonschema has
``iter_errors``, ``is_valid`` and ``validate``). ``from d3mkit import validate`` gives
:func:`validate`, a plain function; the validator itself is :mod:`d3mkit.validation`.

:func:`iter_issues` is a generator: the validator runs as it is iterated (discovery, then
one step of a dataset or problem at a time: a table read, a column checked) and stops when
the iteration stops, so :func:`is_valid`
returns at the first error without checking the rest. Arguments of the wrong type raise
:class:`TypeError` naming the parameter.

>>> is_valid(42)
Traceback (most recent call last):
...
TypeError: paths: expected a path (str or os.PathLike) or an iterable of paths, got int 42
"""

from __future__ import annotations

import os
from typing import Iterable, Iterator

from d3mkit.core.errors import D3MKitError, Issue, has_errors, require_type

_PATH = "a path (str or os.PathLike) or an iterable of paths"


def _paths(param: str, paths) -> list:
    """Every path of ``paths`` (each item a path, or an iterable of paths), type-checked."""
    out = []
    for item in paths:
        if isinstance(item, (str, os.PathLike)):
            out.append(item)
            continue
        require_type(param, item, Iterable, _PATH)
        if isinstance(item, (bytes, bytearray, dict)):
            require_type(param, item, (), _PATH)
        for p in item:
            require_type(param, p, (str, os.PathLike), _PATH)
            out.append(p)
    return out


def _args(paths, datasets, strict=False) -> tuple[list, list]:
    found = _paths("paths", paths)
    require_type("datasets", datasets, Iterable, "an iterable of paths")
    if isinstance(datasets, (str, os.PathLike)):
        datasets = [datasets]
    require_type("strict", strict, bool, "a bool")
    return found, _paths("datasets", [datasets])


def iter_issues(*paths, datasets: Iterable = ()) -> Iterator[Issue]:
    """Every issue of every document under ``paths`` (documents, problem or dataset
    directories, task roots, trees), yielded as the validator finds them; a problem's
    dataset is also looked for in ``datasets``. A missing or unreadable path raises
    :class:`D3MKitError` (exit code 2) on the first ``next``; a readable one that holds no
    D3M document gives an error issue naming it."""
    found, search = _args(paths, datasets)
    return _stream(found, search)


def _stream(found: list, search: list) -> Iterator[Issue]:
    from d3mkit.validation.run import stream_issues
    yield from stream_issues(found, search)


def is_valid(*paths, datasets: Iterable = (), strict: bool = False) -> bool:
    """True when the documents under ``paths`` have no error (with ``strict``, no issue);
    stops validating at the first one."""
    found, search = _args(paths, datasets, strict)
    return not has_errors(_stream(found, search), strict=strict)


def validate(*paths, datasets: Iterable = (), strict: bool = False):
    """The validation :class:`~d3mkit.validation.report.Report` of ``paths``; raises
    :class:`D3MKitError` carrying every error (every issue with ``strict``) when invalid."""
    from d3mkit.validation.run import validate_paths
    found, search = _args(paths, datasets, strict)
    report = validate_paths(found, search)
    issues = list(report.issues())
    if has_errors(issues, strict=strict):
        raise D3MKitError([i for i in issues if strict or i.is_error])
    return report
