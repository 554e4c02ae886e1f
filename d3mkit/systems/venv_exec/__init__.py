"""Scripts that run in a system's own virtual environment (:mod:`d3mkit.systems.venv`), where
d3mkit is not installed: ``VENV/bin/python -I SCRIPT TRAIN TEST PROBLEM OUT OPTIONS_JSON``.

* :mod:`.d3mkit_views` — the views read with that environment's pandas (colTypes, roles, the
  problem's target, task type and first metric), the predictions and timings written; the
  scripts import it from their own directory (it imports nothing of d3mkit);
* :mod:`.autogluon_main` — AutoGluon Tabular;
* :mod:`.tpot_main` — TPOT.

They are importable from d3mkit's own environment too (the tests check the handover there).
"""
