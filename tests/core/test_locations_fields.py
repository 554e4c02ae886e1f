"""Locations are data (issue 31 item 3) in the exports, the benchmarks and the server's area:
the issues carry their place as fields (row, column, line, the record around them), and the
text location is rendered from the fields, reading as it did when it was written as text."""

from __future__ import annotations

import pytest

from d3mkit.core.errors import D3MKitError, error


def test_fields_render_the_same_text_the_call_sites_used_to_write():
    assert error("x", "", "m", row=4, column="board", after=" (d3mIndex 7)").location == \
        "row 4, column board (d3mIndex 7)"
    assert error("x", "", "m", row=4, after=" (d3mIndex 7), square c3").location == "row 4 (d3mIndex 7), square c3"
    i = error("pgn.game", "", "m", within="game 2", line=9)
    assert (i.location, i.line, i.within, i.column) == ("game 2, line 9", 9, "game 2", None)
    assert error("x", "", "m", line=3).location == "line 3"
    assert D3MKitError.single("f.csv", "x", "", "m", row=2, column="a").issues[0].format() == \
        "f.csv: row 2, column a: error [x] m"


def test_runlog_names_the_bad_cell_by_fields(tmp_path):
    from d3mkit.benchmarks.runlog import RunLog
    p = tmp_path / "log.csv"
    p.write_text("name,score\na,0.5\nb,oops\n", encoding="utf-8")
    with pytest.raises(D3MKitError) as e:
        RunLog(p, ("name", "score"), key=("name",), text=("name",)).read()
    i = e.value.issues[0]
    assert (i.code, i.row, i.column, i.location) == ("runlog.value", 2, "score", "row 2, column score")


def test_value_predictions_board_error_is_placed_by_fields(tmp_path):
    from d3mkit.benchmarks.value.boards import START_FEN
    from d3mkit.benchmarks.value.report import read_predictions
    p = tmp_path / "predictions.csv"
    p.write_text(f"d3mIndex,board\n10,{START_FEN}\n11,8/8\n", encoding="utf-8")
    with pytest.raises(D3MKitError) as e:
        read_predictions(p)
    i = e.value.issues[0]
    assert (i.code, i.row, i.column, i.after) == ("predictions.board", 3, "board", " (d3mIndex 11)")
    assert i.location == "row 3, column board (d3mIndex 11)"
    assert i.message == "FEN has 2 ranks, expected 8 separated by '/'"
