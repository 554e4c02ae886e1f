"""Entry points of one group, split into d3mkit's own and third parties'.

What this module owns: where d3mkit's own plug-ins of a group (``d3mkit.metrics``,
``d3mkit.benchmarks``) are read from, and which entry points are a third party's. d3mkit's
own are read from the ``[project.entry-points."GROUP"]`` table of the source checkout's
pyproject.toml when d3mkit runs from one (it is the truth while developing: an editable
install's metadata is only rewritten on reinstall), else from the installed distribution's
metadata. Every other distribution's entry points of the group are third-party. Reading
entry points reads metadata only; nothing is imported until an entry point is loaded.

**Cheap discovery** (start-up time). ``importlib.metadata.entry_points()`` costs more than
the rest of ``d3mkit build --help``: importing it pulls in ``email``, ``csv``, ``zipfile``
and ``inspect``, and it parses the entry points of every installed distribution (a venv with
torch and datasets holds a hundred or more). :func:`scan` instead lists each ``sys.path``
directory's ``*.dist-info``/``*.egg-info`` and reads the text of their ``entry_points.txt``,
parsing only the section of the one group it was asked for, in files whose text holds that
section's header, and gives :class:`EntryPoint` records (the same ``name``, ``value``,
``group`` and ``load()`` as importlib.metadata's): ``importlib.metadata`` is not imported at
all. Nothing is cached, so a plug-in installed or removed since the last run is
seen at once. As ``importlib.metadata`` does, the first distribution of a name on
``sys.path`` wins. A ``sys.path`` entry that is a zip file (which importlib.metadata can
read and this scan cannot) falls back to ``importlib.metadata``.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

DISTRIBUTION = "d3mkit"
_SUFFIXES = (".dist-info", ".egg-info")


def normalized(name: str) -> str:
    """A distribution name as PEP 503 compares them: ``Foo_Bar.baz`` -> ``foo-bar-baz``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _dist_of(folder: str) -> str:
    """The distribution named by a metadata folder: ``d3mkit-0.1.0.dist-info`` -> ``d3mkit``."""
    stem = folder[: -len(".dist-info")] if folder.endswith(".dist-info") else folder[: -len(".egg-info")]
    return normalized(stem.split("-", 1)[0])


def _section(text: str, group: str) -> list[tuple[str, str]]:
    """``(name, value)`` of the ``[group]`` section of an entry_points.txt text."""
    out, inside = [], False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            inside = line[1:-1].strip() == group
        elif inside and "=" in line:
            name, value = line.split("=", 1)
            out.append((name.strip(), value.strip()))
    return out


def scan(group: str) -> list[tuple[str, str, str]] | None:
    """``(distribution, name, value)`` of every installed distribution's entry points of
    ``group``, reading only ``entry_points.txt`` texts (see the module docstring); None when a
    ``sys.path`` entry is a zip file this scan cannot read (then ask importlib.metadata)."""
    header = f"[{group}]"
    seen: set[str] = set()
    found = []
    for entry in sys.path:
        where = entry or "."
        try:
            names = os.listdir(where)
        except NotADirectoryError:
            return None                       # a zip on sys.path
        except OSError:
            continue                          # missing, unreadable, a path hook's name
        for folder in names:
            if not folder.endswith(_SUFFIXES):
                continue
            dist = _dist_of(folder)
            if dist in seen:
                continue
            seen.add(dist)
            try:
                with open(os.path.join(where, folder, "entry_points.txt"), encoding="utf-8") as fh:
                    text = fh.read()
            except (OSError, UnicodeDecodeError):
                continue
            if header in text:
                found.extend((dist, name, value) for name, value in _section(text, group))
    return found


class EntryPoint:
    """One entry point, as importlib.metadata's: ``name``, ``value`` (``module:attr.attr``,
    optionally followed by ``[extras]``), ``group``, and :meth:`load` importing the object.

    >>> EntryPoint("x", "os.path:join", "g").load().__name__
    'join'
    """

    __slots__ = ("name", "value", "group")

    def __init__(self, name: str, value: str, group: str):
        self.name, self.value, self.group = name, value, group

    def load(self):
        from importlib import import_module
        target = self.value.split("[", 1)[0].strip()
        module, _, attrs = target.partition(":")
        obj = import_module(module.strip())
        for attr in filter(None, attrs.strip().split(".")):
            obj = getattr(obj, attr)
        return obj

    def __repr__(self) -> str:
        return f"EntryPoint(name={self.name!r}, value={self.value!r}, group={self.group!r})"


def _points(rows, group: str) -> list[EntryPoint]:
    return [EntryPoint(name, value, group) for _, name, value in rows]


def dist_name(ep) -> str | None:
    """The name of the distribution that declares ``ep`` (an importlib.metadata entry point;
    None when unknown)."""
    dist = getattr(ep, "dist", None)
    return dist.metadata["Name"] if dist is not None else None


def own(group: str) -> list:
    """d3mkit's own entry points of ``group``, in the order pyproject.toml lists them."""
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    try:
        text = pyproject.read_text(encoding="utf-8")
    except OSError:
        text = ""
    if re.search(r'(?m)^name\s*=\s*"d3mkit"', text):
        m = re.search(r'(?ms)^\[project\.entry-points\."' + re.escape(group) + r'"\]\s*$(.*?)(?=^\[|\Z)', text)
        body = m.group(1) if m else ""
        return [EntryPoint(k, v, group)
                for k, v in re.findall(r'(?m)^\s*"?([\w.-]+)"?\s*=\s*"([^"]+)"', body)]
    rows = scan(group)
    if rows is None:
        from importlib.metadata import entry_points
        return [ep for ep in entry_points(group=group) if dist_name(ep) == DISTRIBUTION]
    return _points([r for r in rows if r[0] == DISTRIBUTION], group)


def third_party(group: str) -> list:
    """Every other distribution's entry points of ``group``, sorted by name."""
    rows = scan(group)
    if rows is None:
        from importlib.metadata import entry_points
        eps = [ep for ep in entry_points(group=group) if dist_name(ep) != DISTRIBUTION]
    else:
        eps = _points([r for r in rows if r[0] != DISTRIBUTION], group)
    return sorted(eps, key=lambda ep: ep.name)
