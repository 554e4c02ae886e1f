"""The IDX file format (MNIST and its siblings): reading with clear errors, and writing.

What this module owns: turning an IDX file — optionally gzip-compressed — into a numpy
array, and the reverse (:func:`write_idx`, used by the tests to make tiny files).

Layout: two zero bytes, a type byte (0x08 ubyte, 0x09 byte, 0x0B int16, 0x0C int32,
0x0D float32, 0x0E float64), a byte giving the number of dimensions, one big-endian
uint32 per dimension, then the values in C order, big-endian. Anything else is an
error (exit 1) naming the file and what is wrong: ``idx.magic`` (bad magic number or
type), ``idx.truncated`` (fewer bytes than the header promises), ``idx.trailing``
(more), ``idx.gzip`` (a broken gzip stream), ``idx.unreadable``.

>>> import tempfile, os
>>> p = os.path.join(tempfile.mkdtemp(), "t.idx")
>>> write_idx(p, np.arange(6, dtype=np.uint8).reshape(2, 3))
>>> read_idx(p).tolist()
[[0, 1, 2], [3, 4, 5]]
"""

from __future__ import annotations

import gzip
import struct
import zlib
from pathlib import Path

import numpy as np

from d3mkit.errors import D3MKitError

TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
CODES = {np.dtype(v).newbyteorder("=").str.lstrip("<>|="): k for k, v in TYPES.items()}


def _fail(path, code: str, location: str, message: str) -> D3MKitError:
    return D3MKitError.single(str(path), code, location, message)


def parse_idx(raw: bytes, path: str = "") -> np.ndarray:
    """The array stored in the IDX bytes ``raw`` (already decompressed)."""
    if len(raw) < 4:
        raise _fail(path, "idx.truncated", "header",
                    f"file has {len(raw)} byte(s); an IDX header needs at least 4")
    z0, z1, code, ndim = raw[0], raw[1], raw[2], raw[3]
    if z0 != 0 or z1 != 0 or code not in TYPES:
        raise _fail(path, "idx.magic", "bytes 0-3",
                    f"bad IDX magic number 0x{raw[:4].hex()}: expected 0x0000TTNN with type TT in "
                    f"{', '.join(f'{k:02x}' for k in TYPES)} (is this an IDX file?)")
    if ndim == 0:
        raise _fail(path, "idx.magic", "byte 3", "IDX header declares 0 dimensions")
    head = 4 + 4 * ndim
    if len(raw) < head:
        raise _fail(path, "idx.truncated", "header",
                    f"header declares {ndim} dimension(s) ({head} bytes) but the file has {len(raw)} bytes")
    dims = struct.unpack(f">{ndim}I", raw[4:head])
    dtype = np.dtype(TYPES[code])
    want = int(np.prod(dims, dtype=np.int64)) * dtype.itemsize
    have = len(raw) - head
    if have < want:
        raise _fail(path, "idx.truncated", f"byte {len(raw)}",
                    f"truncated data: shape {'x'.join(map(str, dims))} needs {want} bytes of "
                    f"{dtype.name} after the {head}-byte header, the file has {have}")
    if have > want:
        raise _fail(path, "idx.trailing", f"byte {head + want}",
                    f"{have - want} unexpected byte(s) after the data of shape {'x'.join(map(str, dims))}")
    arr = np.frombuffer(raw, dtype=dtype, count=want // dtype.itemsize, offset=head)
    return arr.reshape(dims).astype(dtype.newbyteorder("="))


def read_idx(path: Path | str) -> np.ndarray:
    """Read an IDX file (``.gz`` or plain; gzip is recognised by its magic bytes)."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise _fail(p, "idx.unreadable", "", f"cannot read IDX file: {exc.strerror or exc}") from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise _fail(p, "idx.gzip", "", f"broken gzip stream: {exc}") from None
    return parse_idx(raw, str(p))


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
