"""Published D3M views: which view of a task a document belongs to, and the dataset a
4.0.0 ``datasetViewMaps`` names for it.

The data supply publishes, beside a task root's full ``<name>_problem``/``<name>_dataset``,
its blind-evaluation views (overview.md, "Dataset Views")::

    TRAIN/problem_TRAIN  TRAIN/dataset_TRAIN
    TEST/problem_TEST    TEST/dataset_TEST
    SCORE/problem_TEST or SCORE/problem_SCORE    SCORE/dataset_TEST or SCORE/dataset_SCORE

"The train view will be created by making a copy of a full dataset and deleting 'TEST'
rows ... The same is true for train view of the problem": a view's problemDoc keeps the
full task's ``testSize`` and ``stratified`` while its splits file holds one side only, so
those two describe the original split, not the view's file. Up to 3.3 a view's problemDoc
names the view's dataset (``<id>_TRAIN``); from 4.0.0 every view keeps the full task's
problemDoc, and ``inputs.dataSplits.datasetViewMaps`` says, per view (``train``, ``test``,
``score``), which dataset stands in for the one named (d3m's runtime reads it the same way).

>>> view_of(Path("r/TRAIN/problem_TRAIN/problemDoc.json")), view_of(Path("r/SCORE/problem_TEST/problemDoc.json"))
('TRAIN', 'SCORE')
>>> view_of(Path("r/r_problem/problemDoc.json")) is None
True
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

VIEWS = ("TRAIN", "TEST", "SCORE")
_PREFIXES = ("problem_", "dataset_")


def view_of(doc_path: Path | str) -> str | None:
    """"TRAIN", "TEST" or "SCORE" when ``doc_path`` (a problemDoc.json or datasetDoc.json,
    or its directory) lies in a published view: a ``problem_X``/``dataset_X`` directory
    (X one of the views) inside a directory named TRAIN, TEST or SCORE; else None."""
    p = Path(doc_path)
    d = p.parent if p.suffix == ".json" else p
    if d.parent.name not in VIEWS:
        return None
    for prefix in _PREFIXES:
        if d.name.startswith(prefix) and d.name[len(prefix):] in VIEWS:
            return d.parent.name
    return None


def view_dataset_ids(problem: Any, dataset_id: str, view: str | None) -> list[str]:
    """Every datasetID that may stand in for ``dataset_id`` in ``view``, in order: the
    map's entry for the view and, for SCORE, the TEST entry too (a SCORE view published in
    the older layout, ``SCORE/dataset_TEST``, holds the TEST view's dataset with its
    targets: DA_global_terrorism, DA_poverty_estimation).

    >>> m = {"inputs": {"dataSplits": {"datasetViewMaps": {
    ...     "test": [{"from": "d", "to": "d_TEST"}], "score": [{"from": "d", "to": "d_SCORE"}]}}}}
    >>> view_dataset_ids(m, "d", "SCORE"), view_dataset_ids(m, "d", "TRAIN")
    (['d_SCORE', 'd_TEST'], [])
    """
    if view is None:
        return []
    keys = ["score", "test"] if view == "SCORE" else [view.lower()]
    return [t for t in (_map_to(problem, dataset_id, k) for k in keys) if t is not None]


def _map_to(problem: Any, dataset_id: str, key: str) -> str | None:
    if not isinstance(problem, dict):
        return None
    inputs = problem.get("inputs")
    split = inputs.get("dataSplits") if isinstance(inputs, dict) else None
    maps = split.get("datasetViewMaps") if isinstance(split, dict) else None
    entries = maps.get(key) if isinstance(maps, dict) else None
    for e in entries if isinstance(entries, list) else ():
        if isinstance(e, dict) and e.get("from") == dataset_id and isinstance(e.get("to"), str):
            return e["to"]
    return None
