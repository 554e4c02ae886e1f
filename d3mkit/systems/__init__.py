"""AutoML systems on task roots: ``d3mkit systems``, ``d3mkit run``, ``d3mkit benchmark``.

A *system* is anything that learns from a TRAIN view and predicts a TEST view. d3mkit hands
it the views only (never the task root, the SCORE view or the TEST targets), in a fresh
directory, runs it in a child process under time, memory and core limits, and files its
predictions where ``d3mkit evaluate`` reads them (docs/systems.md).

* :mod:`d3mkit.systems.plugins` — the :class:`~d3mkit.systems.plugins.System` record and the
  ``d3mkit.systems`` entry-point group (built-ins included), ``command:TEMPLATE`` systems;
* :mod:`d3mkit.systems.data` — a view read as a system sees it (typed features, targets,
  task, first metric) and the predictions file written;
* :mod:`d3mkit.systems.features` — the scikit-learn preprocessing of every colType;
* :mod:`d3mkit.systems.constant`, :mod:`d3mkit.systems.forest`,
  :mod:`d3mkit.systems.flaml_system`, :mod:`d3mkit.systems.h2o_system`,
  :mod:`d3mkit.systems.autogluon`, :mod:`d3mkit.systems.tpot_system` — the systems;
* :mod:`d3mkit.systems.venv` — a system's own virtual environment (autogluon, tpot), and
  :mod:`d3mkit.systems.venv_exec` — the scripts that run there on the views' files;
* :mod:`d3mkit.systems.handover` — the views of one fold put in a sandbox directory, the
  child's argument list, environment and working directory;
* :mod:`d3mkit.systems.limits` — a process tree run under a time, memory and core budget;
* :mod:`d3mkit.systems.child` — the child process of a Python system (fit, predict, timings);
* :mod:`d3mkit.systems.runner` — one system on one task root, fold by fold (``d3mkit run``);
* :mod:`d3mkit.systems.board` — every system on every task root, then ``evaluate``
  (``d3mkit benchmark``).
"""
