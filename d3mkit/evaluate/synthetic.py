"""A synthetic campaign (seeded): problems and a submissions tree with some malformed
files, for the tests and ``tools/bench_evaluate.py``.

Problems alternate classification/multiClass (accuracy, f1Macro) and regression/univariate
(rootMeanSquaredError, meanAbsoluteError). With ``folds=1`` half the rows are TEST and a
submission is ``<system>/<problemID>/predictions.csv``; with ``folds=K`` the dataSplits
are K folds of repeat 0 (row ``i`` is TEST in fold ``i % K``) and a submission holds
``repeat_0/fold_F/predictions.csv`` per fold. System ``k`` predicts the truth with a
per-system error rate; a ``malformed`` fraction of the submission files is broken in one
of :data:`MALFORMATIONS`, and every file of the systems named in ``broken`` is. Same
seed, same bytes.

>>> import tempfile, pathlib
>>> with tempfile.TemporaryDirectory() as d:
...     p, s = make_campaign(pathlib.Path(d), systems=2, problems=2, rows=20, seed=0)
...     sorted(x.name for x in p.iterdir()), sorted(x.name for x in s.iterdir())
(['synth_000', 'synth_001'], ['system_00', 'system_01'])
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

MALFORMATIONS = ("no_target_column", "unknown_index", "bad_value", "empty", "binary", "missing_rows")
CLASSES = np.array(["a", "b", "c", "d"])


def _problem(root: Path, name: str, rows: int, kind: str, rng: np.random.Generator, folds: int = 1):
    from d3mkit.documents import Column, DatasetDoc, ProblemDoc, Resource, Target
    x = rng.normal(size=rows)
    if kind == "classification":
        y = CLASSES[rng.integers(0, len(CLASSES), rows)]
        ytype, task, sub = "categorical", "classification", "multiClass"
        metrics = [{"metric": "accuracy"}, {"metric": "f1Macro"}]
        ytext = y
    else:
        y = np.round(3 * x + rng.normal(size=rows), 4)
        ytype, task, sub = "real", "regression", "univariate"
        metrics = [{"metric": "rootMeanSquaredError"}, {"metric": "meanAbsoluteError"}]
        ytext = np.char.mod("%.4f", y)
    cols = [Column(0, "d3mIndex", "integer", ("index",)), Column(1, "x", "real", ("attribute",)),
            Column(2, "y", ytype, ("suggestedTarget",))]
    ddir, pdir = root / name / f"{name}_dataset", root / name / f"{name}_problem"
    (ddir / "tables").mkdir(parents=True)
    pdir.mkdir(parents=True)
    DatasetDoc.new(f"{name}_dataset", name, [Resource.table("learningData", "tables/learningData.csv",
                                                             cols)]).save(ddir / "datasetDoc.json")
    idx = np.arange(rows)
    lines = ["d3mIndex,x,y"] + [f"{i},{xv:.4f},{yv}" for i, xv, yv in zip(idx, x, ytext)]
    (ddir / "tables" / "learningData.csv").write_text("\n".join(lines) + "\n")
    ProblemDoc.new(f"{name}_problem", name, task, sub, f"{name}_dataset",
                   [Target(0, "learningData", 2, "y")], metrics).save(pdir / "problemDoc.json")
    if folds == 1:
        test = idx % 2 == 1
        split = ["d3mIndex,type,repeat,fold"] + [f"{i},{'TEST' if t else 'TRAIN'},0,0" for i, t in zip(idx, test)]
        (pdir / "dataSplits.csv").write_text("\n".join(split) + "\n")
        return [(idx[test], y[test])], kind
    split = ["d3mIndex,type,repeat,fold"] + [f"{i},{'TEST' if i % folds == f else 'TRAIN'},0,{f}"
                                             for f in range(folds) for i in idx]
    (pdir / "dataSplits.csv").write_text("\n".join(split) + "\n")
    return [(idx[idx % folds == f], y[idx % folds == f]) for f in range(folds)], kind


def _predictions(truth, kind: str, skill: float, rng: np.random.Generator) -> list[str]:
    idx, y = truth
    if kind == "classification":
        wrong = rng.random(len(y)) > skill
        pred = np.where(wrong, CLASSES[rng.integers(0, len(CLASSES), len(y))], y)
    else:
        pred = np.char.mod("%.4f", y + rng.normal(scale=2 * (1 - skill) + 0.05, size=len(y)))
    return ["d3mIndex,y"] + [f"{i},{p}" for i, p in zip(idx, pred)]


def _malform(lines: list[str], how: str, rng: np.random.Generator) -> bytes:
    if how == "no_target_column":
        return ("\n".join(["d3mIndex,prediction"] + lines[1:]) + "\n").encode()
    if how == "unknown_index":
        return ("\n".join(lines + ["99999999,a"]) + "\n").encode()
    if how == "bad_value":
        k = 1 + int(rng.integers(0, len(lines) - 1))
        lines = list(lines)
        lines[k] = lines[k].split(",")[0] + ",\x01oops,extra"
        return ("\n".join(lines) + "\n").encode()
    if how == "empty":
        return b""
    if how == "binary":
        return bytes(rng.integers(0, 256, 512, dtype=np.uint8))
    return ("\n".join(lines[: max(2, len(lines) // 2)]) + "\n").encode()   # missing_rows


def make_campaign(root: Path, *, systems: int, problems: int, rows: int, seed: int,
                  malformed: float = 0.05, folds: int = 1, names: list[str] | None = None,
                  broken: tuple[str, ...] = ()) -> tuple[Path, Path]:
    """Write ``root/problems`` and ``root/submissions``; return the two directories.
    ``names`` (default ``system_00``, ...) name the systems."""
    rng = np.random.default_rng(seed)
    pdir, sdir = Path(root) / "problems", Path(root) / "submissions"
    names = list(names) if names is not None else [f"system_{k:02d}" for k in range(systems)]
    truths = {}
    for j in range(problems):
        name = f"synth_{j:03d}"
        truths[f"{name}_problem"] = _problem(pdir, name, rows, ("classification", "regression")[j % 2], rng, folds)
    skills = rng.uniform(0.3, 0.95, len(names))
    for k, system in enumerate(names):
        for pid, (fold_truths, kind) in truths.items():
            for f, truth in enumerate(fold_truths):
                lines = _predictions(truth, kind, float(skills[k]), rng)
                where = sdir / system / pid
                out = (where if folds == 1 else where / "repeat_0" / f"fold_{f}") / "predictions.csv"
                out.parent.mkdir(parents=True, exist_ok=True)
                if system in broken or rng.random() < malformed:
                    out.write_bytes(_malform(lines, MALFORMATIONS[int(rng.integers(len(MALFORMATIONS)))], rng))
                else:
                    out.write_text("\n".join(lines) + "\n")
    return pdir, sdir
