"""The integer form of two aligned label arrays: :class:`LabelCodes`.

The label metrics (confusion-matrix metrics, the ROC metrics on one confidence per row)
work on integer codes into the sorted union of the true and predicted labels. They are
pure: a metric computes the codes with :func:`encode`, unless the scorer hands it the
``codes=`` input (declared in the metric's ``inputs``), which the rows layout builds from
what its parse already found (:func:`from_codes`) so that the labels are hashed once,
not once per metric. Nothing is cached between calls.

:class:`LabelArrays` holds an aligned bundle's per-target arrays with the label targets
as those codes, making a label array (8 bytes a row) only when something reads it.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from d3mkit.tables.columns import code_dtype


@dataclass(frozen=True)
class LabelCodes:
    """``truth == labels[truth_codes]`` and ``pred == labels[pred_codes]``; ``labels`` is
    the sorted union of both sides' labels (numbers by value, else by their text)."""

    truth: np.ndarray
    pred: np.ndarray
    labels: np.ndarray

    def astuple(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.truth, self.pred, self.labels


def _numeric(a: np.ndarray) -> bool:
    if a.dtype.kind in "iuf":
        return True
    return len(a) > 0 and all(isinstance(v, (int, float, np.integer, np.floating)) for v in a)


def from_codes(codes_t, codes_p, labels) -> LabelCodes:
    """:class:`LabelCodes` from codes into ``labels`` (distinct, any order): the labels
    sorted and the codes renumbered to match.

    >>> c = from_codes(np.array([0, 1]), np.array([1, 2]), np.array(["b", "a", "c"], dtype=object))
    >>> c.truth.tolist(), c.pred.tolist(), c.labels.tolist()
    ([1, 0], [0, 2], ['a', 'b', 'c'])
    """
    labels = np.asarray(labels, dtype=object) if not isinstance(labels, np.ndarray) else labels
    order = np.argsort(labels.astype(str) if labels.dtype == object else labels, kind="stable") \
        if not _numeric(labels) else np.argsort(labels.astype(float), kind="stable")
    remap = np.empty(len(order), dtype=code_dtype(len(order)))   # int8 for up to 128 labels
    remap[order] = np.arange(len(order))
    return LabelCodes(remap[codes_t], remap[codes_p], labels[order])


def encode(y_true, y_pred) -> LabelCodes:
    """:class:`LabelCodes` of two label arrays (one hash of each side).

    >>> c = encode(["b", "a"], ["a", "c"])
    >>> c.truth.tolist(), c.pred.tolist(), c.labels.tolist()
    ([1, 0], [0, 2], ['a', 'b', 'c'])
    """
    t = y_true if isinstance(y_true, np.ndarray) else np.asarray(y_true, dtype=object)
    p = y_pred if isinstance(y_pred, np.ndarray) else np.asarray(y_pred, dtype=object)
    if t.dtype.kind in "biuf" and p.dtype.kind in "biuf":    # numbers: numpy's sort
        uniq, inv = np.unique(np.concatenate([t.ravel(), p.ravel()]), return_inverse=True)
        inv = inv.reshape(-1)
        return from_codes(inv[:t.size], inv[t.size:], np.asarray(uniq, dtype=object))
    cells_t, cells_p = t.tolist(), p.tolist()      # anything else: one dict (no pandas)
    labels = list(dict.fromkeys(itertools.chain(cells_t, cells_p)))
    code_of = dict(zip(labels, range(len(labels))))
    allu = np.empty(len(labels), dtype=object)
    allu[:] = labels
    return from_codes(np.fromiter(map(code_of.__getitem__, cells_t), np.intp, len(cells_t)),
                      np.fromiter(map(code_of.__getitem__, cells_p), np.intp, len(cells_p)), allu)


def joint_codes(tcodes, pcodes, order=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(truth codes, prediction codes, labels)`` into one label list (labels in no
    particular order; :func:`from_codes` sorts them) from each side's own ``(codes,
    distinct values)`` (what a parse found), the predictions put in truth order by
    ``order`` (None: already in it)."""
    tc, tu = tcodes
    pc, pu = pcodes
    at = {v: i for i, v in enumerate(tu.tolist())}   # tu is distinct: a lookup over labels
    where = np.fromiter((at.get(v, -1) for v in pu.tolist()), code_dtype(len(tu) + len(pu)), len(pu))
    new = where < 0
    where[new] = len(tu) + np.arange(int(new.sum()), dtype=where.dtype)
    labels = np.concatenate([tu, pu[new]]) if new.any() else tu
    pc = where[pc]
    return tc, (pc if order is None else pc[order]), labels


class LabelArrays(Mapping):
    """``target -> array`` (read-only) of an aligned bundle, where a label target may be
    given as ``(codes, labels)`` (``labels[codes]`` is its array): that array is made on
    first access and then kept. A metric that reads the labels' integer form (the
    ``codes`` input) and whose arrays nobody asks for never costs the 8 bytes a row of an
    object array.

    >>> a = LabelArrays({"y": (np.array([1, 0, 1], np.int8), np.array(["a", "b"], dtype=object))})
    >>> a.made("y"), a["y"].tolist(), a.made("y")
    (False, ['b', 'a', 'b'], True)
    """

    def __init__(self, items: dict | None = None):
        """``items``: name -> an array, or a ``(codes, labels)`` pair."""
        self._items = {name: value if isinstance(value, np.ndarray) else _Coded(*value)
                       for name, value in (items or {}).items()}

    def __getitem__(self, name: str) -> np.ndarray:
        value = self._items[name]
        if isinstance(value, _Coded):
            value = value.labels[value.codes]
            value.flags.writeable = False
            self._items[name] = value
        return value

    def __iter__(self):
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def made(self, name: str) -> bool:
        """Whether ``name``'s array exists (it was given, or read)."""
        return not isinstance(self._items[name], _Coded)

    def take(self, rows) -> "LabelArrays":
        """The rows ``rows`` of every array (label targets stay codes)."""
        out = LabelArrays()
        for name, value in self._items.items():
            if isinstance(value, _Coded):
                out._items[name] = _Coded(value.codes[rows], value.labels)
            else:
                out._items[name] = value[rows]
                out._items[name].flags.writeable = False
        return out


@dataclass(frozen=True)
class _Coded:
    codes: np.ndarray
    labels: np.ndarray
