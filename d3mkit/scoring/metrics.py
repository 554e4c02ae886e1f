"""The standard metrics of problemSchema 3.1.1 (plus hammingLoss, meanReciprocalRank and
hitsAtK under the D3M reference package's names), as pure functions on aligned arrays.

Every function follows the registry's calling convention (:mod:`d3mkit.scoring.registry`):
``fn(y_true, y_pred, **kwargs) -> float``. Labels are compared as given (strings as read
from the CSV files); numbers arrive as floats. A 2-D input (``allTargets``) is scored per
column and averaged, as the D3M reference package does for several targets, except where
a docstring says otherwise.

Semantics follow the seed's metric table (scikit-learn names) and, where the table is
silent, the D3M reference package (``d3m.metrics`` 2022.5.5):

* labels are the sorted union of the labels in the truth and the predictions;
* binary metrics (precision, recall, f1, jaccardSimilarityScore) take ``posLabel``
  (default ``"1"``); an ill-defined ratio (0/0) is 0.0 as in scikit-learn;
* hammingLoss is computed on the one-hot (multi-label) encoding, so for one label per row
  it is ``2 * errors / (rows * labels)``;
* normalizedMutualInformation uses the geometric mean normaliser (the reference's
  ``average_method='geometric'``);
* multiLabel targets arrive as one :class:`~d3mkit.scoring.multilabel.LabelSets`;
  accuracy, f1Micro, f1Macro, hammingLoss, jaccardSimilarityScore, rocAucMicro and
  rocAucMacro (registered ``multilabel=True``) score it with the functions of
  :mod:`d3mkit.scoring.multilabel`; the binary metrics refuse it;
* precisionAtTopK is the seed's definition (first K entries in index order), not the
  reference package's (which ranks rows by value first); see :func:`precision_at_top_k`.

>>> accuracy(["a", "b", "b"], ["a", "b", "a"])
0.6666666666666666
>>> f1(["1", "0", "1", "1"], ["1", "1", "0", "1"])
0.6666666666666666
"""

from __future__ import annotations

import math

import numpy as np

from d3mkit.core.lazy import pandas as pd   # imported by the branches that use it
from d3mkit.scoring import multilabel as ML
from d3mkit.scoring.labels import LabelCodes, encode
from d3mkit.scoring.multilabel import LabelSets
from d3mkit.core.registry import CLASSIFICATION, CLUSTERING, REGRESSION, register_metric
DEFAULT_POS_LABEL = "1"
MAX_RANK = 500.0   # rank given to a true value missing from a ranked prediction list
_BLOCK = 1 << 16   # rows per step where a whole-column temporary would be 8 bytes a row



# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------
def _arr(y) -> np.ndarray:
    a = y if isinstance(y, np.ndarray) else np.asarray(y, dtype=object)
    return a


def _per_column(fn):
    """Apply ``fn`` per column of 2-D inputs and average (several targets)."""
    def wrapped(y_true, y_pred, **kwargs):
        if isinstance(y_true, LabelSets):   # multiLabel: one indicator matrix per target
            return fn(y_true, y_pred, **kwargs)
        t, p = _arr(y_true), _arr(y_pred)
        if t.ndim == 2:
            if t.shape[1] == 1:
                return fn(t[:, 0], p[:, 0], **kwargs)
            return float(np.mean([fn(t[:, j], p[:, j], **kwargs) for j in range(t.shape[1])]))
        return fn(t, p, **kwargs)
    wrapped.__name__ = fn.__name__
    wrapped.__doc__ = fn.__doc__
    wrapped.__module__ = fn.__module__
    wrapped.__wrapped__ = fn
    return wrapped


def _encode(y_true, y_pred, codes: LabelCodes | None = None):
    """``(true_codes, pred_codes, classes)``: integer codes into the sorted union of labels;
    ``codes`` when the caller has them (the scorer's ``codes`` input), else computed.

    >>> t, p, c = _encode(["b", "a"], ["a", "c"])
    >>> t.tolist(), p.tolist(), c.tolist()
    ([1, 0], [0, 2], ['a', 'b', 'c'])
    """
    return (codes if codes is not None else encode(_arr(y_true), _arr(y_pred))).astuple()


def _confusion(y_true, y_pred, codes=None):
    """Confusion matrix (rows truth, columns prediction) over the sorted label union."""
    t, p, classes = _encode(y_true, y_pred, codes)
    k = len(classes)
    if not k:
        return np.zeros((0, 0), int), classes
    cm = np.zeros(k * k, np.int64)
    for o in range(0, len(t), _BLOCK):   # in blocks: bincount copies its input as intp, and
        # codes may be int8 (t * k + p would overflow them)
        cm += np.bincount(t[o:o + _BLOCK].astype(np.intp) * k + p[o:o + _BLOCK], minlength=k * k)
    return cm.reshape(k, k), classes


def _div(num, den):
    """Elementwise num/den with 0/0 (and x/0) = 0.0, scikit-learn's zero_division default."""
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _binary_counts(y_true, y_pred, posLabel, codes=None):
    """(tp, fp, fn) for the positive class ``posLabel`` of a binary problem."""
    pos = DEFAULT_POS_LABEL if posLabel is None else posLabel
    cm, classes = _confusion(y_true, y_pred, codes)
    labels = [str(c) for c in classes]
    if len(labels) > 2:
        raise ValueError(f"a binary metric got {len(labels)} labels ({', '.join(labels[:10])}); "
                         f"use f1Macro/f1Micro for multi-class targets")
    if str(pos) not in labels:
        raise ValueError(f"positive label {pos!r} is not one of the labels "
                         f"({', '.join(labels)}); set posLabel in the problemDoc's f1 entry")
    i = labels.index(str(pos))
    tp = cm[i, i]
    return tp, cm[:, i].sum() - tp, cm[i, :].sum() - tp


def _no_multilabel(y_true, name: str) -> None:
    if isinstance(y_true, LabelSets):
        raise ValueError(f"{name} scores one binary label per index, not multiLabel label sets")


def _ml_scores(sets: LabelSets, name: str) -> np.ndarray:
    if sets.scores is None:
        raise ValueError(f"{name} needs a confidence column")
    return sets.scores


def _floats(y) -> np.ndarray:
    return np.asarray(y, dtype=float)


# ---------------------------------------------------------------------------------------
# classification
# ---------------------------------------------------------------------------------------

#: what each metric measures, one complete sentence for users (d3mkit metrics, leaderboards)
WORDS = {
    'accuracy': "Fraction of rows whose predicted label equals the true label (labels compared as the target's colType reads them, so 1 and 1.0 or true and yes are equal).",
    'precision': 'Of the rows predicted as the positive label (posLabel, default "1"), the fraction that truly have it.',
    'recall': 'Of the rows that truly have the positive label (posLabel, default "1"), the fraction predicted as it.',
    'f1': 'Harmonic mean of precision and recall for the positive label (posLabel, default "1"): 2tp / (2tp + fp + fn).',
    'jaccardSimilarityScore': 'Jaccard index of the positive label (posLabel, default "1"): true positives over the rows predicted or truly positive, tp / (tp + fp + fn).',
    'f1Micro': 'F1 computed over all labels pooled together (equal to accuracy when every row has one label).',
    'f1Macro': "Unweighted mean of each label's F1 over every label that is true or predicted somewhere, so rare labels count as much as common ones.",
    # hammingLoss: its own description= below
    'hammingLoss': 'Fraction of (row, label) cells of the one-hot label matrix that are predicted wrongly.',
    'rocAuc': "Area under the ROC curve of the positive label's confidences: the chance that a random positive row is ranked above a random negative one.",
    'rocAucMicro': 'Area under the ROC curve of all (row, label) confidences pooled together, each label one-vs-rest.',
    'rocAucMacro': "Unweighted mean over the labels of each label's one-vs-rest area under the ROC curve.",
    'meanSquaredError': 'Mean of the squared differences between predicted and true values (averaged over the targets when there are several).',
    'rootMeanSquaredError': "Square root of the mean squared difference between predicted and true values, in the target's own unit (over all cells of every target when there are several).",
    'rootMeanSquaredErrorAvg': "Mean over the targets of each target's root mean squared error.",
    'meanAbsoluteError': 'Mean of the absolute differences between predicted and true values (averaged over the targets when there are several).',
    'rSquared': 'Coefficient of determination, 1 - SS_res / SS_tot: 1.0 for perfect predictions, 0.0 for always predicting the mean, lower when worse than that.',
    'normalizedMutualInformation': 'Mutual information between the predicted and the true labelling divided by the geometric mean of their entropies: 1.0 when one labelling determines the other, whatever the label names.',
    'precisionAtTopK': 'Fraction of the first K predicted values that are among the first K true values (K given as a metric parameter).',
    # meanReciprocalRank: its own description= below
    'meanReciprocalRank': 'Mean over the truth rows of 1 / the rank of the true value among the ranked predictions (a missing value counts as rank 500).',
    # hitsAtK: its own description= below
    'hitsAtK': 'Fraction of truth rows whose true value is ranked within the first K predictions.',
}

@register_metric("accuracy", description=WORDS["accuracy"], inputs=("codes",), multilabel=True, higher_is_better=True, best=1.0,
                 worst=0.0, task_types=CLASSIFICATION, standard=True)
@_per_column
def accuracy(y_true, y_pred, codes=None) -> float:
    """Fraction of rows whose predicted label equals the true label (compared as the
    labels' integer codes when the scorer has them).

    >>> accuracy(["a", "b", "c", "c"], ["a", "b", "c", "a"])
    0.75
    """
    if isinstance(y_true, LabelSets):
        return ML.subset_accuracy(y_true.truth, y_true.pred)
    if codes is not None:
        n = len(codes.truth)
        return float(np.count_nonzero(codes.truth == codes.pred) / n) if n else 0.0
    t, p = _arr(y_true), _arr(y_pred)
    if not len(t):
        return 0.0
    return float(np.count_nonzero(t == p) / len(t))


@register_metric("precision", description=WORDS["precision"], inputs=("codes",), higher_is_better=True, best=1.0, worst=0.0,
                 task_types=CLASSIFICATION, params=("posLabel",), standard=True, binary_only=True)
@_per_column
def precision(y_true, y_pred, posLabel=None, codes=None) -> float:
    """Binary precision tp / (tp + fp) of the positive label (``posLabel``, default "1").

    >>> precision(["1", "0", "1", "0"], ["1", "1", "1", "0"])
    0.6666666666666666
    """
    _no_multilabel(y_true, 'precision')
    tp, fp, _fn = _binary_counts(y_true, y_pred, posLabel, codes)
    return float(_div(tp, tp + fp))


@register_metric("recall", description=WORDS["recall"], inputs=("codes",), higher_is_better=True, best=1.0, worst=0.0,
                 task_types=CLASSIFICATION, params=("posLabel",), standard=True, binary_only=True)
@_per_column
def recall(y_true, y_pred, posLabel=None, codes=None) -> float:
    """Binary recall tp / (tp + fn) of the positive label (``posLabel``, default "1").

    >>> recall(["1", "0", "1", "1"], ["1", "1", "0", "0"])
    0.3333333333333333
    """
    _no_multilabel(y_true, 'recall')
    tp, _fp, fn = _binary_counts(y_true, y_pred, posLabel, codes)
    return float(_div(tp, tp + fn))


@register_metric("f1", description=WORDS["f1"], inputs=("codes",), higher_is_better=True, best=1.0, worst=0.0,
                 task_types=CLASSIFICATION, params=("posLabel",), standard=True, binary_only=True)
@_per_column
def f1(y_true, y_pred, posLabel=None, codes=None) -> float:
    """Binary F1 2tp / (2tp + fp + fn) of ``posLabel`` (default "1").

    >>> f1(["yes", "no", "yes"], ["yes", "yes", "yes"], posLabel="yes")
    0.8
    """
    _no_multilabel(y_true, 'f1')
    tp, fp, fn = _binary_counts(y_true, y_pred, posLabel, codes)
    return float(_div(2 * tp, 2 * tp + fp + fn))


@register_metric("jaccardSimilarityScore", description=WORDS["jaccardSimilarityScore"], inputs=("codes",), multilabel=True, higher_is_better=True, best=1.0, worst=0.0,
                 task_types=CLASSIFICATION, params=("posLabel",), standard=True)
@_per_column
def jaccard_similarity_score(y_true, y_pred, posLabel=None, codes=None) -> float:
    """Binary Jaccard index tp / (tp + fp + fn) of ``posLabel`` (default "1"), as the
    reference package computes it (``sklearn.metrics.jaccard_score``).

    >>> jaccard_similarity_score(["1", "0", "1", "1"], ["1", "1", "0", "1"])
    0.5
    """
    if isinstance(y_true, LabelSets):
        return ML.jaccard_samples(y_true.truth, y_true.pred)
    tp, fp, fn = _binary_counts(y_true, y_pred, posLabel, codes)
    return float(_div(tp, tp + fp + fn))


@register_metric("f1Micro", description=WORDS["f1Micro"], inputs=("codes",), multilabel=True, higher_is_better=True, best=1.0, worst=0.0,
                 task_types=CLASSIFICATION, standard=True)
@_per_column
def f1_micro(y_true, y_pred, codes=None) -> float:
    """Micro-averaged F1 over all labels (equals accuracy for one label per row).

    >>> f1_micro(["a", "b", "c"], ["a", "b", "b"])
    0.6666666666666666
    """
    if isinstance(y_true, LabelSets):
        return ML.f1_micro(y_true.truth, y_true.pred)
    cm, _c = _confusion(y_true, y_pred, codes)
    tp = np.trace(cm)
    wrong = cm.sum() - tp
    return float(_div(2 * tp, 2 * tp + 2 * wrong))


@register_metric("f1Macro", description=WORDS["f1Macro"], inputs=("codes",), multilabel=True, higher_is_better=True, best=1.0, worst=0.0,
                 task_types=CLASSIFICATION, standard=True)
@_per_column
def f1_macro(y_true, y_pred, codes=None) -> float:
    """Unweighted mean of per-label F1 over the union of true and predicted labels.

    >>> f1_macro(["a", "b", "c"], ["a", "b", "b"])
    0.5555555555555555
    """
    if isinstance(y_true, LabelSets):
        return ML.f1_macro(y_true.truth, y_true.pred)
    cm, _c = _confusion(y_true, y_pred, codes)
    if not cm.size:
        return 0.0
    tp = np.diag(cm)
    per_label = _div(2 * tp, cm.sum(axis=0) + cm.sum(axis=1))
    return float(per_label.mean())


@register_metric("hammingLoss", inputs=("codes",), multilabel=True, higher_is_better=False, best=0.0, worst=1.0,
                 task_types=CLASSIFICATION, standard=False,
                 description="fraction of wrong cells of the one-hot label matrix "
                             "(d3m.metrics HammingLossMetric)")
@_per_column
def hamming_loss(y_true, y_pred, codes=None) -> float:
    """Fraction of wrong cells in the one-hot (multi-label) encoding over all labels.

    For one label per row a wrong row differs in two cells:

    >>> hamming_loss(["a", "b", "c", "c"], ["a", "b", "c", "a"])
    0.16666666666666666
    """
    if isinstance(y_true, LabelSets):
        return ML.hamming_loss(y_true.truth, y_true.pred)
    cm, classes = _confusion(y_true, y_pred, codes)
    n, k = cm.sum(), len(classes)
    if not n or not k:
        return 0.0
    return float(2 * (n - np.trace(cm)) / (n * k))


def _average_ranks(x: np.ndarray) -> np.ndarray:
    """1-based ranks with ties given their average rank."""
    order = np.argsort(x, kind="mergesort")
    s = x[order]
    n = len(s)
    first = np.r_[True, s[1:] != s[:-1]] if n else np.zeros(0, bool)
    starts = np.flatnonzero(first)
    ends = np.r_[starts[1:], n]
    avg = (starts + 1 + ends) / 2.0
    ranks = np.empty(n)
    ranks[order] = np.repeat(avg, ends - starts)
    return ranks


def binary_auc(y_true_bool, scores) -> float:
    """Area under the ROC curve from ranks (Mann-Whitney with mid-ranks for ties, which
    equals the trapezoidal ROC area scikit-learn computes).

    >>> binary_auc([True, False, True, False], [0.9, 0.1, 0.4, 0.5])
    0.75
    """
    y = np.asarray(y_true_bool, dtype=bool)
    s = np.asarray(scores, dtype=float)
    npos = int(y.sum())
    nneg = len(y) - npos
    if npos == 0 or nneg == 0:
        raise ValueError("ROC AUC is undefined when the truth holds only one class")
    r = _average_ranks(s)
    return float((r[y].sum() - npos * (npos + 1) / 2.0) / (npos * nneg))


def class_scores(y_true, y_pred, confidence, classes=None, codes=None):
    """``(true_codes, score_matrix, classes)`` for the ROC metrics.

    ``confidence`` is 2-D ``(rows, len(classes))`` (one row per (index, class) layout;
    ``classes`` names its columns) or 1-D: the confidence of each row's predicted label.
    A 1-D confidence gives the predicted class ``c`` and every other class
    ``(1 - c) / (labels - 1)``, so for two labels the other class gets ``1 - c``.
    """
    t = _arr(y_true)
    conf = np.asarray(confidence, dtype=float)
    if conf.ndim == 2:
        if classes is None:
            raise ValueError("a confidence matrix needs classes=")
        from d3mkit.scoring.values import lookup
        cls = np.asarray(classes, dtype=object)
        idx = lookup(cls, np.asarray(t, dtype=object))[0]
        if (idx < 0).any():
            bad = t[idx < 0][0]
            raise ValueError(f"true label {bad!r} has no confidence column")
        return idx, conf, cls
    tc, pc, cls = _encode(t, y_pred, codes)
    k = len(cls)
    other = (1.0 - conf) / (k - 1) if k > 1 else np.zeros_like(conf)
    mat = np.repeat(other[:, None], k, axis=1)
    mat[np.arange(len(pc)), pc] = conf
    return tc, mat, cls


def pos_label_for_auc(classes, posLabel):
    labels = [str(c) for c in classes]
    for cand in (posLabel, DEFAULT_POS_LABEL):
        if cand is not None and str(cand) in labels:
            return labels.index(str(cand))
    return len(labels) - 1


@register_metric("rocAuc", description=WORDS["rocAuc"], inputs=("confidence", "classes", "codes"), higher_is_better=True, best=1.0, worst=0.0,
                 task_types=CLASSIFICATION, needs_confidence=True, params=("posLabel",),
                 standard=True, binary_only=True)
def roc_auc(y_true, y_pred, confidence=None, classes=None, posLabel=None, codes=None) -> float:
    """Binary ROC AUC from confidences (see :func:`class_scores` for the two layouts).

    The positive class is ``posLabel`` (default "1", else the last label in sorted
    order); with complementary scores the area does not depend on that choice.

    >>> roc_auc(["1", "0", "1", "0"], ["1", "0", "0", "0"], confidence=[0.9, 0.9, 0.6, 0.5])
    0.75
    """
    _no_multilabel(y_true, 'rocAuc')
    if confidence is None:
        raise ValueError("rocAuc needs a confidence column")
    tc, mat, cls = class_scores(y_true, y_pred, confidence, classes, codes)
    present = np.unique(tc)
    if len(cls) > 2 or len(present) > 2:
        raise ValueError(f"rocAuc is binary but the labels are {', '.join(map(str, cls[:10]))}; "
                         f"use rocAucMacro or rocAucMicro")
    j = pos_label_for_auc(cls, posLabel)
    return binary_auc(tc == j, mat[:, j])


@register_metric("rocAucMicro", description=WORDS["rocAucMicro"], inputs=("confidence", "classes", "codes"), multilabel=True, higher_is_better=True, best=1.0, worst=0.0,
                 task_types=CLASSIFICATION, needs_confidence=True, standard=True)
def roc_auc_micro(y_true, y_pred, confidence=None, classes=None, codes=None) -> float:
    """One-vs-rest ROC AUC pooled over all (row, class) cells (scikit-learn's micro).

    >>> roc_auc_micro(["a", "b", "c"], None, confidence=[[.8, .1, .1], [.3, .6, .1],
    ...               [.2, .5, .3]], classes=["a", "b", "c"])
    0.9166666666666666
    """
    if isinstance(y_true, LabelSets):
        return ML.roc_auc_micro(y_true.truth, _ml_scores(y_true, 'rocAucMicro'), binary_auc)
    if confidence is None:
        raise ValueError("rocAucMicro needs a confidence column")
    tc, mat, cls = class_scores(y_true, y_pred, confidence, classes, codes)
    onehot = np.zeros(mat.shape, dtype=bool)
    onehot[np.arange(len(tc)), tc] = True
    return binary_auc(onehot.ravel(), mat.ravel())


@register_metric("rocAucMacro", description=WORDS["rocAucMacro"], inputs=("confidence", "classes", "codes"), multilabel=True, higher_is_better=True, best=1.0, worst=0.0,
                 task_types=CLASSIFICATION, needs_confidence=True, standard=True)
def roc_auc_macro(y_true, y_pred, confidence=None, classes=None, codes=None) -> float:
    """Mean one-vs-rest ROC AUC over the labels (scikit-learn's macro). Labels absent
    from the truth (whose area is undefined) are left out of the mean.

    >>> roc_auc_macro(["a", "b", "c"], None, confidence=[[.8, .1, .1], [.3, .6, .1],
    ...               [.2, .5, .3]], classes=["a", "b", "c"])
    1.0
    """
    if isinstance(y_true, LabelSets):
        return ML.roc_auc_macro(y_true.truth, _ml_scores(y_true, 'rocAucMacro'), binary_auc)
    if confidence is None:
        raise ValueError("rocAucMacro needs a confidence column")
    tc, mat, cls = class_scores(y_true, y_pred, confidence, classes, codes)
    counts = np.bincount(tc, minlength=len(cls))
    ok = [j for j in range(len(cls)) if 0 < counts[j] < len(tc)]
    if not ok:
        raise ValueError("ROC AUC is undefined when the truth holds only one class")
    return float(np.mean([binary_auc(tc == j, mat[:, j]) for j in ok]))


# ---------------------------------------------------------------------------------------
# regression
# ---------------------------------------------------------------------------------------
def _scaled(y_true, y_pred) -> tuple[np.ndarray, np.ndarray, float]:
    """``(t / s, p / s, s)`` with ``s`` a power of two (so the division is exact) chosen
    when the values are so large (over 2**500) that squares or differences would
    overflow; ``s`` is 1.0 otherwise. Errors computed on the scaled values and scaled
    back are finite whenever the true result is.

    >>> _scaled([1e200, 0.0], [0.0, 1.0])[2] > 1e199
    True
    """
    t, p = _floats(y_true), _floats(y_pred)
    top = max(float(np.max(np.abs(t), initial=0.0)), float(np.max(np.abs(p), initial=0.0)))
    if not top > 2.0 ** 500 or not math.isfinite(top):
        return t, p, 1.0
    s = math.ldexp(1.0, math.frexp(top)[1] - 1)   # |values| / s < 2
    return t / s, p / s, s


def _mse_columns(y_true, y_pred) -> tuple[np.ndarray, float]:
    """Per-column mean squared error of the scaled values, and the scale (MSE is
    ``s**2 *`` it)."""
    t, p, s = _scaled(y_true, y_pred)
    if t.ndim == 1:
        t, p = t[:, None], p[:, None]
    return np.mean((t - p) ** 2, axis=0), s


def _finite(value: float, name: str) -> float:
    if not math.isfinite(value):
        raise ValueError(f"{name} is {value} (larger than the largest float): the predictions "
                         f"are too far from the truth to score")
    return value


@register_metric("meanSquaredError", description=WORDS["meanSquaredError"], higher_is_better=False, best=0.0, worst=math.inf,
                 task_types=REGRESSION, standard=True)
def mean_squared_error(y_true, y_pred) -> float:
    """Mean of squared errors (averaged over targets for 2-D input).

    >>> mean_squared_error([3.0, -0.5, 2.0, 7.0], [2.5, 0.0, 2.0, 8.0])
    0.375
    """
    m, s = _mse_columns(y_true, y_pred)
    with np.errstate(over="ignore"):
        return _finite(float(np.mean(m)) * s * s, "meanSquaredError")


@register_metric("rootMeanSquaredError", description=WORDS["rootMeanSquaredError"], higher_is_better=False, best=0.0, worst=math.inf,
                 task_types=REGRESSION, standard=True)
def root_mean_squared_error(y_true, y_pred) -> float:
    """Square root of :func:`mean_squared_error` (the seed's table; for several targets
    under allTargets that is sqrt of the mean MSE, whereas the reference package averages
    per-target RMSEs, which is rootMeanSquaredErrorAvg here).

    >>> root_mean_squared_error([0.0, 0.0], [3.0, 4.0])
    3.5355339059327378
    """
    m, s = _mse_columns(y_true, y_pred)
    return _finite(math.sqrt(float(np.mean(m))) * s, "rootMeanSquaredError")


@register_metric("rootMeanSquaredErrorAvg", description=WORDS["rootMeanSquaredErrorAvg"], higher_is_better=False, best=0.0, worst=math.inf,
                 task_types=REGRESSION, applicability="allTargets", standard=True)
def root_mean_squared_error_avg(y_true, y_pred) -> float:
    """Mean over targets of each target's RMSE.

    >>> root_mean_squared_error_avg([[0.0, 0.0], [0.0, 0.0]], [[1.0, 3.0], [1.0, 3.0]])
    2.0
    """
    m, s = _mse_columns(y_true, y_pred)
    return _finite(float(np.mean(np.sqrt(m))) * s, "rootMeanSquaredErrorAvg")


@register_metric("meanAbsoluteError", description=WORDS["meanAbsoluteError"], higher_is_better=False, best=0.0, worst=math.inf,
                 task_types=REGRESSION, standard=True)
def mean_absolute_error(y_true, y_pred) -> float:
    """Mean of absolute errors (averaged over targets for 2-D input).

    >>> mean_absolute_error([3.0, -0.5, 2.0, 7.0], [2.5, 0.0, 2.0, 8.0])
    0.5
    """
    t, p, s = _scaled(y_true, y_pred)
    return _finite(float(np.mean(np.abs(t - p))) * s, "meanAbsoluteError")


@register_metric("rSquared", description=WORDS["rSquared"], higher_is_better=True, best=1.0, worst=-math.inf,
                 task_types=REGRESSION, standard=True)
@_per_column
def r_squared(y_true, y_pred) -> float:
    """Coefficient of determination 1 - SS_res / SS_tot (1.0 for a perfect fit of a
    constant truth, 0.0 for an imperfect one, as scikit-learn does).

    >>> r_squared([3.0, -0.5, 2.0, 7.0], [2.5, 0.0, 2.0, 8.0])
    0.9486081370449679
    """
    t, p, s = _scaled(y_true, y_pred)
    if s == 1.0:
        ss_res = float(np.sum((t - p) ** 2))
        ss_tot = float(np.sum((t - t.mean()) ** 2))
        if ss_tot == 0.0:
            return 1.0 if ss_res == 0.0 else 0.0
        return 1.0 - ss_res / ss_tot
    # huge values: compare the norms, each computed without overflow or underflow
    res = _norm(t - p) * s
    tot = _norm(_floats(y_true) - float(np.mean(t)) * s)
    if tot == 0.0:
        return 1.0 if res == 0.0 else 0.0
    return 1.0 - (res / tot) ** 2 if res / tot < 1e150 else -math.inf


def _norm(x: np.ndarray) -> float:
    """Euclidean norm without overflow or underflow of the squares."""
    m = float(np.max(np.abs(x), initial=0.0))
    return 0.0 if m == 0.0 else m * math.sqrt(float(np.sum((x / m) ** 2)))


# ---------------------------------------------------------------------------------------
# clustering, ranking
# ---------------------------------------------------------------------------------------
@register_metric("normalizedMutualInformation", description=WORDS["normalizedMutualInformation"], higher_is_better=True, best=1.0, worst=0.0,
                 task_types=CLUSTERING + ("classification",), standard=True)
@_per_column
def normalized_mutual_information(y_true, y_pred) -> float:
    """Mutual information of the two labelings over the geometric mean of their entropies
    (label names do not matter, only the partition).

    >>> normalized_mutual_information(["a", "a", "b", "b"], ["x", "x", "y", "y"])
    1.0
    >>> round(normalized_mutual_information(["a", "a", "b", "b"], ["x", "y", "x", "x"]), 6)
    0.345592
    """
    t = pd.factorize(_arr(y_true))[0]
    p = pd.factorize(_arr(y_pred))[0]
    n = len(t)
    kt, kp = (t.max() + 1 if n else 0), (p.max() + 1 if n else 0)
    if kt == kp == 1 or kt == kp == 0:
        return 1.0
    cont = np.bincount(t * kp + p, minlength=kt * kp).reshape(kt, kp).astype(float)
    pij = cont / n
    pi, pj = pij.sum(axis=1), pij.sum(axis=0)
    nz = pij > 0
    mi = float(np.sum(pij[nz] * (np.log(pij[nz]) - np.log(np.outer(pi, pj)[nz]))))
    ht = -float(np.sum(pi * np.log(pi)))
    hp = -float(np.sum(pj * np.log(pj)))
    if mi <= 0.0:
        return 0.0
    return mi / max(math.sqrt(ht * hp), np.finfo(float).eps)


@register_metric("precisionAtTopK", description=WORDS["precisionAtTopK"], higher_is_better=True, best=1.0, worst=0.0,
                 params=("K",), standard=True)
def precision_at_top_k(y_true, y_pred, K=20) -> float:
    """The seed's precision_at_top_K: how many values the first ``K`` entries of the
    truth and of the predictions (both in index order) share, divided by ``K``.

    The seed's own examples:

    >>> round(precision_at_top_k([0, 1, 2, 3, 4], [1, 3, 2, 4, 0], K=3), 3)
    0.667
    >>> precision_at_top_k([0, 1, 2, 3, 4], [1, 3, 2, 4, 0], K=4)
    0.75

    The later D3M reference package instead ranks rows by value (descending) and
    compares the sets of row positions of the top K; the two agree only by accident.
    """
    k = int(K)
    if k <= 0:
        raise ValueError(f"K must be a positive integer, got {K!r}")
    t = np.asarray(y_true).ravel()[:k]
    p = np.asarray(y_pred).ravel()[:k]
    return float(len(np.intersect1d(t, p)) / k)


def precision_at_top_k_ranked(y_true, y_pred, K=20) -> float:
    """The D3M reference package's precisionAtTopK (not registered; for comparison):
    the row positions of the K largest values of the truth and of the predictions
    (integers), how many they share, divided by K.

    >>> round(precision_at_top_k_ranked([0, 1, 2, 3, 4], [1, 3, 2, 4, 0], K=3), 3)
    0.667
    >>> round(precision_at_top_k_ranked([5, 1, 9, 3, 4], [4, 0, 1, 3, 2], K=2), 3)
    0.5
    """
    k = int(K)
    t = np.argsort(np.asarray(y_true).astype(float).astype(int), kind="stable")[::-1][:k]
    p = np.argsort(np.asarray(y_pred).astype(float).astype(int), kind="stable")[::-1][:k]
    return float(len(np.intersect1d(t, p)) / k)


def _ranks(ranks) -> np.ndarray:
    if ranks is None:
        raise ValueError("this metric needs a rank column in the predictions")
    return np.asarray(ranks, dtype=float)


@register_metric("meanReciprocalRank", higher_is_better=True, best=1.0, worst=0.0,
                 task_types=("linkPrediction",), inputs=("ranks",), layout="ranked",
                 description="mean of 1/rank of the true value among ranked predictions "
                             "(d3m.metrics MeanReciprocalRankMetric; missing: rank 500)")
def mean_reciprocal_rank(y_true, y_pred, ranks=None) -> float:
    """Mean of ``1 / rank`` where ``ranks`` holds, per truth row, the rank the predictions
    gave the true value (500 when they did not list it).

    >>> round(mean_reciprocal_rank(None, None, ranks=[4, 1, 2]), 5)
    0.58333
    """
    r = _ranks(ranks)
    return float(np.sum(1.0 / r) / len(r)) if len(r) else 0.0


@register_metric("hitsAtK", higher_is_better=True, best=1.0, worst=0.0,
                 task_types=("linkPrediction",), params=("K",), inputs=("ranks",), layout="ranked",
                 description="fraction of truth rows whose true value is ranked within the "
                             "top K (d3m.metrics HitsAtKMetric)")
def hits_at_k(y_true, y_pred, ranks=None, K=1) -> float:
    """Fraction of truth rows whose true value the predictions rank ``<= K``.

    >>> round(hits_at_k(None, None, ranks=[4, 1, 2], K=3), 6)
    0.666667
    """
    r = _ranks(ranks)
    return float(np.sum(r <= int(K)) / len(r)) if len(r) else 0.0
