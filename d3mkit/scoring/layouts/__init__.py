"""Step 4 of scoring, layout (this package, one module per layout): which layout a predictions table is in, and lining it up with
the truth. One strategy object per layout, each with ``detect`` (is the table in this
layout?), ``align`` (check every row and return the :class:`Aligned` bundle, or the issues)
and the metric inputs it supplies (``supplies``, :meth:`Layout.calls`):

* ``objectDetection`` (:class:`ObjectDetectionLayout`) — any number of rows per image,
  keyed by the image column (d3mIndex must be present but is not used to align); supplies
  ``confidence``, ``images_true``, ``images_pred``.
* ``multiLabel`` (:class:`MultiLabelLayout`) — the truth has one row per (d3mIndex, label)
  (taskSubType multiLabel, or a classification truth that repeats d3mIndex) and so do the
  predictions, optionally with each label's ``confidence``; rows are grouped by d3mIndex
  into label sets (:class:`d3mkit.scoring.multilabel.LabelSets`). Every TEST index needs
  at least one row and no other index may appear; a repeated (index, label) pair is a
  warning. An allTargets metric is the mean over targets.
* ``ranked`` (:class:`RankedLayout`) — several rows per d3mIndex with a ``rank`` column
  (meanReciprocalRank, hitsAtK); the hard label is the rank-1 row's value; supplies
  ``ranks`` (the rank of the true value, 500 when not listed).
* ``classes`` (:class:`ClassesLayout`) — several rows per d3mIndex, one per (index, class),
  each carrying that class's ``confidence`` (the layout the D3M reference package reads).
  Used when a single-target classification file has a confidence column and **every**
  d3mIndex has two or more rows; a file where some indices repeat and others appear once
  mixes the two layouts and is an error naming the single rows
  (``predictions.mixed_layout``), never a silent switch. The confidences form a ``(rows,
  classes)`` matrix (classes not listed get 0) and the hard label is each index's most
  confident class (ties: the first class in sorted order); supplies ``confidence`` and
  ``classes``.
* ``rows`` (:class:`RowsLayout`, the default) — one row per TEST d3mIndex, target
  columns, optional ``confidence`` (any case): the confidence of that row's predicted
  label; supplies ``confidence`` and ``codes`` (the labels' integer form,
  :class:`d3mkit.scoring.labels.LabelCodes`).

:data:`LAYOUTS` lists them in the order they are tried. Every layout also gives each call
``target_names`` and ``d3m_index``; the scorer adds ``metadata``
(:mod:`d3mkit.scoring.compute`). Locations are ``row R, column NAME`` with R the line of the
file (the header is row 1).
"""

from __future__ import annotations

import numpy as np

from d3mkit.core.lazy import pandas as pd   # imported by the branches that use it
from d3mkit.core.errors import Issue, error, warning
from d3mkit.scoring.layouts.base import Aligned, Call, Context, Layout  # noqa: F401 - the public names
from d3mkit.scoring.layouts.classes import ClassesLayout
from d3mkit.scoring.layouts.multilabel import MultiLabelLayout
from d3mkit.scoring.layouts.objectdetection import ObjectDetectionLayout, image_by_index
from d3mkit.scoring.layouts.ranked import RankedLayout
from d3mkit.scoring.layouts.rows import RowsLayout
from d3mkit.scoring.truth import Truth
from d3mkit.tables.columns import ColumnTable
from d3mkit.scoring.values import (INDEX, find_column, index_values, is_missing, lines, rows_text,
                                   same_kind)


# header-level errors after which the rows can still be checked
HEADER_ONLY = frozenset({"predictions.no_confidence", "predictions.duplicate_confidence"})


LAYOUTS: tuple[Layout, ...] = (ObjectDetectionLayout(), MultiLabelLayout(), RankedLayout(),
                               ClassesLayout(), RowsLayout())
BY_NAME = {layout.name: layout for layout in LAYOUTS}


def align(truth: Truth, df: ColumnTable, path: str, *, needs_confidence: bool = False,
          ranked: bool = False) -> Aligned | list[Issue]:
    """Check ``df`` (the predictions, strings) against ``truth``, find its layout (the first
    of :data:`LAYOUTS` whose ``detect`` holds) and line them up; returns the
    :class:`Aligned` bundle, or the list of issues when any is an error."""
    df, conf_col, rank_col, issues = _header_checks(truth, df, path, needs_confidence)
    # every issue at once: a missing or doubled confidence column does not stop the row
    # checks; a missing index, target or image does (the rows cannot be lined up)
    if any(i.is_error and i.code not in HEADER_ONLY for i in issues):
        return issues
    ctx = Context(truth, df, path, conf_col, rank_col, ranked, issues)
    layout = next(layout for layout in LAYOUTS if layout.detect(ctx))
    return layout.align(ctx)


def _header_checks(truth: Truth, df: ColumnTable, path: str, needs_confidence: bool):
    """The checks of the header (index, targets, confidence, rank and image columns):
    ``(df, confidence column, rank column, issues)``; an objectDetection file in the D3M
    layout (no image column) gets the image each d3mIndex names."""
    issues: list[Issue] = []
    cols = list(df.attrs.get("header") or df.columns)
    if INDEX not in cols:
        near = [c for c in cols if c.lower() == INDEX.lower()]
        hint = f" (found {near[0]!r}: the name is case-sensitive)" if near else ""
        issues.append(error("predictions.no_index", "", f"no {INDEX} column{hint}", path, row=1))
    missing_t = [t for t in truth.targets if t not in cols]
    if missing_t:
        issues.append(error("predictions.no_target", "",
                            f"target column(s) missing: {', '.join(missing_t)} "
                            f"(columns are: {', '.join(cols[:20])})", path, row=1))
    # a target column is never the confidence or the rank column (a target named Confidence)
    others = [c for c in cols if c not in truth.targets and c != INDEX]
    conf_col, conf_hits = find_column(others, "confidence")
    if len(conf_hits) > 1:
        issues.append(error("predictions.duplicate_confidence", "",
                            f"several confidence columns: {', '.join(conf_hits)}", path, row=1))
    rank_col, _ = find_column(others, "rank")
    if INDEX in cols and INDEX in df.columns and df[INDEX].dtype == object:
        blank = is_missing(np.asarray(df[INDEX]))
        if blank.any():
            pos = np.flatnonzero(blank)
            issues.append(error("predictions.missing_value", "",
                                f"{len(pos)} blank d3mIndex cell(s) (rows {rows_text(lines(pos, path), len(pos))}): "
                                f"every row names the TEST index it predicts", path, row=lines(pos, path)[0], column=INDEX))
    if needs_confidence and conf_col is None:
        issues.append(error("predictions.no_confidence", "",
                            "a metric of this problem needs a confidence column and there is none",
                            path, row=1))
    if truth.image_column and truth.image_column not in cols and INDEX in cols:
        # the D3M layout (d3mIndex, boxes, confidence): when every truth d3mIndex names one
        # image, a prediction's d3mIndex says its image
        image_of = image_by_index(truth)
        if image_of is None:
            issues.append(error("predictions.no_image", "",
                                f"objectDetection predictions need the {truth.image_column!r} column "
                                f"(a d3mIndex of the truth names several images)", path, row=1))
        else:
            pidx, tidx = same_kind(index_values(df[INDEX]), image_of.index.to_numpy())
            images = pd.Series(image_of.to_numpy(), index=pd.Index(tidx)).reindex(pidx).to_numpy()
            df = df.assign(**{truth.image_column: images})
            unknown = pd.isna(np.asarray(df[truth.image_column]))
            if unknown.any():
                pos = np.flatnonzero(unknown)
                issues.append(error("predictions.image_set", "",
                                    f"{len(pos)} row(s) have a d3mIndex that is not a TEST image's "
                                    f"(rows {rows_text(lines(pos, path), len(pos))})", path, row=lines(pos, path)[0], column=INDEX))
    known = {INDEX, *truth.targets, conf_col, rank_col, truth.image_column}
    extra_cols = [c for c in cols if c not in known]
    if extra_cols:
        issues.append(warning("predictions.extra_column", "",
                              f"column(s) ignored: {', '.join(extra_cols[:10])}", path, row=1))
    return df, conf_col, rank_col, issues
