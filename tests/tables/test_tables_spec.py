"""The front door's TableSpec reads (d3mkit.tables.read_table / read_table_chunks with a
spec): the dialects pyarrow declines, typed chunks, and the record readers."""

import io

import pytest

from d3mkit.tables import TableSpec, Unreadable, WHITESPACE, read_table, read_table_chunks
from d3mkit.tables.dialect import DictRecords, records


def test_comment_skip_rows_and_semicolons(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("made by a tool\n# a comment\na;b\n1;x\n\n2;\n")
    df = read_table(p, TableSpec(sep=";", comment="#", skip_rows=1))
    assert list(df.columns) == ["a", "b"] and df.values.tolist() == [["1", "x"], ["2", ""]]


def test_whitespace_and_row_limit(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text("a  b\n1 2\n3\t4\n5 6\n")
    df = read_table(p, TableSpec(sep=WHITESPACE, max_rows=2))
    assert df.values.tolist() == [["1", "2"], ["3", "4"]]


def test_typed_chunks_keep_text_columns(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("n,t,k\n" + "".join(f"{i},{i},{'ab'[i % 2]}\n" for i in range(5)))
    chunks = list(read_table_chunks(p, TableSpec(width=3, typed=True, na_values=("",), text=frozenset({1}),
                                                 chunk_rows=2)))
    assert [len(c) for c in chunks] == [2, 2, 1]
    assert chunks[0][0].dtype.kind == "i" and chunks[0][1].tolist() == ["0", "1"]


def test_unreadable_names_the_byte_or_the_parse(tmp_path):
    p = tmp_path / "t.csv"
    p.write_bytes("a;b\n1;caf\xe9\n".encode("latin-1"))
    with pytest.raises(Unreadable) as exc:
        read_table(p, TableSpec(sep=";"))
    assert exc.value.byte is not None and exc.value.detail == "file is not valid UTF-8"
    p.write_text("a;b\n1;2\n1;2;3;4\n")
    with pytest.raises(Unreadable) as exc:
        read_table(p, TableSpec(sep=";"))
    assert exc.value.byte is None and "Expected 2 fields" in exc.value.detail


def test_plain_spec_takes_the_checked_reader(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text('a,b\n1,"x,y"\n2,\n')
    assert TableSpec().plain() and not TableSpec(sep=";").plain()
    assert read_table(p, TableSpec(usecols=("b",))).to_dict("list") == read_table(p, usecols=["b"]).to_dict("list") \
        == {"b": ["x,y", ""]}


def test_records_and_dict_records_count_physical_lines():
    assert list(records(['a,"b,c"', "d"], ",")) == [["a", "b,c"], ["d"]]
    r = DictRecords(io.StringIO('id,text\n1,"two\nlines"\n2,x,extra\n'))
    rows = [(r.line_num, row) for row in r]
    assert r.fieldnames == ["id", "text"]
    assert rows[0] == (3, {"id": "1", "text": "two\nlines"})
    assert rows[1][0] == 4 and rows[1][1][None] == ["extra"]
