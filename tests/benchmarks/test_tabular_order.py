"""build tabular: d3mIndex must not follow the target (scikit-learn bundles wine and iris
sorted by class, so numbering rows in that order leaked every TEST row's class)."""

import numpy as np

from d3mkit.benchmarks.tabular import load_table


def test_d3mindex_does_not_follow_the_class():
    for dataset in ("wine", "iris"):
        df = load_table(dataset, seed=0)
        labels = df[df.columns[-1]].to_numpy()
        changes = int(np.sum(labels[1:] != labels[:-1]))
        assert changes > len(df) // 3, (dataset, changes)   # sorted by class: 2 changes
        assert list(df["d3mIndex"]) == list(range(len(df)))
    assert load_table("wine", seed=0).equals(load_table("wine", seed=0))
