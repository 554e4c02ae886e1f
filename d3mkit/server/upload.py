"""Reading an uploaded predictions file from a request, under a strict size cap.

What this module owns: :func:`receive`, which streams a ``multipart/form-data`` body
through python-multipart's incremental parser (a well-kept parser; nothing buffers the
whole body) into a new file the server names, and stops with 413 as soon as the file part
passes the cap (or the body passes cap + :data:`OVERHEAD`, or ``Content-Length`` says it
will). The request's content type must be ``multipart/form-data`` and the file part's a
CSV type (:data:`FILE_TYPES`), else 415. Text fields are small (:data:`FIELD_MAX`) and few.
The client's file name is never used: the file is written as ``DIR/.upload-<random>``,
fsynced, and renamed by the caller to the submission's id.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from d3mkit.io.atomic import fsync_path

OVERHEAD = 64 * 1024          # multipart headers and text fields beyond the file itself
FIELD_MAX = 4096
MAX_PARTS = 8
FILE_TYPES = frozenset({"text/csv", "application/csv", "text/plain", "application/vnd.ms-excel",
                        "application/octet-stream", "text/comma-separated-values"})


class UploadError(Exception):
    """A refused upload: HTTP ``status``, issue ``code`` and a one-line message."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass
class Upload:
    fields: dict = field(default_factory=dict)
    path: Path | None = None          # the received file (None: no file part)
    size: int = 0
    sha256: str = ""
    received: str | None = None       # when the body completed (UTC ISO text; set by the caller)

    def discard(self) -> None:
        if self.path is not None:
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass


def check_type(content_type: str | None) -> bytes:
    """The boundary of a multipart/form-data content type, else :class:`UploadError` 415."""
    from python_multipart.multipart import parse_options_header
    ctype, params = parse_options_header(content_type or "")
    if ctype != b"multipart/form-data" or not params.get(b"boundary"):
        raise UploadError(415, "server.content_type", "send multipart/form-data with the fields "
                          "'problem' and 'file' (a predictions.csv)")
    return params[b"boundary"]


async def receive(request, directory: Path, max_bytes: int, file_field: str = "file") -> Upload:
    """Stream ``request``'s multipart body; the part named ``file_field`` goes to a new file
    in ``directory`` (fsynced), the other parts into ``Upload.fields``."""
    from python_multipart import MultipartParser
    from python_multipart.multipart import parse_options_header
    boundary = check_type(request.headers.get("content-type"))
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > max_bytes + OVERHEAD:
        raise UploadError(413, "server.too_large", f"the upload is {int(length):,} bytes, over "
                          f"the cap of {max_bytes:,} bytes for a predictions file")
    up = Upload()
    tmp = directory / f".upload-{secrets.token_hex(8)}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    digest = hashlib.sha256()
    st = {"headers": {}, "hname": b"", "hvalue": b"", "name": None, "is_file": False,
          "buf": bytearray(), "parts": 0, "file_seen": False}

    def on_part_begin():
        st["parts"] += 1
        if st["parts"] > MAX_PARTS:
            raise UploadError(400, "server.form", f"more than {MAX_PARTS} form fields")
        st["headers"], st["name"], st["is_file"], st["buf"] = {}, None, False, bytearray()

    def on_header_field(data, start, end):
        st["hname"] += data[start:end]

    def on_header_value(data, start, end):
        st["hvalue"] += data[start:end]

    def on_header_end():
        st["headers"][st["hname"].lower()] = st["hvalue"]
        st["hname"], st["hvalue"] = b"", b""

    def on_headers_finished():
        _disp, params = parse_options_header(st["headers"].get(b"content-disposition", b""))
        name = params.get(b"name", b"").decode("utf-8", "replace")
        st["name"] = name
        if name == file_field:
            if st["file_seen"]:
                raise UploadError(400, "server.form", f"more than one '{file_field}' part")
            st["file_seen"] = True
            st["is_file"] = True
            ptype, _ = parse_options_header(st["headers"].get(b"content-type", b"application/octet-stream"))
            if ptype.decode("latin-1").lower() not in FILE_TYPES:
                raise UploadError(415, "server.content_type",
                                  f"the file part has content type {ptype.decode('latin-1')[:60]!r}; "
                                  f"send a CSV file (text/csv)")

    def on_part_data(data, start, end):
        chunk = data[start:end]
        if st["is_file"]:
            up.size += len(chunk)
            if up.size > max_bytes:
                raise UploadError(413, "server.too_large", f"the file is over the cap of "
                                  f"{max_bytes:,} bytes for a predictions file")
            digest.update(chunk)
            view = memoryview(chunk)
            while view:
                n = os.write(fd, view)
                view = view[n:]
        else:
            st["buf"] += chunk
            if len(st["buf"]) > FIELD_MAX:
                raise UploadError(413, "server.too_large", f"form field {st['name'][:40]!r} is over "
                                  f"{FIELD_MAX} bytes")

    def on_part_end():
        if not st["is_file"] and st["name"] is not None:
            up.fields[st["name"]] = bytes(st["buf"]).decode("utf-8", "replace")

    parser = MultipartParser(boundary, {
        "on_part_begin": on_part_begin, "on_part_data": on_part_data, "on_part_end": on_part_end,
        "on_header_field": on_header_field, "on_header_value": on_header_value,
        "on_header_end": on_header_end, "on_headers_finished": on_headers_finished})
    received = 0
    try:
        async for chunk in request.stream():
            received += len(chunk)
            if received > max_bytes + OVERHEAD:
                raise UploadError(413, "server.too_large", f"the upload is over the cap of "
                                  f"{max_bytes:,} bytes for a predictions file")
            parser.write(chunk)
        parser.finalize()
        if st["file_seen"]:
            from starlette.concurrency import run_in_threadpool
            os.close(fd)
            fd = -1
            await run_in_threadpool(fsync_path, tmp)
            up.path, up.sha256 = tmp, digest.hexdigest()
    except UploadError:
        raise
    except Exception as exc:        # a malformed body (python-multipart's errors, a reset)
        raise UploadError(400, "server.form", f"the multipart body cannot be read: "
                          f"{type(exc).__name__}") from None
    finally:
        if fd >= 0:
            os.close(fd)
        if up.path is None:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
    return up
