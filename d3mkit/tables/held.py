"""What a caller already holds of the tables it asks d3mkit to validate.

What this module owns: :class:`Held`, passed as a parameter from the writer of a task root
(:class:`d3mkit.taskroot.writer.TaskRootWriter`) down to the table reads of validation
(:func:`d3mkit.validation.run.validate_paths`): the frames it has just written, by resolved
path (columns by header name, cells as written: the reader takes the columns it is asked
for from them instead of parsing the file), and the tables whose every cell it checked
against its colType as it wrote them (validation then reads only the columns other checks
use). ``d3mkit validate`` passes :data:`NOTHING`: every file is read from the disk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Mapping


def _key(path: Path | str) -> str:
    return str(Path(path).resolve())


@dataclass(frozen=True)
class Held:
    """Frames by resolved path and the resolved paths whose cells were checked."""

    frames: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    cells_checked: frozenset[str] = frozenset()

    @classmethod
    def of(cls, in_memory: Mapping | None = None, cells_checked=()) -> "Held":
        """A :class:`Held` of ``in_memory`` (path -> frame) and ``cells_checked`` (paths)."""
        return cls(MappingProxyType({_key(p): f for p, f in (in_memory or {}).items()}),
                   frozenset(_key(p) for p in cells_checked))

    def frame(self, path: Path | str):
        """The frame written to ``path``, or None."""
        return self.frames.get(_key(path)) if self.frames else None

    def checked(self, path: Path | str) -> bool:
        """Whether every cell of the table at ``path`` was checked by its writer."""
        return bool(self.cells_checked) and _key(path) in self.cells_checked


NOTHING = Held()
