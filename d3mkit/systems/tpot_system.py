"""The ``tpot`` system: TPOT 1.x (genetic programming over scikit-learn pipelines) in its own
virtual environment, on files.

What this module owns: what that environment pins (:data:`PINS`) and its
:class:`~d3mkit.systems.venv.Venv` (``d3mkit systems install tpot``), which runs
:mod:`d3mkit.systems.venv_exec.tpot_main` per fold. TPOT 1.1 needs the ``xgboost``
distribution >= 3, while d3mkit's ``flaml`` extra installs ``xgboost-cpu`` < 3 (both own the
``xgboost`` package directory, so one environment cannot hold the two), and the ``xgboost``
wheel pulls ``nvidia-nccl-cu12``: about 1.3 GB in all. So it does not share d3mkit's
environment. Its scientific stack is pinned to the versions d3mkit's tests run TPOT with.
"""

from __future__ import annotations

from d3mkit.systems.venv import Venv

PINS = ("tpot==1.1.0", "scikit-learn>=1.6,<1.10", "pandas>=2.2,<3.2", "numpy>=1.26.4,<2.5")
VENV = Venv("tpot", PINS, "tpot", "tpot_main.py")
