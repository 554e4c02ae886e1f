"""The ``constant`` system: the most frequent class, or the TRAIN mean (median when the
problem's first metric is an absolute error) of each target; multiLabel: the most frequent
label for every row. The floor any learner has to beat."""

from __future__ import annotations

from collections import Counter

import numpy as np

MEDIAN_METRICS = {"meanAbsoluteError", "medianAbsoluteError"}


def fit(train, options):
    if train.multilabel:
        counts = Counter(label for ls in train.labels for label in ls)
        return [[counts.most_common(1)[0][0]]] if counts else [[""]]
    values = []
    median = (train.metric or {}).get("metric") in MEDIAN_METRICS
    for t in train.targets:
        col = train.y[t].dropna()
        if train.classification:
            counts = col.astype(str).value_counts()
            values.append(sorted(counts[counts == counts.max()].index)[0] if len(counts) else "")
        else:
            x = col.astype(float)
            values.append(float(x.median() if median else x.mean()) if len(x) else 0.0)
    return values


def predict(model, test, options):
    n = len(test.index)
    if isinstance(model[0], list):
        return [list(model[0]) for _ in range(n)]
    return np.tile(np.asarray(model, dtype=object), (n, 1))
