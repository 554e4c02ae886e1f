"""Writing a dataSplits table: :func:`splits_bytes`, the exact bytes pandas' CSV writer
writes, formatted with numpy for the usual columns, and :func:`write_splits` (atomic)."""


from __future__ import annotations

from pathlib import Path

import numpy as np

from d3mkit.core.lazy import pandas as pd
from d3mkit.taskroot.splits.plan import first_rows, str_codes

def write_splits(splits: pd.DataFrame, path: Path | str) -> None:
    """Write a splits table atomically: :func:`splits_bytes`, the bytes
    :func:`d3mkit.tables.write_table` would write."""
    from d3mkit.io.atomic import write_bytes
    write_bytes(path, splits_bytes(splits))


_NEEDS_QUOTES = (",", '"', "\n", "\r")


def _plain_strings(col: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """``(codes, strings)`` of a column of strings that pandas' CSV writer writes as they are
    (``strings[codes]`` are the cells), or None (a missing cell, one that is not a string, or
    one it would quote). Only the distinct cells are looked at."""
    codes, uniq = pd.factorize(np.asarray(col.to_numpy(), dtype=object))
    uniq = np.asarray(uniq, dtype=object)
    if (codes < 0).any() or pd.api.types.infer_dtype(uniq, skipna=False) not in ("string", "empty"):
        return None
    joined = "\x00".join(uniq)
    return None if any(ch in joined for ch in _NEEDS_QUOTES) else (codes, uniq)


def splits_bytes(splits: pd.DataFrame) -> bytes:
    """The exact bytes :func:`write_splits` writes: pandas' CSV (no index, ``\\n`` line
    endings). A table of the usual columns with integer or plain string cells is formatted
    here instead of through ``DataFrame.to_csv`` (5x slower at 10^6 rows): the
    type/repeat/fold part of a row takes one of few values, each formatted once, and integer
    d3mIndex values become text with numpy (:mod:`d3mkit.io.numtext`)."""
    from d3mkit.io.numtext import int_rows
    cols = [str(c) for c in splits.columns]
    plain = len(splits) and cols[-3:] == ["type", "repeat", "fold"] and \
        cols[:-3] in (["d3mIndex"], ["d3mIndex", "image"])
    typ = _plain_strings(splits["type"]) if plain else None
    reps, folds_ = (splits["repeat"].to_numpy(), splits["fold"].to_numpy()) if plain else (None, None)
    if typ is None or reps.dtype.kind not in "iu" or folds_.dtype.kind not in "iu":
        return splits.to_csv(index=False, lineterminator="\n").encode("utf-8")
    tcodes, tnames = typ
    reps, folds_ = reps.astype(np.int64), folds_.astype(np.int64)
    width = int(max(reps.max(), folds_.max(), 0)) + 1
    tail = str_codes((tcodes.astype(np.int64) * width + reps) * width + folds_, want_labels=False)[0]
    texts = [f",{tnames[tcodes[i]]},{reps[i]},{folds_[i]}".encode() for i in first_rows(tail).tolist()]
    head = ",".join(cols).encode() + b"\n"
    index = splits["d3mIndex"].to_numpy()
    if len(cols) == 4 and (index.dtype.kind == "i" or (index.dtype.kind == "u" and index.max() < 2 ** 63)):
        return head + int_rows(index, texts, tail)
    heads = [np.array([str(v) for v in splits[c].tolist()], dtype=object) if splits[c].dtype.kind in "iu"
             else _plain_strings(splits[c]) for c in cols[:-3]]
    if any(h is None for h in heads):
        return splits.to_csv(index=False, lineterminator="\n").encode("utf-8")
    heads = [h if isinstance(h, np.ndarray) else h[1][h[0]] for h in heads]
    lines = heads[0]
    for h in heads[1:]:
        lines = lines + "," + h
    lines = lines + np.array([t.decode() for t in texts], dtype=object)[tail]
    return head + ("\n".join(lines) + "\n").encode("utf-8")


