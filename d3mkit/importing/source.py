"""Reading a user's table file into text cells: CSV, TSV, gzip-compressed CSV/TSV and (with
pyarrow) Parquet.

What this module owns: turning a table *file* into a DataFrame of strings (empty cells
``""``, no NA conversion, header names as written) — or one issue naming the file and the
place — and a DataFrame a Python caller passes into the same form
(:func:`frame_as_text`). Every check of the CSV reader applies
(:func:`d3mkit.tables.csvread.read_strings`: regular file within its byte limit, UTF-8,
header, duplicate names, another delimiter than commas, ragged rows); a TSV is read with the
same guarantees here, a gzip file is decompressed (within ``D3MKIT_MAX_FILE_BYTES``) and read
as the CSV or TSV inside. The header is checked against the import's own column limit
(``D3MKIT_MAX_IMPORT_COLUMNS``) before the body is read.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gzip
import tempfile
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.core.errors import D3MKitError, EXIT_USAGE, error
from d3mkit.io.limits import file_issue, how_to_raise, limit
from d3mkit.tables import TableSpec, Unreadable, read_table

SUFFIXES = (".csv", ".tsv", ".tab", ".txt", ".csv.gz", ".tsv.gz", ".tab.gz", ".txt.gz", ".parquet", ".pq")


def _raise(issues, usage_codes=("file.missing", "file.unreadable", "file.is_directory")):
    raise D3MKitError(issues, EXIT_USAGE if issues[0].code in usage_codes else 1)


def _check_width(header: list[str], p: str) -> None:
    if len(header) > limit("MAX_IMPORT_COLUMNS"):
        raise D3MKitError(error("import.too_wide", "", f"the table has {len(header):,} columns, "
                                f"over the import's column {how_to_raise('MAX_IMPORT_COLUMNS')}", p, row=1))


def _csv_header(path: Path, display: str) -> list[str]:
    """The header of a comma-separated file (the front door's reading), within the width limit;
    its issues name the file as the user gave it."""
    from d3mkit.tables.csvread import read_header
    header, issues = read_header(path)
    if header is None:
        _raise([dataclasses.replace(i, path=display) for i in issues])
    _check_width(header, display)
    return header


def _read_csv(path: Path, display: str) -> pd.DataFrame:
    from d3mkit.tables.csvread import read_strings
    header = _csv_header(path, display)
    df, issues = read_strings(path)
    if df is None:
        _raise([dataclasses.replace(i, path=display) for i in issues])
    df.columns = header                      # names exactly as written
    return df


def _tsv_header(path: Path, display: str) -> list[str]:
    from d3mkit.tables.dialect import records
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            header = next(records(fh, "\t"), None)
    except UnicodeDecodeError as exc:
        raise D3MKitError(error("file.encoding", "", f"file is not valid UTF-8 ({exc.reason})", display, row=1))
    except Unreadable as exc:
        raise D3MKitError(error("csv.parse", "", f"cannot parse the header: {exc.detail}", display, row=1))
    if not header:
        raise D3MKitError(error("csv.empty", "", "no header row", display, row=1))
    _check_width(header, display)
    return header


def _read_tsv(path: Path, display: str) -> pd.DataFrame:
    header = _tsv_header(path, display)
    try:
        df = read_table(path, TableSpec(sep="\t", width=len(header), implicit_index=True))
    except Unreadable as exc:
        if exc.byte is not None:
            raise D3MKitError(error("file.encoding", f"byte {exc.byte}", exc.detail, display)) from None
        raise D3MKitError(error("csv.bad_row", "", f"a row has more fields than the header: {exc.detail}",
                                display)) from None
    short = df.isna().any(axis=1).to_numpy()      # na_filter off: only padded cells are NaN
    if short.any():
        r = int(np.flatnonzero(short)[0])
        raise D3MKitError(error("csv.bad_row", "", f"expected {len(header)} fields, found "
                                f"{int(df.iloc[r].notna().sum())} (too few)", display, row=r + 2))
    df.columns = header
    return df


def _gunzip(path: Path, display: str, tmp: Path) -> Path:
    cap = limit("MAX_FILE_BYTES")
    out = tmp / Path(path.name[:-3]).name
    try:
        with gzip.open(path, "rb") as fin, open(out, "wb") as fout:
            total = 0
            while chunk := fin.read(1 << 20):
                total += len(chunk)
                if total > cap:
                    raise D3MKitError(error("file.too_large", "", f"decompressed data is over the byte "
                                            f"{how_to_raise('MAX_FILE_BYTES')}", display))
                fout.write(chunk)
    except (OSError, EOFError, zlib.error) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise D3MKitError(error("import.gzip", "", f"not a readable gzip file ({exc})", display))
    return out


def _parquet_as_csv(path: Path, display: str, tmp: Path) -> tuple[Path, dict[str, str]]:
    """A Parquet file as a CSV file of text cells under ``tmp`` (batch by batch: memory is one
    batch) and the colTypes its schema says."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        from d3mkit.core.errors import MissingDependency
        raise MissingDependency("pyarrow", "parquet", "reading Parquet", display) from None
    out = tmp / "table.csv"
    try:
        pf = pq.ParquetFile(path)
        _check_width(list(pf.schema_arrow.names), display)
        hints = dtype_hints(pf.schema_arrow.empty_table().to_pandas())
        with open(out, "w", encoding="utf-8", newline="") as fh:
            first = True
            for batch in pf.iter_batches(batch_size=50_000):
                frame_as_text(batch.to_pandas()).to_csv(fh, header=first, index=False, lineterminator="\n")
                first = False
            if first:
                fh.write(",".join(pf.schema_arrow.names) + "\n")
    except D3MKitError:
        raise
    except Exception as exc:  # noqa: BLE001 - any Arrow error on a bad file
        raise D3MKitError(error("import.format", "", f"not a readable Parquet file ({type(exc).__name__}: "
                                f"{exc})", display)) from None
    return out, hints


def read_parquet(path: Path, display: str) -> pd.DataFrame:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        from d3mkit.core.errors import MissingDependency
        raise MissingDependency("pyarrow", "parquet", "reading Parquet", display) from None
    try:
        schema = pq.read_schema(path)
        _check_width(list(schema.names), display)
        df = pq.read_table(path).to_pandas()
    except D3MKitError:
        raise
    except Exception as exc:  # noqa: BLE001 - any Arrow error on a bad file
        raise D3MKitError(error("import.format", "", f"not a readable Parquet file ({type(exc).__name__}: "
                                f"{exc})", display)) from None
    return frame_as_text(df)


def read_source(path: Path | str) -> pd.DataFrame:
    """The table at ``path`` as text cells; the format by the file name's suffix
    (:data:`SUFFIXES`; another suffix is read as CSV)."""
    path = Path(path)
    display = str(path)
    refused = file_issue(path, "table file")
    if refused is not None:
        _raise([refused], ("file.is_directory",))
    if not path.exists():
        raise D3MKitError(error("file.missing", "", "file does not exist", display), EXIT_USAGE)
    name = path.name.lower()
    if name.endswith((".parquet", ".pq")):
        return read_parquet(path, display)
    if name.endswith(".gz"):
        with tempfile.TemporaryDirectory(prefix="d3mkit-import-") as tmp:
            inner = _gunzip(path, display, Path(tmp))
            return _read_text_table(inner, display, name[:-3])
    return _read_text_table(path, display, name)


@dataclasses.dataclass
class Lean:
    """A table file the chunked reader takes (:func:`lean_source`): the file to read (a gzip
    file's decompressed copy), its header and its delimiter."""

    path: Path
    header: list[str]
    sep: str
    hints: dict[str, str] = dataclasses.field(default_factory=dict)   # colTypes a Parquet schema says


@contextlib.contextmanager
def lean_source(path: Path):
    """A :class:`Lean` for a CSV or TSV file, plain or gzip-compressed (decompressed into a
    temporary directory, within ``D3MKIT_MAX_FILE_BYTES``, for as long as the context lasts),
    that is a regular file within its limits with a header of at most
    ``D3MKIT_MAX_IMPORT_COLUMNS`` columns; a Parquet file becomes a temporary CSV file of its
    text cells (:func:`frame_as_text`), written batch by batch, with the colTypes its schema
    says (:func:`dtype_hints`)."""
    from d3mkit.tables.csvread import read_header
    path = Path(path)
    display = str(path)
    name = path.name.lower()
    refused = file_issue(path, "table file")
    if refused is not None:
        _raise([refused], ("file.is_directory",))
    with tempfile.TemporaryDirectory(prefix="d3mkit-import-") as tmp:
        inner = path
        if name.endswith((".parquet", ".pq")):
            if not path.exists():
                raise D3MKitError(error("file.missing", "", "file does not exist", display), EXIT_USAGE)
            inner, hints = _parquet_as_csv(path, display, Path(tmp))
            header, _ = read_header(inner)
            yield Lean(inner, header, ",", hints)
            return
        if name.endswith(".gz"):
            if not path.exists():
                raise D3MKitError(error("file.missing", "", "file does not exist", display), EXIT_USAGE)
            inner, name = _gunzip(path, display, Path(tmp)), name[:-3]
        if name.endswith((".tsv", ".tab")):
            yield Lean(inner, _tsv_header(inner, display), "\t")
            return
        yield Lean(inner, _csv_header(inner, display), ",")


def _read_text_table(path: Path, display: str, name: str) -> pd.DataFrame:
    if name.endswith((".tsv", ".tab")):
        return _read_tsv(path, display)
    return _read_csv(path, display)


def _cell(v) -> str:
    if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA or v is pd.NaT:
        return ""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, pd.Timestamp):
        return v.isoformat()
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    return str(v)


def frame_as_text(df: pd.DataFrame) -> pd.DataFrame:
    """A caller's DataFrame as text cells (the form a file is read in): missing values
    ``""``, booleans ``true``/``false``, floats in their shortest exact form, timestamps in
    ISO 8601; column names as strings. Its row index is dropped (a ``d3mIndex`` column is
    the index, as in a file)."""
    out = {}
    for c in df.columns:
        s = df[c]
        if pd.api.types.is_integer_dtype(s.dtype) and not s.isna().any():
            out[str(c)] = s.astype(np.int64).astype(str).to_numpy(dtype=object)
        else:
            out[str(c)] = np.fromiter((_cell(v) for v in s.tolist()), dtype=object, count=len(s))
    return pd.DataFrame(out, columns=[str(c) for c in df.columns], dtype=object)


def dtype_hints(df: pd.DataFrame) -> dict[str, str]:
    """colTypes a caller's DataFrame says by its dtypes: ``category`` -> categorical, ``bool``
    -> boolean, datetimes -> dateTime (other columns are inferred from their text)."""
    hints = {}
    for c in df.columns:
        dt = df[c].dtype
        if isinstance(dt, pd.CategoricalDtype):
            hints[str(c)] = "categorical"
        elif pd.api.types.is_bool_dtype(dt):
            hints[str(c)] = "boolean"
        elif pd.api.types.is_datetime64_any_dtype(dt):
            hints[str(c)] = "dateTime"
    return hints
