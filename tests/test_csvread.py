"""The one CSV reader (d3mkit.validation.csvread): the header row and the scoring reader."""

from __future__ import annotations

from d3mkit.validation.csvread import read_header, read_strings


def test_header_with_a_quoted_newline_is_read_whole(tmp_path):
    # a quoted header name may hold a newline (RFC 4180): the header is the first record,
    # not the first line
    p = tmp_path / "t.csv"
    p.write_bytes(b'd3mIndex,"two\nlines",c\n1,x,y\n2,z,w\n')
    assert read_header(p) == (["d3mIndex", "two\nlines", "c"], [])
    df, issues = read_strings(p)
    assert issues == []
    assert list(df.columns) == ["d3mIndex", "two\nlines", "c"]
    assert df["two\nlines"].tolist() == ["x", "z"]


def test_header_quotes_escaped_and_crlf(tmp_path):
    p = tmp_path / "t.csv"
    p.write_bytes(b'a,"say ""hi""\r\nthere"\r\n1,2\r\n')
    assert read_header(p) == (["a", 'say "hi"\r\nthere'], [])


def test_header_record_longer_than_the_first_read(tmp_path):
    p = tmp_path / "t.csv"
    name = "x" * 70000 + "\n" + "y" * 10
    p.write_bytes(f'a,"{name}"\n1,2\n'.encode())
    assert read_header(p) == (["a", name], [])


def test_unclosed_quote_in_header_is_too_long_or_unparseable(tmp_path):
    p = tmp_path / "t.csv"
    p.write_bytes(b'a,"b\n1,2\n')
    header, issues = read_header(p)
    assert header is None and issues and issues[0].code in ("csv.parse", "csv.too_wide")
