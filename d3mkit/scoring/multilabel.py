"""multiLabel classification: label sets as indicator matrices, and the metrics on them.

In a D3M multiLabel problem the truth (learningData or targets.csv) has one row per
(d3mIndex, label) and predictions.csv likewise one row per (d3mIndex, predicted label),
optionally with each label's ``confidence``. :mod:`d3mkit.scoring.predictions` groups
those rows by d3mIndex into a :class:`LabelSets` per target: a boolean ``(indices,
labels)`` indicator matrix over the sorted union of the true and predicted labels (what
the D3M reference package builds with scikit-learn's ``MultiLabelBinarizer``).

The functions here are pure functions on such matrices with the semantics of
``d3m.metrics`` 2022.5.5 (which encodes every classification target this way):

* accuracy — subset accuracy: the fraction of indices whose predicted label set equals
  the true set exactly (scikit-learn's ``accuracy_score`` on indicator matrices);
* f1Micro — 2·TP / (2·TP + FP + FN) over all (index, label) cells;
* f1Macro — the unweighted mean over labels of each label's F1 (a 0/0 label counts 0);
* hammingLoss — the fraction of wrong (index, label) cells;
* rocAucMicro — ROC AUC of all cells pooled, scores from the confidences (labels a row
  does not list score 0, as in the reference);
* rocAucMacro — mean per-label ROC AUC; labels whose truth column is constant (present
  in every index, or in none) have no defined area and are left out (the reference
  package raises instead; d3mkit does the same for multiClass);
* jaccardSimilarityScore — not defined for multiLabel by the reference package (its
  Jaccard is binary); d3mkit uses the seed table's ``jaccard_similarity_score``, which
  for indicator matrices is the mean over indices of |true ∩ predicted| / |true ∪
  predicted| (1.0 when both sets are empty).

The hard-label metrics count every label a prediction row names as predicted, whatever
its confidence (the reference does the same: it never thresholds).

>>> t = LabelSets.from_lists([["a", "b"], ["c"]], [["a"], ["c"]])
>>> t.labels.tolist(), t.truth.astype(int).tolist(), t.pred.astype(int).tolist()
(['a', 'b', 'c'], [[1, 1, 0], [0, 0, 1]], [[1, 0, 0], [0, 0, 1]])
>>> subset_accuracy(t.truth, t.pred), hamming_loss(t.truth, t.pred)
(0.5, 0.16666666666666666)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np



@dataclass(frozen=True)
class LabelSets:
    """One target's label sets, aligned by d3mIndex.

    ``truth``/``pred`` are boolean ``(n_indices, n_labels)`` indicator matrices whose
    columns are ``labels`` (sorted); ``scores`` is the ``(n_indices, n_labels)``
    confidence matrix when the predictions carry confidences (unlisted labels 0)."""

    truth: np.ndarray
    pred: np.ndarray
    labels: np.ndarray
    scores: np.ndarray | None = None

    @property
    def n_rows(self) -> int:
        return self.truth.shape[0]

    @classmethod
    def from_lists(cls, truth, pred, scores=None) -> "LabelSets":
        """From per-index label lists (and optionally per-index ``{label: score}``)."""
        labels = np.asarray(sorted({v for row in list(truth) + list(pred) for v in row}),
                            dtype=object)
        t = indicator(truth, labels)
        p = indicator(pred, labels)
        s = None
        if scores is not None:
            s = np.zeros(p.shape)
            for i, row in enumerate(scores):
                for lab, v in row.items():
                    s[i, list(labels).index(lab)] = v
        return cls(t, p, labels, s)


def indicator(rows, labels) -> np.ndarray:
    """Boolean ``(len(rows), len(labels))`` matrix: cell (i, j) is whether ``rows[i]``
    (an iterable of labels) contains ``labels[j]``.

    >>> indicator([["x"], ["y", "x"], []], ["x", "y"]).astype(int).tolist()
    [[1, 0], [1, 1], [0, 0]]
    """
    pos = {lab: j for j, lab in enumerate(labels)}
    out = np.zeros((len(rows), len(pos)), dtype=bool)
    for i, row in enumerate(rows):
        for v in row:
            out[i, pos[v]] = True
    return out


def matrix_from_pairs(row_pos: np.ndarray, label_code: np.ndarray, n_rows: int,
                      n_labels: int) -> np.ndarray:
    """Indicator matrix from (row position, label code) pairs; repeats collapse.

    >>> matrix_from_pairs(np.array([0, 0, 1, 0]), np.array([1, 0, 1, 1]), 3, 2).astype(int).tolist()
    [[1, 1], [0, 1], [0, 0]]
    """
    out = np.zeros((n_rows, n_labels), dtype=bool)
    out[row_pos, label_code] = True
    return out


def _div(num, den) -> np.ndarray:
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _check(t, p) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(t, dtype=bool)
    p = np.asarray(p, dtype=bool)
    if t.ndim != 2 or t.shape != p.shape:
        raise ValueError(f"indicator matrices must have one shape, got {t.shape} and {p.shape}")
    return t, p


def subset_accuracy(truth, pred) -> float:
    """Fraction of rows whose predicted set equals the true set.

    >>> subset_accuracy([[1, 0], [1, 1], [0, 1]], [[1, 0], [1, 0], [0, 1]])
    0.6666666666666666
    """
    t, p = _check(truth, pred)
    if not t.shape[0]:
        return 0.0
    return float(np.count_nonzero((t == p).all(axis=1)) / t.shape[0])


def f1_micro(truth, pred) -> float:
    """Micro-averaged F1 over all cells: 2·TP / (2·TP + FP + FN).

    >>> f1_micro([[1, 1, 0], [0, 0, 1]], [[1, 0, 0], [0, 1, 1]])
    0.6666666666666666
    """
    t, p = _check(truth, pred)
    tp = np.count_nonzero(t & p)
    fp = np.count_nonzero(~t & p)
    fn = np.count_nonzero(t & ~p)
    return float(_div(2 * tp, 2 * tp + fp + fn))


def f1_macro(truth, pred) -> float:
    """Unweighted mean over labels (columns) of each label's F1; 0/0 counts 0.

    >>> f1_macro([[1, 1, 0], [0, 0, 1]], [[1, 0, 0], [0, 1, 1]])
    0.6666666666666666
    """
    t, p = _check(truth, pred)
    if not t.shape[1]:
        return 0.0
    tp = np.count_nonzero(t & p, axis=0)
    return float(_div(2 * tp, np.count_nonzero(t, axis=0) + np.count_nonzero(p, axis=0)).mean())


def hamming_loss(truth, pred) -> float:
    """Fraction of wrong cells.

    >>> hamming_loss([[1, 1, 0], [0, 0, 1]], [[1, 0, 0], [0, 1, 1]])
    0.3333333333333333
    """
    t, p = _check(truth, pred)
    if not t.size:
        return 0.0
    return float(np.count_nonzero(t != p) / t.size)


def jaccard_samples(truth, pred) -> float:
    """Mean over rows of |true ∩ predicted| / |true ∪ predicted| (1.0 for two empty sets),
    the seed table's ``jaccard_similarity_score`` on indicator matrices.

    >>> jaccard_samples([[1, 1, 0], [0, 0, 1], [0, 0, 0]], [[1, 0, 0], [0, 1, 1], [0, 0, 0]])
    0.6666666666666666
    """
    t, p = _check(truth, pred)
    if not t.shape[0]:
        return 0.0
    inter = np.count_nonzero(t & p, axis=1)
    union = np.count_nonzero(t | p, axis=1)
    per_row = np.where(union == 0, 1.0, _div(inter, union))
    return float(per_row.mean())


def roc_auc_micro(truth, scores, binary_auc) -> float:
    """ROC AUC of all (row, label) cells pooled; ``binary_auc(y_bool, scores)`` computes
    one area (passed in so this module stays free of the metric registry).

    >>> from d3mkit.scoring.metrics import binary_auc
    >>> roc_auc_micro([[1, 0], [0, 1]], [[0.9, 0.2], [0.3, 0.4]], binary_auc)
    1.0
    """
    t = np.asarray(truth, dtype=bool)
    s = np.asarray(scores, dtype=float)
    return float(binary_auc(t.ravel(), s.ravel()))


def roc_auc_macro(truth, scores, binary_auc) -> float:
    """Mean ROC AUC over labels whose truth column holds both classes.

    >>> from d3mkit.scoring.metrics import binary_auc
    >>> roc_auc_macro([[1, 0, 1], [0, 1, 1]], [[0.9, 0.2, 0.5], [0.3, 0.1, 0.5]], binary_auc)
    0.5
    """
    t = np.asarray(truth, dtype=bool)
    s = np.asarray(scores, dtype=float)
    counts = np.count_nonzero(t, axis=0)
    ok = np.flatnonzero((counts > 0) & (counts < t.shape[0]))
    if not len(ok):
        raise ValueError("ROC AUC is undefined: every label is present in all indices or in none")
    return float(np.mean([binary_auc(t[:, j], s[:, j]) for j in ok]))


def label_codes(values: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Positions of ``values`` in ``labels`` (-1 when absent).

    >>> label_codes(np.array(["b", "z"], dtype=object), np.array(["a", "b"], dtype=object)).tolist()
    [1, -1]
    """
    from d3mkit.scoring.values import lookup
    return lookup(np.asarray(labels), np.asarray(values))[0]
