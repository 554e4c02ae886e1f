"""The IDX file format (MNIST and its siblings): reading with clear errors, and writing.

What this module owns: turning an IDX file — optionally gzip-compressed — into a numpy
array, and the reverse (:func:`write_idx`, used by the tests to make tiny files).

Layout: two zero bytes, a type byte (0x08 ubyte, 0x09 byte, 0x0B int16, 0x0C int32,
0x0D float32, 0x0E float64), a byte giving the number of dimensions, one big-endian
uint32 per dimension, then the values in C order, big-endian. Anything else is an
error (exit 1) naming the file and what is wrong: ``idx.magic`` (bad magic number or
type), ``idx.truncated`` (fewer bytes than the header promises), ``idx.trailing``
(more), ``idx.too_large`` (the header promises more than ``D3MKIT_MAX_IDX_BYTES``, refused
before anything is allocated), ``idx.gzip`` (a broken gzip stream), ``idx.unreadable``; a
FIFO, device or oversize file is refused unopened (:func:`d3mkit.io.limits.open_regular`).

>>> import tempfile, os
>>> p = os.path.join(tempfile.mkdtemp(), "t.idx")
>>> write_idx(p, np.arange(6, dtype=np.uint8).reshape(2, 3))
>>> read_idx(p).tolist()
[[0, 1, 2], [3, 4, 5]]
"""

from __future__ import annotations

import gzip
import io
import math
import os
import struct
import zlib
from pathlib import Path

import numpy as np

from d3mkit.core.errors import D3MKitError, error
from d3mkit.io.limits import how_to_raise, limit, open_regular

TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
CODES = {np.dtype(v).newbyteorder("=").str.lstrip("<>|="): k for k, v in TYPES.items()}


def _fail(path, code: str, location: str, message: str) -> D3MKitError:
    return D3MKitError(error(code, location, message, str(path)))


def _header(head4: bytes, path: str) -> tuple[np.dtype, int]:
    """(dtype, number of dimensions) from the first 4 bytes."""
    if len(head4) < 4:
        raise _fail(path, "idx.truncated", "header",
                    f"file has {len(head4)} byte(s); an IDX header needs at least 4")
    z0, z1, code, ndim = head4[0], head4[1], head4[2], head4[3]
    if z0 != 0 or z1 != 0 or code not in TYPES:
        raise _fail(path, "idx.magic", "bytes 0-3",
                    f"bad IDX magic number 0x{head4[:4].hex()}: expected 0x0000TTNN with type TT in "
                    f"{', '.join(f'{k:02x}' for k in TYPES)} (is this an IDX file?)")
    if ndim == 0:
        raise _fail(path, "idx.magic", "byte 3", "IDX header declares 0 dimensions")
    return np.dtype(TYPES[code]), ndim


def _data_bytes(dims: tuple[int, ...], dtype: np.dtype, head: int, path: str) -> int:
    """Bytes of data the header promises, refused over ``D3MKIT_MAX_IDX_BYTES`` before anything
    is allocated (the product is exact: Python integers do not overflow)."""
    want = math.prod(dims) * dtype.itemsize
    if want > limit("MAX_IDX_BYTES"):
        raise _fail(path, "idx.too_large", f"bytes 4-{head - 1}",
                    f"header promises shape {'x'.join(map(str, dims))} = {want:,} bytes of {dtype.name}, "
                    f"over the IDX data {how_to_raise('MAX_IDX_BYTES')}")
    return want


def _read_stream(fh, path: str, known_size: int | None) -> np.ndarray:
    """Read header and data from ``fh`` (plain or gzip), checking the promised size against
    the limit and (plain files) the file's size before reading the data."""
    dtype, ndim = _header(fh.read(4), path)
    head = 4 + 4 * ndim
    dims_raw = fh.read(4 * ndim)
    if len(dims_raw) < 4 * ndim:
        raise _fail(path, "idx.truncated", "header",
                    f"header declares {ndim} dimension(s) ({head} bytes) but the file has "
                    f"{4 + len(dims_raw)} bytes")
    dims = struct.unpack(f">{ndim}I", dims_raw)
    want = _data_bytes(dims, dtype, head, path)
    shape = "x".join(map(str, dims))
    if known_size is not None and known_size - head < want:
        raise _fail(path, "idx.truncated", f"byte {known_size}",
                    f"truncated data: shape {shape} needs {want} bytes of {dtype.name} after the "
                    f"{head}-byte header, the file has {known_size - head}")
    if known_size is not None:
        raw = fh.read(want)
    else:                   # a compressed stream: memory grows with the data actually there
        raw = bytearray()
        while len(raw) < want:
            chunk = fh.read(min(want - len(raw), 1 << 24))
            if not chunk:
                break
            raw += chunk
    if len(raw) < want:
        raise _fail(path, "idx.truncated", f"byte {head + len(raw)}",
                    f"truncated data: shape {shape} needs {want} bytes of {dtype.name} after the "
                    f"{head}-byte header, the file has {len(raw)}")
    extra = len(fh.read(1 << 16))
    if extra:
        raise _fail(path, "idx.trailing", f"byte {head + want}",
                    f"{extra if extra < 1 << 16 else 'at least 65,536'} unexpected byte(s) after the "
                    f"data of shape {shape}")
    arr = np.frombuffer(raw, dtype=dtype, count=want // dtype.itemsize)
    return arr.reshape(dims).astype(dtype.newbyteorder("="))


def parse_idx(raw: bytes, path: str = "") -> np.ndarray:
    """The array stored in the IDX bytes ``raw`` (already decompressed)."""
    return _read_stream(io.BytesIO(raw), path, len(raw))


def read_idx(path: Path | str) -> np.ndarray:
    """Read an IDX file (``.gz`` or plain; gzip is recognised by its magic bytes). The file
    must be a regular file within ``D3MKIT_MAX_FILE_BYTES``, and the data its header promises
    within ``D3MKIT_MAX_IDX_BYTES`` (decompressed), checked before the data is read: a
    gzip bomb or a header lying about its dimensions is an issue, never an allocation."""
    p = str(path)
    try:
        fh = open_regular(p, "IDX file")
    except D3MKitError as exc:
        if exc.issues[0].code in ("file.missing", "file.unreadable"):
            raise _fail(p, "idx.unreadable", "", exc.issues[0].message) from None
        raise
    with fh:
        try:
            size = os.fstat(fh.fileno()).st_size
            if fh.read(2) == b"\x1f\x8b":
                fh.seek(0)
                with gzip.GzipFile(fileobj=fh, mode="rb") as gz:
                    try:
                        return _read_stream(gz, p, None)
                    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
                        raise _fail(p, "idx.gzip", "", f"broken gzip stream: {exc}") from None
            fh.seek(0)
            return _read_stream(fh, p, size)
        except OSError as exc:
            raise _fail(p, "idx.unreadable", "", f"cannot read IDX file: {exc.strerror or exc}") from None


def idx_bytes(arr: np.ndarray) -> bytes:
    """The IDX encoding of ``arr`` (uint8, int8, int16, int32, float32 or float64)."""
    a = np.asarray(arr)
    key = a.dtype.newbyteorder("=").str.lstrip("<>|=")
    if key not in CODES:
        raise ValueError(f"IDX cannot store dtype {a.dtype}")
    code = CODES[key]
    head = bytes([0, 0, code, a.ndim]) + struct.pack(f">{a.ndim}I", *a.shape)
    return head + a.astype(TYPES[code]).tobytes()


def write_idx(path: Path | str, arr: np.ndarray, *, compress: bool | None = None) -> None:
    """Write ``arr`` as IDX; gzip when ``compress`` (default: the name ends in .gz)."""
    p = Path(path)
    data = idx_bytes(arr)
    if compress if compress is not None else p.suffix == ".gz":
        data = gzip.compress(data, mtime=0)
    p.write_bytes(data)
