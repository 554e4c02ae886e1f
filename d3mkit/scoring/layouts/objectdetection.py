"""The ``objectDetection`` layout: any number of rows per image, keyed by the image column
(or, in the D3M layout without it, by the image each d3mIndex names); boxes parsed and
checked (:func:`d3mkit.scoring.values.parse_boxes`)."""

from __future__ import annotations

import numpy as np

from d3mkit.core.lazy import pandas as pd   # imported by the branches that use it
from d3mkit.core.errors import error, warning
from d3mkit.scoring.layouts.base import Aligned, Context, Layout
from d3mkit.scoring.values import confidence_values, lines, parse_boxes, read_only, rows_text


class ObjectDetectionLayout(Layout):
    name = "objectDetection"
    supplies = ("confidence", "images_true", "images_pred")

    def detect(self, ctx: Context) -> bool:
        return bool(ctx.truth.image_column)

    def align(self, ctx: Context):
        return _align_od(ctx.truth, ctx.df, ctx.path, ctx.conf_col, ctx.issues)

    def inputs(self, aligned, target, stacked):
        return {"confidence": aligned.confidence, "images_true": aligned.images_true,
                "images_pred": aligned.images_pred}

    def calls(self, aligned, all_targets):
        return super().calls(aligned, False)   # one target, the boxes


def image_by_index(truth) -> pd.Series | None:
    """d3mIndex -> image of an objectDetection truth, or None when a d3mIndex names
    several images (then predictions must carry the image column)."""
    pairs = pd.DataFrame({"i": truth.index, "m": np.asarray(truth.frame[truth.image_column])}).drop_duplicates()
    if pairs["i"].duplicated().any():
        return None
    return pd.Series(pairs["m"].to_numpy(), index=pd.Index(pairs["i"].to_numpy()))


def _align_od(truth, df, path, conf_col, issues):
    img = truth.image_column
    t = truth.targets[0]
    if len(truth.targets) != 1:
        issues.append(error("predictions.targets", "", "objectDetection supports one target "
                            "(the bounding box column)", path))
        return issues
    timg = np.asarray(truth.frame[img]).astype(object)
    pimg = np.asarray(df[img]).astype(object)
    tb = parse_boxes(np.asarray(truth.frame[t]), t, truth.path, issues, truth.rows)
    pb = parse_boxes(np.asarray(df[t]), t, path, issues)
    conf = confidence_values(df, conf_col, path, issues) if conf_col is not None else None
    known = pd.Index(pd.unique(timg))
    extra = pd.Index(pd.unique(pimg)).difference(known)
    if len(extra):
        pos = np.flatnonzero(known.get_indexer(pimg) < 0)
        issues.append(error("predictions.image_set", "",
                            f"{len(extra)} image(s) are not TEST images: "
                            f"{rows_text(sorted(map(str, extra)))}", path, row=lines(pos, path)[0], column=img))
    unseen = known.difference(pd.Index(pd.unique(pimg)))
    if len(unseen):
        issues.append(warning("predictions.image_missing", "",
                              f"{len(unseen)} TEST image(s) have no detections: "
                              f"{rows_text(sorted(map(str, unseen)))}", path, column=img))
    if any(i.is_error for i in issues):
        return issues
    return Aligned("objectDetection", read_only(truth.index), truth.targets, {t: read_only(tb)}, {t: read_only(pb)},
                   truth.col_types, confidence=None if conf is None else read_only(conf),
                   images_true=read_only(timg), images_pred=read_only(pimg), issues=issues)
