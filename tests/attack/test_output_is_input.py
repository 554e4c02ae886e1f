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
    from d3mkit.io import readlog
    from d3mkit.io.atomic import write_text
    f = tmp_path / "a.csv"
    f.write_text("x\n")
    readlog.note(f)                     # outside recording(): no effect
    write_text(f, "y\n")
    assert f.read_text() == "y\n"


def test_one_typed_error_owns_the_code(tmp_path, wine, capsys):
    """``output.is_input`` has one owner, :class:`d3mkit.core.errors.OutputInsideInput`: raised by
    the run's record of inputs (readlog) and by the library's own checks (views, convert),
    rendered with the command's flag for its parameter; a brace in a path stays a brace."""
    from d3mkit.core import errors
    from d3mkit.io import readlog
    from d3mkit.cli import flag_namer
    assert not hasattr(errors, "OutputIsInput")
    f = tmp_path / "in{put}.csv"
    f.write_text("x\n")
    with readlog.recording():
        readlog.note(f)
        with pytest.raises(errors.OutputInsideInput) as info:
            readlog.refuse_input(f)
    assert info.value.issues[0].code == "output.is_input" and info.value.issues[0].path == str(f)
    inside = errors.OutputInsideInput(wine / "v", wine, "out", "the task root")
    assert isinstance(inside, errors.UsageError) and inside.exit_code == 2

    class Args:
        _flags = {"out": "--out"}
    line = errors.issues_for_cli(inside, flag_namer(Args()))[0].format()
    assert "--out must be outside the task root" in line and "{" not in line
    odd = errors.OutputInsideInput(tmp_path / "o", tmp_path / "a{b}")
    assert "a{b}" in odd.issues[0].message and odd.params == ("out",)
    code = main(["views", str(wine), "--out", str(wine / "views")])
    err = capsys.readouterr().err
    assert code == 2 and "[output.is_input] --out must be outside the task root" in err
