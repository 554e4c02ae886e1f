"""One pass over a large CSV file in chunks, for ``d3mkit import table``: the lean path.

What this module owns: importing a CSV file without holding it as Python strings. The file
is checked like every CSV (:func:`d3mkit.validation.csvread.read_header`, the header rules,
:func:`~d3mkit.validation.csvread.field_count_issues` for ragged rows), then read in chunks
of :data:`CHUNK_ROWS` rows; each chunk's distinct cells feed every column's
:class:`~d3mkit.importing.infer.Evidence` (the same rules as a table seen whole) and the
``types`` checks; only d3mIndex and the target columns are kept. learningData is then the
file's own bytes with a ``d3mIndex`` column put first (:func:`write_indexed`): numbered
lines when the file has no double quote, re-written by pandas chunk by chunk when it has.
Peak memory is a chunk plus the kept columns, not the table.

The table goes through :func:`d3mkit.importing.table.prepare_frame` instead (:func:`prepare_csv`
returns None) when the lean path does not apply: ``index`` names a column, a ``d3mIndex``
column is not the first, ``media`` is given, or a target cell is empty (rows to drop).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.errors import D3MKitError
from d3mkit.importing import infer
from d3mkit.importing.table import ImportOptions, Prepared, check_given, check_header

CHUNK_ROWS = 250_000
BLOCK = 1 << 24


def _chunks(path: Path, n: int, usecols=None):
    return pd.read_csv(path, header=0, names=list(range(n)), dtype=object, keep_default_na=False,
                       na_filter=False, encoding="utf-8-sig", engine="c", chunksize=CHUNK_ROWS,
                       usecols=usecols)


def prepare_csv(path: Path, display: str, header: list[str], opts: ImportOptions,
                targets: list[str]) -> Prepared | None:
    """:class:`Prepared` of the CSV at ``path`` (header already read and checked for width),
    or None when the whole-table path must take it (module docstring)."""
    if len(header) == 1:                    # maybe another delimiter: the checked reader names it
        return None
    check_header(header, targets, opts, display)
    if opts.index is not None or opts.media is not None or ("d3mIndex" in header and header[0] != "d3mIndex"):
        return None
    from d3mkit.validation.csvread import field_count_issues
    ragged = field_count_issues(path, len(header))
    if ragged:
        raise D3MKitError(ragged)
    has_index = header[0] == "d3mIndex"
    others = header[1:] if has_index else header
    first = 1 if has_index else 0
    evidence = {c: infer.Evidence() for c in others}
    keep_pos = ([0] if has_index else []) + [header.index(t) for t in targets]
    kept: list[pd.DataFrame] = []
    rows = 0
    try:
        for chunk in _chunks(path, len(header)):
            for j, c in enumerate(others, start=first):
                codes, uniques = pd.factorize(chunk[j], use_na_sentinel=True)
                uniq = np.asarray(uniques, dtype=object)
                empty = np.flatnonzero(uniq == "")
                n_present = len(codes) - (int((codes == empty[0]).sum()) if len(empty) else 0)
                levels = np.delete(uniq, empty) if len(empty) else uniq
                given = opts.types.get(c)
                if given is not None:
                    check_given(levels, given, c, chunk[j].to_numpy(), rows + 2, display)
                evidence[c].add(levels, n_present)
            kept.append(chunk[keep_pos])
            rows += len(chunk)
    except UnicodeDecodeError as exc:
        from d3mkit.errors import error
        raise D3MKitError(error("file.encoding", f"byte {exc.start}", "file is not valid UTF-8", display)) from None
    if rows == 0:
        from d3mkit.errors import error
        raise D3MKitError(error("csv.no_rows", "row 1", "the table has a header but no rows", display))
    frame = pd.concat(kept, ignore_index=True)
    frame.columns = (["d3mIndex"] if has_index else []) + targets
    if any((frame[t] == "").any() for t in targets):
        return None                         # rows to drop: the whole-table path counts them
    if has_index:
        from d3mkit.importing.table import _index
        frame = _index(frame, None, display)
    else:
        frame.insert(0, "d3mIndex", np.arange(rows).astype(str).astype(object))
    quoted = _has_quote(path)
    return Prepared(["d3mIndex", *others], rows, evidence, {c: t for c, t in opts.types.items()},
                    frame, lambda out: write_indexed(path, out, header, has_index, quoted))


def _has_quote(path: Path) -> bool:
    with open(path, "rb") as fh:
        while block := fh.read(BLOCK):
            if b'"' in block:
                return True
    return False


def write_indexed(src: Path, dst: Path, header: list[str], has_index: bool, quoted: bool) -> None:
    """learningData.csv at ``dst`` from the CSV ``src``: its bytes as they are when the first
    column is d3mIndex; else each record prefixed with its number (blank lines skipped, as
    every reader skips them), line by line when the file has no double quote, through pandas
    in chunks when it has (a quoted cell may hold a newline)."""
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        bom = fin.read(3)
        if bom != b"\xef\xbb\xbf":
            fin.seek(0)
        if has_index:
            shutil.copyfileobj(fin, fout, BLOCK)
            return
        if quoted:
            fin.close()
            for k, chunk in enumerate(_chunks(src, len(header))):
                chunk.columns = header
                chunk.insert(0, "d3mIndex", np.arange(k * CHUNK_ROWS, k * CHUNK_ROWS + len(chunk)))
                chunk.to_csv(fout, header=k == 0, index=False, lineterminator="\n")
            return
        number = -1                      # the header line is not numbered
        carry = b""
        while True:
            block = fin.read(BLOCK)
            data = carry + block
            cut = data.rfind(b"\n") + 1 if block else len(data)
            whole, carry = data[:cut], data[cut:]
            out = []
            for line in whole.split(b"\n"):
                if line in (b"", b"\r"):
                    continue
                out.append(b"d3mIndex," + line if number < 0 else b"%d,%s" % (number, line))
                number += 1
            if out:
                fout.write(b"\n".join(out) + b"\n")
            if not block:
                break
