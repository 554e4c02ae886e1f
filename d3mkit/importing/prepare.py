"""A whole table of text cells made ready to be written.

What this module owns: :func:`prepare_frame` (the index made, missing-value tokens of
numeric and date columns made empty cells, rows with an empty target dropped, every
column's evidence and given colType) — the path every importer takes when the table is
held whole (:mod:`d3mkit.importing.scan` is the chunked one).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from d3mkit.core.errors import Issue, warning
from d3mkit.importing import infer
from d3mkit.importing.checks import check_given, check_header, fail
from d3mkit.importing.index import index_column
from d3mkit.importing.options import ImportOptions
from d3mkit.importing.prepared import Prepared, is_multilabel, long_form_possible, target_types

def drop_empty_targets(df: pd.DataFrame, targets: list[str], source: str,
                       issues: list[Issue]) -> tuple[pd.DataFrame, np.ndarray | None]:
    """``df`` without the rows whose target cell (any target's) is empty, and the mask of the
    rows kept (None when none was left out); the count and the first such row are a warning
    in ``issues`` (``import.target_missing``); no row left is ``import.target_empty``."""
    missing = np.zeros(len(df), dtype=bool)
    for t in targets:
        missing |= (df[t].to_numpy() == "")
    dropped = int(missing.sum())
    if dropped == len(df):
        fail(source, "import.target_empty", dict(column=targets[0]), "every target cell is empty")
    if not dropped:
        return df, None
    issues.append(warning("import.target_missing", "",
                          f"{dropped:,} row(s) with an empty target were left out "
                          f"(first at row {int(np.flatnonzero(missing)[0]) + 2})", source, column=", ".join(targets)))
    return df[~missing].reset_index(drop=True), ~missing


def prepare_frame(df: pd.DataFrame, opts: ImportOptions, targets: list[str], source: str,
                  hints: dict[str, str], issues: list[Issue], keep: tuple[str, ...] = ()) -> Prepared:
    """:class:`Prepared` of a whole table of text cells: the index made, rows with an empty
    target dropped (a warning in ``issues``), every column's evidence and given colType."""
    from d3mkit.tables import write_table
    check_header([str(c) for c in df.columns], targets, opts, source)
    if len(df) == 0:
        fail(source, "csv.no_rows", dict(row=1), "the table has a header but no rows")
    df = missing_tokens(df, opts, source, issues, hints)
    possible = long_form_possible(targets, opts)
    source_df, df = df, index_column(df.copy(), opts.index, source, repeats=possible)
    ev = {t: infer.Evidence().add(*infer.levels_of(df[t])) for t in targets}
    long_form = False
    if possible and (opts.subtype == "multiLabel" or bool(df["d3mIndex"].duplicated().any())):
        # a repeated index is the long form of labels; real numbers on a repeated index are not labels
        long_form = opts.subtype == "multiLabel" or opts.task == "classification" or \
            (opts.types.get(targets[0]) or hints.get(targets[0]) or ev[targets[0]].coltype()) != "real"
        if not long_form:
            index_column(source_df.copy(), opts.index, source)          # refuses the repeated index
        from d3mkit.importing.multilabel import check_long_form
        check_long_form(df, targets[0], source)
    labels = target_types(ev, targets, {t: g for t in targets if (g := opts.types.get(t) or hints.get(t))},
                          {t: int(df[t][df[t] != ""].nunique()) for t in targets}) if len(targets) > 1 else []
    several = is_multilabel(labels, opts)       # label columns: a row without a label is dropped later
    n_rows = len(df)
    if not several:
        df, _ = drop_empty_targets(df, targets, source, issues)
    dropped = n_rows - len(df)
    evidence, given = {}, {}
    # the long form repeats an instance's cells on each of its labels: they count once
    instances = df[~df["d3mIndex"].duplicated().to_numpy()] if long_form else df
    for c in df.columns[1:]:
        levels, n = infer.levels_of(df[c] if c in targets else instances[c])
        g = opts.types.get(c) or hints.get(c)
        if g is not None:
            check_given(levels, g, c, df[c].to_numpy(), 2, source)
            given[c] = g
        evidence[c] = infer.Evidence().add(levels, n)
    kept = df[["d3mIndex", *targets, *[k for k in keep if k not in targets]]]
    return Prepared(list(df.columns), len(df), evidence, given, kept,
                    lambda path: write_table(df, path), dropped, frame=df if several else None,
                    long_form=long_form)


def missing_tokens(df: pd.DataFrame, opts: ImportOptions, source: str, issues: list[Issue],
                   hints: dict[str, str] | None = None) -> pd.DataFrame:
    """``df`` with the missing-value tokens (``opts.na_tokens``: ``NA``, ``N/A``, ``NaN``,
    ``null``, ``?``...) of each otherwise numeric or date column made empty cells (missing
    values); each such column is an ``import.missing_values`` warning counting them. A column
    ``types`` (or the source) declares text keeps its cells."""
    tokens = opts.na_tokens
    if not tokens:
        return df
    out = None
    declared = {**(hints or {}), **opts.types}
    for c in df.columns:
        if c == "d3mIndex" or declared.get(c) in ("string", "categorical"):
            continue
        cells = df[c]
        hit = cells.isin(tokens).to_numpy()
        if not hit.any():
            continue
        ev = infer.Evidence(tokens).add(*infer.levels_of(cells))
        if ev.coltype() not in (*infer.NUMERIC, "dateTime"):
            continue
        out = df.copy() if out is None else out
        out[c] = cells.where(~hit, "")
        found = sorted(set(cells[hit]))
        issues.append(warning("import.missing_values", "",
                              f"{int(hit.sum()):,} cell(s) {', '.join(repr(t) for t in found)} in a column of "
                              f"{ev.coltype()} values are missing values, written empty (first at row "
                              f"{int(np.flatnonzero(hit)[0]) + 2}; the keep_text option keeps them as text, na_values "
                              f"chooses the tokens)", source, column=c))
    return df if out is None else out
