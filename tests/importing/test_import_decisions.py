"""Inference that says what it decided and decides as users expect (issue 32 item 3): the
decision line, integer class labels, boolean spellings, Croissant dataTypes through the same
rules, missing-value tokens, missing and infinite targets, an ARFF NUMERIC attribute of ``?``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from _attack_util import refused, run
from d3mkit.importing import infer
from d3mkit.taskroot.model import TaskRoot

REALWORLD = os.environ.get("D3MKIT_REALWORLD")


def _import(tmp_path, capsys, text: str, *args, name="t"):
    p = tmp_path / f"{name}.csv"
    p.write_text(text)
    code, out, err = run(["import", "table", p, "--out", tmp_path / "o", *args], capsys)
    assert code == 0, err
    return TaskRoot.open(Path(out.strip())), err


def _types(task) -> dict:
    return {c.col_name: c.col_type for c in task.dataset.learning_data.columns}


def test_integer_labels_are_classes_and_the_line_says_so(tmp_path, capsys):
    rows = "".join(f"{i},{i % 3}\n" for i in range(12))
    task, err = _import(tmp_path, capsys, "x,y\n" + rows, "--target", "y")
    assert (task.problem.task_type, task.problem.task_subtype) == ("classification", "multiClass")
    assert err == ("t: target 'y' holds 3 integer values (at most 10: class labels): colType categorical, "
                   "classification/multiClass, metrics accuracy, f1Macro (--task regression to change)\n")
    task, err = _import(tmp_path, capsys, "x,y\n" + rows, "--target", "y", "--task", "regression", "--force")
    assert task.problem.task_type == "regression" and "(--task given)" in err


def test_many_integers_are_a_quantity(tmp_path, capsys):
    n = infer.MAX_INTEGER_CLASSES + 1
    task, err = _import(tmp_path, capsys, "x,y\n" + "".join(f"{i},{i}\n" for i in range(2 * n)), "--target", "y")
    assert task.problem.task_type == "regression" and "--task classification to change" in err


def test_boolean_spellings_are_two_classes(tmp_path, capsys):
    cells = ["yes", "YES", " yes", "no", "No", "yes", "no", "NO"]
    task, err = _import(tmp_path, capsys, "x,y\n" + "".join(f"{i},{c}\n" for i, c in enumerate(cells)),
                        "--target", "y")
    assert task.problem.task_subtype == "binary" and _types(task)["y"] == "boolean"
    assert "true/false" in err


@pytest.mark.slow
def test_missing_value_tokens_in_numbers_and_dates(tmp_path, capsys):
    text = "x,d,s,y\n1,2020-01-01,NA,1.5\nNA,NA,b,2.5\n3,2020-01-03,NA,nan\n?,2020-01-04,a,3.5\nnull,,b,4.5\n6,2020-01-06,a,\n"
    task, err = _import(tmp_path, capsys, text, "--target", "y")
    assert _types(task) == {"d3mIndex": "integer", "x": "integer", "d": "dateTime", "s": "string", "y": "real"}
    ld = task.learning_data()
    assert ld["x"].tolist() == ["1", "", "", ""] and ld["s"].tolist() == ["NA", "b", "a", "b"]   # text stays
    assert "[import.missing_values] 3 cell(s) '?', 'NA', 'null'" in err
    assert "[import.target_missing] 2 row(s)" in err          # nan and empty targets dropped, counted
    task, err = _import(tmp_path, capsys, text, "--target", "y", "--keep-text", "--force", name="t")
    assert _types(task)["x"] == "categorical" or _types(task)["x"] == "string"
    task, err = _import(tmp_path, capsys, text, "--target", "y", "--na-values", "?", "--force", name="t")
    assert _types(task)["x"] in ("categorical", "string")    # NA and null are not missing now


def test_infinite_regression_target_is_refused(tmp_path, capsys):
    p = tmp_path / "t.csv"
    p.write_text("x,y\n1,1.5\n2,-inf\n3,2\n4,3\n")
    text = refused(["import", "table", p, "--target", "y", "--out", tmp_path / "o"], capsys,
                   "import.target_infinite", path=p)
    assert "d3mIndex 1" in text
    assert not (tmp_path / "o" / "t").exists()


def test_arff_numeric_of_question_marks_stays_numeric(tmp_path, capsys):
    pytest.importorskip("arff", reason="import arff needs liac-arff (the [arff] extra)")
    p = tmp_path / "q.arff"
    p.write_text("@RELATION t\n@ATTRIBUTE a NUMERIC\n@ATTRIBUTE class {x,y}\n@DATA\n?,x\n?,y\n?,x\n?,y\n")
    code, out, err = run(["import", "arff", p, "--target", "class", "--out", tmp_path / "o"], capsys)
    assert code == 0, err
    assert _types(TaskRoot.open(Path(out.strip())))["a"] == "real"


@pytest.mark.slow
@pytest.mark.skipif(not REALWORLD, reason="D3MKIT_REALWORLD is not set (the shared corpus)")
def test_croissant_integer_target_follows_the_csv_rules(tmp_path, capsys):
    src = Path(REALWORLD) / "ecosystem" / "croissant" / "1.0" / "titanic" / "metadata.json"
    code, out, err = run(["import", "croissant", src, "--record-set", "passengers", "--target",
                          "passengers/survived", "--out", tmp_path / "o"], capsys)
    assert code == 0, err
    task = TaskRoot.open(Path(out.strip()))
    assert (task.problem.task_type, task.problem.task_subtype) == ("classification", "binary")
    # the same column from a CSV
    frame = task.learning_data()
    p = tmp_path / "same.csv"
    frame[["passengers/survived", "passengers/age"]].to_csv(p, index=False)
    code, out, err = run(["import", "table", p, "--target", "passengers/survived", "--out", tmp_path / "o"], capsys)
    assert code == 0, err
    assert TaskRoot.open(Path(out.strip())).problem.task_subtype == "binary"


def test_arff_comments_java_dates_and_huge_integers(tmp_path, capsys):
    pytest.importorskip("arff", reason="import arff needs liac-arff (the [arff] extra)")
    big = "9" * 400
    p = tmp_path / "w.arff"
    p.write_text("@RELATION t\n@ATTRIBUTE n NUMERIC % a count\n@ATTRIBUTE y DATE yyyy\n@ATTRIBUTE m DATE 'yyyy-MM'\n"
                 "@ATTRIBUTE class {x, y} % x < y\n@DATA\n"
                 + "".join(f"{big if i == 1 else i},{2000 + i},2011-0{i + 1},{'xy'[i % 2]}\n" for i in range(6)))
    code, out, err = run(["import", "arff", p, "--target", "class", "--out", tmp_path / "o"], capsys)
    assert code == 0, err
    ld = TaskRoot.open(Path(out.strip())).learning_data()
    assert ld["n"].iloc[1] == big                              # exact, not inf
    assert ld["y"].tolist()[:2] == ["2000-01-01", "2001-01-01"] and ld["m"].iloc[2] == "2011-03-01"
    bad = tmp_path / "bad.arff"
    bad.write_text("@RELATION t\n@ATTRIBUTE n NUMERIC\n@ATTRIBUTE c {x,y}\n@DATA\n1,x\nabc,y\n")
    text = refused(["import", "arff", bad, "--target", "c", "--out", tmp_path / "o"], capsys, "import.arff", path=bad)
    assert "data row 2" in text and "'abc'" in text


@pytest.mark.slow
def test_missing_liac_arff_exits_3(tmp_path):
    from _without import run_without
    p = tmp_path / "w.arff"
    p.write_text("@RELATION t\n@ATTRIBUTE a NUMERIC\n@ATTRIBUTE c {x,y}\n@DATA\n1,x\n2,y\n")
    done = run_without(["arff"], ["import", "arff", p, "--target", "c", "--out", tmp_path / "o"])
    assert done.returncode == 3, done.stderr
    assert 'pip install "d3mkit[arff]"' in done.stderr and str(p) in done.stderr
