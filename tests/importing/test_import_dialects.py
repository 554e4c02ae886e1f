"""Ordinary files import (issue 32 item 4): the delimiter sniffed (``, ; tab |`` and
whitespace) or given (``--sep``), ``--comment``, ``--skip-rows``, ``--ignore``; an empty first
header name as the pandas/R row index; names trimmed; ``--target`` matching an exact name
before splitting on commas; a missing column named with the columns there are."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from _attack_util import refused, run
from d3mkit.importing.dialect import WHITESPACE, Dialect, sniff
from d3mkit.taskroot.model import TaskRoot

ROWS = [(1, "a"), (2, "b"), (3, "a"), (4, "b"), (5, "a"), (6, "b")]


def _file(tmp_path, text, name="t.csv") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def _imported(tmp_path, capsys, p, *args):
    code, out, err = run(["import", "table", p, "--out", tmp_path / "o", "--force", *args], capsys)
    assert code == 0, err
    return TaskRoot.open(Path(out.strip())), err


@pytest.mark.parametrize("sep", [",", ";", "\t", "|", " "])
def test_delimiter_is_sniffed(tmp_path, capsys, sep):
    text = f"x{sep}y\n" + "".join(f"{x}{sep}{y}\n" for x, y in ROWS)
    p = _file(tmp_path, text)
    assert sniff(p, Dialect()) == (WHITESPACE if sep == " " else sep)
    task, _ = _imported(tmp_path, capsys, p, "--target", "y")
    ld = task.learning_data()
    assert ld.columns.tolist() == ["d3mIndex", "x", "y"] and ld["y"].tolist() == [y for _, y in ROWS]


def test_comment_skip_rows_and_sep(tmp_path, capsys):
    text = "produced by a tool\n# a comment\nx;y\n" + "".join(f"{x};{y}\n" for x, y in ROWS)
    p = _file(tmp_path, text)
    task, _ = _imported(tmp_path, capsys, p, "--target", "y", "--skip-rows", "1", "--comment", "#", "--sep", ";")
    assert task.learning_data()["x"].tolist() == [str(x) for x, _ in ROWS]


def test_ignore_and_exact_target_name(tmp_path, capsys):
    text = "x,drop me,\"a,b\"\n" + "".join(f"{x},z,{y}\n" for x, y in ROWS)
    p = _file(tmp_path, text)
    task, _ = _imported(tmp_path, capsys, p, "--target", "a,b", "--ignore", "drop me")
    assert task.learning_data().columns.tolist() == ["d3mIndex", "x", "a,b"] and task.targets == ["a,b"]
    refused(["import", "table", p, "--target", "a,b", "--ignore", "nope", "--out", tmp_path / "o2"], capsys,
            "import.ignore", 2, path=p)


def test_empty_first_name_is_the_row_index(tmp_path, capsys):
    p = _file(tmp_path, ",x,y\n" + "".join(f"{i},{x},{y}\n" for i, (x, y) in enumerate(ROWS)))
    task, err = _imported(tmp_path, capsys, p, "--target", "y")
    assert task.learning_data()["d3mIndex"].tolist() == [str(i) for i in range(len(ROWS))]
    assert "[import.index_column]" in err and "d3mIndex" in err
    p = _file(tmp_path, "\tx\ty\n" + "".join(f"{i + 100}\t{x}\t{y}\n" for i, (x, y) in enumerate(ROWS)), "t.tsv")
    task, err = _imported(tmp_path, capsys, p, "--target", "y")
    assert task.learning_data().columns.tolist() == ["d3mIndex", "unnamed_index", "x", "y"]


def test_names_trimmed_with_a_note(tmp_path, capsys):
    p = _file(tmp_path, " x , y\n" + "".join(f"{x},{y}\n" for x, y in ROWS))
    task, err = _imported(tmp_path, capsys, p, "--target", " y")
    assert task.learning_data().columns.tolist() == ["d3mIndex", "x", "y"]
    assert "[import.header_trimmed]" in err


def test_missing_target_lists_the_columns(tmp_path, capsys):
    p = _file(tmp_path, "label,x\n" + "".join(f"{y},{x}\n" for x, y in ROWS))
    text = refused(["import", "table", p, "--target", "lable", "--out", tmp_path / "o"], capsys, "import.target", 2)
    assert "did you mean 'label'" in text and "its columns: 'label', 'x'" in text


def _croissant(tmp_path, capsys, edit) -> Path:
    import json
    p = tmp_path / "src.csv"
    p.write_text("x,y\n" + "".join(f"{x},{y}\n" for x, y in ROWS))
    code, out, err = run(["import", "table", p, "--target", "y", "--out", tmp_path / "r"], capsys)
    assert code == 0, err
    code, out, err = run(["export", "croissant", Path(out.strip())], capsys)
    assert code == 0, err
    c = Path(out.strip())
    doc = json.loads(c.read_text())
    edit(doc["recordSet"][0])
    c.write_text(json.dumps(doc))
    return c


@pytest.mark.slow
def test_croissant_duplicate_field_names_and_unknown_key(tmp_path, capsys):
    def dup(rs):
        rs["field"][2]["name"] = rs["field"][1]["name"]
    c = _croissant(tmp_path, capsys, dup)
    text = refused(["import", "croissant", c, "--record-set", "learningData", "--target", "x",
                    "--out", tmp_path / "o"], capsys, "croissant.duplicate_field", path=c)
    assert "'x'" in text

    def key(rs):
        rs["key"] = {"@id": "learningData/nope"}
    (tmp_path / "k").mkdir()
    c = _croissant(tmp_path / "k", capsys, key)
    refused(["import", "croissant", c, "--record-set", "learningData", "--target", "y",
             "--out", tmp_path / "o"], capsys, "croissant.key", path=c)


def test_croissant_language_maps_and_parquet(tmp_path, capsys):
    import os
    real = os.environ.get("D3MKIT_REALWORLD")
    if not real:
        pytest.skip("D3MKIT_REALWORLD is not set (the shared corpus)")
    eco = Path(real) / "ecosystem" / "croissant"
    for src, rs, target in [(eco / "1.1" / "recipes" / "minimal_multilingual.json", "examples", "age"),
                            (eco / "1.0" / "simple-parquet" / "metadata.json", "persons", "persons/age")]:
        code, out, err = run(["import", "croissant", src, "--record-set", rs, "--target", target,
                              "--out", tmp_path / "o", "--name", src.parent.name], capsys)
        assert code == 0, err
        task = TaskRoot.open(Path(out.strip()))
        assert target in task.learning_data().columns
