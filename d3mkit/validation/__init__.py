"""Validation of D3M documents and task roots (``d3mkit validate``; the verbs
``d3mkit.validate``, ``d3mkit.iter_issues`` and ``d3mkit.is_valid``).

What this package owns: whether documents are valid. Its checks are units in a registry
(:mod:`.checks`: Check, Document, Checklist; :mod:`.plugins`: the ``d3mkit.checks``
entry-point group; :mod:`.builtin`: validation's own checks) and :mod:`.run` drives
documents x checks. The checks' parts: :mod:`.discover` (PATH -> documents, problem ->
dataset), :mod:`.files` (dataset resources and tables), :mod:`.crossdoc` (problem <->
dataset), :mod:`.splitcheck` (dataSplits.csv), :mod:`.coltypes` (colType values),
:mod:`.schema` (``schema.*``), :mod:`.keys` and :mod:`.listing` (index keys, media
listings); :mod:`.report` (report data and text), :mod:`.verbs` (the public verbs).
"""

from __future__ import annotations

_NAMES = {"validate_paths": "run", "validate_task_root": "run", "validate": "verbs",
          "iter_issues": "verbs", "is_valid": "verbs"}
__all__ = list(_NAMES)


def __getattr__(name: str):
    """Load the driver and the verbs on first use (PEP 562): a module that only needs
    :mod:`.coltypes` (scoring) does not pay for the whole validator."""
    if name not in _NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module
    return getattr(import_module(f"{__name__}.{_NAMES[name]}"), name)

