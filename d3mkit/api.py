"""The public Python API: the verbs ``from d3mkit import ...`` gives (docs/api.md).

This module sits on top of the import order (it only calls the library); ``d3mkit``
imports it lazily, so ``import d3mkit`` stays cheap. Three verbs over one lazy stream of
issues, as jsonschema has them:

* :func:`iter_issues` — every :class:`~d3mkit.errors.Issue` of the documents under the paths;
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
>>> from d3mkit.taskroot import TaskRoot
>>> train, test = TaskRoot.open(root).train_test()
>>> guess = pd.DataFrame({"d3mIndex": test["d3mIndex"], "class": "class_0"})
>>> report = score(root, guess)
>>> [s.metric for s in report.scores], 0 <= report.value("accuracy") <= 1
(['accuracy', 'f1Macro'], True)
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from d3mkit.errors import D3MKitError
from d3mkit.validation.verbs import is_valid, iter_issues, validate  # noqa: F401


def _as_file(data, tmp: Path, name: str):
    """A path as given, or a DataFrame written to ``tmp/name`` (no index column)."""
    if data is None or isinstance(data, (str, os.PathLike)):
        return data
    import pandas as pd
    if isinstance(data, pd.DataFrame):
        path = tmp / name
        data.to_csv(path, index=False, lineterminator="\n")
        return path
    raise TypeError(f"{name}: give a path or a pandas DataFrame, not {type(data).__name__}")


def score(problem, predictions, *, dataset=None, targets=None, repeat: int = 0, fold: int = 0):
    """Score ``predictions`` (a predictions.csv path or a DataFrame in its layout) for
    ``problem`` (a task root, problem directory, problemDoc.json or ProblemDoc) against
    ``targets`` (a targets.csv path or DataFrame: every row scored) or the TEST rows of
    ``dataset`` (default: the problem's dataset found by datasetID) for ``repeat``/``fold``.
    A DataFrame goes through exactly the checks a file does. Returns the ScoreReport;
    raises :class:`D3MKitError` with every issue of a bad submission."""
    from d3mkit.docs import ProblemDoc
    from d3mkit.docs.locate import find_dataset_doc, find_problem_doc, locate_task_root, require_dataset_id
    from d3mkit.scoring.score import score_predictions
    metadata_dir = None
    if isinstance(problem, ProblemDoc):
        doc = problem
    else:
        pdoc_path = find_problem_doc(problem)
        doc = ProblemDoc.load(pdoc_path)
        try:
            root, name = locate_task_root(pdoc_path)
            metadata_dir = root / f"{name}_debug"
        except D3MKitError:
            metadata_dir = None
    if dataset is None and targets is None and doc.path is not None:
        dataset = find_dataset_doc(doc.path, require_dataset_id(doc, doc.path))
    with tempfile.TemporaryDirectory(prefix="d3mkit-score-") as tmpd:
        tmp = Path(tmpd)
        return score_predictions(doc, _as_file(predictions, tmp, "predictions.csv"), dataset=dataset,
                                 targets_path=_as_file(targets, tmp, "targets.csv"), repeat=repeat,
                                 fold=fold, metadata_dir=metadata_dir)
