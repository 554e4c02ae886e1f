"""The statistics of one problem of a campaign, from its scored calls: a percentile
bootstrap interval for every (system, metric, repeat, fold) and a paired test of every
pair of systems on every metric, over every repeat (:func:`problem_statistics`).

**Draws.** The resampling unit is a TEST row (a d3mIndex; an image for objectDetection:
:mod:`d3mkit.evaluate.units`). Fold ``(r, f)`` draws its units with replacement from its
own seeded generator (``seed``, the problem, ``r``, ``f``): the same draws for every
system and metric of the fold (paired), whatever the worker count. Each draw is a
``(B, n)`` weight matrix (how often each unit is drawn), made once per block of resamples
and shared by every call of the fold: the calls whose metric is a sum over rows are
stacked side by side and resampled by one matrix product (:mod:`d3mkit.evaluate.resampled`).

**Pooled draws, every repeat.** The comparisons resample the problem's units once — the
union of the TEST units of every fold of every repeat — and apply the same draw to every
repeat: a unit drawn twice counts twice in each repeat's pool of folds. The draw is
stratified by the folds of the first repeat (each of its folds resampled within itself,
by the fold's own draw, so in kFold the pooled sums of the first repeat are the sums of
its folds, at no extra cost); units first seen in a later repeat (a holdout repeated on
other rows) form strata of their own. A pair's difference on a resample is the mean over
the repeats of the difference of the two systems' pooled values, so the test uses every
repeat while the rows — shared by the repeats — are resampled once, not once per repeat
(which would count the same rows R times as independent evidence).
"""

from __future__ import annotations

import math
import zlib

import numpy as np

from d3mkit.evaluate.stats import WEIGHT_BLOCK, block_counts, block_weights, holm, mcnemar_exact, paired_bootstrap_p, \
    percentile_interval


MIN_BOOTSTRAP_UNITS = 6      # fewer TEST units: the exact permutation test instead of the bootstrap
SWAPPABLE = ("rows", "classes", "ranked")


def permutation_p(observed: float, pairs) -> float:
    """The exact two-sided paired permutation p-value of "A and B are exchangeable": every
    one of the 2^n ways of swapping the two systems' predictions on each unit, the same
    swap in every repeat (``pairs``: the two pooled calls of each repeat); the share of
    swaps whose mean difference over the repeats is at least as far from zero as
    ``observed`` (the identity swap included, so never 0). NaN where predictions cannot be
    swapped unit by unit (multiLabel, objectDetection) or a metric call fails.

    Four rows, A right on all and B wrong on all: only the identity and the full swap are
    as extreme, p = 2/16 = 0.125 (McNemar's exact test gives the same).
    """
    from d3mkit.scoring.compute import call_metric
    first = pairs[0][0]
    if first.layout not in SWAPPABLE:
        return math.nan
    keys = list(dict.fromkeys(k for ca, _cb in pairs for k in ca.units.tolist()))
    pos = {k: i for i, k in enumerate(keys)}
    n = len(keys)
    masks = ((np.arange(1 << n)[:, None] >> np.arange(n)[None, :]) & 1).astype(bool)
    diffs = np.zeros(len(masks))
    try:
        for ca, cb in pairs:
            if len(ca.pieces) != len(cb.pieces) or not np.array_equal(ca.units, cb.units):
                return math.nan
            at = np.array([pos[k] for k in ca.units.tolist()], dtype=np.int64)
            for m_i, mask in enumerate(masks):
                swap = mask[at]
                va, vb = [], []
                for (yt, ypa, kwa), (_yt2, ypb, kwb) in zip(ca.pieces, cb.pieces):
                    sa, sb = _swapped(ypa, ypb, kwa, kwb, swap)
                    va.append(call_metric(ca.metric, yt, sa[0], sa[1]))
                    vb.append(call_metric(cb.metric, yt, sb[0], sb[1]))
                diffs[m_i] += float(np.mean(va)) - float(np.mean(vb))
    except (ValueError, ZeroDivisionError, TypeError, IndexError, KeyError):
        return math.nan
    diffs /= len(pairs)
    if not np.all(np.isfinite(diffs)):
        return math.nan
    return float(np.count_nonzero(np.abs(diffs) >= abs(observed) - 1e-12) / len(diffs))


def _swapped(ypa, ypb, kwa: dict, kwb: dict, swap: np.ndarray):
    """The two systems' (predictions, inputs) with the rows of ``swap`` exchanged."""
    n = len(swap)

    def mix(x, y):
        if isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and x.shape == y.shape and x.ndim >= 1 \
                and len(x) == n:
            sel = swap.reshape((n,) + (1,) * (x.ndim - 1))
            return np.where(sel, y, x), np.where(sel, x, y)
        return x, y
    pa, pb = mix(np.asarray(ypa), np.asarray(ypb))
    ka, kb = {}, {}
    for key in kwa:
        if key == "codes":
            continue
        if key == "classes":               # shared by the rows: must be the same list
            if not np.array_equal(np.asarray(kwa[key]), np.asarray(kwb.get(key))):
                raise ValueError("the two systems' class lists differ")
            ka[key] = kb[key] = kwa[key]
            continue
        ka[key], kb[key] = mix(kwa[key], kwb.get(key))
    return (pa, ka), (pb, kb)


def _rng(seed: int, pid: str, repeat: int, fold: int, part: int = 0) -> np.random.Generator:
    key = [seed, zlib.crc32(pid.encode("utf-8", "surrogateescape")), repeat, fold + 1]
    return np.random.default_rng(key + [part] if part else key)


def _family(r) -> tuple:
    """Resamplers of one system, fold and target with equal columns share them."""
    name = r.metric.name
    from d3mkit.evaluate.resampled import ERROR_FORMS, LABEL_FORMS
    if name in LABEL_FORMS:
        return ("labels",)
    if name in ERROR_FORMS:
        return ("errors",)
    return ("own", id(r))


class _Stack:
    """The sums-form resamplers of one fold, their columns side by side (shared within a
    family, and the truth-only columns once per target), so one product ``W @ X``
    resamples them all."""

    def __init__(self, items):          # items: [(key, resampler)]
        cols, self.slices, seen = [], {}, {}
        width = 0

        def place(fam, x):
            nonlocal width
            if fam not in seen:
                seen[fam] = np.arange(width, width + x.shape[1])
                cols.append(x)
                width += x.shape[1]
            return seen[fam]
        for key, r in items:
            own = place((key[0], r.call.target, *_family(r)), r.columns())
            shared = r.shared_columns()
            if shared is not None:
                own = np.concatenate([own, place(("truth", r.call.target), shared)])
            self.slices[key] = own if own[-1] - own[0] + 1 != len(own) else slice(own[0], own[-1] + 1)
        self.x = np.hstack(cols) if cols else None
        self.items = items
        # one file's label metrics alone: count each resample's confusion cells directly
        # (a gather and a bincount; no weight matrix, no product)
        # (two column blocks of label metrics: one file's own and its truth's)
        self.joint = items[0][1].joint if len(cols) == 2 and all(r.joint is not None for _k, r in items) \
            else None

    def sums(self, idx: np.ndarray, weights) -> np.ndarray:
        """``(B, width)`` sums of the block: ``weights()`` is the block's weight matrix."""
        if self.joint is not None:
            codes, k = self.joint
            cm = block_counts(codes, idx, k * k).reshape(-1, k, k)
            tp = np.diagonal(cm, axis1=1, axis2=2)
            return np.hstack([tp, cm.sum(axis=1), cm.sum(axis=2)]).astype(np.float64)
        return (weights() @ self.x).astype(np.float64)


def _pooled_call(parts):
    """The call of the folds of one repeat pooled (their units concatenated), or None."""
    from d3mkit.evaluate.resampled import Piece
    from d3mkit.evaluate.scorer import Call
    from d3mkit.evaluate.units import assemble
    from d3mkit.scoring.compute import call_metric
    first = parts[0]
    pieces = []
    try:
        for j in range(len(first.pieces)):
            pieces.append(assemble([(Piece(c, j), np.arange(len(c.units))) for c in parts]))
        value = float(np.mean([call_metric(first.metric, *p) for p in pieces]))
    except (ValueError, ZeroDivisionError, TypeError, IndexError, KeyError):
        return None
    if not math.isfinite(value):
        return None
    index = np.concatenate([c.units for c in parts])
    call = Call(first.label, first.metric, pieces, value, layout=first.layout, target=first.target,
                index=index)
    if first.layout == "objectDetection":
        call.units = np.concatenate([c.units for c in parts])
    return call


def _draw_rows(w_row: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(len(w_row)), w_row.astype(np.int64))


class _Values:
    """Resampled values collected block by block."""

    def __init__(self):
        self.parts: dict = {}

    def add(self, key, v) -> None:
        self.parts.setdefault(key, []).append(np.asarray(v, dtype=float))

    def get(self, key):
        p = self.parts.get(key)
        return np.concatenate(p) if p else None


def problem_statistics(pid: str, folds, calls: dict, *, resamples: int, confidence: float,
                       seed: int):
    """``(intervals, comparisons)`` of one problem. ``calls`` maps ``(system number,
    repeat, fold)`` to the scored :class:`~d3mkit.evaluate.scorer.Call` list.
    ``intervals`` maps ``(system, repeat, fold, label)`` to ``(low, high)``;
    ``comparisons`` are rows ``[label, system_a, system_b, difference, p_value, p_holm,
    test]`` (systems as numbers, ``difference`` = a - b, Holm over the whole problem)."""
    from d3mkit.evaluate.resampled import LABEL_FORMS, Labels, Resampler, label_codes, label_list
    folds = sorted(folds)
    repeats = sorted({r for r, _ in folds})
    by_fold: dict = {rf: {} for rf in folds}
    for (i, r, f), cs in sorted(calls.items(), key=lambda kv: kv[0]):
        for c in cs:
            by_fold.setdefault((r, f), {})[(i, c.label)] = c
    fold_units = {}
    for rf in folds:
        for c in by_fold[rf].values():
            fold_units.setdefault(rf, c.units)
    for rf in folds:            # a call whose units are not the fold's is left out
        u = fold_units.get(rf)
        by_fold[rf] = {k: c for k, c in by_fold[rf].items() if u is not None and len(c.units) == len(u)
                       and np.array_equal(c.units, u)}
    # shared label lists and centres per target, so sums of folds and systems add up
    everything = [c for rf in folds for c in by_fold[rf].values()]
    labels_of, centre_of = {}, {}
    for t in dict.fromkeys(c.target for c in everything):
        mine = [c for c in everything if c.target == t and c.layout == "rows" and np.ndim(c.yt) == 1]
        lab = [c for c in mine if c.metric.name in LABEL_FORMS]
        if lab:
            labels_of[t] = Labels(label_list(lab))
        num = [c for c in mine if np.asarray(c.yt).dtype.kind == "f"]
        if num:
            centre_of[t] = float(np.mean(np.concatenate([np.asarray(c.yt, dtype=float) for c in num])))
    codes_of = {}            # the label codes of one file and target serve all its metrics
    for rf in folds:
        for key, c in by_fold[rf].items():
            got = label_codes(c)
            if got is not None:
                codes_of.setdefault((rf, key[0], c.target), got)
    res = {}
    for rf in folds:
        for key, c in by_fold[rf].items():
            res[(rf, key)] = Resampler(c, labels_of.get(c.target), centre_of.get(c.target),
                                       codes_of.get((rf, key[0], c.target)))
    # the pooled calls of each repeat
    pooled = {}
    keys_all = list(dict.fromkeys(k for rf in folds for k in by_fold[rf]))
    mcnemar = len(repeats) == 1
    for r in repeats:
        rfs = [rf for rf in folds if rf[0] == r]
        for key in keys_all:
            parts = [by_fold[rf].get(key) for rf in rfs]
            if any(p is None for p in parts):
                continue
            pc = parts[0] if len(parts) == 1 else _pooled_call(parts)
            if pc is None:
                continue
            rr = res[(rfs[0], key)] if len(parts) == 1 else \
                Resampler(pc, labels_of.get(pc.target), centre_of.get(pc.target))
            pooled[(r, key)] = (pc, rr, rfs)
    # strata of the pooled draw
    upos: dict = {}
    strata = []           # (draw key, fold, local positions)
    full = {}
    for rf in folds:
        u = fold_units.get(rf)
        if u is None:
            continue
        new = np.array([k not in upos for k in u.tolist()], dtype=bool)
        if new.all():
            strata.append((rf, rf, np.arange(len(u))))
            full[rf] = True
        elif new.any():
            strata.append(((rf, "rest"), rf, np.flatnonzero(new)))
        for k in u[new].tolist():
            upos[k] = len(upos)
    n_union = len(upos)
    fold_upos = {rf: np.array([upos[k] for k in fold_units[rf].tolist()], dtype=np.int64)
                 for rf in folds if rf in fold_units}
    # stacks of sums-form resamplers per fold
    stacks = {rf: _Stack([(key, res[(rf, key)]) for key in by_fold[rf] if res[(rf, key)].form == "sums"])
              for rf in folds}
    rngs = {rf: _rng(seed, pid, rf[0], rf[1]) for rf in fold_units}
    for key, rf, _ in strata:
        if key != rf:
            rngs[key] = _rng(seed, pid, rf[0], rf[1], 1)
    sizes = {rf: len(u) for rf, u in fold_units.items()}
    for key, rf, local in strata:
        if key != rf:
            sizes[key] = len(local)
    biggest = max([n_union] + list(sizes.values()) + [1])
    step = max(1, WEIGHT_BLOCK // biggest)
    ci, pool = _Values(), _Values()
    need_pool = {pk: not (mcnemar and v[1].metric.name == "accuracy" and v[1].correct() is not None)
                 for pk, v in pooled.items()}
    for start in range(0, resamples, step):
        b = min(step, resamples - start)
        idx = {k: rngs[k].integers(0, sizes[k], size=(b, sizes[k]), dtype=np.int32) for k in rngs}
        wts: dict = {}

        def weights(k):
            if k not in wts:
                wts[k] = block_weights(idx[k], sizes[k])
            return wts[k]
        fold_sums = {}
        for rf in folds:
            st = stacks[rf]
            if st.x is not None:
                fold_sums[rf] = st.sums(idx[rf], lambda rf=rf: weights(rf))
                for key, r_ in st.items:
                    ci.add((rf, key), r_.from_sums(fold_sums[rf][:, st.slices[key]]))
            for key, c in by_fold[rf].items():
                r_ = res[(rf, key)]
                if r_.form == "auc":
                    ci.add((rf, key), r_.auc_values(weights(rf)))
                elif r_.form == "function":
                    ci.add((rf, key), r_.by_function([(c, row)] for row in idx[rf]))
        # the pooled draw over the union of units
        w_union = None

        def union():
            nonlocal w_union
            if w_union is None:
                w_union = np.zeros((b, n_union), np.float32)
                for key, rf, local in strata:
                    w_union[:, fold_upos[rf][local]] = weights(key)
            return w_union
        for (r, key), (pc, rr, rfs) in pooled.items():
            if not need_pool[(r, key)]:
                continue
            if rr.form == "sums" and all(full.get(rf) for rf in rfs) and \
                    all(res[(rf, key)].form == "sums" for rf in rfs):
                s = sum(fold_sums[rf][:, stacks[rf].slices[key]] for rf in rfs)
                pool.add((r, key), rr.from_sums(s))
                continue
            w = np.hstack([weights(rf) for rf in rfs]) if all(full.get(rf) for rf in rfs) else \
                union()[:, np.concatenate([fold_upos[rf] for rf in rfs])]
            if rr.form == "sums":
                pool.add((r, key), rr.from_sums((w @ rr.all_columns()).astype(np.float64)))
            elif rr.form == "auc":
                pool.add((r, key), rr.auc_values(w))
            else:
                pool.add((r, key), rr.by_function([(pc, _draw_rows(row))] for row in w))
    intervals = {}
    for rf in folds:
        for key in by_fold[rf]:
            v = ci.get((rf, key))
            if v is not None:
                intervals[(key[0], rf[0], rf[1], key[1])] = percentile_interval(v, confidence)
    comparisons = []
    systems = sorted({k[0] for k in keys_all})
    for label in dict.fromkeys(k[1] for k in keys_all):
        for ai, a in enumerate(systems):
            for b_ in systems[ai + 1:]:
                common = [r for r in repeats if (r, (a, label)) in pooled and (r, (b_, label)) in pooled]
                if not common:
                    continue
                diff = float(np.mean([pooled[(r, (a, label))][0].value - pooled[(r, (b_, label))][0].value
                                      for r in common]))
                ra, rb = pooled[(common[0], (a, label))][1], pooled[(common[0], (b_, label))][1]
                ca, cb = ra.correct(), rb.correct()
                if mcnemar and ra.metric.name == "accuracy" and ca is not None and cb is not None:
                    p = mcnemar_exact(int(np.count_nonzero(ca & ~cb)), int(np.count_nonzero(~ca & cb)))
                    test = "mcnemar_exact"
                else:
                    n_units = len({k for r in common for k in pooled[(r, (a, label))][0].units.tolist()})
                    if n_units < MIN_BOOTSTRAP_UNITS:
                        p = permutation_p(diff, [(pooled[(r, (a, label))][0], pooled[(r, (b_, label))][0])
                                                 for r in common])
                        test = "exact_permutation" if math.isfinite(p) else "none"
                    else:
                        d = [pool.get((r, (a, label))) - pool.get((r, (b_, label))) for r in common
                             if pool.get((r, (a, label))) is not None and pool.get((r, (b_, label))) is not None]
                        if len(d) != len(common):
                            continue
                        dm = np.mean(d, axis=0)
                        dm = dm[np.isfinite(dm)]
                        if len(dm) and float(np.ptp(dm)) <= 1e-12 * max(1.0, float(np.abs(dm).max())):
                            p, test = math.nan, "none"      # the resampled differences do not vary
                        else:
                            p = paired_bootstrap_p(diff, np.mean(d, axis=0))
                            test = "paired_bootstrap"
                comparisons.append([label, a, b_, diff, p, math.nan, test])
    for row, ph in zip(comparisons, holm([r[4] for r in comparisons])):
        row[5] = ph
    return intervals, comparisons
