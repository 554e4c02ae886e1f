"""Shared by the Croissant Tasks and OpenML tests: task roots of every tabular task type made
by ``import table`` (``tabular_roots``), the Croissant Tasks shapes of pull request 1017 from
the shared corpus (``SHAPES``, skipped without it), and comparing two task roots' documents,
tables and splits (``same_root``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

REALWORLD = os.environ.get("D3MKIT_REALWORLD")
SHAPES = Path(REALWORLD) / "croissant-tasks" / "pr1017" if REALWORLD else None
EXAMPLES = SHAPES / "examples" if SHAPES else None


def shapes_dir() -> Path:
    if SHAPES is None or not (SHAPES / "croissant-tasks-shapes.ttl").is_file():
        pytest.skip("D3MKIT_REALWORLD/croissant-tasks/pr1017 (the Croissant Tasks shapes) is not available")
    pytest.importorskip("pyshacl")
    return SHAPES


def check_shapes(doc) -> None:
    """``doc`` (a dict or a JSON-LD file) conforms to pull request 1017's shapes."""
    from d3mkit.interop.shacl import conforms
    ok, report = conforms(doc, shapes_dir())
    assert ok, report


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "x one": rng.normal(size=n).round(3),           # a space
        "größe": rng.integers(0, 50, n),                   # non-ASCII letters
        "farbe é": rng.choice(["rot", "grün", "blau"], n),
        "code": [f"{v:03d}" for v in rng.integers(0, 20, n)],
    })


def tabular_roots(tmp: Path) -> dict[str, Path]:
    """Task roots of every tabular task type: binary (f1 of a positive label, column names with
    spaces and non-ASCII letters), multiClass (kFold, 3 folds x 2 repeats), multiLabel (a
    custom metric, hammingLoss), univariate regression and multivariate regression (kFold)."""
    from d3mkit.importing.table import import_table
    out = tmp / "roots"
    n = 48
    roots = {}
    df = _frame(n, 1)
    df["ziel ü"] = np.where(df["x one"] > 0, "ja", "nein")
    roots["binary"] = import_table(df, target="ziel ü", out=out, name="binary",
                                   metrics=[{"metric": "f1", "posLabel": "ja"}, "accuracy"])
    df = _frame(n, 2)
    df["klasse"] = np.array(["a", "b", "c"])[np.arange(n) % 3]
    roots["multiclass"] = import_table(df, target="klasse", out=out, name="multiclass", split="kFold", folds=3,
                                       repeats=2)
    df = _frame(n, 3)
    df["sun"] = (np.arange(n) % 2).astype(str)
    df["rain"] = (np.arange(n) % 3 == 0).astype(int).astype(str)
    roots["multilabel"] = import_table(df, target=["sun", "rain"], out=out, name="multilabel",
                                       metrics=["hammingLoss", "jaccardSimilarityScore"])
    df = _frame(n, 4)
    df["preis"] = (df["x one"] * 3 + 1).round(4)
    roots["regression"] = import_table(df, target="preis", out=out, name="regression",
                                       metrics=["meanAbsoluteError", "rSquared"])
    df = _frame(n, 5)
    df["y a"] = (df["x one"] * 2).round(3)
    df["y b"] = (df["größe"] / 7).round(3)
    roots["multivariate"] = import_table(df, target=["y a", "y b"], out=out, name="multivariate", split="kFold",
                                         folds=2)
    return roots


def documents(root: Path) -> tuple[dict, dict]:
    name = root.name
    ddoc = json.loads((root / f"{name}_dataset" / "datasetDoc.json").read_text())
    pdoc = json.loads((root / f"{name}_problem" / "problemDoc.json").read_text())
    return ddoc, pdoc


def same_root(a: Path, b: Path, *, ignore_about=("source",)) -> None:
    """The task roots ``a`` and ``b`` hold equal documents (but ``about`` keys ``ignore_about``
    of the datasetDoc: the import names the file it read), learningData and dataSplits."""
    (da, pa), (db, pb) = documents(a), documents(b)
    for d in (da, db):
        for k in ignore_about:
            d["about"].pop(k, None)
    assert da == db
    assert pa == pb
    for rel in (f"{a.name}_dataset/tables/learningData.csv", f"{a.name}_problem/dataSplits.csv"):
        ta = pd.read_csv(a / rel, dtype=str, keep_default_na=False)
        tb = pd.read_csv(b / rel.replace(a.name, b.name, 1), dtype=str, keep_default_na=False)
        pd.testing.assert_frame_equal(ta, tb)
