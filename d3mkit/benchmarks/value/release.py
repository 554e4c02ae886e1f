"""Importer for the published VALUE release layout (``build value --from-release PATH``).

The release stores images as ``CV_%07d.jpg`` and labels as a JSON object mapping the
image index to the board as an 8x8 array in the release encoding (x=0, P=1, ..., k=12;
row 0 = rank 8, column 0 = file a). ``PATH`` is the directory holding the images (directly
or in an ``images/`` subdirectory) and one labels JSON file (``labels.json``, else the only
``*.json`` there), or the JSON file itself with the images beside it. Keys may be the
index (``"17"``) or the image name (``"CV_0000017"`` / ``"CV_0000017.jpg"``); a value may
also be a FEN placement string, and a JSON list is read as boards by index.

The first ``n`` labelled images in index order are copied into the task root (byte for
byte; the release is never modified). Bad input - a missing image, an array that is not
8x8 codes 0-12 - is an error naming the JSON key.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.benchmarks.value.boards import BoardError, array_to_fen, as_fen
from d3mkit.errors import D3MKitError, UsageError, error

IMAGE_PATTERN = "CV_{:07d}.jpg"
_KEY = re.compile(r"^(?:CV_)?0*(\d+)(?:\.jpg)?$")


def find_release(path: Path | str) -> tuple[Path, Path]:
    """``(labels JSON file, image directory)`` of a release at ``path``."""
    p = Path(path)
    if not p.exists():
        raise UsageError(f"VALUE release not found: {p}", str(p))
    if p.is_file():
        labels, root = p, p.parent
    else:
        root = p
        cands = [p / "labels.json"] if (p / "labels.json").is_file() else sorted(p.glob("*.json"))
        if len(cands) != 1:
            raise UsageError(f"{p}: expected one labels JSON file (labels.json or a single *.json), "
                             f"found {len(cands)}", str(p))
        labels = cands[0]
    images = root / "images" if (root / "images").is_dir() and not list(root.glob("CV_*.jpg")) else root
    return labels, images


def read_labels(labels: Path) -> dict[int, str]:
    """``{index: FEN placement}`` of a release labels file."""
    try:
        data = json.loads(labels.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {labels}: {exc}", str(labels)) from None
    except json.JSONDecodeError as exc:
        raise D3MKitError(error("json.syntax", f"line {exc.lineno}, column {exc.colno}", exc.msg,
                                str(labels))) from None
    if isinstance(data, list):                 # a list is read as index -> board by position
        data = {str(i): v for i, v in enumerate(data)}
    if not isinstance(data, dict):
        raise D3MKitError(error("release.labels", "", "labels must be a JSON object mapping image "
                                "index to an 8x8 board array", str(labels)))
    out: dict[int, str] = {}
    for key, value in data.items():
        m = _KEY.match(str(key).strip())
        if not m:
            raise D3MKitError(error("release.key", f"key {key!r}", "not an image index or CV_%07d name",
                                    str(labels)))
        try:
            if isinstance(value, str):
                fen = as_fen(value)
            else:
                arr = np.asarray(value)
                if arr.shape != (8, 8):
                    raise BoardError(f"board array has shape {arr.shape}, expected (8, 8)")
                fen = array_to_fen(arr)
        except (BoardError, ValueError, TypeError) as exc:
            raise D3MKitError(error("release.board", f"key {key!r}", str(exc), str(labels))) from None
        idx = int(m.group(1))
        if idx in out:
            raise D3MKitError(error("release.key", f"key {key!r}", f"index {idx} appears twice", str(labels)))
        out[idx] = fen
    return out


def copy_release(path: Path | str, media: Path, n: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Copy the first ``n`` labelled images into ``media``; ``(rows, boxes)`` as
    :func:`~d3mkit.benchmarks.value.source.make_dataset` returns them (no boxes)."""
    labels_file, images = find_release(path)
    labels = read_labels(labels_file)
    if len(labels) < n:
        raise UsageError(f"{labels_file} labels {len(labels)} images but --n-train + --n-test = {n}",
                         str(labels_file))
    keys = sorted(labels)[:n]
    media.mkdir(parents=True, exist_ok=True)
    names, fens = [], []
    for k in keys:
        name = IMAGE_PATTERN.format(k)
        src = images / name
        if not src.is_file():
            raise D3MKitError(error("release.image", f"key {k}", f"image {name} is missing", str(images)))
        shutil.copyfile(src, media / name)
        names.append(name)
        fens.append(labels[k])
    rows = pd.DataFrame({"image": names, "board": fens, "releaseIndex": keys})
    boxes = pd.DataFrame(columns=["d3mIndex", "image", "symbol", "square", "x_min", "y_min", "x_max", "y_max"])
    return rows, boxes
