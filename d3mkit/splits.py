"""dataSplits.csv generation and reading (holdOut and kFold, stratified or not).

Interim implementation; the splits work item completes it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from d3mkit.docs import DatasetDoc, ProblemDoc


def make_splits(problem: ProblemDoc, learning_data: pd.DataFrame,
                dataset: DatasetDoc | None = None) -> pd.DataFrame:
    """dataSplits rows (d3mIndex, type, repeat, fold) for ``learning_data``."""
    s = problem.splits
    rng = np.random.default_rng(s.get("randomSeed", 0))
    idx = learning_data["d3mIndex"].to_numpy()
    n = len(idx)
    n_test = int(round(float(s.get("testSize", 0.2)) * n))
    test = np.zeros(n, dtype=bool)
    test[rng.permutation(n)[:n_test]] = True
    return pd.DataFrame({"d3mIndex": idx, "type": np.where(test, "TEST", "TRAIN"),
                         "repeat": 0, "fold": 0})
