"""The ``ranked`` layout: several rows per d3mIndex with a ``rank`` column; supplies the
rank of each true value (500 when not listed) and takes the rank-1 row as the hard label."""

from __future__ import annotations

import numpy as np

from d3mkit.core.errors import error
from d3mkit.scoring.layouts.base import MAX_RANK, Aligned, Context, Layout, truth_positions
from d3mkit.scoring.values import duplicated, lines, lookup, parse_numeric, parse_target, read_only
from d3mkit.validation import coltypes


class RankedLayout(Layout):
    name = "ranked"
    supplies = ("ranks",)

    def detect(self, ctx: Context) -> bool:
        return ctx.repeated and (ctx.ranked or ctx.rank_col is not None) and ctx.single_target

    def align(self, ctx: Context):
        pred_idx, truth_idx = ctx.indices
        return _align_ranked(ctx.truth, truth_idx, ctx.df, pred_idx, ctx.path, ctx.rank_col,
                             ctx.conf_col, ctx.issues)

    def inputs(self, aligned, target, stacked):
        return {"ranks": aligned.ranks[target]}


def _align_ranked(truth, truth_idx, df, pred_idx, path, rank_col, conf_col, issues):
    t = truth.targets[0]
    if rank_col is None:
        issues.append(error("predictions.no_rank", "",
                            "a ranking metric needs a rank column", path, row=1))
        return issues
    tpos, bad = truth_positions(pred_idx, truth_idx, path, issues)
    ctype = truth.col_types[t]
    values = parse_target(df[t], t, ctype, path, issues)
    ranks = parse_numeric(np.asarray(df[rank_col]), rank_col, path, "predictions.rank",
                           "numbers", issues)
    low = ranks < 1
    if low.any():
        pos = np.flatnonzero(low)
        issues.append(error("predictions.rank", "",
                            f"{len(pos)} rank(s) below 1", path, row=lines(pos, path)[0], column=rank_col))
    tv = parse_target(truth.frame[t], t, ctype, truth.path, issues, truth.rows, kind="truth")
    if bad or any(i.is_error for i in issues):
        return issues
    tv, values = coltypes.comparable(tv, values)
    # (d3mIndex, value) pairs as integers: each value by its text's place among the sorted
    # texts of both sides, so ordering by the code is ordering by the text
    vtext, ttext = values.astype(str).astype(object), tv.astype(str).astype(object)
    texts = np.asarray(sorted(set(vtext.tolist()) | set(ttext.tolist())), dtype=object)
    vcode, tcode = lookup(texts, vtext)[0], lookup(texts, ttext)[0]
    pkey = tpos.astype(np.int64) * len(texts) + vcode
    if duplicated(pkey).any():
        pos = np.flatnonzero(duplicated(pkey, keep=False))
        issues.append(error("predictions.duplicate_index", "",
                            f"{len(pos)} rows repeat a (d3mIndex, {t}) pair", path, row=lines(pos, path)[0], column=t))
        return issues
    hit = lookup(pkey, np.arange(len(truth_idx), dtype=np.int64) * len(texts) + tcode)[0]
    r = np.full(len(hit), MAX_RANK)            # a true value not listed: rank 500
    r[hit >= 0] = ranks[hit[hit >= 0]]
    # each index's best row: the smallest rank, ties by the value's text, then file order
    order = np.lexsort((vcode, ranks, tpos))
    first = np.ones(len(order), bool)
    first[1:] = tpos[order][1:] != tpos[order][:-1]
    best = order[first]
    hard = np.empty(len(truth_idx), dtype=values.dtype if values.dtype.kind == "f" else object)
    hard[tpos[best]] = values[best]
    tvals = {t: read_only(tv)}
    pvals = {t: read_only(hard)}
    if any(i.is_error for i in issues):
        return issues
    return Aligned("ranked", read_only(truth_idx), truth.targets, tvals, pvals, truth.col_types,
                   ranks={t: read_only(r)}, issues=issues)
