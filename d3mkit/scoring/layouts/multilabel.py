"""The ``multiLabel`` layout: one truth and prediction row per (d3mIndex, label), grouped
into label sets (:class:`d3mkit.scoring.multilabel.LabelSets`); an allTargets metric is the
mean over targets."""

from __future__ import annotations

import numpy as np

from d3mkit.core.errors import Issue, error, warning
from d3mkit.io.limits import how_to_raise, limit
from d3mkit.scoring.layouts.base import Aligned, Call, Context, Layout
from d3mkit.scoring.values import (INDEX, confidence_values, duplicated, index_issues, index_values,
                                   is_missing, lines, lookup, parse_target, read_only, rows_text,
                                   same_kind, unique_in_order, unseen_labels)
from d3mkit.validation import coltypes
from d3mkit.tables.columns import Categorical


class MultiLabelLayout(Layout):
    name = "multiLabel"

    def detect(self, ctx: Context) -> bool:
        return ctx.truth.multilabel

    def align(self, ctx: Context):
        return _align_multilabel(ctx.truth, ctx.df, ctx.path, ctx.conf_col, ctx.issues)

    def calls(self, aligned, all_targets):
        # label sets per target; allTargets averages the targets (as d3m.metrics does)
        targets = aligned.targets
        multi = len(targets) > 1
        return [Call(t if multi and not all_targets else None, aligned.truth[t], aligned.pred[t],
                     {"target_names": (t,), "d3m_index": aligned.index}) for t in targets], \
            all_targets and multi


def _ml_values(a: np.ndarray, name: str, col_type: str, path: str, issues: list[Issue],
               kind: str, skip_blank: bool, rows: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """A multiLabel target column's values parsed per colType, and the mask of rows kept
    (blank cells are skipped when the problem has several targets, else errors).
    ``rows`` maps each value to its data row in the file (for messages)."""
    keep = ~is_missing(a) if skip_blank else np.ones(len(a), bool)
    pos = np.flatnonzero(keep)
    kept = a if len(pos) == len(a) else \
        a.take(pos) if isinstance(a, Categorical) else np.asarray(a)[pos]   # a label column stays codes
    if rows is not None:
        pos = rows[pos]
    vals = parse_target(kept, name, col_type, path, issues, positions=pos, kind=kind)
    return vals, keep


def _align_multilabel(truth, df, path, conf_col, issues):
    """Group truth and prediction rows by d3mIndex into label sets (one
    :class:`~d3mkit.scoring.multilabel.LabelSets` per target)."""
    from d3mkit.scoring.multilabel import LabelSets, label_codes, matrix_from_pairs
    targets = truth.targets
    several = len(targets) > 1
    pred_idx, trow_idx = same_kind(index_values(df[INDEX]), truth.index)
    uniq = unique_in_order(trow_idx)          # truth is sorted by d3mIndex
    missing_mask, extra_mask = index_issues(pred_idx, uniq, path, issues)
    if missing_mask.any() or extra_mask.any():
        return issues
    ppos = lookup(uniq, pred_idx)[0]
    tpos = lookup(uniq, trow_idx)[0]
    conf = confidence_values(df, conf_col, path, issues) if conf_col is not None else None
    if several:
        truth_rows = truth.rows if truth.rows is not None else np.arange(len(truth.frame))
        for frame, fpath, kind, where in ((df, path, "predictions", np.arange(len(df))),
                                          (truth.frame, truth.path, "truth", truth_rows)):
            blank = np.logical_and.reduce([is_missing(frame[t]) for t in targets])
            if blank.any():
                rows = np.sort(lines(where[np.flatnonzero(blank)], fpath))
                issues.append(error(f"{kind}.missing_value", "",
                                    f"{len(rows)} row(s) have every target blank "
                                    f"(rows {rows_text(rows)})", fpath, row=rows[0]))
    sets = {}
    n = len(uniq)
    for t in targets:
        ctype = truth.col_types[t]
        n_before = sum(i.is_error for i in issues)
        tv, tkeep = _ml_values(truth.frame[t], t, ctype, truth.path, issues, "truth",
                               several, truth.rows)
        pv, pkeep = _ml_values(df[t], t, ctype, path, issues, "predictions", several)
        if sum(i.is_error for i in issues) > n_before:
            continue
        tv, pv = coltypes.comparable(tv, pv)      # integers beyond 2**53: exact on both sides
        # sorted union of the labels (hash the rows, sort the few distinct values)
        labels = np.sort(unique_in_order(np.concatenate([tv, pv])))
        labels = labels.astype(object) if labels.dtype.kind not in "f" else labels
        k = len(labels)
        cells = n * k   # dense (indices x labels) matrices: bool, and float64 scores
        if k > limit("MAX_LABELS") or cells > limit("MAX_LABEL_CELLS"):
            name = "MAX_LABELS" if k > limit("MAX_LABELS") else "MAX_LABEL_CELLS"
            issues.append(error("predictions.too_many_labels", "",
                                f"{k:,} distinct labels over {n:,} indices ({len(unique_in_order(pv)):,} "
                                f"in the predictions) would need {cells:,} matrix cells, over the "
                                f"{how_to_raise(name)}", path, column=t))
            continue
        tcode, pcode = label_codes(tv, labels), label_codes(pv, labels)
        tp_, pp_ = tpos[tkeep], ppos[pkeep]
        truth_rows = truth.rows if truth.rows is not None else np.arange(len(truth.frame))
        for code, rowpos, kind, fpath, src, where in (
                (tcode, tp_, "truth", truth.path, tkeep, truth_rows),
                (pcode, pp_, "predictions", path, pkeep, np.arange(len(df)))):
            dup = duplicated(rowpos.astype(np.int64) * k + code, keep="first")
            if dup.any():
                rows = np.sort(lines(where[np.flatnonzero(src)[dup]], fpath))
                issues.append(warning(f"{kind}.duplicate_label", "",
                                      f"{len(rows)} row(s) repeat a (d3mIndex, {t}) pair; a label "
                                      f"counts once per index"
                                      + ("" if kind == "truth" or conf is None else
                                         " (its largest confidence is used)")
                                      + f" (rows {rows_text(rows)})", fpath, row=rows[0], column=t))
        scores = None
        if conf is not None:
            scores = np.zeros((n, k))
            np.maximum.at(scores, (pp_, pcode), conf[pkeep])
            scores = read_only(scores)
        if ctype == "categorical":
            unseen_labels(pv, tv, t, path, issues)
        pmat = matrix_from_pairs(pp_, pcode, n, k)
        if k > 1 and n > 1 and pmat.all():
            issues.append(warning("predictions.all_labels", "",
                                  f"every index lists all {k} labels: the hard-label metrics "
                                  f"(accuracy, f1, hammingLoss, ...) count every listed label as "
                                  f"predicted, whatever its confidence (as d3m.metrics does); "
                                  f"list only the predicted labels", path, column=t))
        sets[t] = LabelSets(read_only(matrix_from_pairs(tp_, tcode, n, k)),
                            read_only(pmat), read_only(labels), scores)
    if any(i.is_error for i in issues):
        return issues
    return Aligned("multiLabel", read_only(uniq), targets, sets, dict(sets), truth.col_types,
                   issues=issues)
