"""Python sources parsed once per test session: three static checks (the code catalogue,
the import direction, no flags in library messages) walk every module of d3mkit, and
parsing them all takes a quarter of a second each time. Keyed by the text, so a file a
test changes is parsed again; the trees are shared, so callers only read them."""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=None)
def _parse(text: str) -> ast.Module:
    return ast.parse(text)


def parse(path: Path) -> ast.Module:
    """The syntax tree of the file at ``path`` (UTF-8)."""
    return _parse(Path(path).read_text(encoding="utf-8"))
