"""``d3mkit score`` of a CSV case (the rows, classes, multiLabel and ranked layouts, an
integer or a text d3mIndex, a task root) never imports pandas: the pipeline's table is numpy
columns (d3mkit.tables.columns) read by pyarrow's CSV reader (d3mkit.tables.arrow);
pandas costs about 0.2 s and 80 MB per process."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from d3mkit.documents import ProblemDoc, Target

REPO = Path(__file__).resolve().parents[2]
PROBE = ("import sys\nfrom d3mkit.cli import main\ncode = main(sys.argv[1:])\n"
         "print('LOADED', ' '.join(m for m in ('pandas',) if m in sys.modules), file=sys.stderr)\n"
         "raise SystemExit(code)")


def _problem(tmp_path, metrics):
    doc = ProblemDoc.new("p_problem", "p", "classification", "multiClass", "p_dataset",
                         [Target(0, "learningData", 1, "label")], [{"metric": m} for m in metrics])
    doc.save(tmp_path / "problemDoc.json")
    return tmp_path / "problemDoc.json"


def _score(args):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    p = subprocess.run([sys.executable, "-c", PROBE, "score", *map(str, args)], env=env,
                       capture_output=True, text=True)
    loaded = [ln for ln in p.stderr.splitlines() if ln.startswith("LOADED")]
    return p, loaded[-1].split()[1:] if loaded else None


@pytest.mark.slow
def test_score_of_a_csv_classification_case_imports_no_pandas(tmp_path):
    pdoc = _problem(tmp_path, ["accuracy", "f1Macro"])
    (tmp_path / "targets.csv").write_text("d3mIndex,label\n" + "".join(f"{i},{'ab'[i % 2]}\n" for i in range(10)))
    (tmp_path / "pred.csv").write_text("d3mIndex,label\n" + "".join(f"{i},{'ab'[i % 3 == 0]}\n"
                                                                    for i in reversed(range(10))))
    p, loaded = _score(["--problem", pdoc, "--predictions", tmp_path / "pred.csv", "--targets",
                        tmp_path / "targets.csv", "--out", tmp_path / "scores.csv", "--format", "json"])
    assert p.returncode == 0, p.stderr
    assert loaded == [], loaded
    scores = {s["metric"]: s["value"] for s in json.loads(p.stdout)["scores"]}
    assert scores["accuracy"] == 0.5
    assert (tmp_path / "scores.csv").read_text().splitlines()[:2] == ["index,problemID,metric,value",
                                                                      "0,p_problem,accuracy,0.5"]


@pytest.mark.slow
def test_a_bad_submission_is_reported_without_pandas_too(tmp_path):
    pdoc = _problem(tmp_path, ["accuracy"])
    (tmp_path / "targets.csv").write_text("d3mIndex,label\n0,a\n1,b\n2,a\n")
    (tmp_path / "pred.csv").write_text("d3mIndex,label\n0,a\n1,\n7,b\n")
    p, loaded = _score(["--problem", pdoc, "--predictions", tmp_path / "pred.csv", "--targets",
                        tmp_path / "targets.csv"])
    assert p.returncode == 1 and "predictions.index_set" in p.stderr, p.stderr
    assert loaded == [], loaded


@pytest.mark.slow
def test_a_regression_case_with_confidence_free_metrics_imports_no_pandas(tmp_path):
    doc = ProblemDoc.new("r_problem", "r", "regression", "univariate", "r_dataset",
                         [Target(0, "learningData", 1, "y")],
                         [{"metric": "rootMeanSquaredError"}, {"metric": "meanAbsoluteError"}])
    doc.save(tmp_path / "problemDoc.json")
    (tmp_path / "targets.csv").write_text("d3mIndex,y\n0,1.5\n1,2\n2,-3e0\n")
    (tmp_path / "pred.csv").write_text("d3mIndex,y\n2,-2\n0,1.5\n1,4\n")
    p, loaded = _score(["--problem", tmp_path / "problemDoc.json", "--predictions", tmp_path / "pred.csv",
                        "--targets", tmp_path / "targets.csv", "--format", "json"])
    assert p.returncode == 0, p.stderr
    assert loaded == [], loaded
    scores = {s["metric"]: s["value"] for s in json.loads(p.stdout)["scores"]}
    assert scores["meanAbsoluteError"] == 1.0 and abs(scores["rootMeanSquaredError"] - (5 / 3) ** 0.5) < 1e-12


@pytest.mark.slow   # builds the wine root (about 3-6 s on a loaded machine)
def test_a_task_roots_test_rows_are_scored_without_pandas(tmp_path):
    from taskroot_helpers import wine_root
    root = wine_root(tmp_path / "out", with_predictions=True)
    p, loaded = _score(["--problem", root, "--predictions", root.parent / "predictions.csv", "--format", "json"])
    assert p.returncode == 0, p.stderr
    assert loaded == [], loaded
    assert {s["metric"]: s["value"] for s in json.loads(p.stdout)["scores"]}["accuracy"] == 1.0


def _problem_doc(path, metrics, subtype="multiClass", task_type="classification", **extra):
    path.mkdir()
    doc = ProblemDoc.new("p_problem", "p", task_type, subtype, "p_dataset",
                         [Target(0, "learningData", 1, "label")],
                         [{"metric": m, **extra.get(m, {})} for m in metrics])
    doc.save(path / "problemDoc.json")
    return path / "problemDoc.json"


# several cases in one process (one start-up, not one per case): each is scored by
# main(argv) in turn, its JSON printed on one line, and the process says at the end whether
# any of them imported pandas
MANY = ("import io, json, sys, contextlib\nfrom d3mkit.cli import main\n"
        "for argv in json.loads(sys.argv[1]):\n"
        "    out = io.StringIO()\n"
        "    with contextlib.redirect_stdout(out):\n"
        "        code = main(argv)\n"
        "    print(json.dumps({'code': code, 'out': out.getvalue()}))\n"
        "print('LOADED', ' '.join(m for m in ('pandas',) if m in sys.modules), file=sys.stderr)\n")


def _score_many(cases: dict) -> tuple[dict, list]:
    """``{name: (problemDoc, truth file, predictions file)}`` scored in one process:
    ``({name: scores}, whether it loaded pandas)``."""
    names = list(cases)
    argvs = [["score", "--problem", str(pdoc), "--predictions", str(pred), "--targets", str(truth),
              "--format", "json"] for pdoc, truth, pred in cases.values()]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    p = subprocess.run([sys.executable, "-c", MANY, json.dumps(argvs)], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    results = [json.loads(ln) for ln in p.stdout.splitlines()]
    assert [r["code"] for r in results] == [0] * len(names), (results, p.stderr)
    loaded = [ln for ln in p.stderr.splitlines() if ln.startswith("LOADED")][-1].split()[1:]
    return {n: {s["metric"]: s["value"] for s in json.loads(r["out"])["scores"]}
            for n, r in zip(names, results)}, loaded


def _case(tmp_path, name, truth: str, pred: str, *metrics, **kw):
    pdoc = _problem_doc(tmp_path / name, metrics, **kw)
    (tmp_path / name / "targets.csv").write_text(truth)
    (tmp_path / name / "pred.csv").write_text(pred)
    return pdoc, tmp_path / name / "targets.csv", tmp_path / name / "pred.csv"


@pytest.mark.slow
def test_the_other_layouts_and_a_text_d3mindex_import_no_pandas(tmp_path):
    cases = {}
    # classes: one row per (d3mIndex, class) with its confidence; index 2's most confident
    # class is wrong
    rows = [(i, c, 0.6 if c == "abc"[i % 3] else 0.2) for i in range(6) for c in "abc"]
    rows[2 * 3 + 1] = (2, "b", 0.7)
    cases["classes"] = _case(tmp_path, "classes", "d3mIndex,label\n" + "".join(f"{i},{'abc'[i % 3]}\n" for i in range(6)),
                             "d3mIndex,label,confidence\n" + "".join(f"{i},{c},{v}\n" for i, c, v in reversed(rows)),
                             "accuracy", "f1Macro", "rocAucMacro")
    cases["multiLabel"] = _case(tmp_path, "multiLabel", "d3mIndex,label\n0,a\n0,b\n1,b\n2,a\n2,c\n",
                                "d3mIndex,label\n2,c\n2,a\n1,a\n0,b\n0,a\n", "accuracy", "f1Macro", "hammingLoss",
                                subtype="multiLabel")
    cases["ranked"] = _case(tmp_path, "ranked", "d3mIndex,label\n0,father\n1,sister\n2,brother\n",
                            "d3mIndex,label,rank\n2,sister,3\n0,brother,1\n0,cousin,2\n1,sister,1\n0,father,4\n"
                            "2,father,1\n1,mother,2\n2,brother,2\n", "meanReciprocalRank", "hitsAtK",
                            subtype=None, task_type="linkPrediction", hitsAtK={"K": 2})
    cases["text index"] = _case(tmp_path, "text", "d3mIndex,label\n" + "".join(f"r{i},{'ab'[i % 2]}\n" for i in range(10)),
                                "d3mIndex,label\n" + "".join(f"r{i},{'ab'[i % 5 == 0]}\n" for i in reversed(range(10))),
                                "accuracy", "f1Macro")
    scores, loaded = _score_many(cases)
    assert loaded == [], loaded
    assert abs(scores["classes"]["accuracy"] - 5 / 6) < 1e-12 and 0 < scores["classes"]["rocAucMacro"] <= 1
    assert abs(scores["multiLabel"]["accuracy"] - 2 / 3) < 1e-12
    assert abs(scores["multiLabel"]["hammingLoss"] - 2 / 9) < 1e-12
    assert abs(scores["ranked"]["meanReciprocalRank"] - (1 / 4 + 1 + 1 / 2) / 3) < 1e-12
    assert abs(scores["ranked"]["hitsAtK"] - 2 / 3) < 1e-12
    assert scores["text index"]["accuracy"] == 0.5
