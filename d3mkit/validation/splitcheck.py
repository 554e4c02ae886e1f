"""dataSplits.csv checks, vectorised over all rows.

Columns d3mIndex,type,repeat,fold (objectDetection adds image); type TRAIN/TEST; every
index in learningData; no unit both TRAIN and TEST in one repeat/fold; the repeats and
folds present match numRepeats/numFolds (0 means one repeat, numbered 0, and no folds,
i.e. fold 0); the TEST share matches testSize (kFold: 1/numFolds) within one row per
class; a classification split that declares ``stratified: true`` keeps each class's TEST
share within one row. The last two are warnings (the documentation gives no tolerance) and
are not checked in a published view (:mod:`d3mkit.docs.published`).

The unit of a split is the learningData index value; for objectDetection it is the image,
so all boxes of one image must fall on the same side.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.errors import Issue
from d3mkit.limits import how_to_raise, limit
from d3mkit.validation import coltypes
from d3mkit.validation.codes import make
from d3mkit.validation.common import as_dict, as_list, as_int, as_number, as_str, row_issues, short, sorted_unique
from d3mkit.validation.csvread import read_csv_checked
from d3mkit.validation.files import DatasetContext
from d3mkit.validation.keys import comparable, isin, keys
from d3mkit.paths import escape_reason
from d3mkit.validation.report import Report
from d3mkit.docs.versions import task_of

REQUIRED = ("d3mIndex", "type", "repeat", "fold")
EPS = 1e-9


def _int_column(s: pd.Series | None, name: str, p: str, out: list[Issue]) -> np.ndarray:
    """Non-negative ints (-1 where missing or bad; issues appended)."""
    if s is None:
        return np.zeros(0, dtype=np.int64)
    bad = np.zeros(len(s), dtype=bool)
    if pd.api.types.is_integer_dtype(s.dtype):
        vals = s.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        bad[coltypes.bad_rows(s, "integer")] = True
        x = pd.to_numeric(s.astype(object), errors="coerce").to_numpy(dtype=np.float64)
        vals = np.where(bad, np.nan, x)
    bad |= np.isnan(vals)
    cap = limit("MAX_SPLITS")
    with np.errstate(invalid="ignore"):
        bad |= (vals < 0) | (vals >= cap)
    out += row_issues("splits.value", np.flatnonzero(bad), name,
                      lambda r: f"{short(s.iloc[r])} is not a non-negative integer below {cap:,} "
                                f"(D3MKIT_MAX_SPLITS)", p)
    return np.where(bad, -1, np.nan_to_num(vals, nan=-1)).astype(np.int64)


def _is_value(s: pd.Series, value: str) -> np.ndarray:
    """Boolean mask of the cells equal to ``value``; a category column is compared by its
    codes (no 10^6-element object array)."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        cats = s.cat.categories
        hit = np.flatnonzero(np.asarray(cats.astype(str)) == value) if len(cats) else []
        codes = s.cat.codes.to_numpy()
        return codes == hit[0] if len(hit) else np.zeros(len(s), dtype=bool)
    return (s.astype(object).to_numpy() == value)


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
                 view: str | None = None) -> None:
    """Validate the splits file of ``problem``; issues go to ``report``. In a published
    ``view`` (:mod:`d3mkit.docs.published`) the problemDoc's testSize and stratified
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
    t = read_csv_checked(path, {"d3mIndex": "integer", "repeat": "integer", "fold": "integer"})
    out = list(t.issues)
    if t.header is None:
        report.add(p, "dataSplits", out)
        return
    required = REQUIRED + (("image",) if od else ())
    missing = [c for c in required if c not in t.header]
    if missing:
        out.append(make("splits.columns", "row 1", f"missing column(s) {missing}; "
                                                   f"dataSplits needs {','.join(required)}", p))
    if t.df is None or "d3mIndex" in missing or "type" in missing:
        report.add(p, "dataSplits", out)
        return
    n = len(t.df)
    idx, typ = t.column("d3mIndex"), t.column("type")
    is_train, is_test = _is_value(typ, "TRAIN"), _is_value(typ, "TEST")
    badtype = ~(is_train | is_test)

    def shown_type(r: int) -> str:
        v = typ.iloc[r]
        return short(v if isinstance(v, str) else "")
    out += row_issues("splits.type", np.flatnonzero(badtype), "type",
                      lambda r: f"{shown_type(r)} is not TRAIN or TEST", p)
    rep = _int_column(t.column("repeat"), "repeat", p, out) if "repeat" in t.header else np.zeros(n, np.int64)
    fold = _int_column(t.column("fold"), "fold", p, out) if "fold" in t.header else np.zeros(n, np.int64)
    ikeys = keys(idx)
    empty = pd.isna(ikeys) if ikeys.dtype == object else np.zeros(n, dtype=bool)
    out += row_issues("splits.value", np.flatnonzero(empty), "d3mIndex", lambda r: "d3mIndex is empty", p)

    # unit of a split: the index value, or the image for objectDetection
    img = t.column("image") if od else None
    unit_src = img if img is not None else idx
    ucodes, _ = pd.factorize(keys(unit_src) if img is None else unit_src.astype(object), use_na_sentinel=True)
    valid = ~badtype & (rep >= 0) & (fold >= 0) & (ucodes >= 0) & ~empty

    # every index in learningData
    ld = ctx.learning_table if ctx is not None else None
    ld_col = ctx.index_column() if ctx is not None else None
    ld_idx = ld.column(ld_col) if (ld is not None and ld_col) else None
    ld_units = None
    if ld_idx is not None:
        lkeys = keys(ld_idx)
        known = np.array(isin(ikeys, lkeys), dtype=bool)   # a writable copy
        unknown = ~known & ~empty
        out += row_issues("splits.unknown_index", np.flatnonzero(unknown), "d3mIndex",
                          lambda r: f"d3mIndex {short(idx.iloc[r])} is not in learningData", p)
        limg = ld.column(ctx.image_column()) if (od and img is not None and ctx.image_column()) else None
        if limg is not None:
            a, b = comparable(ikeys, lkeys)
            pairs_ld = pd.MultiIndex.from_arrays([b, limg.astype(object).to_numpy()])
            pairs_sp = pd.MultiIndex.from_arrays([a, img.astype(object).to_numpy()])
            bad_pair = ~pairs_sp.isin(pairs_ld) & known
            out += row_issues("splits.unknown_index", np.flatnonzero(bad_pair), "image",
                              lambda r: f"(d3mIndex {short(idx.iloc[r])}, image {short(img.iloc[r])}) "
                                        f"is not a row of learningData", p)
            ld_units = int(pd.Series(limg.astype(object)).dropna().nunique())
            known = known & ~bad_pair
        else:
            ld_units = int(pd.Series(lkeys).dropna().nunique()) if lkeys.dtype == object \
                else int(len(sorted_unique(lkeys)))
        valid &= known

    # repeat/fold groups
    fstride = int(fold.max(initial=0)) + 1
    rf = rep * fstride + fold
    rf_codes = np.full(n, -1, dtype=np.int64)
    rf_codes[valid], rf_uniques = pd.factorize(rf[valid])
    K = int(ucodes.max(initial=-1)) + 1
    group = rf_codes.astype(np.int64) * max(K, 1) + np.maximum(ucodes, 0)
    train_keys = sorted_unique(group[valid & is_train])
    test_keys = sorted_unique(group[valid & is_test])
    both = np.intersect1d(train_keys, test_keys, assume_unique=True)
    if len(both):
        rows = np.flatnonzero(valid & is_test & np.isin(group, both))
        what = "image" if img is not None else "d3mIndex"
        shown = img if img is not None else idx
        out += row_issues("splits.overlap", rows, what,
                          lambda r: f"{what} {short(shown.iloc[r])} is both TRAIN and TEST in repeat {rep[r]}, fold {fold[r]}", p)
    # distinct (rf, unit) values and the row (among the valid ones) first naming each
    ug, first = sorted_unique(group[valid], return_index=True)
    if img is None:
        dup = np.ones(len(ug) and int(valid.sum()), dtype=bool)
        dup[first] = False
        rows = np.flatnonzero(valid)[dup]
        out += row_issues("splits.duplicate", rows, "d3mIndex",
                          lambda r: f"d3mIndex {short(idx.iloc[r])} is listed again in repeat {rep[r]}, fold {fold[r]}", p)

    repeats, folds, method, share = _expected(split)
    ok_rows = ~badtype & (rep >= 0) & (fold >= 0)
    present_r = sorted_unique(rep[ok_rows]).tolist()
    if present_r and present_r != repeats:
        out.append(make("splits.repeats", "column repeat",
                        f"repeats present {present_r[:20]} but numRepeats {split.get('numRepeats', 0)} "
                        f"means {repeats[:20]}", p))
    for r in present_r:
        pf = sorted_unique(fold[ok_rows & (rep == r)]).tolist()
        if pf != folds:
            out.append(make("splits.folds", "column fold",
                            f"repeat {r} has folds {pf[:20]} but method {method!r} with numFolds "
                            f"{split.get('numFolds', 0)} means {folds[:20]}", p))
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
        classes, names = _classes(problem, ctx, ld_idx, ikeys, np.flatnonzero(valid)[first]) \
            if (share is not None and not od and ld_idx is not None) else (None, None)
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


def _classes(problem: dict, ctx: DatasetContext | None, ld_idx, ikeys, rows):
    """Class code of each distinct split unit (rows of the splits file), -1 unknown; None
    when the problem is not single-label classification on learningData."""
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
    if y is None:
        return None, None
    lkeys = keys(ld_idx)
    a, b = comparable(ikeys[rows], lkeys)
    first = ~pd.Series(b).duplicated().to_numpy()
    index = pd.Index(b[first])
    pos = index.get_indexer(a)
    if isinstance(y.dtype, pd.CategoricalDtype):   # the reader's categories: no object array
        ycodes, names = y.cat.codes.to_numpy()[first].astype(np.int64), np.asarray(y.cat.categories, dtype=object)
    else:
        ycodes, names = pd.factorize(y.astype(object).to_numpy()[first], use_na_sentinel=True)
    if len(ycodes) == 0:
        return None, None
    return np.where(pos >= 0, ycodes[np.maximum(pos, 0)], -1), names


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
