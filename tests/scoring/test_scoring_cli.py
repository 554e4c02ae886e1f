"""``d3mkit score`` and ``d3mkit metrics``: exit codes, scores.csv shape, JSON output."""

import json

import pandas as pd
import pytest

from _scoring_util import make_task, write_csv
from d3mkit.cli import main

LD = pd.DataFrame({"d3mIndex": range(10), "x": range(10), "y": list("abcabcabca")})
GOOD = "d3mIndex,y\n9,a\n5,a\n1,b\n7,b\n3,a\n"


@pytest.fixture
def task(tmp_path):
    return make_task(tmp_path, "t", LD, ["y"], [{"metric": "accuracy"}, {"metric": "f1Macro"}])


@pytest.mark.parametrize("which", ["root", "problem_dir", "doc"])
def test_score_writes_scores_csv(task, tmp_path, capsys, which):
    problem = {"root": task, "problem_dir": task / "t_problem",
               "doc": task / "t_problem" / "problemDoc.json"}[which]
    pred = write_csv(tmp_path / "p.csv", GOOD)
    out = tmp_path / "out" / "scores.csv"
    assert main(["score", "--problem", str(problem), "--predictions", str(pred), "--out", str(out)]) == 0
    text = out.read_text()
    assert text.splitlines()[0] == "index,problemID,metric,value"
    df = pd.read_csv(out)
    assert list(df.columns) == ["index", "problemID", "metric", "value"]
    assert df["metric"].tolist() == ["accuracy", "f1Macro"]
    assert df["problemID"].unique().tolist() == ["t_problem"]
    assert df["value"][0] == 0.8
    assert not list(out.parent.glob(".*"))   # no temporary file left


def test_score_prints_a_table_and_json(task, tmp_path, capsys):
    pred = write_csv(tmp_path / "p.csv", GOOD)
    assert main(["score", "--problem", str(task), "--predictions", str(pred)]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == ["metric    value", "accuracy  0.8"]
    assert main(["score", "--problem", str(task), "--predictions", str(pred), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["problemID"] == "t_problem"
    assert data["scores"][0] == {"metric": "accuracy", "target": None, "value": 0.8}
    assert data["issues"] == []


def test_score_explicit_dataset_and_targets(task, tmp_path, capsys):
    pred = write_csv(tmp_path / "p.csv", GOOD)
    assert main(["score", "--problem", str(task / "t_problem"), "--predictions", str(pred),
                 "--datasets", str(task / "t_dataset")]) == 0
    assert "accuracy  0.8" in capsys.readouterr().out
    tg = write_csv(tmp_path / "targets.csv", "d3mIndex,y\n1,b\n3,a\n5,c\n7,b\n9,a\n")
    assert main(["score", "--problem", str(task / "t_problem"), "--predictions", str(pred),
                 "--targets", str(tg), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scores"][0]["value"] == 0.8


def test_invalid_predictions_exit_1_and_no_scores(task, tmp_path, capsys):
    pred = write_csv(tmp_path / "p.csv", "d3mIndex,y\n1,b\n1,b\n")
    out = tmp_path / "scores.csv"
    rc = main(["score", "--problem", str(task), "--predictions", str(pred), "--out", str(out)])
    assert rc == 1
    assert not out.exists()
    err = capsys.readouterr().err
    assert "p.csv: row 2, column d3mIndex: error [predictions.duplicate_index]" in err
    assert "Traceback" not in err
    rc = main(["score", "--problem", str(task), "--predictions", str(pred), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 1 and data["scores"] == [] and data["issues"][0]["severity"] == "error"


def test_usage_errors_exit_2(task, tmp_path, capsys):
    pred = write_csv(tmp_path / "p.csv", GOOD)
    assert main(["score", "--problem", str(tmp_path / "nope"), "--predictions", str(pred)]) == 2
    assert main(["score", "--problem", str(task), "--predictions", str(tmp_path / "missing.csv")]) == 2
    with pytest.raises(SystemExit) as exc:
        main(["score", "--problem", str(task)])
    assert exc.value.code == 2
    lonely = tmp_path / "lonely_problem"
    lonely.mkdir()
    (lonely / "problemDoc.json").write_text((task / "t_problem" / "problemDoc.json").read_text())
    assert main(["score", "--problem", str(lonely), "--predictions", str(pred)]) == 2
    assert "pass --dataset" in capsys.readouterr().err


def test_metrics_command(capsys):
    assert main(["metrics"]) == 0
    out = capsys.readouterr().out
    assert "accuracy" in out and "objectDetectionAP" in out and "hammingLoss *" in out
    assert main(["metrics", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    by = {m["name"]: m for m in data["metrics"]}
    assert by["rocAuc"]["needsConfidence"] is True
    assert by["precisionAtTopK"]["params"] == ["K"]
    assert by["accuracy"]["source"] == "d3mkit.scoring.metrics"


def test_metrics_text_table_columns_line_up(capsys):
    assert main(["metrics"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[0].split()
    assert header[:4] == ["NAME", "BETTER", "BEST", "WORST"]
    rows = {ln.split()[0]: ln.split() for ln in lines[1:] if ln and not ln.startswith(("*", " "))}
    assert rows["accuracy"][1:4] == ["higher", "1", "0"]
    assert rows["meanSquaredError"][1:4] == ["lower", "0", "inf"]
    assert rows["accuracy"][-1] == "d3mkit.scoring.metrics"
