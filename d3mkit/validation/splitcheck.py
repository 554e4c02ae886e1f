"""dataSplits.csv checks, vectorised over all rows.

Columns d3mIndex,type,repeat,fold (objectDetection adds image); type TRAIN/TEST; every
index in learningData; no unit both TRAIN and TEST in one repeat/fold; the repeats and
folds present match numRepeats/numFolds (0 means one repeat, numbered 0, and no folds,
i.e. fold 0); the TEST share matches testSize (kFold: 1/numFolds) within one row per
class; a classification split that declares ``stratified: true`` keeps each class's TEST
share within one row. The last two are warnings (the documentation gives no tolerance) and
are not checked in a published view (:mod:`d3mkit.documents.published`).

The unit of a split is the learningData index value; for objectDetection it is the image,
so all boxes of one image must fall on the same side.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from d3mkit.tables.held import NOTHING, Held
from d3mkit.core.errors import Issue
from d3mkit.io.limits import how_to_raise, limit
from d3mkit.validation import coltypes
from d3mkit.validation.codes import make
from d3mkit.validation.common import (as_dict, as_int, as_list, as_number, as_str, dense_span, first_index, row_issues,
                                     short, sorted_unique)
from d3mkit.tables.csvread import read_csv_checked
from d3mkit.validation.files import DatasetContext
from d3mkit.validation.keys import Keys, first_rows, isin, joint, keys
from d3mkit.tables.tablecols import (Column, Floats, Ints, Texts, first_row, joint_raw, lookup, narrow, offsets,
                                        raw_codes)
from d3mkit.io.paths import escape_reason
from d3mkit.validation.report import Report
from d3mkit.documents.versions import task_of

REQUIRED = ("d3mIndex", "type", "repeat", "fold")
EPS = 1e-9


def _int_column(s: Column | None, name: str, p: str, out: list[Issue]) -> np.ndarray:
    """Non-negative ints (-1 where missing or bad; issues appended)."""
    if s is None:
        return np.zeros(0, dtype=np.int64)
    cap = limit("MAX_SPLITS")
    bad = np.zeros(len(s), dtype=bool)
    if isinstance(s, Ints):
        vals = s.values
        if s.na is not None:
            bad |= s.na
    else:
        bad[coltypes.bad_rows(s, "integer")] = True
        if isinstance(s, Floats):
            x = s.values
        else:     # numbers of the distinct texts, as pandas.to_numeric reads them
            nums = coltypes.numbers(np.asarray([str(v) for v in s.cats.tolist()], dtype=object)) \
                if s.ncats else np.zeros(0)
            x = lookup(nums, s.codes, np.nan)
        bad |= np.isnan(x)
        with np.errstate(invalid="ignore"):
            bad |= (x < 0) | (x >= cap)
            vals = np.where(bad, 0, x).astype(np.int64)
    bad |= (vals < 0) | (vals >= cap)
    out += row_issues("splits.value", np.flatnonzero(bad), name,
                      lambda r: f"{short(s.at(r))} is not a non-negative integer below {cap:,} "
                                f"(D3MKIT_MAX_SPLITS)", p)
    return narrow(np.where(bad, -1, vals))


def _is_value(s: Column, value: str) -> np.ndarray:
    """Boolean mask of the cells equal to ``value`` (a text column compared by its codes)."""
    if isinstance(s, Texts):
        hit = np.flatnonzero(np.asarray([str(c) for c in s.cats.tolist()], dtype=object) == value) \
            if s.ncats else []
        return s.codes == hit[0] if len(hit) else np.zeros(len(s), dtype=bool)
    return np.zeros(len(s), dtype=bool)


def _appearance(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``pandas.factorize`` of an int array: codes in order of first appearance, and the
    distinct values in that order (a table indexed by value for a narrow range, else sorts)."""
    dense = dense_span(values)
    if dense is not None:
        lo, span = dense
        at = offsets(values, lo, span)
        first = first_index(at, span)
        used = np.flatnonzero(first >= 0)
        used = used[np.argsort(first[used], kind="stable")]
        rank = np.full(span, -1, dtype=np.int32)
        rank[used] = np.arange(len(used), dtype=np.int32)
        return rank[at], used + lo
    u, first = sorted_unique(values, return_index=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(u), dtype=np.int32 if len(u) < 2 ** 31 else np.intp)
    rank[order] = np.arange(len(u))
    return rank[np.searchsorted(u, values)], u[order]


def _too_many(split: dict, pp: str) -> list[Issue]:
    """numRepeats x numFolds over the limit: checked before anything is counted."""
    method = as_str(split.get("method")) or "holdOut"
    nrep = max(1, as_int(split.get("numRepeats")) or 0)
    nfold = as_int(split.get("numFolds")) or 0
    groups = nrep * (nfold if method == "kFold" and nfold > 0 else 1)
    if groups <= limit("MAX_SPLITS"):
        return []
    key = "numRepeats" if nrep > 1 else "numFolds"
    return [make("splits.too_many", f"inputs.dataSplits.{key}",
                 f"numRepeats x numFolds asks for {groups:,} (repeat, fold) pairs, over the "
                 f"{how_to_raise('MAX_SPLITS')}", pp)]


def _expected(split: dict) -> tuple[list[int], list[int], str, float | None]:
    method = as_str(split.get("method")) or "holdOut"
    nrep = as_int(split.get("numRepeats")) or 0
    nfold = as_int(split.get("numFolds")) or 0
    repeats = list(range(max(1, nrep)))
    folds = list(range(nfold)) if method == "kFold" and nfold > 0 else [0]
    share = 1.0 / nfold if method == "kFold" and nfold > 0 else as_number(split.get("testSize"))
    return repeats, folds, method, share


def check_splits(problem: dict, problem_path: Path, ctx: DatasetContext | None, report: Report,
                 view: str | None = None, held: Held = NOTHING) -> None:
    """Validate the splits file of ``problem``; issues go to ``report``. In a published
    ``view`` (:mod:`d3mkit.documents.published`) the problemDoc's testSize and stratified
    describe the full task's split, not the view's file (one side only), so the TEST share
    and the strata are not checked there."""
    pp = str(problem_path)
    split = as_dict(as_dict(problem.get("inputs")).get("dataSplits"))
    rel = split.get("splitsFile", "dataSplits.csv")
    if not isinstance(rel, str):
        return   # the schema reports the type
    why = escape_reason(problem_path.parent, rel)
    if why:
        report.add(pp, "problemDoc", [make("path.escape", "inputs.dataSplits.splitsFile",
                                           f"splitsFile {rel!r} leaves the problem directory: {why}", pp)])
        return
    too_many = _too_many(split, pp)
    if too_many:
        report.add(pp, "problemDoc", too_many)
        return
    path = problem_path.parent / rel
    p = str(path)
    task, _ = task_of(problem.get("about"))
    od = task == "objectDetection"
    t = read_csv_checked(path, {"d3mIndex": "integer", "repeat": "integer", "fold": "integer"},
                         held=held.frame(path))
    out = list(t.issues)
    if t.header is None:
        report.add(p, "dataSplits", out)
        return
    required = REQUIRED + (("image",) if od else ())
    missing = [c for c in required if c not in t.header]
    if missing:
        out.append(make("splits.columns", "", f"missing column(s) {missing}; "
                                                   f"dataSplits needs {','.join(required)}", p, row=1))
    if t.cols is None or "d3mIndex" in missing or "type" in missing:
        report.add(p, "dataSplits", out)
        return
    n = len(t)
    idx, typ = t.column("d3mIndex"), t.column("type")
    is_train, is_test = _is_value(typ, "TRAIN"), _is_value(typ, "TEST")
    badtype = ~(is_train | is_test)

    def shown_type(r: int) -> str:
        v = typ.at(r)
        return short(v if isinstance(v, str) else "")
    out += row_issues("splits.type", np.flatnonzero(badtype), "type",
                      lambda r: f"{shown_type(r)} is not TRAIN or TEST", p)
    rep = _int_column(t.column("repeat"), "repeat", p, out) if "repeat" in t.header else np.zeros(n, np.int32)
    fold = _int_column(t.column("fold"), "fold", p, out) if "fold" in t.header else np.zeros(n, np.int32)
    t.keep(["d3mIndex", "image"])
    ikeys = keys(idx)
    empty = ikeys.missing()
    out += row_issues("splits.value", np.flatnonzero(empty), "d3mIndex", lambda r: "d3mIndex is empty", p)

    # unit of a split: the index value, or the image for objectDetection
    img = t.column("image") if od else None
    ucodes, K = ikeys.spread() if img is None else raw_codes(img)
    ok_rows = ~badtype & (rep >= 0) & (fold >= 0)
    del badtype
    valid = ok_rows & (ucodes >= 0) & ~empty

    # every index in learningData
    ld = ctx.learning_table if ctx is not None else None
    ld_col = ctx.index_column() if ctx is not None else None
    ld_idx = ld.column(ld_col) if (ld is not None and ld_col) else None
    ld_units = None
    lkeys = None
    if ld_idx is not None:
        lkeys = keys(ld_idx)
        known = isin(ikeys, lkeys)
        unknown = ~known & ~empty
        out += row_issues("splits.unknown_index", np.flatnonzero(unknown), "d3mIndex",
                          lambda r: f"d3mIndex {short(idx.at(r))} is not in learningData", p)
        del unknown, empty
        limg = ld.column(ctx.image_column()) if (od and img is not None and ctx.image_column()) else None
        if limg is not None:
            ka, kb = joint(ikeys, lkeys)
            ia, ib, m = joint_raw(img, limg)
            pa = ka.astype(np.int64) * (m + 1) + np.where(ia >= 0, ia, m)
            pb = kb.astype(np.int64) * (m + 1) + np.where(ib >= 0, ib, m)
            bad_pair = ~isin(Keys(ints=pa), Keys(ints=pb)) & known
            out += row_issues("splits.unknown_index", np.flatnonzero(bad_pair), "image",
                              lambda r: f"(d3mIndex {short(idx.at(r))}, image {short(img.at(r))}) "
                                        f"is not a row of learningData", p)
            ld_units = raw_codes(limg)[1]
            known = known & ~bad_pair
        else:
            ld_units = lkeys.factor()[1]
        valid &= known
        del known

    # repeat/fold groups
    fstride = int(fold.max(initial=0)) + 1
    wide = np.int32 if (int(rep.max(initial=0)) + 1) * fstride < 2 ** 31 else np.int64
    rf = rep.astype(wide) * fstride + fold
    rf_codes = np.full(n, -1, dtype=wide)
    rf_codes[valid], rf_uniques = _appearance(rf[valid])
    del rf
    wide = np.int32 if (len(rf_uniques) + 1) * max(K, 1) < 2 ** 31 else np.int64
    group = rf_codes.astype(wide) * max(K, 1)
    group += np.maximum(ucodes, 0)
    del rf_codes
    train_keys = sorted_unique(group[valid & is_train])
    test_keys = sorted_unique(group[valid & is_test])
    both = np.intersect1d(train_keys, test_keys, assume_unique=True)
    del train_keys, test_keys
    if len(both):
        rows = np.flatnonzero(valid & is_test & np.isin(group, both))
        what = "image" if img is not None else "d3mIndex"
        shown = img if img is not None else idx
        out += row_issues("splits.overlap", rows, what,
                          lambda r: f"{what} {short(shown.at(r))} is both TRAIN and TEST in repeat {rep[r]}, fold {fold[r]}", p)
    # distinct (rf, unit) values and the row (among the valid ones) first naming each
    ug, first = sorted_unique(group[valid], return_index=True)
    del group
    if img is None:
        dup = np.ones(len(ug) and int(valid.sum()), dtype=bool)
        dup[first] = False
        rows = np.flatnonzero(valid)[dup]
        out += row_issues("splits.duplicate", rows, "d3mIndex",
                          lambda r: f"d3mIndex {short(idx.at(r))} is listed again in repeat {rep[r]}, fold {fold[r]}", p)

    repeats, folds, method, share = _expected(split)
    present_r = sorted_unique(rep[ok_rows]).tolist()
    if present_r and present_r != repeats:
        out.append(make("splits.repeats", "",
                        f"repeats present {present_r[:20]} but numRepeats {split.get('numRepeats', 0)} "
                        f"means {repeats[:20]}", p, column='repeat'))
    for r in present_r:
        pf = sorted_unique(fold[ok_rows & (rep == r)]).tolist()
        if pf != folds:
            out.append(make("splits.folds", "",
                            f"repeat {r} has folds {pf[:20]} but method {method!r} with numFolds "
                            f"{split.get('numFolds', 0)} means {folds[:20]}", p, column='fold'))
            break

    # per (repeat, fold): completeness, TEST share, stratification
    if valid.any():
        g_rf = ug // max(K, 1)
        g_test = is_test[np.flatnonzero(valid)[first]]
        n_rf = len(rf_uniques)
        total = np.bincount(g_rf, minlength=n_rf)
        ntest = np.bincount(g_rf, weights=g_test, minlength=n_rf)
        unit_word = "images" if img is not None else "rows"
        if ld_units is not None:
            for g in np.flatnonzero(total < ld_units)[:5]:
                r, f = divmod(int(rf_uniques[g]), fstride)
                out.append(make("splits.incomplete", f"repeat {r}, fold {f}",
                                f"lists {int(total[g])} of the {ld_units} learningData {unit_word}", p))
        classes, names = _classes(problem, ctx, lkeys, ikeys, np.flatnonzero(valid)[first]) \
            if (share is not None and not od and lkeys is not None) else (None, None)
        n_cls = len(sorted_unique(classes[classes >= 0])) if classes is not None else 0
        stratified = split.get("stratified", True) is not False
        tol = max(1, n_cls if stratified else 1) + EPS
        if share is not None and 0 <= share <= 1 and view is None:
            for g in range(n_rf):
                want = share * total[g]
                if abs(ntest[g] - want) > tol:
                    r, f = divmod(int(rf_uniques[g]), fstride)
                    out.append(make("splits.test_size", f"repeat {r}, fold {f}",
                                    f"{int(ntest[g])} of {int(total[g])} {unit_word} are TEST; "
                                    f"{'testSize' if method != 'kFold' else '1/numFolds'} {share:g} "
                                    f"means {want:.1f} (tolerance {tol:.0f})", p))
            # only a split that declares itself stratified is held to it (a warning: the
            # documentation gives no tolerance); the schema's default says how to make one
            if split.get("stratified") is True and classes is not None and n_cls > 1:
                out += _check_strata(g_rf, g_test, classes, names, share, rf_uniques, fstride, p)
    report.add(p, "dataSplits", out)


def _classes(problem: dict, ctx: DatasetContext | None, lkeys: Keys, ikeys: Keys, rows):
    """Class code of each distinct split unit (rows of the splits file), -1 unknown; None
    when the problem is not single-label classification on learningData. A unit's class is
    that of the first learningData row with its index."""
    task, sub = task_of(problem.get("about"))
    if task != "classification" or sub == "multiLabel":
        return None, None
    if ctx is None or ctx.learning_table is None:
        return None, None
    targets = [t for e in as_list(as_dict(problem.get("inputs")).get("data")) if isinstance(e, dict)
               for t in as_list(e.get("targets")) if isinstance(t, dict)]
    if not targets or targets[0].get("resID") != ctx.learning_id:
        return None, None
    y = ctx.learning_table.column(targets[0].get("colName")) if isinstance(targets[0].get("colName"), str) else None
    if y is None or len(y) == 0:
        return None, None
    fr = first_rows(ikeys.take(rows), lkeys)
    if isinstance(y, Texts):   # the reader's categories: no object array
        ycodes, names = y.codes, y.cats
    else:    # codes in order of first appearance among each index's first row, as before
        lc, k = lkeys.factor()
        heads = np.sort(first_row(lc, k))
        heads = heads[heads >= 0]
        ycodes = np.full(len(y), -1, dtype=np.int32)
        yc, yk = raw_codes(y)
        sub = yc[heads]
        seen = first_row(sub, yk)
        order = np.argsort(np.where(seen >= 0, seen, len(sub)), kind="stable")
        rank = np.empty(yk, dtype=np.intp)
        rank[order] = np.arange(yk)
        ycodes[heads] = lookup(rank, sub)
        used = order[:int((seen >= 0).sum())]
        distinct = first_row(yc, yk)
        names = np.asarray([y.at(int(distinct[c])) for c in used], dtype=object)
    return lookup(ycodes, fr), names


def _check_strata(g_rf, g_test, classes, names, share, rf_uniques, fstride, p) -> list[Issue]:
    out: list[Issue] = []
    ok = classes >= 0
    C = int(classes.max(initial=-1)) + 1
    key = g_rf[ok] * C + classes[ok]
    size = len(rf_uniques) * C
    tot = np.bincount(key, minlength=size)
    tst = np.bincount(key, weights=g_test[ok], minlength=size)
    dev = np.abs(tst - share * tot)
    for k in np.flatnonzero((dev > 1 + EPS) & (tot > 0))[:10]:
        g, c = divmod(int(k), C)
        r, f = divmod(int(rf_uniques[g]), fstride)
        out.append(make("splits.stratification", f"repeat {r}, fold {f}",
                        f"class {short(names[c])}: {int(tst[k])} of {int(tot[k])} rows are TEST, a stratified split "
                        f"with TEST share {share:g} means {share * tot[k]:.1f}", p))
    return out
