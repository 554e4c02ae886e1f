"""Validation of D3M documents and task roots (``d3mkit validate``; the verbs
``d3mkit.validate``, ``d3mkit.iter_issues`` and ``d3mkit.is_valid``).

Modules, each owning one thing: :mod:`.discover` (PATH -> documents, problem -> dataset),
:mod:`.files` (dataset resources and tables), :mod:`.crossdoc` (problem <-> dataset),
:mod:`.splitcheck` (dataSplits.csv), :mod:`.coltypes` (colType value checks),
:mod:`.csvread` (CSV reading that never raises), :mod:`.paths` (containment),
:mod:`.report` (report data and text), :mod:`.codes` (the issue-code catalogue),
:mod:`.run` (the driver). Schema checks (``schema.*`` codes) live in :mod:`.schema`.
"""

from __future__ import annotations

_NAMES = {"validate_paths": "run", "validate_task_root": "run", "validate": "verbs",
          "iter_issues": "verbs", "is_valid": "verbs"}
__all__ = list(_NAMES)


def __getattr__(name: str):
    """Load the driver and the verbs on first use (PEP 562): a module that only needs
    :mod:`.coltypes` or :mod:`.csvread` (scoring) does not pay for the whole validator."""
    if name not in _NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module
    return getattr(import_module(f"{__name__}.{_NAMES[name]}"), name)

