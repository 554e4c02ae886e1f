"""The names an imported media collection's files are stored under.

What this module owns: turning the files a user's data names (an ImageFolder's
``<class>/<file>``, a table's media column) into neutral names — the first 16 hex digits of
the sha256 of the file's bytes, with its extension in lower case — so that no name in
learningData, a view, a challenge archive or an export encodes a target (an ImageFolder's
class folder, or a class written into a file name). The original paths are kept for the
author in ``<name>_debug/media_sources.csv`` (``file``, ``source``), which no view or
export carries (docs/safety.md).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd

SOURCES_TABLE = "media_sources.csv"
_BLOCK = 1 << 20


def neutral_name(path: Path) -> str:
    """``<sha256 prefix><.ext>`` of the file at ``path``: equal bytes, equal names."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(_BLOCK):
            h.update(block)
    return h.hexdigest()[:16] + path.suffix.lower()


def neutral_names(files: dict[str, Path]) -> dict[str, str]:
    """``{value: neutral name}`` for ``files`` (``{value in the data: file}``)."""
    return {v: neutral_name(p) for v, p in files.items()}


def sources_table(names: dict[str, str]) -> pd.DataFrame:
    """``media_sources.csv`` of ``names`` (``{original value: neutral name}``), sorted by file."""
    rows = sorted((n, v) for v, n in names.items())
    return pd.DataFrame(rows, columns=["file", "source"], dtype=object)
