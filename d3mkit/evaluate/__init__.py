"""Evaluation campaigns: many systems' predictions scored on many problems.

* :mod:`d3mkit.evaluate.discover` — the problems and the submissions tree, and every
  submission that cannot be scored (stray files, symlinks out of the tree, ...);
* :mod:`d3mkit.evaluate.campaign` — scoring on an executor (truth read once per problem
  through :func:`d3mkit.scoring.score.prepare_problem`, the same code as ``d3mkit score``),
  the content-hash cache and the output files;
* :mod:`d3mkit.evaluate.ranking` — ranks per problem and the overall aggregation (pure);
* :mod:`d3mkit.evaluate.leaderboard` — the static ``leaderboard.html`` and its plots.

``d3mkit evaluate`` (:mod:`d3mkit.commands.evaluate`) parses and prints.
"""
