"""objectDetectionAP: PASCAL VOC average precision of bounding boxes, grouped by image.

Boxes are ``x_min, y_min, x_max, y_max`` in pixels with the VOC "+1" convention (a box
from 10 to 20 is 11 pixels wide), as the seed's and the D3M reference package's code
compute it. Detections are taken in descending confidence; a detection is a true
positive when its best-overlapping ground-truth box in the same image overlaps it by
more than ``ovthresh`` (IoU) and that box was not already claimed by an earlier
detection.

Ties (and a file without confidences, where every detection ties) are broken as the D3M
reference package (d3m 2022.5.5, ``ObjectDetectionAveragePrecisionMetric``) breaks them,
a rule that does not depend on the order of the rows: among equal confidences,
detections are taken by ``x_min, y_min, x_max, y_max`` ascending, then by their image's
position in the truth (d3m aligns the predictions to the truth's order before its stable
sort; images the truth does not have come last, by name). Identical boxes of one image
are interchangeable, so any permutation of the rows gives the same AP, and a file with
ties — a constant confidence, or the per-(image, box) layout of d3m's
``construct_confidence`` — scores as in d3m. (The seed paper's implementation takes ties
in file order, which gave its second example 0.0625. With distinct confidences all
agree.)

The matching is vectorised: each detection's best box and overlap do not depend on the
order, so only "first claim of a box" does, which is a stable unique over the sorted
detections.

The seed's two examples:

>>> dets = [["img_00285.png", 330, 463, 387, 505], ["img_00285.png", 420, 433, 451, 498],
...         ["img_00285.png", 328, 465, 403, 540], ["img_00285.png", 480, 477, 508, 522],
...         ["img_00285.png", 357, 460, 417, 537], ["img_00285.png", 356, 456, 391, 521],
...         ["img_00225.png", 345, 460, 415, 547], ["img_00225.png", 381, 362, 455, 513],
...         ["img_00225.png", 382, 366, 416, 422], ["img_00225.png", 730, 463, 763, 583]]
>>> conf = [0.0739, 0.0910, 0.1008, 0.1012, 0.1058, 0.0843, 0.0539, 0.0542, 0.0559, 0.0588]
>>> gts = [["img_00285.png", 480, 457, 515, 529], ["img_00285.png", 480, 457, 515, 529],
...        ["img_00225.png", 522, 540, 576, 660], ["img_00225.png", 739, 460, 768, 545]]
>>> def split(rows):
...     return [r[0] for r in rows], [r[1:] for r in rows]
>>> (gi, gb), (di, db) = split(gts), split(dets)
>>> average_precision(gb, gi, db, di, confidence=conf)
0.125
>>> round(average_precision(gb, gi, db, di), 6)   # ties by x_min: the hit is 9th
0.027778
"""

from __future__ import annotations

import numpy as np

from d3mkit.core.lazy import pandas as pd   # imported by the branches that use it
from d3mkit.core.registry import register_metric


def _voc_ap(rec: np.ndarray, prec: np.ndarray, use_07_metric: bool = False) -> float:
    """Area under the precision envelope (VOC2010+), or the VOC07 11-point mean."""
    if use_07_metric:
        total = 0.0
        for t in np.arange(0.0, 1.1, 0.1):
            sel = prec[rec >= t]
            total += (sel.max() if sel.size else 0.0) / 11.0
        return float(total)
    mrec = np.concatenate(([0.0], rec, [1.0]))
    mpre = np.concatenate(([0.0], prec, [0.0]))
    mpre = np.maximum.accumulate(mpre[::-1])[::-1]
    i = np.flatnonzero(mrec[1:] != mrec[:-1])
    return float(np.sum((mrec[i + 1] - mrec[i]) * mpre[i + 1]))


def match_detections(true_boxes, true_images, pred_boxes, pred_images, confidence=None,
                     ovthresh: float = 0.5):
    """``(order, tp)``: the detection order (descending confidence, ties by box
    coordinates, then the image's position in the truth) and a 0/1 true-positive flag per
    detection in that order."""
    gb = np.asarray(true_boxes, dtype=float).reshape(-1, 4)
    db = np.asarray(pred_boxes, dtype=float).reshape(-1, 4)
    nd = len(db)
    conf = np.zeros(nd) if confidence is None else np.asarray(confidence, dtype=float)
    # truth images in order of first appearance: the last tie-breaker, as d3m's alignment
    gcode, images = pd.factorize(np.asarray(true_images, dtype=object))
    dcode = pd.Index(images).get_indexer(np.asarray(pred_images, dtype=object)) if nd else \
        np.zeros(0, np.int64)
    position = dcode.astype(np.int64)
    unknown = position < 0
    if unknown.any():
        names = pd.factorize(np.asarray(pred_images, dtype=object)[unknown].astype(str), sort=True)[0]
        position[unknown] = len(images) + names
    order = np.lexsort((position, db[:, 3], db[:, 2], db[:, 1], db[:, 0], -conf)) if nd else \
        np.zeros(0, np.int64)
    if nd == 0 or len(gb) == 0:
        return order, np.zeros(nd)
    # group truth boxes by image; pad to (images, max boxes per image, 4)
    gsort = np.argsort(gcode, kind="stable")
    counts = np.bincount(gcode, minlength=len(images))
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    slot = np.arange(len(gb)) - np.repeat(starts, counts)
    m = int(counts.max())
    pad = np.full((len(images), m, 4), np.nan)
    pad[gcode[gsort], slot, :] = gb[gsort]
    ovmax = np.full(nd, -np.inf)
    jmax = np.zeros(nd, dtype=np.int64)
    has = np.flatnonzero(dcode >= 0)
    chunk = max(1, 2_000_000 // max(m, 1))
    for s in range(0, len(has), chunk):
        rows = has[s:s + chunk]
        g = pad[dcode[rows]]                       # (r, m, 4)
        b = db[rows][:, None, :]                   # (r, 1, 4)
        iw = np.maximum(np.minimum(g[..., 2], b[..., 2]) - np.maximum(g[..., 0], b[..., 0]) + 1.0, 0.0)
        ih = np.maximum(np.minimum(g[..., 3], b[..., 3]) - np.maximum(g[..., 1], b[..., 1]) + 1.0, 0.0)
        inter = iw * ih
        union = ((b[..., 2] - b[..., 0] + 1.0) * (b[..., 3] - b[..., 1] + 1.0)
                 + (g[..., 2] - g[..., 0] + 1.0) * (g[..., 3] - g[..., 1] + 1.0) - inter)
        ov = inter / union
        ov = np.where(np.isnan(ov), -np.inf, ov)
        jmax[rows] = np.argmax(ov, axis=1)
        ovmax[rows] = ov[np.arange(len(rows)), jmax[rows]]
    # in detection order: a hit claims (image, box); only its first claim is a TP
    hit = ovmax[order] > ovthresh
    key = dcode[order].astype(np.int64) * m + jmax[order]
    tp = np.zeros(nd)
    hit_pos = np.flatnonzero(hit)
    _, first = np.unique(key[hit_pos], return_index=True)
    tp[hit_pos[first]] = 1.0
    return order, tp


def average_precision(true_boxes, true_images, pred_boxes, pred_images, confidence=None,
                      ovthresh: float = 0.5, use_07_metric: bool = False) -> float:
    """VOC average precision of detections against ground-truth boxes.

    Parameters
    ----------
    true_boxes, pred_boxes : array-like, shape (n, 4)
        ``x_min, y_min, x_max, y_max`` per box.
    true_images, pred_images : array-like, shape (n,)
        The image each box belongs to.
    confidence : array-like, shape (n_pred,), optional
        Detection scores; without them every detection has the same confidence.
    ovthresh : float
        IoU a detection must exceed to match a box (0.5).
    use_07_metric : bool
        VOC2007's 11-point interpolated AP instead of the area under the envelope.
    """
    npos = len(np.asarray(true_boxes, dtype=float).reshape(-1, 4))
    _order, tp = match_detections(true_boxes, true_images, pred_boxes, pred_images,
                                  confidence, ovthresh)
    if npos == 0:
        return 0.0
    ctp = np.cumsum(tp)
    cfp = np.cumsum(1.0 - tp)
    rec = ctp / float(npos)
    prec = ctp / np.maximum(ctp + cfp, np.finfo(np.float64).eps)
    return _voc_ap(rec, prec, use_07_metric)


@register_metric("objectDetectionAP", description='Average precision (VOC, overlap 0.5) of the predicted boxes against the true ones, matched image by image.', higher_is_better=True, best=1.0, worst=0.0,
                 task_types=("objectDetection",), params=("ovthresh", "use07Metric"),
                 standard=True, layout="objectDetection",
                 inputs=("confidence", "images_true", "images_pred"))
def object_detection_ap(y_true, y_pred, confidence=None, images_true=None, images_pred=None,
                        ovthresh=0.5, use07Metric=False) -> float:
    """VOC AP (overlap 0.5) of predicted boxes against the truth, matched per image.

    ``y_true``/``y_pred`` are ``(n, 4)`` box arrays, ``images_true``/``images_pred`` the
    image column of each row (the scorer aligns by image, not d3mIndex).
    """
    if images_true is None or images_pred is None:
        raise ValueError("objectDetectionAP needs images_true= and images_pred=")
    return average_precision(y_true, images_true, y_pred, images_pred, confidence,
                             float(ovthresh), bool(use07Metric))
