"""A metric's value on many bootstrap resamples at once (the arrays of one fold or pool).

:class:`Resampler` takes one metric call of the scorer — the registry metric, the aligned
truth and predictions, its keyword arguments — and returns the metric's value under each
row of a ``(B, n)`` weight matrix (:func:`d3mkit.evaluate.stats.resample_blocks`):

* **sufficient statistics** for the metrics that are sums over rows: the label metrics
  (accuracy, f1Micro, f1Macro, and the binary f1 / precision / recall / jaccard of a
  posLabel) from per-label counts ``W @ X`` (true, predicted and correct indicators in
  a sparse ``X``), the error metrics (MSE, RMSE, MAE, rSquared) from ``W @ errors``:
  one matrix product per resample block, no loop over resamples or rows;
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


def _label_columns(yt: np.ndarray, yp: np.ndarray):
    """Codes of the union of labels and a sparse ``(n, 3K)`` indicator matrix:
    columns ``[correct_k | true_k | predicted_k]``."""
    from scipy import sparse
    codes, labels = pd.factorize(np.concatenate([np.asarray(yt, dtype=object), np.asarray(yp, dtype=object)]))
    n = len(yt)
    t, p = codes[:n], codes[n:]
    k = len(labels)
    rows = np.concatenate([np.arange(n), np.arange(n), np.arange(n)])
    right = t == p
    cols = np.concatenate([np.where(right, t, -1), k + t, 2 * k + p])
    keep = cols >= 0
    x = sparse.csr_matrix((np.ones(int(keep.sum()), np.float32), (rows[keep], cols[keep])), shape=(n, 3 * k))
    return x, labels, k


class Resampler:
    """The resampled values of one metric call (see the module docstring).

    >>> from d3mkit.registry import get_metric
    >>> from d3mkit.evaluate.stats import resample_weights
    >>> yt = np.array(list("aabbc"), dtype=object); yp = np.array(list("abbbc"), dtype=object)
    >>> r = Resampler(get_metric("accuracy"), yt, yp, {}, 0.8)
    >>> r.form, r.values(np.ones((1, 5), np.float32)).tolist()
    ('sums', [0.8])
    """

    def __init__(self, metric, yt, yp, kw: dict, value: float):
        self.metric, self.yt, self.yp, self.kw = metric, yt, yp, dict(kw)
        self.n = len(yt)
        self.form = "function"
        self._x = None
        try:
            self._prepare()
            if self._x is not None:
                got = float(self._from_sums(np.ones((1, self.n), np.float32))[0])
                if abs(got - value) <= CHECK_TOL * max(1.0, abs(value)):
                    self.form = "sums"
        except (ValueError, TypeError, ZeroDivisionError):
            self.form = "function"

    # ------------------------------------------------------------------ sufficient stats
    def _prepare(self) -> None:
        name = self.metric.name
        if name in LABEL_FORMS:
            self._x, labels, self._k = _label_columns(self.yt, self.yp)
            self._pos = None
            if name in ("f1", "precision", "recall", "jaccardSimilarityScore"):
                if self._k > 2:
                    self._x = None
                    return
                pos = self.kw.get("posLabel")
                found = [i for i, lab in enumerate(labels) if str(lab) == str(pos)]
                if not found:
                    self._x = None
                    return
                self._pos = found[0]
        elif name in ERROR_FORMS:
            t = np.asarray(self.yt, dtype=float)
            p = np.asarray(self.yp, dtype=float)
            if t.ndim != 1 or not (np.isfinite(t).all() and np.isfinite(p).all()):
                return
            e = t - p
            tc = t - t.mean()
            self._x = np.column_stack([e * e, np.abs(e), tc, tc * tc]).astype(np.float32)

    def _from_sums(self, w: np.ndarray) -> np.ndarray:
        name = self.metric.name
        n = w.sum(axis=1, dtype=np.float64)
        with np.errstate(all="ignore"):
            if name in LABEL_FORMS:
                s = np.asarray((self._x.T @ w.T).T, dtype=np.float64)     # (B, 3K)
                k = self._k
                tp, true, pred = s[:, :k], s[:, k:2 * k], s[:, 2 * k:]
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
    def _by_function(self, w: np.ndarray) -> np.ndarray:
        import warnings
        out = np.full(len(w), math.nan)
        rows = np.arange(self.n)
        counts = w.astype(np.int64)
        for b in range(len(w)):
            idx = np.repeat(rows, counts[b])
            try:
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out[b] = float(self.metric(self.yt[idx], self.yp[idx], **self.kw))
            except (ValueError, ZeroDivisionError, TypeError):
                pass
        return out

    def values(self, w: np.ndarray) -> np.ndarray:
        """The metric under each row of ``w`` (``(B, n)`` counts); NaN where it cannot be
        computed on a resample."""
        return self._from_sums(w) if self.form == "sums" else self._by_function(w)

    def correct(self) -> np.ndarray | None:
        """Per row, whether the prediction is right (label metrics only; McNemar)."""
        if self.metric.name not in LABEL_FORMS:
            return None
        return np.asarray(self.yt, dtype=object) == np.asarray(self.yp, dtype=object)
