"""The ``classes`` layout: one row per (d3mIndex, class) with that class's confidence (what
the D3M reference package reads); the confidences form a (rows, classes) matrix."""

from __future__ import annotations

import numpy as np

from d3mkit.core.errors import error
from d3mkit.scoring.layouts.base import Aligned, Context, Layout, truth_positions
from d3mkit.scoring.values import (INDEX, NUMERIC_TYPES, confidence_values, duplicated, lines, lookup,
                                   parse_target, read_only, rows_text, unseen_labels)
from d3mkit.validation import coltypes


class ClassesLayout(Layout):
    name = "classes"
    supplies = ("confidence", "classes")

    def detect(self, ctx: Context) -> bool:
        return ctx.repeated and ctx.conf_col is not None and ctx.single_target \
            and ctx.truth.col_types[ctx.truth.targets[0]] not in NUMERIC_TYPES

    def align(self, ctx: "Context"):
        truth, df, path, conf_col, issues = ctx.truth, ctx.df, ctx.path, ctx.conf_col, ctx.issues
        pred_idx, truth_idx = ctx.indices
        once = ~duplicated(pred_idx, keep=False)
        if once.any():   # the layout is decided by the whole file: no silent switch
            rows = lines(np.flatnonzero(once), path)
            issues.append(error("predictions.mixed_layout", "",
                                f"the file mixes layouts: {int((~once).sum())} rows repeat their "
                                f"d3mIndex (one row per (index, class) with its confidence) but "
                                f"{len(rows)} d3mIndex value(s) have a single row (rows "
                                f"{rows_text(rows)}); list every index once, or every index with "
                                f"two or more classes", path, row=rows[0], column=INDEX))
            return issues
        return _align_classes(truth, truth_idx, df, pred_idx, path, conf_col, issues)

    def inputs(self, aligned, target, stacked):
        return {"confidence": aligned.confidence, "classes": aligned.classes}


def _align_classes(truth, truth_idx, df, pred_idx, path, conf_col, issues):
    t = truth.targets[0]
    ctype = truth.col_types[t]
    tpos, bad = truth_positions(pred_idx, truth_idx, path, issues)
    labels = parse_target(df[t], t, ctype, path, issues)   # (a label column's codes as read)
    conf = confidence_values(df, conf_col, path, issues)
    tv = parse_target(truth.frame[t], t, ctype, truth.path, issues, truth.rows, kind="truth")
    if bad or any(i.is_error for i in issues):
        return issues
    tv, labels = coltypes.comparable(tv, labels)
    classes = np.asarray(sorted(set(tv.tolist()) | set(labels.tolist())), dtype=object)
    code = lookup(classes, labels)[0]
    key = tpos.astype(np.int64) * len(classes) + code
    dup = duplicated(key, keep=False)
    if dup.any():
        pos = np.flatnonzero(dup)
        issues.append(error("predictions.duplicate_index", "",
                            f"{len(pos)} rows repeat a (d3mIndex, {t}) pair "
                            f"(rows {rows_text(lines(pos, path), len(pos))})", path, row=lines(pos, path)[0], column=t))
        return issues
    mat = np.zeros((len(truth_idx), len(classes)))
    mat[tpos, code] = conf
    hard = classes[np.argmax(mat, axis=1)]
    unseen_labels(labels, tv, t, path, issues)
    return Aligned("classes", read_only(truth_idx), truth.targets, {t: read_only(tv)}, {t: read_only(hard)},
                   truth.col_types, confidence=read_only(mat), classes=read_only(classes), issues=issues)
