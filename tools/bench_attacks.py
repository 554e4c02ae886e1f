"""How d3mkit's input checks scale with what a hostile input controls (issue 10, class 2).

Prints one table: the time of ``d3mkit score`` on a predictions file with W extra
columns (W = 1,000 .. 100,000; linear in W is the target: the seconds per 1,000 columns
stay flat), and the time to refuse three bombs that used to exhaust the machine: a
problemDoc of a few hundred bytes asking for 10^9 repeats (validate and split), 20,000
invented multiLabel labels over 5,000 TEST indices, and /dev/zero as predictions. Header
widths over D3MKIT_MAX_COLUMNS (100,000) are refused before reading the body.

    python tools/bench_attacks.py [--out DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from d3mkit.cli import main  # noqa: E402
from d3mkit.documents import Column, DatasetDoc, ProblemDoc, Resource, Target  # noqa: E402
from d3mkit.tables import write_table  # noqa: E402
from tools._bench_data import best_of  # noqa: E402


def _task(tmp: Path, name: str, frame: pd.DataFrame, subtype: str = "multiClass") -> Path:
    root = tmp / name
    cols = [Column(0, "d3mIndex", "integer", ("index",)), Column(1, "y", "categorical", ("suggestedTarget",))]
    ds = DatasetDoc.new(f"{name}_dataset", name, [Resource.table("learningData", "tables/learningData.csv", cols)])
    (root / f"{name}_dataset").mkdir(parents=True)
    ds.save(root / f"{name}_dataset" / "datasetDoc.json")
    write_table(frame, root / f"{name}_dataset" / "tables" / "learningData.csv")
    metrics = [{"metric": "f1Micro" if subtype == "multiLabel" else "accuracy"}]
    pdoc = ProblemDoc.new(f"{name}_problem", name, "classification", subtype, f"{name}_dataset",
                          [Target(0, "learningData", 1, "y")], metrics)
    (root / f"{name}_problem").mkdir(parents=True)
    pdoc.save(root / f"{name}_problem" / "problemDoc.json")
    idx = frame["d3mIndex"].drop_duplicates()
    write_table(pd.DataFrame({"d3mIndex": idx, "type": ["TEST" if i % 2 else "TRAIN" for i in idx],
                              "repeat": 0, "fold": 0}), root / f"{name}_problem" / "dataSplits.csv")
    return root


def _quiet(argv) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main([str(a) for a in argv])


def run(out: Path) -> list[tuple[str, str, float, int]]:
    rows = []
    task = _task(out, "wide", pd.DataFrame({"d3mIndex": range(20), "y": list("ab") * 10}))
    for w in (1_000, 10_000, 50_000, 99_000, 150_000):
        extra = ",".join(f"c{i}" for i in range(w))
        zeros = ",".join("0" for _ in range(w))
        p = out / f"wide{w}.csv"
        p.write_text(f"d3mIndex,y,{extra}\n" + "".join(f"{i},{'ab'[i % 2]},{zeros}\n" for i in range(1, 20, 2)))
        codes = []
        t = best_of(lambda: codes.append(_quiet(["score", "--problem", task, "--predictions", p])), 2)
        rows.append(("score, extra columns", f"{w:,} ({os.path.getsize(p) // 1024:,} KB)", t, codes[-1]))
    bomb = _task(out, "bomb", pd.DataFrame({"d3mIndex": range(20), "y": list("ab") * 10}))
    doc = bomb / "bomb_problem" / "problemDoc.json"
    d = json.loads(doc.read_text())
    d["inputs"]["dataSplits"]["numRepeats"] = 10 ** 9
    doc.write_text(json.dumps(d))
    for cmd in (["validate", bomb], ["split", bomb / "bomb_problem", "--force"]):
        t0 = time.perf_counter()
        code = _quiet(cmd)
        rows.append((f"{cmd[0]}, numRepeats 10^9", f"{os.path.getsize(doc)} B doc", time.perf_counter() - t0, code))
    n = 10_000   # 5,000 TEST indices, each predicted with 4 of 20,000 invented labels
    ml = _task(out, "ml", pd.DataFrame({"d3mIndex": [i for i in range(n) for _ in (0, 1)],
                                        "y": [lab for i in range(n) for lab in ("a", "b" if i % 2 else "c")]}),
               "multiLabel")
    p = out / "ml.csv"
    p.write_text("d3mIndex,y\n" + "".join(f"{i},x{(i * 4 + k) % 20_000}\n" for i in range(1, n, 2) for k in range(4)))
    t0 = time.perf_counter()
    code = _quiet(["score", "--problem", ml, "--predictions", p])
    rows.append(("score, invented multiLabel labels", f"20,000 ({os.path.getsize(p) // 1024} KB)",
                 time.perf_counter() - t0, code))
    if os.path.exists("/dev/zero"):
        t0 = time.perf_counter()
        code = _quiet(["score", "--problem", task, "--predictions", "/dev/zero"])
        rows.append(("score, /dev/zero as predictions", "-", time.perf_counter() - t0, code))
    return rows


def main_() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, help="work directory (default: a temporary one)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        rows = run(out)
    print(f"{'attack':36} {'size':>20} {'seconds':>9} {'exit':>5}")
    for what, size, t, code in rows:
        print(f"{what:36} {size:>20} {t:9.3f} {code:>5}")


if __name__ == "__main__":
    main_()
