"""The ``rows`` layout (the default): one row per TEST d3mIndex, optional per-row
``confidence``; supplies the labels' integer form (``codes``) the parse already found."""

from __future__ import annotations

import numpy as np

from d3mkit.core.errors import Issue, error
from d3mkit.scoring.labels import LabelArrays, joint_codes
from d3mkit.scoring.layouts.base import Aligned, Context, Layout
from d3mkit.scoring.truth import Truth
from d3mkit.scoring.values import (INDEX, confidence_values, duplicated, index_issues, lines, parse_labels,
                                   read_only, rows_text, unique_in_order,
                                   unseen_labels)
from d3mkit.validation import coltypes


class RowsLayout(Layout):
    name = "rows"
    supplies = ("confidence", "codes")

    def detect(self, ctx: Context) -> bool:
        return True

    def align(self, ctx: "Context"):
        truth, df, path, conf_col, issues = ctx.truth, ctx.df, ctx.path, ctx.conf_col, ctx.issues
        pred_idx, truth_idx = ctx.indices
        order, once_each = ctx.order
        repeated = not once_each
        ranked = ctx.ranked
        if ranked:
            issues.append(error("predictions.no_rank", "",
                                "a ranking metric needs rows (d3mIndex, value, rank) with a rank "
                                "column", path, row=1))
        if repeated:
            dup = duplicated(pred_idx, keep=False)
            pos = np.flatnonzero(dup)
            vals = unique_in_order(pred_idx[dup])
            issues.append(error("predictions.duplicate_index", "",
                                f"{len(vals)} d3mIndex value(s) appear more than once "
                                f"({rows_text(vals)}; rows {rows_text(lines(pos, path), len(pos))})", path, row=lines(pos, path)[0], column=INDEX))
            _check_rows(truth, df, conf_col, path, issues)
            return issues
        missing_mask, extra_mask = index_issues(pred_idx, truth_idx, path, issues, pred_pos=order)
        if missing_mask.any() or extra_mask.any():
            _check_rows(truth, df, conf_col, path, issues)
            return issues
        identity = bool((order == np.arange(len(order), dtype=order.dtype)).all())
        tvals, pvals, codes = {}, {}, {}
        for t in truth.targets:
            ctype = truth.col_types[t]
            # label targets as codes: the label arrays are made only if a metric reads them
            tv, tcodes = parse_labels(truth.frame[t], t, ctype, truth.path, issues, truth.rows,
                                      kind="truth", values=False)
            pv, pcodes = parse_labels(df[t], t, ctype, path, issues,   # in truth order
                                      order=None if identity else order, values=False)
            if tcodes is not None and pcodes is not None:
                codes[t] = tc, pc, labels = joint_codes(tcodes, pcodes)
                tvals[t], pvals[t] = (tc, labels), (pc, labels)
            else:
                tv = tcodes[1][tcodes[0]] if tv is None else tv
                pv = pcodes[1][pcodes[0]] if pv is None else pv
                tv, pv = coltypes.comparable(tv, pv)      # integers beyond 2**53: exact on both sides
                tvals[t] = read_only(tv)
                pvals[t] = read_only(pv)
            tu = unique_in_order(tv) if tcodes is None else tcodes[1]
            if ctype == "categorical" and len(tu) < len(truth_idx):
                # a closed label set (labels repeat in the truth); free-form targets such as
                # chess boards or rationales, where nearly every truth value is new, are not
                # warned about
                unseen_labels(pv if pcodes is None else pcodes[1], tu, t, path, issues)
        conf = None
        if conf_col is not None:
            c = confidence_values(df, conf_col, path, issues)
            conf = read_only(c if identity else c[order])
        if any(i.is_error for i in issues):
            return issues
        return Aligned("rows", read_only(truth_idx), truth.targets, LabelArrays(tvals),
                       LabelArrays(pvals), truth.col_types, confidence=conf, issues=issues,
                       codes=codes)



    def inputs(self, aligned, target, stacked):
        out = {"confidence": aligned.confidence}
        if not stacked:
            out["codes"] = aligned.label_codes(target)
        return out


def _check_rows(truth: Truth, df, conf_col, path: str, issues: list[Issue]) -> None:
    """The checks of the prediction rows on their own — each target value parses as its
    colType, each confidence is a number in [0, 1] — for a file whose rows cannot be lined
    up with the truth (a repeated or wrong d3mIndex), so that its other problems are
    reported with it: every issue at once."""
    for t in truth.targets:
        parse_labels(np.asarray(df[t]), t, truth.col_types[t], path, issues)
    if conf_col is not None:
        confidence_values(df, conf_col, path, issues)
