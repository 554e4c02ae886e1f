"""The ``autogluon`` system: AutoGluon Tabular in its own virtual environment, on files.

What this module owns: what that environment pins (:data:`PINS`) and its
:class:`~d3mkit.systems.venv.Venv` (``d3mkit systems install autogluon``), which runs
:mod:`d3mkit.systems.venv_exec.autogluon_main` per fold. AutoGluon needs pandas < 2.4 and
pyarrow < 25, so it cannot share d3mkit's environment: the script imports nothing of d3mkit
and receives the views as files (docs/systems.md).
"""

from __future__ import annotations

from d3mkit.systems.venv import STAMP, Venv  # noqa: F401 - STAMP: the stamp's file name

PINS = ("autogluon.tabular[lightgbm]==1.6.3", "pandas>=2.0,<2.4", "pyarrow<25", "numpy<2.6",
        "scikit-learn>=1.4,<1.10")
VENV = Venv("autogluon", PINS, "autogluon.tabular", "autogluon_main.py")
venv_dir, python, version, ready, install, command = (VENV.dir, VENV.python, VENV.version, VENV.ready,
                                                      VENV.install, VENV.command)
