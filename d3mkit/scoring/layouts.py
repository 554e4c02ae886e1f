"""Step 4 of scoring, layout: which layout a predictions table is in, and lining it up with
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

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from d3mkit.errors import Issue, error, warning
from d3mkit.limits import how_to_raise, limit
from d3mkit.scoring.labels import LabelCodes, from_codes, joint_codes
from d3mkit.scoring.truth import Truth
from d3mkit.scoring.values import (INDEX, NUMERIC_TYPES, confidence_values, find_column, index_issues,
                                   index_values, is_missing, lines, lookup, parse_boxes, parse_labels,
                                   parse_numeric, parse_target, read_only, rows_text, same_kind,
                                   unseen_labels)
from d3mkit.validation import coltypes

MAX_RANK = 500.0
# header-level errors after which the rows can still be checked
HEADER_ONLY = frozenset({"predictions.no_confidence", "predictions.duplicate_confidence"})


@dataclass
class Aligned:
    """Truth and predictions lined up row by row (arrays are read-only).

    ``truth``/``pred`` map target name to arrays (floats for numeric colTypes, strings
    otherwise; ``(n, 4)`` boxes for objectDetection). ``confidence`` is 1-D per row, or
    2-D with ``classes``; ``ranks`` maps target to the rank of the true value. ``codes``
    (text targets of the rows layout) maps target to ``(truth codes, prediction codes,
    labels)`` with ``truth[t] == labels[truth codes]``: the integer form the parse already
    found, which the rows layout supplies to the metrics declaring the ``codes`` input
    (:meth:`label_codes`)."""

    layout: str
    index: np.ndarray
    targets: list[str]
    truth: dict[str, np.ndarray]
    pred: dict[str, np.ndarray]
    col_types: dict[str, str]
    confidence: np.ndarray | None = None
    classes: np.ndarray | None = None
    ranks: dict[str, np.ndarray] | None = None
    images_true: np.ndarray | None = None
    images_pred: np.ndarray | None = None
    issues: list[Issue] = field(default_factory=list)
    codes: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None

    _sorted: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def n_rows(self) -> int:
        return len(self.index)

    def label_codes(self, target: str) -> LabelCodes | None:
        """The :class:`LabelCodes` of ``target`` (sorted once per bundle), or None."""
        if not self.codes or target not in self.codes:
            return None
        if target not in self._sorted:
            self._sorted[target] = from_codes(*self.codes[target])
        return self._sorted[target]

    def stacked(self) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, targets)`` arrays of truth and predictions (an allTargets metric's input)."""
        if "stacked" not in self._sorted:
            self._sorted["stacked"] = (_stack([self.truth[t] for t in self.targets]),
                                       _stack([self.pred[t] for t in self.targets]))
        return self._sorted["stacked"]


def _stack(arrays: list[np.ndarray]) -> np.ndarray:
    if all(a.dtype.kind == "f" for a in arrays):
        out = np.column_stack(arrays).astype(float)
    else:
        out = np.empty((len(arrays[0]), len(arrays)), dtype=object)
        for j, a in enumerate(arrays):
            out[:, j] = a
    out.flags.writeable = False
    return out


@dataclass(frozen=True)
class Call:
    """One call of a metric function: the scores.csv target (None: the metric's own name),
    the arrays, and the inputs the layout supplies for it (the scorer passes those the
    metric declares)."""
    target: str | None
    y_true: object
    y_pred: object
    inputs: dict


@dataclass
class Context:
    """What detection and alignment look at: the truth, the predictions table (strings),
    its name, the confidence and rank columns found in the header, whether a planned
    metric ranks, and the issues so far."""
    truth: Truth
    df: pd.DataFrame
    path: str
    conf_col: str | None
    rank_col: str | None
    ranked: bool
    issues: list[Issue]

    @cached_property
    def indices(self) -> tuple[np.ndarray, np.ndarray]:
        """(predictions' d3mIndex, truth's d3mIndex), of one kind (integers or strings)."""
        return same_kind(index_values(self.df[INDEX]), self.truth.index)

    @cached_property
    def order(self) -> tuple[np.ndarray, bool]:
        """(each truth row's prediction row, whether each d3mIndex has one row)."""
        return lookup(*self.indices)

    @property
    def repeated(self) -> bool:
        return not self.order[1]

    @property
    def single_target(self) -> bool:
        return len(self.truth.targets) == 1


class Layout:
    """A predictions layout: :meth:`detect`, :meth:`align`, and the metric inputs it
    supplies (:attr:`supplies`, :meth:`inputs`, :meth:`calls`)."""
    name = ""
    supplies: tuple[str, ...] = ()

    def detect(self, ctx: Context) -> bool:
        raise NotImplementedError   # pragma: no cover - every layout defines it

    def align(self, ctx: Context) -> "Aligned | list[Issue]":
        raise NotImplementedError   # pragma: no cover - every layout defines it

    def inputs(self, aligned: Aligned, target: str, stacked: bool) -> dict:
        """The inputs of one call for ``target`` (``stacked``: the call gets every target)."""
        return {}

    def calls(self, aligned: Aligned, all_targets: bool) -> tuple[list[Call], bool]:
        """How one metric is called on ``aligned``: ``(calls, average)``; with ``average``
        the metric's value is the mean over the calls. An allTargets metric gets the
        ``(rows, targets)`` arrays once; a singleTarget one each target."""
        targets = aligned.targets
        if all_targets:
            yt, yp = aligned.stacked()
            return [Call(None, yt, yp, {**self.inputs(aligned, targets[0], True),
                                        "target_names": tuple(targets), "d3m_index": aligned.index})], False
        multi = len(targets) > 1
        return [Call(t if multi else None, aligned.truth[t], aligned.pred[t],
                     {**self.inputs(aligned, t, False), "target_names": (t,), "d3m_index": aligned.index})
                for t in targets], False


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


class MultiLabelLayout(Layout):
    name = "multiLabel"

    def detect(self, ctx: Context) -> bool:
        return ctx.truth.multilabel

    def align(self, ctx: Context):
        return _align_multilabel(ctx.truth, ctx.df, ctx.path, ctx.conf_col, ctx.issues)

    def calls(self, aligned, all_targets):
        # label sets per target; allTargets averages the targets (as d3m.metrics does)
        targets = aligned.targets
        multi = len(targets) > 1
        return [Call(t if multi and not all_targets else None, aligned.truth[t], aligned.pred[t],
                     {"target_names": (t,), "d3m_index": aligned.index}) for t in targets], \
            all_targets and multi


class RankedLayout(Layout):
    name = "ranked"
    supplies = ("ranks",)

    def detect(self, ctx: Context) -> bool:
        return ctx.repeated and (ctx.ranked or ctx.rank_col is not None) and ctx.single_target

    def align(self, ctx: Context):
        pred_idx, truth_idx = ctx.indices
        return _align_ranked(ctx.truth, truth_idx, ctx.df, pred_idx, ctx.path, ctx.rank_col,
                             ctx.conf_col, ctx.issues)

    def inputs(self, aligned, target, stacked):
        return {"ranks": aligned.ranks[target]}


class ClassesLayout(Layout):
    name = "classes"
    supplies = ("confidence", "classes")

    def detect(self, ctx: Context) -> bool:
        return ctx.repeated and ctx.conf_col is not None and ctx.single_target \
            and ctx.truth.col_types[ctx.truth.targets[0]] not in NUMERIC_TYPES

    def align(self, ctx: "Context"):
        truth, df, path, conf_col, issues = ctx.truth, ctx.df, ctx.path, ctx.conf_col, ctx.issues
        pred_idx, truth_idx = ctx.indices
        once = ~pd.Index(pred_idx).duplicated(keep=False)
        if once.any():   # the layout is decided by the whole file: no silent switch
            rows = lines(np.flatnonzero(once), path)
            issues.append(error("predictions.mixed_layout", f"row {rows[0]}, column {INDEX}",
                                f"the file mixes layouts: {int((~once).sum())} rows repeat their "
                                f"d3mIndex (one row per (index, class) with its confidence) but "
                                f"{len(rows)} d3mIndex value(s) have a single row (rows "
                                f"{rows_text(rows)}); list every index once, or every index with "
                                f"two or more classes", path))
            return issues
        return _align_classes(truth, truth_idx, df, pred_idx, path, conf_col, issues)

    def inputs(self, aligned, target, stacked):
        return {"confidence": aligned.confidence, "classes": aligned.classes}


class RowsLayout(Layout):
    name = "rows"
    supplies = ("confidence", "codes")

    def detect(self, ctx: Context) -> bool:
        return True

    def align(self, ctx: "Context"):
        truth, df, path, conf_col, issues = ctx.truth, ctx.df, ctx.path, ctx.conf_col, ctx.issues
        pred_idx, truth_idx = ctx.indices
        order, once_each = ctx.order
        repeated = not once_each
        ranked = ctx.ranked
        if ranked:
            issues.append(error("predictions.no_rank", "row 1",
                                "a ranking metric needs rows (d3mIndex, value, rank) with a rank "
                                "column", path))
        if repeated:
            dup = pd.Index(pred_idx).duplicated(keep=False)
            pos = np.flatnonzero(dup)
            vals = pd.unique(pred_idx[dup])
            issues.append(error("predictions.duplicate_index", f"row {lines(pos, path)[0]}, column {INDEX}",
                                f"{len(vals)} d3mIndex value(s) appear more than once "
                                f"({rows_text(vals)}; rows {rows_text(lines(pos, path), len(pos))})", path))
            _check_rows(truth, df, conf_col, path, issues)
            return issues
        missing_mask, extra_mask = index_issues(pred_idx, truth_idx, path, issues, pred_pos=order)
        if missing_mask.any() or extra_mask.any():
            _check_rows(truth, df, conf_col, path, issues)
            return issues
        identity = bool((order == np.arange(len(order))).all())
        tvals, pvals, codes = {}, {}, {}
        for t in truth.targets:
            ctype = truth.col_types[t]
            tv, tcodes = parse_labels(truth.frame[t], t, ctype, truth.path, issues, truth.rows,
                                      kind="truth")
            pv, pcodes = parse_labels(df[t], t, ctype, path, issues)
            tv, pv = coltypes.comparable(tv, pv)      # integers beyond 2**53: exact on both sides
            tvals[t] = read_only(tv)
            pvals[t] = read_only(pv if identity else pv[order])
            if tcodes is not None and pcodes is not None:
                codes[t] = joint_codes(tcodes, pcodes, None if identity else order)
            tu = pd.unique(tv) if tcodes is None else tcodes[1]
            if ctype == "categorical" and len(tu) < len(tv):
                # a closed label set (labels repeat in the truth); free-form targets such as
                # chess boards or rationales, where nearly every truth value is new, are not
                # warned about
                unseen_labels(pv if pcodes is None else pcodes[1], tu, t, path, issues)
        conf = None
        if conf_col is not None:
            c = confidence_values(df, conf_col, path, issues)
            conf = read_only(c if identity else c[order])
        if any(i.is_error for i in issues):
            return issues
        return Aligned("rows", read_only(truth_idx), truth.targets, tvals, pvals, truth.col_types,
                       confidence=conf, issues=issues, codes=codes)



    def inputs(self, aligned, target, stacked):
        out = {"confidence": aligned.confidence}
        if not stacked:
            out["codes"] = aligned.label_codes(target)
        return out


LAYOUTS: tuple[Layout, ...] = (ObjectDetectionLayout(), MultiLabelLayout(), RankedLayout(),
                               ClassesLayout(), RowsLayout())
BY_NAME = {layout.name: layout for layout in LAYOUTS}


def align(truth: Truth, df: pd.DataFrame, path: str, *, needs_confidence: bool = False,
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


def _header_checks(truth: Truth, df: pd.DataFrame, path: str, needs_confidence: bool):
    """The checks of the header (index, targets, confidence, rank and image columns):
    ``(df, confidence column, rank column, issues)``; an objectDetection file in the D3M
    layout (no image column) gets the image each d3mIndex names."""
    issues: list[Issue] = []
    cols = list(df.attrs.get("header") or df.columns)
    if INDEX not in cols:
        near = [c for c in cols if c.lower() == INDEX.lower()]
        hint = f" (found {near[0]!r}: the name is case-sensitive)" if near else ""
        issues.append(error("predictions.no_index", "row 1", f"no {INDEX} column{hint}", path))
    missing_t = [t for t in truth.targets if t not in cols]
    if missing_t:
        issues.append(error("predictions.no_target", "row 1",
                            f"target column(s) missing: {', '.join(missing_t)} "
                            f"(columns are: {', '.join(cols[:20])})", path))
    # a target column is never the confidence or the rank column (a target named Confidence)
    others = [c for c in cols if c not in truth.targets and c != INDEX]
    conf_col, conf_hits = find_column(others, "confidence")
    if len(conf_hits) > 1:
        issues.append(error("predictions.duplicate_confidence", "row 1",
                            f"several confidence columns: {', '.join(conf_hits)}", path))
    rank_col, _ = find_column(others, "rank")
    if INDEX in cols and INDEX in df.columns and df[INDEX].dtype == object:
        blank = is_missing(df[INDEX].to_numpy())
        if blank.any():
            pos = np.flatnonzero(blank)
            issues.append(error("predictions.missing_value", f"row {lines(pos, path)[0]}, column {INDEX}",
                                f"{len(pos)} blank d3mIndex cell(s) (rows {rows_text(lines(pos, path), len(pos))}): "
                                f"every row names the TEST index it predicts", path))
    if needs_confidence and conf_col is None:
        issues.append(error("predictions.no_confidence", "row 1",
                            "a metric of this problem needs a confidence column and there is none",
                            path))
    if truth.image_column and truth.image_column not in cols and INDEX in cols:
        # the D3M layout (d3mIndex, boxes, confidence): when every truth d3mIndex names one
        # image, a prediction's d3mIndex says its image
        image_of = _image_by_index(truth)
        if image_of is None:
            issues.append(error("predictions.no_image", "row 1",
                                f"objectDetection predictions need the {truth.image_column!r} column "
                                f"(a d3mIndex of the truth names several images)", path))
        else:
            pidx, tidx = same_kind(index_values(df[INDEX]), image_of.index.to_numpy())
            images = pd.Series(image_of.to_numpy(), index=pd.Index(tidx)).reindex(pidx).to_numpy()
            df = df.assign(**{truth.image_column: images})
            unknown = pd.isna(df[truth.image_column]).to_numpy()
            if unknown.any():
                pos = np.flatnonzero(unknown)
                issues.append(error("predictions.image_set", f"row {lines(pos, path)[0]}, column {INDEX}",
                                    f"{len(pos)} row(s) have a d3mIndex that is not a TEST image's "
                                    f"(rows {rows_text(lines(pos, path), len(pos))})", path))
    known = {INDEX, *truth.targets, conf_col, rank_col, truth.image_column}
    extra_cols = [c for c in cols if c not in known]
    if extra_cols:
        issues.append(warning("predictions.extra_column", "row 1",
                              f"column(s) ignored: {', '.join(extra_cols[:10])}", path))
    return df, conf_col, rank_col, issues



def _check_rows(truth: Truth, df: pd.DataFrame, conf_col, path: str, issues: list[Issue]) -> None:
    """The checks of the prediction rows on their own — each target value parses as its
    colType, each confidence is a number in [0, 1] — for a file whose rows cannot be lined
    up with the truth (a repeated or wrong d3mIndex), so that its other problems are
    reported with it: every issue at once."""
    for t in truth.targets:
        parse_labels(df[t].to_numpy(), t, truth.col_types[t], path, issues)
    if conf_col is not None:
        confidence_values(df, conf_col, path, issues)


def _truth_positions(pred_idx, truth_idx, path, issues):
    tpos = lookup(truth_idx, pred_idx)[0]
    missing_mask, extra_mask = index_issues(pred_idx, truth_idx, path, issues, truth_pos=tpos)
    return tpos, (missing_mask.any() or extra_mask.any())


def _align_classes(truth, truth_idx, df, pred_idx, path, conf_col, issues):
    t = truth.targets[0]
    ctype = truth.col_types[t]
    tpos, bad = _truth_positions(pred_idx, truth_idx, path, issues)
    labels = parse_target(df[t].to_numpy(), t, ctype, path, issues)
    conf = confidence_values(df, conf_col, path, issues)
    tv = parse_target(truth.frame[t].to_numpy(), t, ctype, truth.path, issues, truth.rows, kind="truth")
    if bad or any(i.is_error for i in issues):
        return issues
    tv, labels = coltypes.comparable(tv, labels)
    classes = np.asarray(sorted(set(pd.unique(tv)) | set(pd.unique(labels))), dtype=object)
    code = pd.Index(classes).get_indexer(labels)
    key = tpos.astype(np.int64) * len(classes) + code
    dup = pd.Index(key).duplicated(keep=False)
    if dup.any():
        pos = np.flatnonzero(dup)
        issues.append(error("predictions.duplicate_index", f"row {lines(pos, path)[0]}, column {t}",
                            f"{len(pos)} rows repeat a (d3mIndex, {t}) pair "
                            f"(rows {rows_text(lines(pos, path), len(pos))})", path))
        return issues
    mat = np.zeros((len(truth_idx), len(classes)))
    mat[tpos, code] = conf
    hard = classes[np.argmax(mat, axis=1)]
    unseen_labels(labels, tv, t, path, issues)
    return Aligned("classes", read_only(truth_idx), truth.targets, {t: read_only(tv)}, {t: read_only(hard)},
                   truth.col_types, confidence=read_only(mat), classes=read_only(classes), issues=issues)


def _align_ranked(truth, truth_idx, df, pred_idx, path, rank_col, conf_col, issues):
    t = truth.targets[0]
    if rank_col is None:
        issues.append(error("predictions.no_rank", "row 1",
                            "a ranking metric needs a rank column", path))
        return issues
    tpos, bad = _truth_positions(pred_idx, truth_idx, path, issues)
    ctype = truth.col_types[t]
    values = parse_target(df[t].to_numpy(), t, ctype, path, issues)
    ranks = parse_numeric(df[rank_col].to_numpy(), rank_col, path, "predictions.rank",
                           "numbers", issues)
    low = ranks < 1
    if low.any():
        pos = np.flatnonzero(low)
        issues.append(error("predictions.rank", f"row {lines(pos, path)[0]}, column {rank_col}",
                            f"{len(pos)} rank(s) below 1", path))
    tv = parse_target(truth.frame[t].to_numpy(), t, ctype, truth.path, issues, truth.rows, kind="truth")
    if bad or any(i.is_error for i in issues):
        return issues
    tv, values = coltypes.comparable(tv, values)
    pf = pd.DataFrame({"pos": tpos, "value": values.astype(str), "rank": ranks})
    if pf.duplicated(["pos", "value"]).any():
        pos = np.flatnonzero(pf.duplicated(["pos", "value"], keep=False).to_numpy())
        issues.append(error("predictions.duplicate_index", f"row {lines(pos, path)[0]}, column {t}",
                            f"{len(pos)} rows repeat a (d3mIndex, {t}) pair", path))
        return issues
    tf = pd.DataFrame({"pos": np.arange(len(truth_idx)), "value": tv.astype(str)})
    merged = tf.merge(pf, on=["pos", "value"], how="left")
    r = merged["rank"].fillna(MAX_RANK).to_numpy(dtype=float)
    best = pf.sort_values(["pos", "rank", "value"], kind="stable").drop_duplicates("pos")
    hard = np.empty(len(truth_idx), dtype=values.dtype if values.dtype.kind == "f" else object)
    hard[best["pos"].to_numpy()] = values[best.index.to_numpy()]
    tvals = {t: read_only(tv)}
    pvals = {t: read_only(hard)}
    if any(i.is_error for i in issues):
        return issues
    return Aligned("ranked", read_only(truth_idx), truth.targets, tvals, pvals, truth.col_types,
                   ranks={t: read_only(r)}, issues=issues)


def _image_by_index(truth) -> pd.Series | None:
    """d3mIndex -> image of an objectDetection truth, or None when a d3mIndex names
    several images (then predictions must carry the image column)."""
    pairs = pd.DataFrame({"i": truth.index, "m": truth.frame[truth.image_column].to_numpy()}).drop_duplicates()
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
    timg = truth.frame[img].to_numpy().astype(object)
    pimg = df[img].to_numpy().astype(object)
    tb = parse_boxes(truth.frame[t].to_numpy(), t, truth.path, issues, truth.rows)
    pb = parse_boxes(df[t].to_numpy(), t, path, issues)
    conf = confidence_values(df, conf_col, path, issues) if conf_col is not None else None
    known = pd.Index(pd.unique(timg))
    extra = pd.Index(pd.unique(pimg)).difference(known)
    if len(extra):
        pos = np.flatnonzero(known.get_indexer(pimg) < 0)
        issues.append(error("predictions.image_set", f"row {lines(pos, path)[0]}, column {img}",
                            f"{len(extra)} image(s) are not TEST images: "
                            f"{rows_text(sorted(map(str, extra)))}", path))
    unseen = known.difference(pd.Index(pd.unique(pimg)))
    if len(unseen):
        issues.append(warning("predictions.image_missing", f"column {img}",
                              f"{len(unseen)} TEST image(s) have no detections: "
                              f"{rows_text(sorted(map(str, unseen)))}", path))
    if any(i.is_error for i in issues):
        return issues
    return Aligned("objectDetection", read_only(truth.index), truth.targets, {t: read_only(tb)}, {t: read_only(pb)},
                   truth.col_types, confidence=None if conf is None else read_only(conf),
                   images_true=read_only(timg), images_pred=read_only(pimg), issues=issues)


def _ml_values(a: np.ndarray, name: str, col_type: str, path: str, issues: list[Issue],
               kind: str, skip_blank: bool, rows: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """A multiLabel target column's values parsed per colType, and the mask of rows kept
    (blank cells are skipped when the problem has several targets, else errors).
    ``rows`` maps each value to its data row in the file (for messages)."""
    keep = ~is_missing(a) if skip_blank else np.ones(len(a), bool)
    pos = np.flatnonzero(keep)
    if rows is not None:
        pos = rows[pos]
    vals = parse_target(a[keep], name, col_type, path, issues, positions=pos, kind=kind)
    return vals, keep


def _align_multilabel(truth, df, path, conf_col, issues):
    """Group truth and prediction rows by d3mIndex into label sets (one
    :class:`~d3mkit.scoring.multilabel.LabelSets` per target)."""
    from d3mkit.scoring.multilabel import LabelSets, label_codes, matrix_from_pairs
    targets = truth.targets
    several = len(targets) > 1
    pred_idx, trow_idx = same_kind(index_values(df[INDEX]), truth.index)
    uniq = np.asarray(pd.unique(trow_idx))          # truth is sorted by d3mIndex
    missing_mask, extra_mask = index_issues(pred_idx, uniq, path, issues)
    if missing_mask.any() or extra_mask.any():
        return issues
    uindex = pd.Index(uniq)
    ppos = uindex.get_indexer(pred_idx)
    tpos = uindex.get_indexer(trow_idx)
    conf = confidence_values(df, conf_col, path, issues) if conf_col is not None else None
    if several:
        truth_rows = truth.rows if truth.rows is not None else np.arange(len(truth.frame))
        for frame, fpath, kind, where in ((df, path, "predictions", np.arange(len(df))),
                                          (truth.frame, truth.path, "truth", truth_rows)):
            blank = np.logical_and.reduce([is_missing(frame[t].to_numpy()) for t in targets])
            if blank.any():
                rows = np.sort(lines(where[np.flatnonzero(blank)], fpath))
                issues.append(error(f"{kind}.missing_value", f"row {rows[0]}",
                                    f"{len(rows)} row(s) have every target blank "
                                    f"(rows {rows_text(rows)})", fpath))
    sets = {}
    n = len(uniq)
    for t in targets:
        ctype = truth.col_types[t]
        n_before = sum(i.is_error for i in issues)
        tv, tkeep = _ml_values(truth.frame[t].to_numpy(), t, ctype, truth.path, issues, "truth",
                               several, truth.rows)
        pv, pkeep = _ml_values(df[t].to_numpy(), t, ctype, path, issues, "predictions", several)
        if sum(i.is_error for i in issues) > n_before:
            continue
        tv, pv = coltypes.comparable(tv, pv)      # integers beyond 2**53: exact on both sides
        # sorted union of the labels (hash the rows, sort the few distinct values)
        labels = np.sort(np.asarray(pd.unique(np.concatenate([tv, pv]))))
        labels = labels.astype(object) if labels.dtype.kind not in "f" else labels
        k = len(labels)
        cells = n * k   # dense (indices x labels) matrices: bool, and float64 scores
        if k > limit("MAX_LABELS") or cells > limit("MAX_LABEL_CELLS"):
            name = "MAX_LABELS" if k > limit("MAX_LABELS") else "MAX_LABEL_CELLS"
            issues.append(error("predictions.too_many_labels", f"column {t}",
                                f"{k:,} distinct labels over {n:,} indices ({len(pd.unique(pv)):,} "
                                f"in the predictions) would need {cells:,} matrix cells, over the "
                                f"{how_to_raise(name)}", path))
            continue
        tcode, pcode = label_codes(tv, labels), label_codes(pv, labels)
        tp_, pp_ = tpos[tkeep], ppos[pkeep]
        truth_rows = truth.rows if truth.rows is not None else np.arange(len(truth.frame))
        for code, rowpos, kind, fpath, src, where in (
                (tcode, tp_, "truth", truth.path, tkeep, truth_rows),
                (pcode, pp_, "predictions", path, pkeep, np.arange(len(df)))):
            dup = pd.Index(rowpos.astype(np.int64) * k + code).duplicated(keep="first")
            if dup.any():
                rows = np.sort(lines(where[np.flatnonzero(src)[dup]], fpath))
                issues.append(warning(f"{kind}.duplicate_label", f"row {rows[0]}, column {t}",
                                      f"{len(rows)} row(s) repeat a (d3mIndex, {t}) pair; a label "
                                      f"counts once per index"
                                      + ("" if kind == "truth" or conf is None else
                                         " (its largest confidence is used)")
                                      + f" (rows {rows_text(rows)})", fpath))
        scores = None
        if conf is not None:
            scores = np.zeros((n, k))
            np.maximum.at(scores, (pp_, pcode), conf[pkeep])
            scores = read_only(scores)
        if ctype == "categorical":
            unseen_labels(pv, tv, t, path, issues)
        pmat = matrix_from_pairs(pp_, pcode, n, k)
        if k > 1 and n > 1 and pmat.all():
            issues.append(warning("predictions.all_labels", f"column {t}",
                                  f"every index lists all {k} labels: the hard-label metrics "
                                  f"(accuracy, f1, hammingLoss, ...) count every listed label as "
                                  f"predicted, whatever its confidence (as d3m.metrics does); "
                                  f"list only the predicted labels", path))
        sets[t] = LabelSets(read_only(matrix_from_pairs(tp_, tcode, n, k)),
                            read_only(pmat), read_only(labels), scores)
    if any(i.is_error for i in issues):
        return issues
    return Aligned("multiLabel", read_only(uniq), targets, sets, dict(sets), truth.col_types,
                   issues=issues)
