"""A metric's value on many bootstrap resamples at once, for one scored call.

:class:`Resampler` takes one :class:`~d3mkit.evaluate.scorer.Call` and gives its metric
under each row of a ``(B, n)`` weight matrix (how often each unit is drawn in each
resample; :func:`d3mkit.evaluate.stats.block_weights`) in one of two forms:

* **sums** — the metric is a function of weighted sums over rows, so every resample
  of every system sharing a draw is one matrix product ``W @ X`` (the campaign stacks
  the ``X`` of all systems of a fold side by side: one product per fold and block) and
  :meth:`Resampler.from_sums` turns the sums into values. ``X`` holds, per row:

  - label metrics (accuracy, f1Micro, f1Macro, and the binary f1 / precision / recall /
    jaccardSimilarityScore of a posLabel): one-hot columns of the true positives and
    the predicted label, then of the true label (shared by every system of the fold),
    over a label list shared by all the problem's calls of the target (so sums of
    different folds and systems add up);
  - error metrics (MSE, RMSE, MAE, rSquared): squared and absolute error, the truth
    minus a shared centre and its square, and 1;
  - ranked metrics (meanReciprocalRank, hitsAtK): 1/rank or rank <= K, and 1;
* **auc** — rocAuc, rocAucMacro and rocAucMicro of the ``rows`` and ``classes`` layouts:
  not sums, but vectorised over resamples too (:meth:`Resampler.auc_values`: the rows
  sorted once by score, each resample's area from cumulative weighted counts of
  positives and negatives per tie group);

* **function** — any other metric (metadata metrics,
  allTargets, multiLabel, objectDetection, plugin metrics): the registry function is
  called once per resample on the drawn units (:func:`d3mkit.evaluate.units.assemble`);
  the loop is over resamples, never over rows.

The registry's metric function stays the one definition: a sums or AUC form is used only
when, with every weight 1, it gives the function's own value on the data (checked for
every call); otherwise the function is called per resample.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

LABEL_FORMS = ("accuracy", "f1Micro", "f1Macro", "f1", "precision", "recall", "jaccardSimilarityScore")
BINARY_FORMS = ("f1", "precision", "recall", "jaccardSimilarityScore")
ERROR_FORMS = ("meanSquaredError", "rootMeanSquaredError", "meanAbsoluteError", "rSquared")
RANK_FORMS = ("meanReciprocalRank", "hitsAtK")
AUC_FORMS = ("rocAuc", "rocAucMacro", "rocAucMicro")
MAX_DENSE_LABELS = 64      # beyond this many labels a label metric is called per resample
CHECK_TOL = 1e-5


class Labels:
    """A label list and each label's position (a dict: the lists are short)."""

    def __init__(self, values):
        self.values = np.asarray(values, dtype=object)
        self._pos = {v: i for i, v in enumerate(self.values.tolist())}

    def positions(self, a) -> np.ndarray:
        """Each value's position in the list, -1 when it is not there."""
        vals = np.asarray(a, dtype=object)
        if len(vals) > 4 * len(self._pos) + 64:       # many rows: one hash join
            return pd.Index(self.values, dtype=object).get_indexer(vals)
        return np.array([self._pos.get(v, -1) for v in vals.tolist()], dtype=np.int64).reshape(len(vals))


def label_codes(call):
    """The call's :class:`~d3mkit.scoring.labels.LabelCodes` (the ``codes`` input the
    rows layout supplies), or None."""
    from d3mkit.scoring.labels import LabelCodes
    codes = call.kw.get("codes")
    return codes if isinstance(codes, LabelCodes) and len(codes.truth) == call.n_rows else None


def label_list(calls) -> np.ndarray:
    """The union of the true and predicted labels of ``calls``, in order of appearance:
    the columns every label form of these calls shares (from their ``codes`` when they
    have them: no row is hashed again)."""
    vals = []
    for c in calls:
        codes = label_codes(c)
        if codes is not None:
            vals.append(np.asarray(codes.labels, dtype=object))
        else:
            vals += [np.asarray(c.yt, dtype=object), np.asarray(c.yp, dtype=object)]
    return np.asarray(pd.unique(np.concatenate(vals)) if vals else np.zeros(0), dtype=object)


class Resampler:
    """The resampled values of one call (see the module docstring). ``labels``: the label
    list of the call's target (:func:`label_list`, or :class:`Labels` of it; default:
    the call's own); ``centre``:
    the value the truth is centred on (default: its mean).

    >>> from d3mkit.core.registry import get_metric
    >>> from d3mkit.evaluate.scorer import Call
    >>> yt = np.array(list("aabbc"), dtype=object); yp = np.array(list("abbbc"), dtype=object)
    >>> r = Resampler(Call.of("accuracy", get_metric("accuracy"), yt, yp, {}, 0.8))
    >>> r.form, r.from_sums(np.array([[1, 1, 1, 1, 1], [5, 0, 0, 0, 0]], np.float32) @ r.all_columns()).tolist()
    ('sums', [0.8, 1.0])
    """

    def __init__(self, call, labels: np.ndarray | None = None, centre: float | None = None, codes=None):
        self.call, self.metric = call, call.metric
        self._codes = codes if codes is not None else label_codes(call)
        self.n = call.n_rows
        self.form = "function"
        self._x = None
        self._auc = None
        if call.layout in ("rows", "classes", "ranked") and len(call.pieces) == 1:
            try:
                self._prepare(labels, centre)
                if self._x is not None:
                    got = float(self.from_sums(self.all_columns().sum(axis=0, dtype=np.float64)[None, :])[0])
                    self.form = "sums" if self._agrees(got) else "function"
                elif self._auc is not None:
                    got = float(self.auc_values(np.ones((1, self.n), np.float32))[0])
                    self.form = "auc" if self._agrees(got) else "function"
            except (ValueError, TypeError, ZeroDivisionError, IndexError):
                self.form = "function"
        if self.form == "function":
            self._x = self._auc = None

    def _agrees(self, got: float) -> bool:
        v = self.call.value
        return math.isfinite(got) and abs(got - v) <= CHECK_TOL * max(1.0, abs(v))

    # ------------------------------------------------------------------ sums
    def _prepare(self, labels, centre) -> None:
        name, c = self.metric.name, self.call
        yt, yp = c.yt, c.yp
        if name in RANK_FORMS and c.layout == "ranked":
            r = np.asarray(c.kw["ranks"], dtype=float)
            x = 1.0 / r if name == "meanReciprocalRank" else (r <= int(c.kw.get("K", 1))).astype(float)
            self._x = np.column_stack([x, np.ones(len(r))]).astype(np.float32)
            return
        if np.ndim(yt) != 1:
            return
        if name in LABEL_FORMS and c.layout == "rows":
            labels = labels if isinstance(labels, Labels) else \
                Labels(label_list([c]) if labels is None else labels)
            k = len(labels.values)
            if k > MAX_DENSE_LABELS:
                return
            if self._codes is not None:          # the parse's codes: map the few labels
                where = labels.positions(self._codes.labels)
                tc, pc = where[self._codes.truth], where[self._codes.pred]
            else:
                tc, pc = labels.positions(yt), labels.positions(yp)
            if (tc < 0).any() or (pc < 0).any():
                return
            self._pos = None
            if name in BINARY_FORMS:
                if k > 2:
                    return
                pos = c.kw.get("posLabel")
                found = [i for i, lab in enumerate(labels.values) if str(lab) == str(pos)]
                if not found:
                    return
                self._pos = found[0]
            self._k = k
            x = np.zeros((self.n, 2 * k), np.float32)
            rows = np.arange(self.n)
            x[rows, tc] = (tc == pc)
            x[rows, k + pc] = 1.0
            true = np.zeros((self.n, k), np.float32)
            true[rows, tc] = 1.0
            self._x, self._shared = x, true
            self.joint = (tc * k + pc, k)      # each row's confusion cell (counted directly)
        elif name in ERROR_FORMS and c.layout == "rows":
            t = np.asarray(yt, dtype=float)
            p = np.asarray(yp, dtype=float)
            if not (np.isfinite(t).all() and np.isfinite(p).all()):
                return
            e = t - p
            tc = t - (float(np.mean(t)) if centre is None else centre)
            self._x = np.column_stack([e * e, np.abs(e), tc, tc * tc, np.ones(len(t))]).astype(np.float32)
        elif name in AUC_FORMS and c.layout in ("rows", "classes"):
            self._prepare_auc()

    _shared = None
    joint = None

    def columns(self) -> np.ndarray:
        """The ``(n, d)`` float32 matrix of the call's own columns: with
        :meth:`shared_columns` after them, the weighted column sums the metric is made of."""
        return self._x

    def shared_columns(self) -> np.ndarray | None:
        """Columns that depend on the truth only (the true labels' one-hot), the same for
        every system of a fold and target, so a stack holds them once; or None."""
        return self._shared

    def all_columns(self) -> np.ndarray:
        """:meth:`columns` then :meth:`shared_columns`: what :meth:`from_sums` reads."""
        return self._x if self._shared is None else np.hstack([self._x, self._shared])

    @property
    def width(self) -> int:
        return 0 if self._x is None else self._x.shape[1]

    def from_sums(self, s: np.ndarray) -> np.ndarray:
        """The metric from ``(B, d)`` weighted sums ``W @ all_columns()``."""
        name = self.metric.name
        s = np.asarray(s, dtype=np.float64)
        with np.errstate(all="ignore"):
            if name in RANK_FORMS:
                return np.where(s[:, 1] > 0, s[:, 0] / np.where(s[:, 1] > 0, s[:, 1], 1), 0.0)
            if name in LABEL_FORMS:
                k = self._k
                tp, pred, true = s[:, :k], s[:, k:2 * k], s[:, 2 * k:]
                n = true.sum(axis=1)
                if name in ("accuracy", "f1Micro"):
                    return tp.sum(axis=1) / n
                if name == "f1Macro":
                    den = true + pred
                    present = den > 0
                    f = np.where(present, 2 * tp / np.where(present, den, 1), 0.0)
                    return f.sum(axis=1) / np.maximum(present.sum(axis=1), 1)
                i = self._pos
                tpi, fp, fn = tp[:, i], pred[:, i] - tp[:, i], true[:, i] - tp[:, i]
                num, den = {"f1": (2 * tpi, 2 * tpi + fp + fn), "precision": (tpi, tpi + fp),
                            "recall": (tpi, tpi + fn), "jaccardSimilarityScore": (tpi, tpi + fp + fn)}[name]
                return np.where(den > 0, num / np.where(den > 0, den, 1), 0.0)
            n = s[:, 4]
            if name == "meanSquaredError":
                return s[:, 0] / n
            if name == "rootMeanSquaredError":
                return np.sqrt(s[:, 0] / n)
            if name == "meanAbsoluteError":
                return s[:, 1] / n
            sst = s[:, 3] - s[:, 2] ** 2 / n
            ok = sst > 1e-12 * np.maximum(s[:, 3], 1e-300)
            return np.where(ok, 1.0 - s[:, 0] / np.where(ok, sst, 1.0),
                            np.where(s[:, 0] <= 0, 1.0, 0.0))

    # ------------------------------------------------------------------ ROC AUC
    def _prepare_auc(self) -> None:
        """Each area's (row of each element, positive?, tie-group starts), sorted once by
        score, for :meth:`auc_values`: the positive class (rocAuc), every class one
        against the rest (rocAucMacro), or all (row, class) cells pooled (rocAucMicro)."""
        from d3mkit.scoring.metrics import pos_label_for_auc, class_scores
        c = self.call
        if c.kw.get("confidence") is None:
            return
        tc, mat, cls = class_scores(c.yt, c.yp, c.kw["confidence"], c.kw.get("classes"))
        n, k = mat.shape
        rows = np.arange(n)
        name = self.metric.name
        if name == "rocAuc":
            if k != 2:
                return
            j = pos_label_for_auc(cls, c.kw.get("posLabel"))
            areas = [(rows, tc == j, mat[:, j])]
        elif name == "rocAucMacro":
            areas = [(rows, tc == j, mat[:, j]) for j in range(k)]
        else:
            onehot = np.zeros((n, k), dtype=bool)
            onehot[rows, tc] = True
            areas = [(np.repeat(rows, k), onehot.ravel(), mat.ravel())]
        self._auc = []
        for r, pos, score in areas:
            order = np.argsort(score, kind="stable")
            sc = score[order]
            starts = np.r_[0, np.flatnonzero(np.diff(sc) != 0) + 1]
            self._auc.append((r[order], pos[order], starts))

    def auc_values(self, w: np.ndarray) -> np.ndarray:
        """The ROC AUC under each row of the ``(B, n)`` weights: weighted positives
        outranking weighted negatives (ties count one half) over positive x negative
        weight; a macro mean leaves out the classes a resample has no positive or no
        negative of (as the function does)."""
        w = np.asarray(w, dtype=np.float64)
        areas = []
        for rows, pos, starts in self._auc:
            wr = w[:, rows]
            wp = np.where(pos, wr, 0.0)
            wn = wr - wp
            gp = np.add.reduceat(wp, starts, axis=1)
            gn = np.add.reduceat(wn, starts, axis=1)
            below = np.cumsum(gn, axis=1) - gn
            num = (gp * (below + 0.5 * gn)).sum(axis=1)
            den = gp.sum(axis=1) * gn.sum(axis=1)
            with np.errstate(all="ignore"):
                areas.append(np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan))
        a = np.column_stack(areas)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.nanmean(a, axis=1)

    # ------------------------------------------------------------------ the function
    def by_function(self, parts_per_resample) -> np.ndarray:
        """The metric on each resample, one call per resample: ``parts_per_resample``
        yields, per resample, the ``(call, unit positions)`` parts of
        :func:`~d3mkit.evaluate.units.assemble`. A call with several pieces (a mean over
        targets) is the mean of its pieces on the same draw."""
        from d3mkit.evaluate.units import assemble
        from d3mkit.scoring.compute import call_metric
        out = []
        for parts in parts_per_resample:
            vals = []
            try:
                for j in range(len(parts[0][0].pieces)):
                    piece = [(Piece(c, j), i) for c, i in parts]
                    vals.append(call_metric(self.metric, *assemble(piece)))
                v = float(np.mean(vals))
            except (ValueError, ZeroDivisionError, TypeError, IndexError, KeyError):
                v = math.nan
            out.append(v if math.isfinite(v) else math.nan)
        return np.asarray(out, dtype=float)

    def correct(self) -> np.ndarray | None:
        """Per row, whether the prediction is right (rows-layout label metrics; McNemar)."""
        if self.metric.name not in LABEL_FORMS or self.call.layout != "rows" or np.ndim(self.call.yt) != 1:
            return None
        if getattr(self, "_correct", None) is None:
            self._correct = np.asarray(self.call.yt, dtype=object) == np.asarray(self.call.yp, dtype=object)
        return self._correct


class Piece:
    """One piece of a call seen as a call (what :func:`assemble` reads)."""

    def __init__(self, call, j: int):
        self.layout, self.n_rows, self.units = call.layout, call.n_rows, call.units
        self.yt, self.yp, self.kw = call.pieces[j]
        self._call = call
        self.pieces = [call.pieces[j]]

    def groups(self):
        return self._call.groups()
