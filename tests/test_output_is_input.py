"""Every file a command reads is an input that no output of the same run may replace
(issue 23: ``score --output .../learningData.csv`` replaced the truth table with scores).

Table-driven over the files score reads (documents, tables, splits, predictions) and the
commands that write one file (score, convert), with hard links and ``..`` spellings: exit 2,
``output.is_input``, the input byte-identical, no temporary sibling left."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from d3mkit.cli import main


@pytest.fixture()
def wine(tmp_path):
    from taskroot_helpers import wine_root
    return wine_root(tmp_path / "fx", with_predictions=True)


INPUTS = {
    "learningData": "wine_dataset/tables/learningData.csv",
    "datasetDoc": "wine_dataset/datasetDoc.json",
    "problemDoc": "wine_problem/problemDoc.json",
    "dataSplits": "wine_problem/dataSplits.csv",
}


def _refused(argv, victim: Path, capsys):
    before = victim.read_bytes()
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert "[output.is_input]" in err and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    assert victim.read_bytes() == before
    assert not [p for p in victim.parent.iterdir() if p.name.startswith(f".{victim.name}.tmp")]
    return err


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_score_never_writes_over_a_file_it_read(wine, name, capsys):
    victim = wine / INPUTS[name]
    preds = wine.parent / "predictions.csv"
    err = _refused(["score", "--problem", wine, "--predictions", preds, "--out", victim, "--force"], victim, capsys)
    assert str(victim) in err


def test_score_never_writes_over_its_predictions(wine, capsys):
    preds = wine.parent / "predictions.csv"
    _refused(["score", "--problem", wine, "--predictions", preds, "--out", preds, "--force"], preds, capsys)


def test_another_name_for_the_same_file_is_the_same_input(wine, capsys):
    victim = wine / INPUTS["learningData"]
    link = wine.parent / "hardlink.csv"
    os.link(victim, link)
    preds = wine.parent / "predictions.csv"
    _refused(["score", "--problem", wine, "--predictions", preds, "--out", link, "--force"], victim, capsys)
    dotted = wine / "wine_problem" / ".." / INPUTS["learningData"]
    _refused(["score", "--problem", wine, "--predictions", preds, "--out", dotted, "--force"], victim, capsys)


def test_convert_never_writes_over_its_input(wine, capsys):
    doc = wine / INPUTS["problemDoc"]
    alias = wine.parent / "alias.json"
    os.link(doc, alias)
    _refused(["convert", doc, "--to", "4.0.0", "--out", alias, "--force"], doc, capsys)


def test_an_output_beside_the_inputs_is_still_written(wine, capsys):
    preds = wine.parent / "predictions.csv"
    out = wine / "wine_problem" / "scores.csv"
    assert main(["score", "--problem", str(wine), "--predictions", str(preds), "--out", str(out)]) == 0
    assert out.read_text().startswith("index,problemID,metric,value")


def test_the_library_outside_a_command_records_nothing(tmp_path):
    from d3mkit import readlog
    from d3mkit.atomic import write_text
    f = tmp_path / "a.csv"
    f.write_text("x\n")
    readlog.note(f)                     # outside recording(): no effect
    write_text(f, "y\n")
    assert f.read_text() == "y\n"
