"""A table ready to be written, and the colTypes its targets get.

What this module owns: :class:`Prepared` (what the whole-table and the chunked readers
hand to :mod:`d3mkit.importing.package`) and the target rules shared by both: when several
targets make one multiLabel target, when a repeated index may be D3M's long form, and the
colType each column gets.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from d3mkit.importing import infer
from d3mkit.importing.options import ImportOptions

@dataclass
class Prepared:
    """A table ready to be written: ``columns`` (d3mIndex first), ``n_rows``, the colType
    ``evidence`` of every other column, ``given`` colTypes (checked against the cells),
    ``kept`` (the text cells of d3mIndex, the targets and a media column, row for row),
    ``dropped`` (rows left out for an empty target) and ``write(path)`` writing
    learningData.csv."""

    columns: list[str]
    n_rows: int
    evidence: dict[str, infer.Evidence]
    given: dict[str, str]
    kept: pd.DataFrame
    write: object
    dropped: int = 0
    frame: pd.DataFrame | None = None       # the whole table of text cells, when it is held
    long_form: bool = False                 # one row per (d3mIndex, label): a multiLabel target
    media: tuple[str, str, list[str]] | None = None    # the media column (column, resType, formats)


def coltypes(evidence: dict[str, infer.Evidence], targets: list[str], given: dict[str, str],
              user_types: dict[str, str], counts: dict[str, int], task: str | None = None) -> dict[str, str]:
    """colType of every column but d3mIndex: ``given`` (checked already) or inferred; a target's
    by :func:`d3mkit.importing.infer.target_coltype` unless the user's ``types`` name it."""
    types: dict[str, str] = {}
    for c, ev in evidence.items():
        t = given.get(c) or ev.coltype()
        types[c] = t if c in user_types or c not in targets or (task == "regression" and t in infer.NUMERIC) else \
            infer.target_coltype(t, counts[c], several=len(targets) > 1)
    return types


def is_multilabel(target_types: list[str], opts: ImportOptions) -> bool:
    """Several targets that make one multiLabel target (:mod:`d3mkit.importing.multilabel`):
    more than one, and not all numeric (or the task given is classification), unless the task
    given is regression."""
    if len(target_types) < 2 or opts.task == "regression":
        return False
    return opts.task == "classification" or any(t not in infer.NUMERIC for t in target_types)


def long_form_possible(targets: list[str], opts: ImportOptions) -> bool:
    """True when a repeated index makes the table D3M's long multiLabel form (one row per
    (d3mIndex, label)): one target, and no task or subtype given that is not multiLabel."""
    return len(targets) == 1 and opts.task in (None, "classification") and opts.subtype in (None, "multiLabel")


def target_types(evidence: dict[str, infer.Evidence], targets: list[str], given: dict[str, str],
                 n_labels: dict[str, int]) -> list[str]:
    """The colTypes the ``targets`` get (:func:`_coltypes`'s rule for them)."""
    return [given.get(t) or infer.target_coltype(evidence[t].coltype(), n_labels[t], several=len(targets) > 1)
            for t in targets]
