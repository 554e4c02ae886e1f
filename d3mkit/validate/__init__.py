"""Validation of D3M documents and task roots (``d3mkit validate``).

Modules, each owning one thing: :mod:`.discover` (PATH -> documents, problem -> dataset),
:mod:`.files` (dataset resources and tables), :mod:`.crossdoc` (problem <-> dataset),
:mod:`.splitcheck` (dataSplits.csv), :mod:`.coltypes` (colType value checks),
:mod:`.csvread` (CSV reading that never raises), :mod:`.paths` (containment),
:mod:`.report` (report data and text), :mod:`.codes` (the issue-code catalogue),
:mod:`.run` (the driver). Schema checks (``schema.*`` codes) live in :mod:`.schema`.
"""

from __future__ import annotations

import sys
import types

from d3mkit.validate.run import validate_paths, validate_task_root
from d3mkit.validate.verbs import is_valid, iter_issues, validate

__all__ = ["validate_paths", "validate_task_root", "validate", "iter_issues", "is_valid"]


class _CallablePackage(types.ModuleType):
    """``from d3mkit import validate`` names this package (a subpackage wins over a
    function of the same name); calling it runs :func:`d3mkit.validate.verbs.validate`."""

    def __call__(self, *paths, datasets=(), strict: bool = False):
        return validate(*paths, datasets=datasets, strict=strict)


sys.modules[__name__].__class__ = _CallablePackage
