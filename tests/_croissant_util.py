"""Shared by the Croissant and HF export tests: the example roots under problems/ they
export (``ROOTS``, ``PARAMS`` with the image roots marked slow, ``copy_root``), a small build
of each benchmark (``BUILDS``), and loading a Croissant file with mlcroissant (no error, no
warning) to compare its records with what d3mkit reads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parent.parent
ROOTS = sorted(p for p in (REPO / "problems").iterdir() if p.is_dir() and list(p.glob("*_problem")))
SLOW = {"abstraction_rotation_example", "value"}      # the roots with images: seconds each
PARAMS = [pytest.param(p, id=p.name, marks=[pytest.mark.slow] if p.name in SLOW else []) for p in ROOTS]


def copy_root(root: Path, tmp: Path) -> Path:
    """A copy of example ``root`` under ``tmp`` (exports write beside their root)."""
    dst = tmp / root.name
    shutil.copytree(root, dst)
    return dst


def wine_kfold(tmp: Path, capsys) -> Path:
    """A copy of the wine root whose splits are 3 folds x 2 repeats (rewritten by ``split``)."""
    import json

    from _attack_util import run
    root = copy_root(next(r for r in ROOTS if r.name == "wine"), tmp)
    pdoc = root / "wine_problem" / "problemDoc.json"
    data = json.loads(pdoc.read_text())
    data["inputs"]["dataSplits"].update({"method": "kFold", "numFolds": 3, "numRepeats": 2})
    data["inputs"]["dataSplits"].pop("testSize", None)
    pdoc.write_text(json.dumps(data))
    assert run(["split", root / "wine_problem", "--force"], capsys)[0] == 0
    return root


def load(path):
    """The mlcroissant Dataset of ``path``; fails on any error or warning."""
    import mlcroissant as mlc
    ds = mlc.Dataset(path)
    issues = ds.metadata.ctx.issues
    assert not issues.errors and not issues.warnings, issues.report()
    return ds


def value(v):
    """A record or frame cell in one comparable form (bytes -> text, NA -> None)."""
    if isinstance(v, bytes):
        return v.decode("utf-8")
    if v is None or (not isinstance(v, (str, list, tuple)) and pd.isna(v)):
        return None
    if isinstance(v, pd.Timestamp):
        return v if v.tzinfo is not None else v.tz_localize("UTC")
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def records_frame(ds, record_set: str, columns) -> list[list]:
    """The records of ``record_set`` as rows of :func:`value` cells in ``columns`` order."""
    from d3mkit.interop.croissant import field_id
    return [[value(r[field_id(record_set, c)]) for c in columns] for r in ds.records(record_set)]


def frame_rows(frame: pd.DataFrame) -> list[list]:
    return [[value(v) for v in row] for row in frame.itertuples(index=False)]


def same_rows(records: list[list], frame: pd.DataFrame) -> None:
    """Records (from :func:`records_frame`) equal ``frame`` row for row; a realVector cell
    (a tuple in the frame) is text in Croissant and compared as its numbers."""
    want = frame_rows(frame)
    assert len(records) == len(want)
    for i, (got, row) in enumerate(zip(records, want)):
        got = [tuple(float(x) for x in g.split(",")) if isinstance(w, tuple) and isinstance(g, str) else g
               for g, w in zip(got, row)]
        assert got == row, (i, got, row)


def _prism_manifest(tmp: Path, n: int = 12) -> Path:
    from PIL import Image
    (tmp / "img").mkdir()
    lines = []
    for i in range(n):
        Image.new("RGB", (12, 12), (i * 20, 100, 0)).save(tmp / "img" / f"p{i}.png")
        lines.append(json.dumps({"hypothesis": f"a glass holds water {i}", "image": f"img/p{i}.png",
                                 "label": "allow" if i % 2 else "prevent", "rationale": f"it is whole {i}",
                                 "strategy": "EC", "source": "test", "lf": "unless", "precision": 0.75}))
    m = tmp / "m.jsonl"
    m.write_text("\n".join(lines) + "\n")
    return m


BUILDS = {     # a small build of each benchmark: argv of 'd3mkit build' writing under tmp / "b"
    "abstraction": lambda tmp: ["build", "abstraction", "--out", tmp / "b", "--n-train", "10", "--n-test", "10",
                                "--quiet"],
    "visudo": lambda tmp: ["build", "visudo", "--out", tmp / "b", "--sources", "digits", "--n-train", "4",
                           "--n-test", "4", "--quiet"],
    "value": lambda tmp: ["build", "value", "--out", tmp / "b", "--n-train", "4", "--n-test", "2", "--size", "64",
                          "--quiet"],
    "tabular": lambda tmp: ["build", "tabular", "--dataset", "iris", "--out", tmp / "b", "--quiet"],
    "value-detection": lambda tmp: ["build", "value-detection", "--out", tmp / "b", "--n-train", "4",
                                    "--n-test", "2", "--quiet"],
    "prism-pvli": lambda tmp: ["build", "prism", "--manifest", _prism_manifest(tmp), "--images", tmp,
                               "--task", "pvli", "--out", tmp / "b", "--quiet"],
    "prism-pvlr": lambda tmp: ["build", "prism", "--manifest", _prism_manifest(tmp), "--images", tmp,
                               "--task", "pvlr", "--out", tmp / "b", "--quiet"],
}


BUILD_NAMES = sorted(BUILDS)
