"""Reading a dataSplits file: :func:`read_splits`, and picking one repeat and fold's rows
(:func:`select` over a table, :func:`fold_members` over a file read in blocks,
:func:`member_mask`), with :func:`folds` and :func:`summary` for people."""


from __future__ import annotations

from pathlib import Path
from typing import Iterator

import numpy as np

from d3mkit.core.errors import D3MKitError
from d3mkit.core.lazy import pandas as pd   # imported on first use: select() on integer columns needs none
from d3mkit.io.paths import resolve_inside
from d3mkit.tables import read_table
from d3mkit.taskroot.splits.plan import COLUMNS, folds_present

def splits_path(problem_dir: Path, splits_file: str) -> Path:
    """``splitsFile`` under ``problem_dir``; one that leaves it (absolute, ``..``, a
    symlink out) is an error (:func:`d3mkit.io.paths.resolve_inside`)."""
    return resolve_inside(problem_dir, splits_file, doc=Path(problem_dir) / "problemDoc.json",
                          location="inputs.dataSplits.splitsFile", what="splitsFile",
                          root_name="the problem directory")




def read_splits(path: Path | str) -> pd.DataFrame:
    """A splits file with ``repeat``/``fold`` as integers (other cells as strings).

    Raises :class:`~d3mkit.core.errors.D3MKitError` on a missing column or a non-integer
    repeat/fold (the validator reports such files in full; this is the reader)."""
    df = read_table(path)
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise D3MKitError.single(path, "splits.columns", "header",
                                 f"missing column(s) {', '.join(missing)}")
    for col in ("repeat", "fold"):
        num = pd.to_numeric(df[col], errors="coerce")
        bad = num.isna() | (num != num.round())
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0]) + 1
            raise D3MKitError.single(path, "splits.bad_value", "",
                                     f"{col} must be an integer, got {df[col].iloc[row - 1]!r}", row=row, column=col)
        df[col] = num.astype(np.int64)
    return df


def _index_keys(col: pd.Series) -> np.ndarray:
    """d3mIndex cells as comparable keys without a Python call per cell: the integers
    as read, else each distinct stripped string's code (one factorize; stripping runs on
    the distinct values only, and ``isin`` never goes through pandas' Arrow strings, which
    build one ``pyarrow.scalar`` per value)."""
    a = np.asarray(col)
    if a.dtype.kind in "iu":
        return a
    codes, uniq = pd.factorize(np.asarray(a, dtype=object))
    if not len(uniq):
        return codes
    stripped = np.array([str(u).strip() for u in uniq], dtype=str)
    merged = np.unique(stripped, return_inverse=True)[1].astype(np.int64)
    return np.where(codes < 0, -1, merged[codes])


def _fold_masks(splits, repeat: int, fold: int, p: str, first_row: int = 0
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(train mask, test mask, repeat numbers, fold numbers) of the rows of a dataSplits
    table (or of a block of it starting at data row ``first_row``) for one repeat and fold;
    a non-integer repeat/fold or another type than TRAIN/TEST in the fold raises."""
    missing = [c for c in COLUMNS if c not in splits.columns]
    if missing:
        raise D3MKitError.single(p, "splits.columns", "", f"missing column(s) {', '.join(missing)}", row=1)
    nums = {}
    for col in ("repeat", "fold"):
        raw = np.asarray(splits[col])
        x = raw if raw.dtype.kind in "iu" else \
            pd.to_numeric(pd.Series(raw, dtype=object).astype(str).str.strip(),
                          errors="coerce").to_numpy(dtype=float)
        bad = np.flatnonzero(~np.isfinite(x) | (x != np.round(x))) if x.dtype.kind == "f" else []
        if len(bad):
            raise D3MKitError.single(p, "splits.value", "",
                                     f"{len(bad)} {col} value(s) are not integers (first "
                                     f"{str(raw[bad[0]])[:40]!r})", row=first_row + bad[0] + 2, column=col)
        nums[col] = x
    sel = (nums["repeat"] == repeat) & (nums["fold"] == fold)
    typ = np.asarray(splits["type"]).astype(str)
    train, test = sel & (typ == "TRAIN"), sel & (typ == "TEST")
    other = np.flatnonzero(sel & ~train & ~test)
    if len(other):
        raise D3MKitError.single(p, "splits.type", "",
                                 f"{len(other)} row(s) of repeat {repeat}, fold {fold} have a type other "
                                 f"than TRAIN or TEST (first {str(typ[other[0]])[:40]!r})", row=first_row + other[0] + 2, column='type')
    return train, test, nums["repeat"][typ == "TEST"], nums["fold"][typ == "TEST"]


def fold_members(path: Path | str, repeat: int = 0, fold: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(TRAIN members, TEST members) of one repeat and fold of the dataSplits file ``path``,
    read in blocks (:func:`d3mkit.tables.read_table_chunks`) so that only the indices are held,
    with the checks of :func:`select` and the same codes. When every d3mIndex is a small
    non-negative integer (D3M's rule; at most 4 times the rows read + 65,536) each side is a
    bitmap, a boolean array indexed by d3mIndex (1 byte a value, no sort); otherwise a sorted
    array of the indices (int64, else stripped strings). :func:`member_mask` tests a block's
    cells against either."""
    from d3mkit.tables import read_table_chunks
    p = str(path)
    bits: list[np.ndarray] | None = [np.zeros(0, dtype=bool), np.zeros(0, dtype=bool)]
    keys: list[list[np.ndarray]] = [[], []]
    reps = []
    first = 0
    for chunk in read_table_chunks(path):
        train, test, r, f = _fold_masks(chunk, repeat, fold, p, first)
        idx = _members_of(chunk["d3mIndex"])
        first += len(chunk)
        reps.append(np.unique(np.stack([r, f], axis=1), axis=0) if len(r) else np.empty((0, 2)))
        if bits is not None and idx.dtype.kind == "i" and (not len(idx) or (
                idx.min() >= 0 and idx.max() < 4 * first + 65536)):
            top = int(idx.max()) + 1 if len(idx) else 0
            if top > len(bits[0]):
                size = max(top, 2 * len(bits[0]))
                bits = [np.concatenate([b, np.zeros(size - len(b), dtype=bool)]) for b in bits]
            bits[0][idx[train]] = True
            bits[1][idx[test]] = True
            continue
        if bits is not None:                        # not small integers: sorted arrays from here on
            keys = [[np.flatnonzero(b).astype(np.int64)] for b in bits]
            bits = None
        keys[0].append(np.unique(idx[train]))
        keys[1].append(np.unique(idx[test]))
    if bits is not None:
        train, test = bits
        n_test, both = int(test.sum()), np.flatnonzero(train[:len(test)] & test)
    else:
        if any(a.dtype.kind != "i" for a in keys[0] + keys[1]):       # text on any block: all as text
            keys = [[a.astype(str) for a in k] for k in keys]
        train, test = (np.unique(np.concatenate(k)) if k else np.array([], dtype=np.int64) for k in keys)
        n_test, both = len(test), test[member_mask(test, train)]
    if not n_test:
        rf = np.concatenate(reps) if reps else np.empty((0, 2))
        raise D3MKitError.single(p, "splits.no_test", "", f"no TEST rows for repeat {repeat}, fold {fold} "
                                 f"({folds_present(rf[:, 0], rf[:, 1])})")
    if len(both):
        raise D3MKitError.single(p, "splits.overlap", "",
                                 f"{len(both)} TEST d3mIndex value(s) of repeat {repeat}, fold {fold} are also "
                                 f"TRAIN ({', '.join(map(str, both[:10]))}); a split cannot score them", column='d3mIndex')
    return train, test


def _members_of(cells) -> np.ndarray:
    """A block's d3mIndex cells as int64 when each is an integer (surrounding blanks allowed),
    else as stripped strings; numpy only (pandas' string methods go through pyarrow, whose
    memory pool keeps what a block used: ~70 bytes a row over 10^5 rows)."""
    text = np.char.strip(np.asarray(cells, dtype=object).astype(str))
    if len(text) and np.all(np.char.isdigit(np.char.lstrip(text, "+-")) & (np.char.str_len(text) <= 18)):
        try:
            return text.astype(np.int64)
        except ValueError:           # '+-1'
            pass
    return text


def member_mask(cells, members: np.ndarray) -> np.ndarray:
    """Which of ``cells`` (d3mIndex cells of a block, as read, or an array of keys) are among
    ``members`` from :func:`fold_members` (a bitmap, or sorted keys: a binary search per
    cell), so the memory is the block's, whatever the number of members."""
    keys = np.asarray(cells)
    if keys.dtype.kind not in "iu":
        keys = _members_of(keys)
    if members.dtype == bool:
        out = np.zeros(len(keys), dtype=bool)
        if keys.dtype.kind != "i":                   # text cells: those that are integers can match
            digits = np.char.isdigit(keys) & (np.char.str_len(keys) <= 18)
            out[digits] = member_mask(keys[digits].astype(np.int64), members)
            return out
        inside = (keys >= 0) & (keys < len(members))
        out[inside] = members[keys[inside]]
        return out
    if keys.dtype.kind != members.dtype.kind:                    # text on one side: compare as text
        keys, members = keys.astype(str), np.sort(members.astype(str))
    if not len(members):
        return np.zeros(len(keys), dtype=bool)
    at = np.searchsorted(members, keys)
    return members[np.minimum(at, len(members) - 1)] == keys


def select(splits, repeat: int = 0, fold: int = 0, path: Path | str = ""
           ) -> tuple[np.ndarray, np.ndarray]:
    """Boolean masks ``(train, test)`` over the rows of a dataSplits table for one
    repeat and fold (``splits`` a DataFrame or the scorer's
    :class:`~d3mkit.tables.columns.ColumnTable`): the one place that picks a fold's rows
    (scoring, task roots and :func:`folds` use it). Raises :class:`~d3mkit.core.errors.D3MKitError` (exit 1) naming
    the rows when a repeat/fold cell is not an integer, a row of this repeat and fold
    has a type other than TRAIN/TEST, a d3mIndex is both TRAIN and TEST, or there are
    no TEST rows.

    >>> s = pd.DataFrame({"d3mIndex": ["0", "1", "2", "0"], "type": ["TRAIN", "TEST", "TEST", "TRAIN"],
    ...                   "repeat": ["0", "0", "0", "1"], "fold": ["0", "0", "0", "0"]})
    >>> [m.tolist() for m in select(s)]
    [[True, False, False, False], [False, True, True, False]]
    """
    p = str(path)
    train, test, test_repeats, test_folds = _fold_masks(splits, repeat, fold, p)
    if not test.any():
        raise D3MKitError.single(p, "splits.no_test", "", f"no TEST rows for repeat {repeat}, fold {fold} "
                                 f"({folds_present(test_repeats, test_folds)})")
    keys = _index_keys(splits["d3mIndex"])
    both = np.flatnonzero(test & np.isin(keys, keys[train]))
    if len(both):
        raw = np.asarray(splits["d3mIndex"])[both[:10]]
        shown = ", ".join(dict.fromkeys(str(k).strip() for k in raw))
        raise D3MKitError.single(p, "splits.overlap", "",
                                 f"{len(both)} TEST row(s) of repeat {repeat}, fold {fold} name a d3mIndex "
                                 f"that is also TRAIN ({shown}); a split cannot score them", row=both[0] + 2, column='d3mIndex')
    return train, test


def folds(splits: pd.DataFrame) -> Iterator[tuple[int, int, list[str], list[str]]]:
    """``(repeat, fold, train d3mIndex values, test d3mIndex values)`` per repeat and fold
    in file order; indices listed once each (objectDetection lists one per box)."""
    rep = splits["repeat"].astype(np.int64)
    fol = splits["fold"].astype(np.int64)
    keys = list(dict.fromkeys(zip(rep.tolist(), fol.tolist())))
    for r, f in keys:
        sel = splits[(rep == r) & (fol == f)]
        idx = sel["d3mIndex"].astype(str)
        yield (r, f, list(dict.fromkeys(idx[sel["type"] == "TRAIN"])),
               list(dict.fromkeys(idx[sel["type"] == "TEST"])))


def summary(splits: pd.DataFrame) -> list[str]:
    """One line per repeat and fold: ``repeat R fold F: TRAIN a, TEST b``."""
    return [f"repeat {r} fold {f}: TRAIN {len(tr)}, TEST {len(te)}"
            for r, f, tr, te in folds(splits)]


