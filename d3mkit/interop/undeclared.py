"""Every column of learningData as the exports describe it, minimal-metadata tables included:
a 4.0.0 datasetDoc may declare only some columns (``MIN_METADATA`` roots declare d3mIndex
alone), and the exports (Croissant, Croissant Tasks) must still describe the others, the
target first of all. This module owns that rule: the declared columns as declared; each
column of the file's header that is not declared gets the colType the import would infer from
its cells (:mod:`d3mkit.importing.infer`, read a block at a time, only those columns) and the
role ``suggestedTarget`` when the problem names it as a target, else ``attribute``, with a
``colDescription`` saying it was not declared. Columns come in the file's order."""

from __future__ import annotations

from d3mkit.documents.dataset import Column


def all_columns(task, ld=None) -> list[Column]:
    """The columns of learningData (``ld``, default the task's): declared or inferred."""
    ld = task.dataset.learning_data if ld is None else ld
    declared = list(ld.columns or ()) if ld is not None else []
    if ld is None:
        return declared
    from d3mkit.tables.csvread import read_header
    header, _ = read_header(task.dataset.resource_path(ld))
    names = {c.col_name for c in declared}
    missing = [h for h in header or () if h not in names]
    if not missing:
        return declared
    from d3mkit.importing.infer import Evidence, levels_of
    from d3mkit.tables import read_table_chunks
    evidence = {c: Evidence() for c in missing}
    for chunk in read_table_chunks(task.dataset.resource_path(ld), usecols=missing):
        for c in missing:
            if not evidence[c].settled():
                evidence[c].add(*levels_of(chunk[c]))
    targets = set(task.problem.target_names)
    by_name = {c.col_name: c for c in declared}
    out = []
    for i, h in enumerate(header or ()):
        if h in by_name:
            out.append(by_name[h])
        else:
            out.append(Column(i, h, evidence[h].coltype(), ("suggestedTarget",) if h in targets else ("attribute",),
                              None, {"colDescription": "not declared in the datasetDoc (minimal metadata): "
                                                       "colType inferred from the cells"}))
    return out + [c for c in declared if c.col_name not in set(header or ())]
