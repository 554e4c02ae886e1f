"""What an export of a task root to another format (OpenML's ARFF, Hugging Face) starts
with: the root opened, the output checked to be a directory outside it that may be written,
and the root's validation errors (each said once: :func:`d3mkit.interop.croissant.root_errors`).

One owner so that the exports refuse an output inside the root with the same usage error.
"""

from __future__ import annotations

from pathlib import Path

from d3mkit.core.errors import Issue, UsageError
from d3mkit.interop.croissant import root_errors
from d3mkit.io.atomic import check_output_dir
from d3mkit.io.paths import outside_reason
from d3mkit.taskroot.model import TaskRoot


def start_export(root: Path | str, out: Path | str) -> tuple[TaskRoot, Path, list[Issue]]:
    """(the task root at ``root``, ``out`` as a Path, the root's errors); a
    :class:`~d3mkit.core.errors.UsageError` when ``out`` is inside the root, and
    :func:`~d3mkit.io.atomic.check_output_dir`'s error when it cannot be the new output."""
    task = TaskRoot.open(root)
    out = Path(out)
    if outside_reason(task.root, out) is None:
        raise UsageError("the output is inside the task root; give a directory outside it", str(out))
    check_output_dir(out)
    return task, out, root_errors(task.root)
