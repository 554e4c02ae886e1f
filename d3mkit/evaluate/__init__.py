"""Evaluation campaigns: many systems' predictions scored on many problems, fold by fold,
with the statistics that say which differences are real.

* :mod:`d3mkit.evaluate.discover` — the problems and the submissions tree (one file per
  fold), and every submission that cannot be scored (stray files, symlinks out of the
  tree, control characters in names, ...);
* :mod:`d3mkit.evaluate.scorer` — the one seam with :mod:`d3mkit.scoring` (the same calls
  as ``d3mkit score``, plus the metric calls the statistics resample);
* :mod:`d3mkit.evaluate.campaign` — scoring on an executor (one problem per work unit),
  the statistics while the arrays are in memory, the cache, and the outputs committed
  together;
* :mod:`d3mkit.evaluate.bootstrap` — one problem's intervals and paired tests over every
  repeat (the draws, shared by systems and metrics); :mod:`d3mkit.evaluate.resampled` — a
  metric on many resamples at once; :mod:`d3mkit.evaluate.units` — the resampling unit of
  each layout and a metric's inputs for drawn units;
* :mod:`d3mkit.evaluate.stats` — the statistics as pure functions (bootstrap weights,
  percentile intervals, paired bootstrap, McNemar, Holm, Friedman, Nemenyi, normalised
  scores);
* :mod:`d3mkit.evaluate.ranking` — ranks per problem and the mean-rank aggregation (pure);
* :mod:`d3mkit.evaluate.overall` — the standing over the problems, derived from the one long
  results table: policy ranks, intervals, Elo, win rates, improvability, pairwise tests, CD
  groups; its pure parts are :mod:`d3mkit.evaluate.elo` (Bradley–Terry Elo, win rates,
  improvability) and :mod:`d3mkit.evaluate.pairwise` (Wilcoxon, Bayesian signed-rank with a
  ROPE, CD groups, the t interval over folds);
* :mod:`d3mkit.evaluate.report` — the output tables (results.csv/.parquet among them) and
  summary.json from the results;
* :mod:`d3mkit.evaluate.model` and :mod:`d3mkit.evaluate.leaderboard` — the leaderboard
  model, and the page drawn from it (a function from data to HTML), with its pictures
  (:mod:`d3mkit.evaluate.pictures`, inline SVG);
* :mod:`d3mkit.evaluate.synthetic` and :mod:`d3mkit.evaluate.example` — seeded campaigns
  for the tests, the benchmark and ``d3mkit evaluate --example``.

``d3mkit evaluate`` (:mod:`d3mkit.commands.evaluate`) parses and prints.
"""
