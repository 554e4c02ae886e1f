"""Validation of D3M documents and task roots (``d3mkit validate``).

Modules, each owning one thing: :mod:`.discover` (PATH -> documents, problem -> dataset),
:mod:`.files` (dataset resources and tables), :mod:`.crossdoc` (problem <-> dataset),
:mod:`.splitcheck` (dataSplits.csv), :mod:`.coltypes` (colType value checks),
:mod:`.csvread` (CSV reading that never raises), :mod:`.paths` (containment),
:mod:`.report` (report data and text), :mod:`.codes` (the issue-code catalogue),
:mod:`.run` (the driver). Schema checks (``schema.*`` codes) live in :mod:`.schema`.
"""

from __future__ import annotations

from d3mkit.validate.run import validate_paths, validate_task_root

__all__ = ["validate_paths", "validate_task_root"]
