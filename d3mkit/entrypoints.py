"""Entry points of one group, split into d3mkit's own and third parties'.

What this module owns: where d3mkit's own plug-ins of a group (``d3mkit.metrics``,
``d3mkit.benchmarks``) are read from, and which entry points are a third party's. d3mkit's
own are read from the ``[project.entry-points."GROUP"]`` table of the source checkout's
pyproject.toml when d3mkit runs from one (it is the truth while developing: an editable
install's metadata is only rewritten on reinstall), else from the installed distribution's
metadata. Every other distribution's entry points of the group are third-party. Reading
entry points reads metadata only; nothing is imported until an entry point is loaded.
"""

from __future__ import annotations

import re
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

DISTRIBUTION = "d3mkit"


def dist_name(ep: EntryPoint) -> str | None:
    """The name of the distribution that declares ``ep`` (None when unknown)."""
    dist = getattr(ep, "dist", None)
    return dist.metadata["Name"] if dist is not None else None


def own(group: str) -> list[EntryPoint]:
    """d3mkit's own entry points of ``group``, in the order pyproject.toml lists them."""
    pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
    try:
        text = pyproject.read_text(encoding="utf-8")
    except OSError:
        text = ""
    if re.search(r'(?m)^name\s*=\s*"d3mkit"', text):
        m = re.search(r'(?ms)^\[project\.entry-points\."' + re.escape(group) + r'"\]\s*$(.*?)(?=^\[|\Z)', text)
        body = m.group(1) if m else ""
        return [EntryPoint(k, v, group)
                for k, v in re.findall(r'(?m)^\s*"?([\w.-]+)"?\s*=\s*"([^"]+)"', body)]
    return [ep for ep in entry_points(group=group) if dist_name(ep) == DISTRIBUTION]


def third_party(group: str) -> list[EntryPoint]:
    """Every other distribution's entry points of ``group``, sorted by name."""
    return sorted((ep for ep in entry_points(group=group) if dist_name(ep) != DISTRIBUTION),
                  key=lambda ep: ep.name)
