"""``d3mkit export croissant BOARD --results`` (issue 36): an evaluate board as Croissant Tasks
TaskSolutions (one per system x problem, isBasedOn the problem), EvaluationTasks and
EvaluationResults (the aggregate mean; per fold a sub-solution whose value is a
QuantitativeValue with the bootstrap interval as min/max), accepted by pull request 1017's
shapes, every number the board's, nothing for a system that did not submit."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from _attack_util import refused
from _tasks_util import check_shapes


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    """The example campaign, evaluated after one fold of one system was taken away."""
    from d3mkit.cli import main
    from d3mkit.evaluate.example import write_example
    tmp = tmp_path_factory.mktemp("board")
    problems, submissions = write_example(tmp / "camp")
    gone = next(submissions.glob("logistic_baseline/*/repeat_0/fold_1"))
    shutil.rmtree(gone)
    assert main(["evaluate", "--problems", str(problems), "--submissions", str(submissions),
                 "--out", str(tmp / "out")]) == 0
    assert main(["export", "croissant", str(tmp / "out"), "--results"]) == 0
    return tmp / "out", gone


def _nodes(doc):
    return {n["@id"]: n for n in doc["@graph"]}


@pytest.mark.slow      # the board: an evaluate run of the example campaign, ~10 s
def test_results_conform(board):
    check_shapes(board[0] / "results_tasks.json")


@pytest.mark.slow      # the board: an evaluate run of the example campaign, ~10 s
def test_every_value_is_the_boards(board):
    out, _ = board
    doc = json.loads((out / "results_tasks.json").read_text())
    nodes = _nodes(doc)
    agg = pd.read_csv(out / "aggregates.csv", dtype=str, keep_default_na=False)
    scores = pd.read_csv(out / "scores.csv", dtype=str, keep_default_na=False)
    pairs = set(zip(agg["system"], agg["problemID"]))
    solutions = [n for n in doc["@graph"] if n["@type"] == "cr:TaskSolution"]
    assert {n["@id"] for n in solutions} == {f"solution/{s}/{p}" for s, p in pairs}
    for row in agg.itertuples(index=False):
        sol = nodes[f"solution/{row.system}/{row.problemID}"]
        assert sol["isBasedOn"] == {"@id": f"problem/{row.problemID}"}
        assert nodes[sol["cr:implementation"]["@id"]]["name"] == row.system
        ev = sol["cr:evaluation"]
        assert ev["cr:evaluatedSolution"] == {"@id": sol["@id"]}
        r = next(x for x in ev["cr:evaluationResults"] if x["cr:metric"] == {"@value": row.metric})
        assert r["cr:value"] == float(row.mean) and r["d3m:folds"] == int(row.folds)
        assert r["d3m:rank"] == int(row.rank)
        assert r.get("d3m:sd") == (float(row.sd) if row.sd else None)
    n = 0
    for row in scores.itertuples(index=False):
        sol = nodes[f"solution/{row.system}/{row.problemID}"]
        sub = next(s for s in sol["cr:subTask"] if (s["d3m:repeat"], s["d3m:fold"]) == (int(row.repeat), int(row.fold)))
        assert sub["isBasedOn"] == {"@id": f"problem/{row.problemID}/repeat/{row.repeat}/fold/{row.fold}"}
        r = next(x for x in sub["cr:evaluation"]["cr:evaluationResults"] if x["cr:metric"] == {"@value": row.metric})
        qv = r["cr:value"]
        assert qv["@type"] == "QuantitativeValue" and qv["value"] == float(row.value)
        assert (qv.get("minValue"), qv.get("maxValue")) == (float(row.ci_low), float(row.ci_high))
        n += 1
    assert n == len(scores)
    # one result per row of each file: nothing added
    assert sum(len(s["cr:evaluation"]["cr:evaluationResults"]) for s in solutions) == len(agg)
    assert sum(len(x["cr:evaluation"]["cr:evaluationResults"]) for s in solutions for x in s.get("cr:subTask", [])) \
        == len(scores)


@pytest.mark.slow      # the board: an evaluate run of the example campaign, ~10 s
def test_nothing_for_what_was_not_submitted(board):
    out, gone = board
    doc = json.loads((out / "results_tasks.json").read_text())
    ids = set(_nodes(doc))
    assert not any("broken_submitter" in i for i in ids)       # every submission of it failed
    pid = gone.parent.parent.name
    sol = _nodes(doc)[f"solution/logistic_baseline/{pid}"]
    assert (0, 1) not in {(s["d3m:repeat"], s["d3m:fold"]) for s in sol["cr:subTask"]}
    assert len(sol["cr:subTask"]) == 2


def test_not_a_board(tmp_path, capsys):
    refused(["export", "croissant", tmp_path, "--results"], capsys, "usage.path", 2)
    (tmp_path / "scores.csv").write_text("system,value\nx,1\n")
    (tmp_path / "aggregates.csv").write_text("system,problemID,metric,mean,sd,folds,rank\n")
    refused(["export", "croissant", tmp_path, "--results"], capsys, "export.board", 1)
    assert not (tmp_path / "results_tasks.json").exists()


@pytest.mark.slow      # the board: an evaluate run of the example campaign, ~10 s
def test_bad_number_refused(board, tmp_path, capsys):
    out = tmp_path / "b"
    shutil.copytree(board[0], out)
    (out / "results_tasks.json").unlink()
    agg = (out / "aggregates.csv").read_text().splitlines()
    parts = agg[1].split(",")
    parts[3] = "nan"
    agg[1] = ",".join(parts)
    (out / "aggregates.csv").write_text("\n".join(agg) + "\n")
    text = refused(["export", "croissant", out, "--results"], capsys, "export.board", 1)
    assert "row 2, column mean" in text and not (out / "results_tasks.json").exists()


@pytest.mark.slow      # the board: an evaluate run of the example campaign, ~10 s
def test_a_benchmark_board_reads_its_evaluation(board, tmp_path):
    """d3mkit benchmark writes evaluate's outputs into BOARD/evaluation/: --results of the
    benchmark board is the evaluate board's document."""
    import shutil
    from d3mkit.interop.results import results_document
    out, _ = board
    bench = tmp_path / "bench"
    shutil.copytree(out, bench / "evaluation")
    (bench / "runs").mkdir()
    assert results_document(bench) == results_document(out)
