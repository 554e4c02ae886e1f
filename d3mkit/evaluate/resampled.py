"""A metric's value on many bootstrap resamples at once (the arrays of one fold or pool).

:class:`Resampler` takes one metric call of the scorer — the registry metric, the aligned
truth and predictions, its keyword arguments — and returns the metric's value under each
row of a ``(B, n)`` weight matrix (:func:`d3mkit.evaluate.stats.resample_blocks`):

* **sufficient statistics** for the metrics that are sums over rows: the label metrics
  (accuracy, f1Micro, f1Macro, and the binary f1 / precision / recall / jaccard of a
  posLabel) from each resample's confusion counts — one gather of the rows' joint
  (truth, prediction) code and one ``bincount`` per block, or, when many systems share
  the block, ``W @ X`` with the block's weight matrix ``W`` (made once) and a sparse
  indicator ``X`` of each row's cell; the error metrics (MSE, RMSE, MAE, rSquared) from
  ``W @ errors``: no loop over resamples or rows;
* **the metric function itself** for everything else: one call per resample on the
  resampled rows (each call vectorised over rows).

The registry's metric function stays the one definition: a sufficient-statistics form
is used only when, with every weight 1, it gives the function's own value on the data
(checked on every call); otherwise the function is called per resample.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

LABEL_FORMS = ("accuracy", "f1Micro", "f1Macro", "f1", "precision", "recall", "jaccardSimilarityScore")
ERROR_FORMS = ("meanSquaredError", "rootMeanSquaredError", "meanAbsoluteError", "rSquared")
CHECK_TOL = 1e-5


def _joint_codes(yt: np.ndarray, yp: np.ndarray):
    """Each row's confusion cell ``truth * K + prediction`` over the union of the K labels,
    and the labels."""
    codes, labels = pd.factorize(np.concatenate([np.asarray(yt, dtype=object), np.asarray(yp, dtype=object)]))
    n = len(yt)
    k = len(labels)
    joint = codes[:n].astype(np.int64) * k + codes[n:]
    return joint.astype(np.int16 if k * k < 2 ** 15 else np.int64), labels, k


class Resampler:
    """The resampled values of one metric call (see the module docstring).

    >>> from d3mkit.registry import get_metric
    >>> yt = np.array(list("aabbc"), dtype=object); yp = np.array(list("abbbc"), dtype=object)
    >>> r = Resampler(get_metric("accuracy"), yt, yp, {}, 0.8)
    >>> r.form, r.values(np.array([[0, 1, 2, 3, 4], [0, 0, 0, 0, 1]], np.int32)).tolist()
    ('sums', [0.8, 0.8])
    """

    def __init__(self, metric, yt, yp, kw: dict, value: float):
        self.metric, self.yt, self.yp, self.kw = metric, yt, yp, dict(kw)
        self.n = len(yt)
        self.form = "function"
        self._x = None
        self._codes = None
        try:
            self._prepare()
            if self._x is not None or self._codes is not None:
                got = float(self._from_sums(np.arange(self.n, dtype=np.int32)[None, :])[0])
                if abs(got - value) <= CHECK_TOL * max(1.0, abs(value)):
                    self.form = "sums"
        except (ValueError, TypeError, ZeroDivisionError):
            self.form = "function"

    # ------------------------------------------------------------------ sufficient stats
    def _prepare(self) -> None:
        name = self.metric.name
        if name in LABEL_FORMS:
            codes, labels, self._k = _joint_codes(self.yt, self.yp)
            self._pos = None
            if self._k * self._k > 4096:       # too many cells for per-resample counts
                return
            if name in ("f1", "precision", "recall", "jaccardSimilarityScore"):
                if self._k > 2:
                    return
                pos = self.kw.get("posLabel")
                found = [i for i, lab in enumerate(labels) if str(lab) == str(pos)]
                if not found:
                    return
                self._pos = found[0]
            self._codes = codes
        elif name in ERROR_FORMS:
            t = np.asarray(self.yt, dtype=float)
            p = np.asarray(self.yp, dtype=float)
            if t.ndim != 1 or not (np.isfinite(t).all() and np.isfinite(p).all()):
                return
            e = t - p
            tc = t - t.mean()
            self._x = np.column_stack([e * e, np.abs(e), tc, tc * tc]).astype(np.float32)

    def _confusion(self, idx: np.ndarray, weights, memo: dict | None) -> np.ndarray:
        """``(B, K, K)`` confusion counts of each resample of ``idx`` (shared through
        ``memo`` by the metrics of the same truth and predictions)."""
        key = (id(self.yt), id(self.yp))
        if memo is not None and key in memo:
            return memo[key]
        cm = self._count(idx, weights)
        if memo is not None:
            memo[key] = cm
        return cm

    def _count(self, idx: np.ndarray, weights) -> np.ndarray:
        from d3mkit.evaluate.stats import block_counts
        k = self._k
        if weights is None:
            return block_counts(self._codes, idx, k * k).reshape(-1, k, k).astype(np.float64)
        if self._x is None:
            from scipy import sparse
            self._x = sparse.csr_matrix((np.ones(self.n, np.float32),
                                         (np.arange(self.n), self._codes.astype(np.int64))),
                                        shape=(self.n, k * k))
        w = weights()
        return np.asarray((self._x.T @ w.T).T, dtype=np.float64).reshape(-1, k, k)

    def _from_sums(self, idx: np.ndarray, weights=None, memo: dict | None = None) -> np.ndarray:
        name = self.metric.name
        n = float(idx.shape[1])
        with np.errstate(all="ignore"):
            if name in LABEL_FORMS:
                cm = self._confusion(idx, weights, memo)
                tp = np.diagonal(cm, axis1=1, axis2=2)
                true, pred = cm.sum(axis=2), cm.sum(axis=1)
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
            if weights is None:
                from d3mkit.evaluate.stats import block_weights
                w = block_weights(idx, self.n)
            else:
                w = weights()
            s = (w @ self._x).astype(np.float64)                          # (B, 4)
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

    # ------------------------------------------------------------------ the function
    def _by_function(self, idx: np.ndarray) -> np.ndarray:
        import warnings
        out = np.full(len(idx), math.nan)
        for b in range(len(idx)):
            rows = np.sort(idx[b])
            try:
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out[b] = float(self.metric(self.yt[rows], self.yp[rows], **self.kw))
            except (ValueError, ZeroDivisionError, TypeError):
                pass
        return out

    def values(self, idx: np.ndarray, weights=None, memo: dict | None = None) -> np.ndarray:
        """The metric on each resample of ``idx`` (a ``(B, n)`` block of row indices); NaN
        where it cannot be computed on a resample. ``weights``: a function returning the
        block's weight matrix (:func:`~d3mkit.evaluate.stats.block_weights`, made once for
        all the systems sharing the block), or None to count each resample directly;
        ``memo``: a dict kept for one block, so that the metrics of one truth and one
        predictions array count the block once."""
        return self._from_sums(idx, weights, memo) if self.form == "sums" else self._by_function(idx)

    def correct(self) -> np.ndarray | None:
        """Per row, whether the prediction is right (label metrics only; McNemar)."""
        if self.metric.name not in LABEL_FORMS:
            return None
        return np.asarray(self.yt, dtype=object) == np.asarray(self.yp, dtype=object)
