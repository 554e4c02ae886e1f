"""Small task roots of every task type the built-in systems handle, made with
``d3mkit.importing.table.import_table`` from tiny seeded frames (numbers, a category, a
boolean, a date and a text column, so every colType path of the preprocessing runs)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

KINDS = ("binary", "multiClass", "multiLabel", "univariate", "multivariate")


def frame(n: int = 60, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    colour = rng.choice(["red", "green", "blue"], size=n)
    words = np.array(["alpha beta", "gamma delta", "beta gamma", "delta alpha"])
    df = pd.DataFrame({
        "x": np.round(x, 3),
        "size": rng.integers(1, 9, size=n),
        "colour": colour,
        "flag": rng.choice(["true", "false"], size=n),
        "when": pd.date_range("2020-01-01", periods=n, freq="D").strftime("%Y-%m-%d"),
        "note": words[rng.integers(0, 4, size=n)] + " and " + np.array([f"w{i}" for i in range(n)]),
    })
    df.loc[3, "x"] = np.nan                        # a missing number is imputed
    df["label"] = np.where(x > 0, "pos", "neg")
    df["kind"] = np.where(x > 0.5, "high", np.where(x < -0.5, "low", "mid"))
    df["y1"] = np.round(3 * x + df["size"], 3)
    df["y2"] = np.round(-x + rng.normal(scale=0.1, size=n), 3)
    df["sun"] = (x > 0).astype(int).astype(str)
    df["rain"] = (df["size"] > 4).astype(int).astype(str)
    return df


def make_root(out: Path, kind: str, *, n: int = 60, folds: int | None = None) -> Path:
    """A task root of ``kind`` (one of :data:`KINDS`) under ``out``; ``folds``: kFold."""
    from d3mkit.importing.table import import_table
    df = frame(n)
    spec = {"binary": ("label", {}), "multiClass": ("kind", {}),
            "multiLabel": (["sun", "rain"], {"task": "multiLabel"}),
            "univariate": ("y1", {}), "multivariate": (["y1", "y2"], {})}[kind]
    target, extra = spec
    drop = {"label", "kind", "y1", "y2", "sun", "rain"} - set([target] if isinstance(target, str) else target)
    split = {"split": "kFold", "folds": folds} if folds else {}
    return import_table(df.drop(columns=sorted(drop)), target=target, out=out, name=f"t_{kind}",
                        types={"note": "string"}, **extra, **split)
