"""Opening an image file that came from an untrusted party (a manifest, a dataset's media, a
release directory).

What this module owns: the one way d3mkit decodes an image it did not draw itself. Before
any pixel is decoded:

* the path must be a regular file (a FIFO, ``/dev/zero`` or a directory is refused unread)
  within ``D3MKIT_MAX_IMAGE_BYTES`` (:func:`d3mkit.io.limits.open_regular`);
* the size the header declares must be at most ``D3MKIT_MAX_IMAGE_PIXELS`` pixels
  (width x height): a 100-byte PNG claiming 100,000 x 100,000 pixels (a decompression
  bomb) is ``image.too_large``. Pillow's own ``Image.MAX_IMAGE_PIXELS`` check is set to the
  same limit, and its ``DecompressionBombWarning``/``DecompressionBombError`` become that
  issue, never a warning on stderr;
* a file Pillow cannot identify, or whose data is truncated or corrupt, is
  ``image.unreadable``. Pillow's other warnings (odd metadata) are swallowed.

Every failure is a :class:`~d3mkit.core.errors.D3MKitError` with one issue naming the file
(exit 1).

>>> import tempfile, os
>>> from PIL import Image
>>> p = os.path.join(tempfile.mkdtemp(), "a.png")
>>> Image.new("L", (3, 2), 7).save(p)
>>> im = read_image(p, "L"); im.size, im.getpixel((0, 0))
((3, 2), 7)
>>> image_issue(p) is None
True
>>> _ = open(p, "wb").write(b"not an image")
>>> image_issue(p).code
'image.unreadable'
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from pathlib import Path

from d3mkit.core.errors import D3MKitError, Issue, error
from d3mkit.io.limits import how_to_raise, limit, open_regular


def _too_large(p: str, location: str, w: int, h: int) -> D3MKitError:
    return D3MKitError(error("image.too_large", location, f"image declares {w:,} x {h:,} = {w * h:,} "
                             f"pixels, over the pixel {how_to_raise('MAX_IMAGE_PIXELS')}", p))


def read_image(path: Path | str, mode: str | None = None, *, location: str = "", verify: bool = False):
    """The image at ``path`` decoded (a :class:`PIL.Image.Image` not tied to the file),
    converted to ``mode`` when given; ``verify`` also checks the file's checksums
    (:meth:`PIL.Image.Image.verify`) first. Raises :class:`D3MKitError` (see the module
    docstring)."""
    from PIL import Image
    p = str(path)
    cap = limit("MAX_IMAGE_PIXELS")
    bomb = getattr(Image, "DecompressionBombError", MemoryError)
    bomb_warning = getattr(Image, "DecompressionBombWarning", RuntimeWarning)
    old_cap = Image.MAX_IMAGE_PIXELS
    try:
        fh = open_regular(p, "image file", "MAX_IMAGE_BYTES")
    except D3MKitError as exc:           # the caller's location (e.g. the table row) kept
        raise D3MKitError([dataclasses.replace(i, location=location or i.location) for i in exc.issues]) from None
    with fh, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", bomb_warning)
        try:
            Image.MAX_IMAGE_PIXELS = None       # the header is read; our check names the size
            with Image.open(fh) as im:
                w, h = im.size
                if w * h > cap:
                    raise _too_large(p, location, w, h)
                Image.MAX_IMAGE_PIXELS = cap    # Pillow's checks while decoding use our limit
                if verify:
                    im.verify()
            if verify:
                fh.seek(0)
            with Image.open(fh) as im:
                if im.size != (w, h):
                    raise ValueError("the image changed while it was read")
                im.load()                      # decoded: usable once the file is closed
            return im.convert(mode) if mode is not None and im.mode != mode else im
        except D3MKitError:
            raise
        except (bomb, bomb_warning) as exc:     # a frame or tile larger than the header said
            raise D3MKitError(error("image.too_large", location, f"image data holds more pixels than "
                                    f"the pixel {how_to_raise('MAX_IMAGE_PIXELS')} ({exc})", p)) from None
        except MemoryError:
            raise D3MKitError(error("image.too_large", location, "decoding the image ran out of memory", p)) from None
        except Exception as exc:  # noqa: BLE001 - any decoder failure (OSError, SyntaxError, struct.error, ...)
            why = re.sub(r"\s*<_io\.\w+ name=\d+>", "", " ".join(str(exc).split())) or type(exc).__name__
            raise D3MKitError(error("image.unreadable", location, f"unreadable image "
                                    f"({type(exc).__name__}: {why})", p)) from None
        finally:
            Image.MAX_IMAGE_PIXELS = old_cap


def image_issue(path: Path | str, *, location: str = "") -> Issue | None:
    """None when ``path`` is an image d3mkit reads (checksums verified, decoded once), else
    the issue refusing it."""
    try:
        read_image(path, location=location, verify=True)
    except D3MKitError as exc:
        return exc.issues[0]
    return None
