"""Shared pieces of the adversarial suite (tests/test_attack_*.py): small task roots,
running the CLI in-process, and the checks every attack makes (one line per issue, no
traceback, no internal error, the expected code and exit status)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd

from d3mkit.cli import main
from _scoring_util import make_task

CLASS_FRAME = pd.DataFrame({"d3mIndex": range(20), "x": [str(i % 7) for i in range(20)],
                            "y": ["a", "b", "c", "a", "b"] * 4})


def run(argv, capsys):
    """``(exit code, stdout, stderr)`` of ``d3mkit ARGV``; fails on a traceback."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err
    return code, out, err


def refused(argv, capsys, code_name: str, exit_code: int = 1, path=None) -> str:
    """Run ``argv``; it must exit ``exit_code`` with an issue of ``code_name`` (naming
    ``path`` when given), every stderr line one issue. Returns stderr."""
    code, out, err = run(argv, capsys)
    assert code == exit_code, (code, out, err)
    text = out + err   # validate reports on stdout, other commands on stderr
    assert f"[{code_name}]" in text, text
    if path is not None:
        assert str(path) in text, text
    for line in err.splitlines():
        assert "error [" in line or "warning [" in line or line.startswith("usage:"), line
    return text


def scores(out: str) -> dict[str, float]:
    """The stdout of ``score --format json`` (full precision) or of ``score`` (the
    metric/value table) as {metric: value}."""
    if out.lstrip().startswith("{"):
        return {s["metric"]: float("nan") if s["value"] is None else float(s["value"])
                for s in json.loads(out)["scores"]}
    rows = [line.split() for line in out.splitlines()[1:] if line.strip()]
    return {r[0]: float(r[1]) for r in rows}


def class_task(tmp: Path, name="t", metrics=("accuracy", "f1Macro"), frame=None, **kw) -> Path:
    frame = CLASS_FRAME if frame is None else frame
    return make_task(tmp, name, frame, ["y"], [{"metric": m} for m in metrics], **kw)


def problem_doc(root: Path) -> Path:
    return next(root.glob("*_problem")) / "problemDoc.json"


def dataset_doc(root: Path) -> Path:
    return next(root.glob("*_dataset")) / "datasetDoc.json"


def truth_rows(root: Path) -> pd.DataFrame:
    """The TEST rows of learningData (repeat 0, fold 0) as strings."""
    ld = pd.read_csv(next(root.glob("*_dataset")) / "tables" / "learningData.csv", dtype=str,
                     keep_default_na=False)
    sp = pd.read_csv(next(root.glob("*_problem")) / "dataSplits.csv", dtype=str, keep_default_na=False)
    test = sp.loc[sp["type"] == "TEST", "d3mIndex"]
    return ld[ld["d3mIndex"].isin(test)].reset_index(drop=True)


def edit_json_text(path: Path, fn) -> None:
    path.write_text(fn(json.dumps(json.loads(path.read_text()), indent=2)))
