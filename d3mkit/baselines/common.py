"""Device choice, seeding, batching and writing a baseline's solution.

``choose_device("auto")`` picks CUDA when torch sees a GPU and the CPU otherwise;
``write_solution`` writes ``<name>_solution/predictions.csv`` atomically and scores it
through the same path as ``d3mkit score``.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import numpy as np
import pandas as pd

from d3mkit.core.errors import D3MKitError, InvalidArgument, Issue, MissingDependency, UsageError
from d3mkit.taskroot.model import TaskRoot
from d3mkit.tables import write_table


def require_torch():
    """Import torch or raise a usage error naming the extra to install."""
    try:
        import torch  # noqa: F401
    except ImportError:
        raise MissingDependency("torch", "baselines", "this baseline") from None
    return torch


def choose_device(preference: str = "auto") -> str:
    """'cuda' when requested or available (auto), else 'cpu'. Asking for cuda without a
    GPU is a usage error."""
    torch = require_torch()
    if preference not in ("auto", "cpu", "cuda"):
        raise InvalidArgument("device", f"must be auto, cpu or cuda, got {preference!r}")
    if preference == "cpu":
        return "cpu"
    if torch.cuda.is_available():
        return "cuda"
    if preference == "cuda":
        raise InvalidArgument("device", "{device=cuda} was asked for but torch sees no CUDA device")
    return "cpu"


THREADS_ENV = "D3MKIT_TORCH_THREADS"


@contextmanager
def torch_threads(default: int | None):
    """Run the block with torch on ``default`` CPU threads (``$D3MKIT_TORCH_THREADS``
    overrides it; None keeps torch's setting), restoring the previous count afterwards.
    The one place d3mkit sets torch's thread count. Small networks train several times
    faster on one thread on a shared machine; big ones want every core."""
    torch = require_torch()
    env = os.environ.get(THREADS_ENV, "").strip()
    if env:
        try:
            default = max(1, int(env))
        except ValueError:
            raise UsageError(f"${THREADS_ENV} must be a positive integer, got {env!r}") from None
    before = torch.get_num_threads()
    if default is not None:
        torch.set_num_threads(max(1, int(default)))
    try:
        yield
    finally:
        torch.set_num_threads(before)


def seed_everything(seed: int) -> "np.random.Generator":
    """Seed torch (CPU and CUDA) and return a numpy Generator for the caller to pass down."""
    torch = require_torch()
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
    return np.random.default_rng(seed)


def batches(n: int, batch_size: int, rng: np.random.Generator | None = None) -> Iterator[np.ndarray]:
    """Index batches over ``range(n)``, shuffled when ``rng`` is given."""
    order = rng.permutation(n) if rng is not None else np.arange(n)
    for start in range(0, n, batch_size):
        yield order[start:start + batch_size]


def write_solution(task: TaskRoot, predictions: pd.DataFrame, *, model: str,
                   info: dict | None = None):
    """Write predictions.csv (+ scores.csv, + baseline.json) into ``<name>_solution/``
    and return the score report from :func:`d3mkit.scoring.score.score_task_root`.
    In a data-parallel run (:mod:`d3mkit.baselines.ddp`) only rank 0 writes; the other
    processes get None."""
    from d3mkit.baselines import ddp
    from d3mkit.documents.jsonio import save_json

    ctx = ddp.current()
    if not ctx.is_main:
        return None
    if ctx.active:
        info = {**(info or {}), "processes": ctx.world_size, "backend": ctx.backend}
    from d3mkit.scoring.score import score_task_root, write_scores

    from d3mkit.io.atomic import atomic_path, check_output_dir
    from d3mkit.io.paths import resolve_inside

    sol = check_output_dir(task.solution_dir, None)
    problem = task.problem
    pred_path, scores_path = (
        resolve_inside(sol, rel, doc=problem.path, location=f"expectedOutputs.{key}", what=key,
                       root_name="the solution directory")
        for key, rel in (("predictionsFile", problem.predictions_file),
                         ("scoresFile", problem.scores_file)))
    created = not sol.exists()
    sol.mkdir(parents=True, exist_ok=True)
    try:
        with atomic_path(pred_path) as tmp:
            write_table(predictions, tmp)
            # score the temporary file first: predictions that cannot be scored leave nothing
            try:
                report = score_task_root(task, tmp)
            except D3MKitError as exc:
                exc.issues = [_renamed(i, tmp, pred_path) for i in exc.issues]
                raise
            report.issues = [_renamed(i, tmp, pred_path) for i in report.issues]
    except BaseException:
        if created and sol.is_dir() and not any(sol.iterdir()):
            sol.rmdir()
        raise
    write_scores(report, scores_path)
    save_json(sol / "baseline.json", {"model": model, **(info or {})})
    return report


def _renamed(issue: Issue, tmp, final: Path) -> Issue:
    """``issue`` with the temporary predictions path replaced by the final one."""
    from dataclasses import replace
    return replace(issue, path=issue.path.replace(str(tmp), str(final))) if issue.path else issue
