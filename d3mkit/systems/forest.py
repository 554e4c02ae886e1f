"""The ``random-forest`` system: :mod:`d3mkit.systems.features` and a scikit-learn random
forest (100 trees, ``n_jobs`` = the cores given, ``random_state`` = the seed).

Classification (binary, multiClass; several targets as a multi-output forest), multiLabel
(one output per label; a row gets the labels of probability >= 0.5, and its most probable
label when none is), regression (univariate, multivariate).
"""

from __future__ import annotations

import numpy as np

TREES = 100


def fit(train, options):
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
    from sklearn.pipeline import make_pipeline

    from d3mkit.systems.features import preprocessor
    kind = RandomForestClassifier if train.classification else RandomForestRegressor
    forest = kind(n_estimators=TREES, n_jobs=max(1, options.cores), random_state=options.seed)
    model = make_pipeline(preprocessor(train.coltypes or {"_none": "real"}), forest)
    X = train.X if train.coltypes else train.X.assign(_none=0)
    if train.multilabel:
        from sklearn.preprocessing import MultiLabelBinarizer
        binarizer = MultiLabelBinarizer()
        Y = binarizer.fit_transform(train.labels)
        model.fit(X, Y)
        return model, binarizer
    y = train.y.astype(str) if train.classification else train.y.astype(float)
    y = y.to_numpy()
    model.fit(X, y[:, 0] if y.shape[1] == 1 else y)
    return model, None


def predict(model, test, options):
    model, binarizer = model
    X = test.X if len(test.X.columns) else test.X.assign(_none=0)
    if binarizer is None:
        return np.asarray(model.predict(X), dtype=object).reshape(len(X), -1)
    probs = model.predict_proba(X)
    classes = model[-1].classes_
    # one (rows, 2) array per label (a label seen only as 0 or 1 in TRAIN has one column)
    p = np.column_stack([pr[:, list(c).index(1)] if 1 in list(c) else np.zeros(len(X))
                         for pr, c in zip(probs if isinstance(probs, list) else [probs], classes)])
    labels = binarizer.classes_
    out = []
    for row in p:
        chosen = [labels[k] for k in np.flatnonzero(row >= 0.5)]
        out.append(chosen or [labels[int(np.argmax(row))]])
    return out
