"""The media column of an imported table.

What this module owns: finding the column whose cells name files under the media
directory and checking every such file (inside the directory, a regular file, one kind,
images through the image reader); the kinds of media d3mkit imports.
"""

from __future__ import annotations

import dataclasses
import mimetypes
from pathlib import Path

import pandas as pd

from d3mkit.core.errors import D3MKitError, EXIT_USAGE
from d3mkit.importing.checks import fail

MEDIA_KINDS = {
    "image": (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".webp"),
    "audio": (".wav", ".mp3", ".flac", ".ogg", ".m4a", ".aiff"),
    "text": (".txt", ".md", ".json", ".xml", ".html"),
    "video": (".mp4", ".avi", ".mov", ".mkv", ".webm", ".mpg", ".mpeg"),
}
#: the datasetDoc licence of an import told none (datasetSchema's about.license is free text,


def media_column(df: pd.DataFrame, skip: set[str], media: Path, source: str) -> tuple[str, str, list[str]]:
    """The column naming files under ``media``: ``(column, resType, formats)``; every file
    checked (inside ``media``, a regular file; images through the image reader)."""
    from d3mkit.io.images import image_issue
    from d3mkit.io.limits import file_issue
    from d3mkit.io.paths import outside_reason
    if not media.is_dir():
        fail(str(media), "usage.path", "", "the media directory does not exist or is not a directory", EXIT_USAGE)
    found = None
    for c in df.columns:
        if c in skip:
            continue
        values = df[c][df[c] != ""]
        if len(values) and (media / str(values.iloc[0])).is_file():
            found = c
            break
    if found is None:
        fail(source, "import.media", "", f"no column names files under the media directory {str(media)!r}")
    kinds = set()
    formats: list[str] = []
    for r, v in enumerate(df[found].tolist()):
        if v == "":
            fail(source, "import.media", dict(row=r + 2, column=found), "empty media file name")
        p = media / v
        why = outside_reason(media, p)
        if why:
            fail(source, "path.escape", dict(row=r + 2, column=found), f"media file {v!r} leaves the media "
                  f"directory: {why}")
        if not p.exists():
            fail(source, "import.media", dict(row=r + 2, column=found), f"media file {v!r} does not exist "
                  f"under {str(media)!r}")
        refused = file_issue(p, "media file")
        if refused is not None:
            raise D3MKitError(refused)
        ext = p.suffix.lower()
        kind = next((k for k, exts in MEDIA_KINDS.items() if ext in exts), None)
        if kind is None:
            fail(source, "import.media", dict(row=r + 2, column=found), f"media file {v!r}: extension "
                  f"{ext or '(none)'!r} is not an image, audio, text or video file")
        if kind == "image":
            bad = image_issue(p)
            if bad is not None:      # located at the table's cell, as fields
                raise D3MKitError(dataclasses.replace(bad, location="", json_path=None, line=None, row=r + 2,
                                                      column=found))
        kinds.add(kind)
        mime = mimetypes.guess_type(p.name)[0] or f"{kind}/{ext.lstrip('.')}"
        if mime not in formats:
            formats.append(mime)
    if len(kinds) > 1:
        fail(source, "import.media", dict(column=found), f"media files of several kinds ({', '.join(sorted(kinds))}); "
              f"a collection holds one kind")
    return found, kinds.pop(), formats
