"""Importer for the published VALUE release (``build value --from-release PATH``).

The published layout (the one the authors' baselines read, their ``baselines/config.toml``)::

    PATH/train/CV_%07d.jpg               training images
    PATH/test/CV_%07d.jpg                test images
    PATH/labels/train_labels.json        {"<index>": 8x8 board array, ...}
    PATH/labels/test_labels.json

A board array is in the release encoding (x=0, P=1, N=2, B=3, R=4, Q=5, K=6, p=7, ...,
k=12; row 0 = rank 8, column 0 = file a); image ``CV_%07d.jpg`` carries the key's index.
The official split is kept: every labelled image of ``train/`` is TRAIN and of ``test/``
TEST (the label files give the counts), or the first ``--n-train`` / ``--n-test`` of each (in
index order) when they are given.

Bounding boxes, when the release has them, are imported into ``_debug/boxes.csv``: a JSON
file under ``labels/`` (or PATH) whose name contains ``bounding_box`` or ``bb`` (per split,
e.g. ``train_bounding_boxes.json``, or one for all images), mapping the image index to
``{piece name: box}``. Piece names are the symbol and a counter (``P0``, ``P1``, ``k0``) in
the order the authors' generator assigns them (squares read rank 8 to rank 1, file a to
h), so each box gets its square. A box is ``[x_min, y_min, x_max, y_max]`` in pixels, or
the piece's projected base point ``[x, y]`` (the generator's ``bb_all.json``), turned into
a box with the generator's own sizes (30 px wide; 40-70 px tall by piece; 8 px below the
point). The release's file names for these files are not documented; the reader looks
for them as described and packages none when there is no such file.

Also read (older and hand-made layouts): a directory of images (directly or in
``images/``) with one labels JSON (``labels.json``, else the only ``*.json``), or that
JSON file itself; keys may be ``"17"``, ``"CV_0000017"`` or ``"CV_0000017.jpg"``, values
a board array or a FEN placement string, a JSON list is read by position. Without an
official split the first ``--n-train`` images are TRAIN.

Images are copied byte for byte (the release is never modified). Bad input - a missing
image, an array that is not 8x8 codes 0-12, a box that is not 2 or 4 numbers - is an error
naming the file and the JSON key. The labels and box files, the image folders and every
image must lie inside the release directory (a symlink leading out is a ``path.escape``
error, :mod:`d3mkit.io.paths`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.benchmarks.value.boards import BoardError, array_to_fen, as_fen, fen_to_symbols, square_name
from d3mkit.io.atomic import copy_file
from d3mkit.core.errors import D3MKitError, UsageError, error
from d3mkit.io.paths import require_inside

IMAGE_PATTERN = "CV_{:07d}.jpg"
SPLITS = ("train", "test")
_KEY = re.compile(r"^(?:CV_)?0*(\d+)(?:\.jpg)?$")
_PIECE = re.compile(r"^([pnbrqkPNBRQK])(\d+)$")
# the authors' box sizes (rendering/config.toml [scene] boxes_x / boxes_y, utils/test_bb.py)
BOX_WIDTH = 30
BOX_HEIGHT = {"p": 40, "q": 70, "k": 70, "n": 60, "b": 60, "r": 50}
BOX_BELOW = 8
BOX_COLUMNS = ["d3mIndex", "image", "symbol", "square", "x_min", "y_min", "x_max", "y_max"]


@dataclass(frozen=True)
class ReleasePart:
    """One labelled image folder of a release: its labels file, images and split (or None)."""

    labels: Path
    images: Path
    split: str | None
    boxes: Path | None = None


def _is_box_file(p: Path) -> bool:
    name = p.name.lower()
    return "bounding_box" in name or re.search(r"(^|_)bb(_|\.)", name) is not None


def _box_files(where: list[Path], split: str | None) -> Path | None:
    cands = []
    for d in where:
        if d.is_dir():
            cands += [p for p in sorted(d.glob("*.json")) if _is_box_file(p)]
    if split is not None:
        own = [p for p in cands if p.name.lower().startswith(split)]
        if own:
            return own[0]
        cands = [p for p in cands if not any(p.name.lower().startswith(s) for s in SPLITS)]
    return cands[0] if cands else None


def _inside_release(root: Path, parts: list[ReleasePart]) -> list[ReleasePart]:
    for part in parts:
        for what, q in (("labels file", part.labels), ("image folder", part.images), ("box file", part.boxes)):
            if q is not None:
                require_inside(root, q, what=f"the {what} {q.name}", root_name=f"the release directory {root}")
    return parts


def find_release(path: Path | str) -> list[ReleasePart]:
    """The parts of a release at ``path``: ``train`` and ``test`` of the published layout,
    or one part without a split (older layout)."""
    p = Path(path)
    if not p.exists():
        raise UsageError(f"VALUE release not found: {p}", str(p))
    if p.is_dir() and (p / "labels").is_dir():
        parts = []
        for split in SPLITS:
            labels = p / "labels" / f"{split}_labels.json"
            if not labels.is_file():
                raise UsageError(f"{p}: a VALUE release has labels/{split}_labels.json; it is missing", str(p))
            if not (p / split).is_dir():
                raise UsageError(f"{p}: a VALUE release has the image folder {split}/; it is missing", str(p))
            parts.append(ReleasePart(labels, p / split, split, _box_files([p / "labels", p], split)))
        return _inside_release(p, parts)
    if p.is_file():
        labels, root = p, p.parent
    else:
        root = p
        cands = [p / "labels.json"] if (p / "labels.json").is_file() else \
            [c for c in sorted(p.glob("*.json")) if not _is_box_file(c)]
        if len(cands) != 1:
            raise UsageError(f"{p}: expected the release layout (train/, test/, labels/train_labels.json, "
                             f"labels/test_labels.json) or one labels JSON file, found {len(cands)} JSON "
                             "files and no labels/ folder", str(p))
        labels = cands[0]
    images = root / "images" if (root / "images").is_dir() and not list(root.glob("CV_*.jpg")) else root
    return _inside_release(root, [ReleasePart(labels, images, None, _box_files([root], None))])


def _load_json(path: Path):
    """The strict JSON reader of d3mkit.documents.jsonio (non-regular files, size cap,
    duplicate keys, NaN, huge numbers and lone surrogates are issues naming the file)."""
    from d3mkit.documents.jsonio import load_json
    return load_json(path)


def _index(key, path: Path) -> int:
    m = _KEY.match(str(key).strip())
    if not m:
        raise D3MKitError(error("release.key", f"key {key!r}", "not an image index or CV_%07d name", str(path)))
    return int(m.group(1))


def read_labels(labels: Path) -> dict[int, str]:
    """``{index: FEN placement}`` of a release labels file."""
    data = _load_json(labels)
    if isinstance(data, list):                 # a list is read as index -> board by position
        data = {str(i): v for i, v in enumerate(data)}
    if not isinstance(data, dict):
        raise D3MKitError(error("release.labels", "", "labels must be a JSON object mapping image "
                                "index to an 8x8 board array", str(labels)))
    out: dict[int, str] = {}
    for key, value in data.items():
        idx = _index(key, labels)
        try:
            if isinstance(value, str):
                fen = as_fen(value)
            else:
                arr = np.asarray(value)
                if arr.shape != (8, 8):
                    raise BoardError(f"board array has shape {arr.shape}, expected (8, 8)")
                fen = array_to_fen(arr)
        except D3MKitError:   # a ValueError too: an input problem already stated
            raise
        except (BoardError, ValueError, TypeError) as exc:
            raise D3MKitError(error("release.board", f"key {key!r}", str(exc), str(labels))) from None
        if idx in out:
            raise D3MKitError(error("release.key", f"key {key!r}", f"index {idx} appears twice", str(labels)))
        out[idx] = fen
    return out


def piece_squares(fen: str) -> dict[str, int]:
    """``{piece name: square}`` with the authors' generator's names (symbol + counter in
    rank-8-to-rank-1, file-a-to-h order).

    >>> piece_squares("8/8/8/8/8/8/PP6/k6K")
    {'P0': 48, 'P1': 49, 'k0': 56, 'K0': 63}
    """
    seen: dict[str, int] = {}
    out = {}
    for sq, ch in enumerate(fen_to_symbols(fen)):
        if ch != "x":
            n = seen.get(ch, 0)
            seen[ch] = n + 1
            out[f"{ch}{n}"] = sq
    return out


def to_box(name: str, value, where: str, path: Path) -> tuple[float, float, float, float]:
    """``(x_min, y_min, x_max, y_max)`` of a release box (4 numbers) or base point (2).

    >>> to_box("q0", [100, 200], "", Path("bb.json"))
    (85.0, 130.0, 115.0, 208.0)
    """
    v = value if isinstance(value, (list, tuple)) else None
    if v is None or len(v) not in (2, 4) or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                    and np.isfinite(x) for x in v):
        raise D3MKitError(error("release.box", where, f"piece {name!r}: a box is [x_min, y_min, x_max, "
                                f"y_max] or a point [x, y], got {json.dumps(value)[:60]}", str(path)))
    if len(v) == 2:
        x, y = float(v[0]), float(v[1])
        half = BOX_WIDTH // 2
        return (x - half, y - BOX_HEIGHT[name[0].lower()], x + half, y + BOX_BELOW)
    x0, y0, x1, y1 = (float(a) for a in v)
    if not (x0 < x1 and y0 < y1):
        raise D3MKitError(error("release.box", where, f"piece {name!r}: box {list(v)} has x_min >= x_max "
                                "or y_min >= y_max", str(path)))
    return (x0, y0, x1, y1)


def read_boxes(path: Path, fens: dict[int, str]) -> dict[int, list[tuple]]:
    """``{index: [(symbol, square, x_min, y_min, x_max, y_max), ...]}`` for the indices of
    ``fens`` found in the box file ``path``."""
    data = _load_json(path)
    if not isinstance(data, dict):
        raise D3MKitError(error("release.boxes", "", "bounding boxes must be a JSON object mapping image "
                                "index to {piece: box}", str(path)))
    out: dict[int, list[tuple]] = {}
    for key, pieces in data.items():
        idx = _index(key, path)
        if idx not in fens:
            continue
        where = f"key {key!r}"
        if not isinstance(pieces, dict):
            raise D3MKitError(error("release.boxes", where, "expected an object {piece name: box}", str(path)))
        squares = piece_squares(fens[idx])
        rows = []
        for name, value in pieces.items():
            if not _PIECE.match(str(name)):
                raise D3MKitError(error("release.boxes", where, f"piece name {name!r} is not a symbol and a "
                                        "counter (e.g. P0, k0)", str(path)))
            if name not in squares:
                raise D3MKitError(error("release.boxes", where, f"piece {name!r} is not on the labelled "
                                        "board", str(path)))
            rows.append((name[0], squares[name], *to_box(name, value, where, path)))
        out[idx] = sorted(rows, key=lambda r: r[1])
    return out


def copy_release(path: Path | str, media: Path, n_train: int | None,
                 n_test: int | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Copy the selected labelled images into ``media``; ``(rows, boxes)`` as
    :func:`~d3mkit.benchmarks.value.source.make_dataset` returns them, rows carrying
    ``split`` (the official one when the release has it) and ``releaseIndex``."""
    parts = find_release(path)
    media.mkdir(parents=True, exist_ok=True)
    names, fens, keys, sides, box_rows = [], [], [], [], []
    for part in parts:
        labels = read_labels(part.labels)
        if part.split is None:           # no official split: the counts asked for (default 200 + 50)
            want, side = (n_train or 200) + (n_test or 50), None
            what = "--n-train + --n-test"
        else:                            # the official split: as many as asked, else every labelled image
            want, side = (n_train, "TRAIN") if part.split == "train" else (n_test, "TEST")
            what = "--n-train" if part.split == "train" else "--n-test"
            want = len(labels) if want is None else want
        if len(labels) < want:
            raise UsageError(f"{part.labels} labels {len(labels)} images but {what} = {want}", str(part.labels))
        chosen = sorted(labels)[:want]
        boxes = read_boxes(part.boxes, {k: labels[k] for k in chosen}) if part.boxes else {}
        for k in chosen:
            name = IMAGE_PATTERN.format(k)
            src = require_inside(part.images, part.images / name, doc=part.labels, location=f"key {k}",
                                 what=f"image {name}", root_name=f"the image folder {part.images}")
            if not src.is_file():
                raise D3MKitError(error("release.image", f"key {k}", f"image {name} is missing", str(part.images)))
            if (media / name).exists():
                raise D3MKitError(error("release.image", f"key {k}", f"image {name} is in more than one "
                                        "split of the release", str(part.images)))
            copy_file(src, media / name, what="release image")
            d3m = len(names)
            for b in boxes.get(k, ()):
                box_rows.append((d3m, name, b[0], square_name(b[1]), *b[2:]))
            names.append(name)
            fens.append(labels[k])
            keys.append(k)
            sides.append(side)
    rows = pd.DataFrame({"image": names, "board": fens, "releaseIndex": keys})
    if parts[0].split is not None:
        rows["split"] = sides
    return rows, pd.DataFrame(box_rows, columns=BOX_COLUMNS)
