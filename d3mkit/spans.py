"""A large file read in two parts side by side: where to cut it, and a part read as a file.

What this module owns: :func:`middle` (the offset just after the first newline at or after
the middle of a file, past its header line) and :class:`Span` (the bytes ``[start, stop)``
of an open binary file, read as a file: validation's plain reader takes it like the file
itself). A cut after a newline starts a record only in a file that holds no quoted newline:
the plain reader declines any file with a double quote.

>>> import io
>>> f = io.BytesIO(b"h\\nab\\ncd\\nef\\n")
>>> cut = middle(f, 11); cut, Span(f, cut, 11).read()
(8, b'ef\\n')
"""

from __future__ import annotations


def middle(fh, size: int) -> int | None:
    """The offset just after the first newline at or after ``size // 2`` in the binary file
    ``fh`` of ``size`` bytes, when its first line (the header) ends before the middle and
    the offset is before the end; else None (read it as one part). ``fh`` is left at 0."""
    fh.seek(0)
    head = fh.read(min(size, 1 << 20)).find(b"\n")
    fh.seek(size // 2)
    at = fh.read(1 << 16).find(b"\n")
    fh.seek(0)
    if head < 0 or at < 0:
        return None
    cut = size // 2 + at + 1
    return cut if head < size // 2 and cut < size else None


class Span:
    """The bytes ``[start, stop)`` of the open binary file ``fh`` (whose position it moves),
    read as a file (``read`` only)."""

    def __init__(self, fh, start: int, stop: int):
        self.fh, self.left = fh, stop - start
        fh.seek(start)

    def read(self, n: int = -1) -> bytes:
        """Up to ``n`` bytes (the rest of the span when ``n`` is negative), one copy."""
        b = self.fh.read(self.left if n < 0 else min(n, self.left))
        self.left -= len(b)
        return b
