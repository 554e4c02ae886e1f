"""The public Python API: the verbs ``from d3mkit import ...`` gives (docs/api.md).

This module sits on top of the import order (it only calls the library); ``d3mkit``
imports it lazily, so ``import d3mkit`` stays cheap. Three verbs over one lazy stream of
issues, as jsonschema has them:

* :func:`iter_issues` — every :class:`~d3mkit.core.errors.Issue` of the documents under the paths;
* :func:`is_valid` — True when there is no error (no issue at all with ``strict``);
* :func:`validate` — the :class:`~d3mkit.validation.report.Report`, or :class:`D3MKitError`
  (a ``ValueError``) carrying every error. The verbs live in :mod:`d3mkit.validation.verbs`;
  the validator is the package :mod:`d3mkit.validation`.

:func:`score` scores predictions (a path or a DataFrame) against a problem (a path or a
ProblemDoc) and returns a :class:`~d3mkit.scoring.score.ScoreReport`.

>>> import tempfile
>>> from pathlib import Path
>>> from d3mkit.benchmarks.tabular import build_task_root
>>> root = build_task_root(Path(tempfile.mkdtemp()), "wine")
>>> is_valid(root), len(list(iter_issues(root)))
(True, 0)
>>> import pandas as pd
>>> from d3mkit.taskroot.model import TaskRoot
>>> train, test = TaskRoot.open(root).train_test()
>>> guess = pd.DataFrame({"d3mIndex": test["d3mIndex"], "class": "class_0"})
>>> report = score(root, guess)
>>> [s.metric for s in report.scores], 0 <= report.value("accuracy") <= 1
(['accuracy', 'f1Macro'], True)
"""

from __future__ import annotations

from d3mkit.validation.verbs import is_valid, iter_issues, validate  # noqa: F401


def score(problem, predictions, *, dataset=None, targets=None, repeat: int = 0, fold: int = 0):
    """Score ``predictions`` (a predictions.csv path or a DataFrame in its layout) for
    ``problem`` (a task root, problem directory, problemDoc.json or ProblemDoc) against
    ``targets`` (a targets.csv path or DataFrame: every row scored) or the TEST rows of
    ``dataset`` (default: the problem's dataset found by datasetID) for ``repeat``/``fold``.
    A DataFrame goes through exactly the checks a file does (no temporary file; messages
    name ``predictions (DataFrame)``). Returns the ScoreReport; raises
    :class:`D3MKitError` with every issue of a bad submission, and TypeError for an
    argument of the wrong type (``repeat="0"``)."""
    from d3mkit.scoring.score import score_predictions
    return score_predictions(problem, predictions, dataset=dataset, targets=targets,
                             repeat=repeat, fold=fold)
