"""What one bootstrap draw is, for each predictions layout, and a metric's inputs for
drawn units (``d3mkit evaluate``'s resampling of a scored metric call).

The *unit* is what a TEST set is a sample of:

* a row (one d3mIndex) of the ``rows``, ``classes`` and ``ranked`` layouts: its truth,
  prediction, confidence (a value or a row of the class matrix), rank, metadata row;
* a d3mIndex of ``multiLabel``: its whole true and predicted label set (a row of the
  indicator matrices);
* an image of ``objectDetection``: all its true boxes and all its detections.

:func:`unit_keys` names a call's units (d3mIndex or image, as text: the same unit has the
same key in every fold and repeat); :func:`assemble` builds the metric's ``(y_true,
y_pred, inputs)`` for a multiset of drawn units of one call or of several (the folds of
a repeat pooled): per-row arrays and metadata rows are taken, confidence matrices put
over the union of the classes, label sets over the union of the labels, and each drawn
copy of an image is a new image (drawn twice, it counts twice). The ``codes`` input (the
labels' integer form, a speed-up of the rows layout) is dropped: the metric finds the
codes itself.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

ROW_LAYOUTS = ("rows", "classes", "ranked")
DROPPED = ("codes",)


def unit_keys(layout: str, yt, kw: dict, index: np.ndarray) -> np.ndarray:
    """The key of each unit of a call, in unit order (text)."""
    if layout == "objectDetection":
        return np.asarray(pd.unique(np.asarray(kw["images_true"], dtype=object)), dtype=object).astype(str)
    return np.asarray(index).astype(str)


def _take_rows(parts) -> tuple:
    first = parts[0][0]
    yt = np.concatenate([c.yt[i] for c, i in parts])
    yp = np.concatenate([c.yp[i] for c, i in parts])
    kw = {}
    for key, v in first.kw.items():
        if key in DROPPED:
            continue
        if key == "classes":
            kw[key] = v
        elif isinstance(v, np.ndarray) and v.ndim >= 1 and len(v) == first.n_rows:
            kw[key] = np.concatenate([c.kw[key][i] for c, i in parts])
        elif isinstance(v, pd.DataFrame) and len(v) == first.n_rows:
            kw[key] = pd.concat([c.kw[key].iloc[i] for c, i in parts], ignore_index=True)
        else:
            kw[key] = v
    if first.kw.get("classes") is not None and len(parts) > 1:
        union = np.asarray(sorted(set().union(*(set(c.kw["classes"].tolist()) for c, _ in parts))), dtype=object)
        blocks = []
        for c, i in parts:
            m = np.zeros((len(i), len(union)))
            m[:, pd.Index(union).get_indexer(c.kw["classes"])] = c.kw["confidence"][i]
            blocks.append(m)
        kw["classes"], kw["confidence"] = union, np.vstack(blocks)
    return yt, yp, kw


def _take_sets(parts) -> tuple:
    from d3mkit.scoring.multilabel import LabelSets
    sets = [(c.yt, c.yp, i) for c, i in parts]
    labels = sets[0][0].labels
    if len(sets) > 1:
        labels = np.asarray(sorted(set().union(*(set(t.labels.tolist()) for t, _, _ in sets))), dtype=object)
    k = len(labels)

    def widen(m, own, rows):
        out = np.zeros((len(rows), k), dtype=m.dtype)
        out[:, pd.Index(labels).get_indexer(own)] = m[rows]
        return out
    truth = np.vstack([widen(t.truth, t.labels, i) for t, _, i in sets])
    pred = np.vstack([widen(p.pred, p.labels, i) for _, p, i in sets])
    scores = None
    if all(p.scores is not None for _, p, _ in sets):
        scores = np.vstack([widen(p.scores, p.labels, i) for _, p, i in sets])
    first = parts[0][0]
    kw = {k2: v for k2, v in first.kw.items() if k2 not in DROPPED}
    if "d3m_index" in kw:
        kw["d3m_index"] = np.concatenate([np.asarray(c.kw["d3m_index"])[i] for c, i in parts])
    return LabelSets(truth, pred, labels, scores), LabelSets(truth, pred, labels, scores), kw


class _Groups:
    """The rows of each unit of one side (truth or detections) of an objectDetection call."""

    def __init__(self, images, keys):
        code = pd.Index(keys).get_indexer(np.asarray(images, dtype=object).astype(str))
        keep = np.flatnonzero(code >= 0)
        self.order = keep[np.argsort(code[keep], kind="stable")]
        self.count = np.bincount(code[keep], minlength=len(keys))
        self.start = np.r_[0, np.cumsum(self.count)[:-1]]

    def take(self, units: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rows of the drawn units, the draw position of each row)."""
        c = self.count[units]
        first = np.cumsum(c) - c
        draw = np.repeat(np.arange(len(units)), c)
        pos = np.arange(int(c.sum())) - np.repeat(first, c) + np.repeat(self.start[units], c)
        return self.order[pos], draw


def _take_boxes(parts) -> tuple:
    tb, pb, ti, pi, conf = [], [], [], [], []
    offset = 0
    has_conf = parts[0][0].kw.get("confidence") is not None
    for c, units in parts:
        g = c.groups()
        trows, tdraw = g[0].take(units)
        prows, pdraw = g[1].take(units)
        tb.append(c.yt[trows])
        pb.append(c.yp[prows])
        ti.append(tdraw + offset)
        pi.append(pdraw + offset)
        if has_conf:
            conf.append(np.asarray(c.kw["confidence"])[prows])
        offset += len(units)
    kw = {k: v for k, v in parts[0][0].kw.items() if k not in DROPPED}
    kw["images_true"] = np.concatenate(ti).astype(object)
    kw["images_pred"] = np.concatenate(pi).astype(object)
    if has_conf:
        kw["confidence"] = np.concatenate(conf)
    if "d3m_index" in kw:
        kw["d3m_index"] = None
    return np.concatenate(tb).reshape(-1, 4), np.concatenate(pb).reshape(-1, 4), kw


def assemble(parts) -> tuple:
    """``(y_true, y_pred, inputs)`` of the metric for the drawn units: ``parts`` is a list
    of ``(call, unit positions)`` (positions repeat when a unit is drawn more than once;
    one part per fold pooled), every call of one layout and one metric."""
    layout = parts[0][0].layout
    if layout == "multiLabel":
        return _take_sets(parts)
    if layout == "objectDetection":
        return _take_boxes(parts)
    return _take_rows(parts)


def object_groups(yt, yp, kw: dict, keys: np.ndarray):
    """The truth and detection rows of each image (:class:`_Groups`, for
    :func:`assemble`)."""
    return _Groups(kw["images_true"], keys), _Groups(kw["images_pred"], keys)
