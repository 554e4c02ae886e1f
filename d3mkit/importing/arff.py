"""Packaging an ARFF file (an OpenML dataset) and, optionally, its OpenML estimation-procedure
split file as a D3M task root (``d3mkit import arff``).

What this module owns: reading ARFF through liac-arff (the reader openml-python uses; extra
``[arff]``) — scipy's reader refuses STRING attributes, liac-arff refuses DATE ones, so DATE
attributes are declared STRING to liac-arff (the header line is rewritten before decoding)
and their cells checked as ``dateTime`` — the mapping of ARFF types to colTypes, and turning
an OpenML split file into dataSplits rows one for one.

ARFF types: NUMERIC/REAL/INTEGER become ``integer`` when every value is integral, else
``real`` (the inference rules of :mod:`d3mkit.importing.infer`, so a two-valued numeric
target is a binary label); NOMINAL becomes ``categorical`` (its declared levels are kept in
the column's ``colDescription`` and count as the target's labels); STRING becomes
``string``; DATE becomes ``dateTime``, its values read in the attribute's declared format (a
Java ``SimpleDateFormat`` pattern such as ``"dd-MM-yyyy"``, :mod:`d3mkit.importing.javadate`)
and written as ISO 8601. A missing value (``?``) is an empty cell.

The split file (``type,rowid,repeat,fold`` rows, as OpenML serves it for a task): ``rowid``
is the 0-based row of the dataset file and becomes that row's d3mIndex (row numbers, unless
the table has a d3mIndex column or ``index`` names one); every (repeat, fold) must list
every row exactly once, TRAIN or TEST; rows keep the file's order, so the dataSplits rows
equal the split file's. The problemDoc says kFold with the file's folds (holdOut when there is
one fold), its repeats, and ``stratified: false``: d3mkit did not draw these folds, and it
does not claim a property it did not check.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.core.errors import D3MKitError, EXIT_USAGE, error, require_path
from d3mkit.importing.options import Imported, default_name, options
from d3mkit.importing.table import package_frame

_DATE = re.compile(r"""(?im)^(\s*@attribute\s+(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\S+)\s+)date\b(.*)$""")
_NUMBER = re.compile(r"""(?im)^(\s*@attribute\s+(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\S+)\s+)(?:numeric|real|integer)\s*$""")
SPLIT_COLUMNS = ("type", "rowid", "repeat", "fold")


def _text(path: Path) -> str:
    from d3mkit.io.limits import open_regular
    try:
        with open_regular(path, "ARFF file") as fh:
            data = fh.read()
    except D3MKitError as exc:
        usage = exc.issues[0].code in ("file.missing", "file.unreadable", "file.is_directory")
        raise D3MKitError(exc.issues, EXIT_USAGE if usage else 1) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise D3MKitError(error("file.encoding", f"byte {exc.start}", "file is not valid UTF-8", str(path))) from None


def read_arff(path: Path | str) -> tuple[pd.DataFrame, dict[str, object]]:
    """``(text cells, {column: ARFF type})`` of an ARFF file; the type is ``"NUMERIC"``,
    ``"STRING"``, ``"DATE"`` or the list of nominal levels."""
    try:
        import arff
    except ImportError:
        from d3mkit.core.errors import MissingDependency
        raise MissingDependency("liac-arff", "arff", "reading ARFF", str(path)) from None
    path = Path(path)
    text = _text(path)
    dates: dict[str, str | None] = {}      # DATE attribute -> its declared format (None: the default)

    def as_string(m: re.Match) -> str:
        fmt = m.group(2).strip()
        if len(fmt) >= 2 and fmt[0] == fmt[-1] and fmt[0] in "'\"":
            fmt = fmt[1:-1]
        dates[m.group(1).split(None, 1)[1].strip().strip("'\"")] = fmt or None
        return f"{m.group(1)}STRING"
    text = _DATE.sub(as_string, text)
    text = _strip_comments(text)
    numeric: set[str] = set()            # NUMERIC attributes read as text: every integer exact

    def number_as_string(m: re.Match) -> str:
        numeric.add(m.group(1).split(None, 1)[1].strip().strip("'\""))
        return f"{m.group(1)}STRING"
    text = _NUMBER.sub(number_as_string, text)
    try:
        decoded = arff.ArffDecoder().decode(text, encode_nominal=False, return_type=arff.DENSE)
    except arff.ArffException as exc:
        line = getattr(exc, "line", None)
        why = str(exc).rsplit(", at line", 1)[0]
        raise D3MKitError(error("import.arff", "", f"cannot parse ARFF: {why}", str(path),
                                **({"line": line} if line else {}))) from None
    except (ValueError, IndexError, KeyError, TypeError) as exc:   # liac-arff's own slips on odd input
        raise D3MKitError(error("import.arff", "", f"cannot parse ARFF: {type(exc).__name__}: {exc}",
                                str(path))) from None
    attrs = decoded["attributes"]
    names = [str(a[0]) for a in attrs]
    kinds: dict[str, object] = {}
    for name, kind in attrs:
        if isinstance(kind, list):
            kinds[str(name)] = [str(v) for v in kind]
        elif str(name) in dates:
            kinds[str(name)] = "DATE"
        elif str(name) in numeric:
            kinds[str(name)] = "NUMERIC"
        elif str(kind).upper() == "STRING":
            kinds[str(name)] = "STRING"
        else:
            kinds[str(name)] = "NUMERIC"
    rows = decoded["data"]
    sparse = bool(re.search(r"(?m)^\s*\{", text.split("@data", 1)[-1] if "@data" in text else
                            re.split(r"(?i)@data", text, maxsplit=1)[-1]))
    cols = {}
    for j, name in enumerate(names):
        if kinds[name] == "NUMERIC":
            cols[name] = _numbers([r[j] for r in rows], name, str(path))
        else:
            cols[name] = np.asarray([_cell(r[j], False) for r in rows], dtype=object)
        if kinds[name] == "DATE" and dates.get(name):
            # a sparse row's absent DATE value is 0 (liac-arff gives "0"): Weka's 0 milliseconds, 1970-01-01 UTC
            zero = np.fromiter((str(r[j]) == "0" for r in rows), dtype=bool, count=len(rows)) if sparse else \
                np.zeros(len(rows), dtype=bool)
            cols[name] = _iso_dates(np.where(zero, "", cols[name]), name, dates[name], str(path))
            if zero.any():
                from d3mkit.importing.javadate import compile_pattern
                cols[name][zero] = "1970-01-01T00:00:00" if compile_pattern(dates[name]).has_time else "1970-01-01"
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise D3MKitError(error("csv.duplicate_header", "", f"attribute {dup!r} is declared twice",
                                str(path), column=dup))
    return pd.DataFrame(cols, columns=names, dtype=object), kinds


def _iso_dates(cells: np.ndarray, name: str, fmt: str, p: str) -> np.ndarray:
    """A DATE column's cells, written in its declared format (a Java ``SimpleDateFormat``
    pattern, :mod:`d3mkit.importing.javadate`), as ISO 8601; one issue for a format d3mkit
    cannot read or a value that does not match it (``import.arff_date``)."""
    from d3mkit.importing.javadate import compile_pattern
    try:
        pattern = compile_pattern(fmt)
    except ValueError as exc:
        raise D3MKitError(error("import.arff_date", "", str(exc), p, column=name)) from None
    codes, uniq = pd.factorize(cells)
    iso = [pattern.iso(v) if v != "" else "" for v in uniq]
    bad = [k for k, v in enumerate(iso) if v is None]
    if bad:
        r = int(np.flatnonzero(codes == bad[0])[0])
        raise D3MKitError(error("import.arff_date", "",
                                f"value {uniq[bad[0]]!r} does not match the declared date format {fmt!r}", p,
                                row=r + 2, column=name))
    return np.asarray(iso, dtype=object)[codes]


_INTEGER = re.compile(r"\s*[+-]?\d+\s*")


def _numbers(cells: list, name: str, p: str) -> np.ndarray:
    """A NUMERIC attribute's cells (read as text, so an integer of any size stays exact): an
    integer as ``str(int)`` writes it, another number in its shortest float form; a cell that
    is no number is one ``import.arff`` issue naming the data row and the attribute."""
    out = []
    for r, v in enumerate(cells):
        if v is None:
            out.append("")
        elif isinstance(v, (int, float)):            # a sparse row's absent value (0)
            out.append(_cell(v, True))
        elif _INTEGER.fullmatch(v):
            out.append(str(int(v)))
        else:
            try:
                out.append(_cell(float(v), True))
            except ValueError:
                raise D3MKitError(error("import.arff", f"data row {r + 1}, column {name}",
                                        f"value {v!r} of the NUMERIC attribute {name!r} is not a number", p)) from None
    return np.asarray(out, dtype=object)


def _strip_comments(text: str) -> str:
    """``text`` with the ``%`` comments at the end of header lines removed (Weka writes
    ``@attribute total {low, high} % low < 100``); a ``%`` inside quotes stays."""
    head, sep, body = _split_data(text)
    lines = []
    for line in head.split("\n"):
        if "%" in line and not line.lstrip().startswith("%"):
            quote = None
            for k, ch in enumerate(line):
                if quote:
                    if ch == "\\":
                        continue
                    if ch == quote:
                        quote = None
                elif ch in "'\"":
                    quote = ch
                elif ch == "%":
                    line = line[:k].rstrip()
                    break
        lines.append(line)
    return "\n".join(lines) + sep + body


def _split_data(text: str) -> tuple[str, str, str]:
    m = re.search(r"(?im)^\s*@data\b", text)
    return (text, "", "") if m is None else (text[:m.start()], "", text[m.start():])


def _cell(v, numeric: bool) -> str:
    if v is None:
        return ""
    if numeric:
        f = float(v)
        return str(int(f)) if f.is_integer() and abs(f) < 2 ** 53 else repr(f)
    return str(v)


def _hints(kinds: dict[str, object]) -> tuple[dict[str, str], dict[str, str]]:
    """colType hints and colDescriptions from the ARFF types."""
    hints, described = {}, {}
    for name, kind in kinds.items():
        if isinstance(kind, list):
            hints[name] = "categorical"
            described[name] = "ARFF nominal levels: " + ", ".join(kind)
        elif kind == "STRING":
            hints[name] = "string"
        elif kind == "DATE":
            hints[name] = "dateTime"
    return hints, described


def read_splits(path: Path | str, index: list[str]) -> tuple[pd.DataFrame, dict]:
    """dataSplits rows from an OpenML split file, ``rowid`` mapped to ``index[rowid]`` (the
    d3mIndex of the dataset's row), and the problemDoc's dataSplits section."""
    p = str(path)
    df, kinds = read_arff(path)
    missing = [c for c in SPLIT_COLUMNS if c not in df.columns]
    if missing:
        raise D3MKitError(error("import.splits_file", "", f"a split file needs the attributes type, rowid, repeat "
                                f"and fold; {', '.join(missing)} missing", p))
    if "sample" in df.columns and df["sample"].nunique() > 1:
        raise D3MKitError(error("import.splits_file", "", "a learning-curve split file (several "
                                "samples) has no D3M equivalent; give a task's plain split file", p, column="sample"))
    bad_type = np.flatnonzero(~df["type"].isin(["TRAIN", "TEST"]).to_numpy())
    if len(bad_type):
        r = int(bad_type[0])
        raise D3MKitError(error("import.splits_file", f"data row {r + 1}, column type",
                                f"type {df['type'].iloc[r]!r} is not TRAIN or TEST", p))
    ints = {}
    for c in ("rowid", "repeat", "fold"):
        ok = df[c].str.fullmatch(r"\d+").to_numpy()
        if not ok.all():
            r = int(np.flatnonzero(~ok)[0])
            raise D3MKitError(error("import.splits_file", f"data row {r + 1}, column {c}",
                                    f"{c} {df[c].iloc[r]!r} is not a non-negative integer", p))
        ints[c] = df[c].astype(np.int64).to_numpy()
    n = len(index)
    rowid = ints["rowid"]
    beyond = np.flatnonzero(rowid >= n)
    if len(beyond):
        r = int(beyond[0])
        raise D3MKitError(error("import.splits_rows", f"data row {r + 1}, column rowid",
                                f"rowid {int(rowid[r])} names no row: the dataset has {n:,} rows (rowid 0..{n - 1})", p))
    frame = pd.DataFrame({"r": ints["repeat"], "f": ints["fold"], "i": rowid})
    for (rep, fold), g in frame.groupby(["r", "f"], sort=True):
        dup = g["i"].duplicated()
        if dup.any():
            r = int(g.index[np.flatnonzero(dup.to_numpy())[0]])
            raise D3MKitError(error("import.splits_rows", f"data row {r + 1}, column rowid",
                                    f"rowid {int(rowid[r])} is listed twice in repeat {rep}, fold {fold}", p))
        if len(g) != n:
            absent = np.setdiff1d(np.arange(n), g["i"].to_numpy())
            raise D3MKitError(error("import.splits_rows", "", f"repeat {rep}, fold {fold} leaves {len(absent):,} of "
                                    f"the {n:,} rows out (first rowid {int(absent[0])}); every row must be TRAIN or TEST", p))
    folds = int(ints["fold"].max()) + 1
    repeats = int(ints["repeat"].max()) + 1
    idx = np.asarray(index)
    if idx.dtype.kind not in "iu":
        idx = idx.astype(object)
    splits = pd.DataFrame({"d3mIndex": idx[rowid], "type": df["type"].to_numpy(), "repeat": ints["repeat"],
                           "fold": ints["fold"]})
    doc: dict = {"method": "kFold" if folds > 1 else "holdOut", "stratified": False,
                 "numRepeats": repeats if repeats > 1 else 0}
    if folds > 1:
        doc["numFolds"] = folds
    else:
        first = (splits["repeat"] == 0) & (splits["fold"] == 0)
        doc["testSize"] = round(float((splits.loc[first, "type"] == "TEST").mean()), 6)
    return splits, doc


def import_arff_result(source, *, target, out, splits=None, **kwargs) -> Imported:
    """:func:`import_arff` returning :class:`~d3mkit.importing.table.Imported`."""
    for param, value in (("source", source), ("out", out), ("splits", splits)):
        if value is not None or param != "splits":
            require_path(param, value)
    path = Path(source)
    df, kinds = read_arff(path)
    hints, described = _hints(kinds)
    for name, kind in kinds.items():      # a numeric attribute with no value (every cell ?) stays numeric
        if kind in ("NUMERIC", "REAL", "INTEGER") and name in df.columns and not (df[name] != "").any():
            hints[name] = "integer" if kind == "INTEGER" else "real"
    if kwargs.get("name") is None:
        kwargs["name"] = default_name(path)
    opts = options(target, **kwargs)
    split_rows, split_doc = None, None
    if splits is not None:
        from d3mkit.importing.index import index_values
        index = index_values(df, opts.index, str(path))
        split_rows, split_doc = read_splits(splits, index)
    levels = {n: k for n, k in kinds.items() if isinstance(k, list)}
    return package_frame(df, opts, out, source=str(path), hints=hints, splits=split_rows, split_doc=split_doc,
                         descriptions=described, labels=levels,
                         parameters={"splitsFile": Path(splits).name if splits is not None else None})


def import_arff(source, *, target, out, splits=None, name=None, task=None, subtype=None, index=None, types=None,
                metrics=None, split="holdOut", test_size=0.2, folds=5, repeats=0, stratified=None, seed=0,
                force=False, description=None, license=None, citation=None, source_url=None) -> Path:
    """Package the ARFF file ``source`` (with the OpenML split file ``splits``, else d3mkit's
    own split) as the task root ``out/<name>/`` and return its path; the other keywords are
    those of :func:`d3mkit.import_table`. Raises :class:`~d3mkit.core.errors.D3MKitError` with
    nothing written."""
    return import_arff_result(source, target=target, out=out, splits=splits, name=name, task=task,
                              subtype=subtype, index=index, types=types, metrics=metrics, split=split,
                              test_size=test_size, folds=folds, repeats=repeats, stratified=stratified,
                              seed=seed, force=force, description=description, license=license,
                              citation=citation, source_url=source_url).root
