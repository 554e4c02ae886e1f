"""The views of one (repeat, fold) put in a fresh sandbox directory, and what a system's
process is handed: its argument list, environment and working directory.

What this module owns: :func:`sandbox`. The TRAIN and TEST views are written
(:func:`d3mkit.taskroot.views.write_views` with ``views=("TRAIN", "TEST")``: the SCORE view and
the TEST targets are never written; ``durable=False``: no ``syncfs`` for a scratch tree)
into a fresh temporary directory, the sandbox. The system gets:

* paths inside the sandbox only: ``train`` (TRAIN/dataset_TRAIN), ``test``
  (TEST/dataset_TEST, target cells empty), ``problem`` (TRAIN/problem_TRAIN) and ``out``
  (output/predictions.csv);
* the sandbox as its working directory, ``HOME`` and ``TMPDIR`` inside it;
* an environment made from a short allow-list (:data:`PASSED`: ``PATH``, locale, time
  zone, ``JAVA_HOME``), the thread caps, and for a Python system ``PYTHONPATH`` = the directory d3mkit is
  imported from; nothing else of the caller's environment (no ``D3MKIT_*``, no
  ``PWD``/``OLDPWD``) reaches it.

The sandbox is removed when the ``with`` block ends.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

PASSED = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM", "JAVA_HOME")


@dataclass(frozen=True)
class Sandbox:
    root: Path
    paths: dict          # train, test, problem, out

    def env(self, cores: int, python: bool) -> dict[str, str]:
        return base_env(cores, python, self.root)


def base_env(cores: int, python: bool, home: Path) -> dict[str, str]:
    """The environment of a system's process (and of the warm zygote that forks Python
    systems): the allow-list, the thread caps, ``HOME``/``TMPDIR`` under ``home``, and for
    a Python system d3mkit's ``PYTHONPATH``."""
    from d3mkit.systems.limits import thread_env
    env = {k: os.environ[k] for k in PASSED if k in os.environ}
    env.update(thread_env(cores))
    env.update(HOME=str(Path(home) / "home"), TMPDIR=str(Path(home) / "tmp"), PYTHONDONTWRITEBYTECODE="1")
    if python:
        import d3mkit
        env["PYTHONPATH"] = str(Path(d3mkit.__file__).resolve().parent.parent)
    return env


@contextmanager
def sandbox(task_root: Path, repeat: int = 0, fold: int = 0):
    """A :class:`Sandbox` holding the TRAIN and TEST views of ``task_root``'s ``repeat``/``fold``."""
    from d3mkit.taskroot.views import write_views
    box = Path(tempfile.mkdtemp(prefix="d3mkit-sandbox-"))
    try:
        views = write_views(task_root, box / "views", repeat=repeat, fold=fold, views=("TRAIN", "TEST"),
                            durable=False)      # scratch: deleted when the fold ends
        for name in ("TRAIN", "TEST"):
            os.rename(views[name], box / name)
        os.rmdir(box / "views")
        for d in ("output", "home", "tmp"):
            (box / d).mkdir()
        paths = {"train": str(box / "TRAIN" / "dataset_TRAIN"), "test": str(box / "TEST" / "dataset_TEST"),
                 "problem": str(box / "TRAIN" / "problem_TRAIN"), "out": str(box / "output" / "predictions.csv")}
        yield Sandbox(box, paths)
    finally:
        shutil.rmtree(box, ignore_errors=True)
