"""The one CSV reader (d3mkit.tables.csvread): the header row and the scoring reader."""

from __future__ import annotations

from d3mkit.tables.csvread import read_header, read_strings


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


# --- the scoring reader: read_columns (pyarrow, d3mkit.tables.arrow; else read_strings) ---

import numpy as np
import pytest

from d3mkit.tables import csvread
from d3mkit.tables.columns import ColumnTable
from d3mkit.tables.csvread import read_columns

KW = dict(int_cols=("d3mIndex",), category_cols=("label",))


def _general(path, usecols=None, **kw):
    df, issues = read_strings(path, usecols, **kw)
    return (None if df is None else ColumnTable.from_frame(df)), issues


def _same(a, b):
    assert (a is None) == (b is None)
    if a is None:
        return
    assert a.columns == b.columns and len(a) == len(b)
    for c in a.columns:
        x, y = a[c], b[c]
        assert np.asarray(x).dtype.kind == np.asarray(y).dtype.kind, c
        assert np.asarray(x).tolist() == np.asarray(y).tolist(), c


PLAIN = {
    "ints and labels": "d3mIndex,label\n3,b\n1,a\n2,b\n",
    "no final newline": "d3mIndex,label\n3,b\n1,a",
    "negative and long ints": "d3mIndex,label\n-5,x\n1234567890123456,y\n0,z\n",
    "empty cells": "d3mIndex,label,other\n1,,\n2,a,\n3,,q\n",
    "non-ASCII labels": "d3mIndex,label\n1,caf\u00e9\n2,\u00e9t\u00e9\n3,caf\u00e9\n",
    "labels of 9 to 32 bytes": "d3mIndex,label\n1,Iris-versicolor\n2,Iris-setosa\n3," + "x" * 32 + "\n4,Iris-setosa\n",
    "spaces kept": "d3mIndex,label\n1, a \n2,a\n",
    "BOM": "\ufeffd3mIndex,label\n1,a\n2,b\n",
    "an empty header name": "d3mIndex,label,\n1,a,\n2,b,\n",
}
FALLBACK = {
    "a quote": 'd3mIndex,label\n1,"a,b"\n2,c\n',
    "CRLF": "d3mIndex,label\r\n1,a\r\n2,b\r\n",
    "a blank line": "d3mIndex,label\n1,a\n\n2,b\n",
    "a long row": "d3mIndex,label\n1,a\n2,b,c\n",
    "a short row": "d3mIndex,label\n1,a\n2\n",
    "a long text": "d3mIndex,label\n1," + "y" * 33 + "\n",
    "no rows": "d3mIndex,label\n",
    "one column": "d3mIndex\n1\n2\n",
    "17 digits": "d3mIndex,label\n12345678901234567,a\n",
    "not integers": "d3mIndex,label\n1.0,a\n x,b\n+3,c\n",
}


@pytest.mark.parametrize("name", sorted(PLAIN))
def test_plain_files_never_reach_pandas(tmp_path, monkeypatch, name):
    p = tmp_path / "t.csv"
    p.write_bytes(PLAIN[name].encode())
    expected = _general(p, **KW)
    monkeypatch.setattr(csvread, "read_strings", lambda *a, **k: pytest.fail("general reader used"))
    got = read_columns(p, **KW)
    _same(got[0], expected[0])
    assert got[1] == expected[1]


@pytest.mark.parametrize("name", sorted(FALLBACK))
def test_other_files_read_as_the_general_reader_reads_them(tmp_path, name):
    p = tmp_path / "t.csv"
    p.write_bytes(FALLBACK[name].encode())
    got, expected = read_columns(p, **KW), _general(p, **KW)
    _same(got[0], expected[0])
    assert got[1] == expected[1]


def test_invalid_utf8_gets_the_general_readers_message(tmp_path):
    p = tmp_path / "t.csv"
    p.write_bytes(b"d3mIndex,label\n1,a\n2,\xff\n")
    got, expected = read_columns(p, **KW), _general(p, **KW)
    assert got[0] is None and got[1] == expected[1] and got[1][0].code == "file.encoding"


def test_some_columns_and_many_windows(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    n = 5000
    labels = np.array(["alpha", "beta", "a-much-longer-label", "\u00e9"], dtype=object)
    lines = [f"{i},{labels[j]},{x:.3f},{-i}" for i, j, x in
             zip(rng.permutation(n), rng.integers(0, 4, n), rng.random(n))]
    p = tmp_path / "t.csv"
    p.write_text("d3mIndex,label,x,neg\n" + "\n".join(lines) + "\n", encoding="utf-8")
    for usecols in (None, ["d3mIndex", "label"], ["label", "neg"]):
        got = read_columns(p, usecols, int_cols=("d3mIndex", "neg"), category_cols=("label",))
        expected = _general(p, usecols, int_cols=("d3mIndex", "neg"), category_cols=("label",))
        _same(got[0], expected[0])
        assert got[0].attrs.get("header") == (None if usecols is None else ["d3mIndex", "label", "x", "neg"])


def test_float_columns_of_a_plain_file(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("d3mIndex,y,c\n1,1.5,0.25\n2,-2e3,1\n3,+.5,0.0\n4,7,1E-2\n")
    got, issues = read_columns(p, int_cols=("d3mIndex",), float_cols=("y", "c"))
    strings, _ = _general(p)
    assert issues == [] and got["y"].dtype == np.float64 and got["c"].dtype == np.float64
    for c in ("y", "c"):
        assert got[c].tolist() == [float(v) for v in np.asarray(strings[c])]


@pytest.mark.parametrize("cell", ["", "nan", "inf", "1e400", "1,5", "0x10", "1_0", " 1", "1e", "--1"])
def test_a_float_column_that_is_not_all_finite_numbers_stays_text(tmp_path, cell):
    p = tmp_path / "t.csv"
    p.write_text(f"d3mIndex,y,z\n1,2.5,a\n2,{cell},b\n")
    got, issues = read_columns(p, int_cols=("d3mIndex",), float_cols=("y",))
    expected, _ = _general(p, int_cols=("d3mIndex",))
    if "," in cell:
        assert got is None and issues[0].code == "csv.bad_row"
        return
    assert np.asarray(got["y"]).tolist() == np.asarray(expected["y"]).tolist()


@pytest.mark.parametrize("distinct", [300, 6000])
def test_many_distinct_labels(tmp_path, distinct):
    n = 8000
    p = tmp_path / "t.csv"
    p.write_text("d3mIndex,label\n" + "".join(f"{i},lab{i % distinct:05d}-{'x' * (i % 7)}\n" for i in range(n)))
    got, expected = read_columns(p, **KW), _general(p, **KW)
    _same(got[0], expected[0])
    assert got[0]["label"].codes.dtype == np.int16     # the smallest width that holds the codes


@pytest.mark.parametrize("distinct, width", [(5, np.int8), (128, np.int8), (129, np.int16), (300, np.int16)])
def test_label_codes_have_the_smallest_width(tmp_path, monkeypatch, distinct, width):
    n = 3000
    p = tmp_path / "t.csv"
    p.write_text("d3mIndex,label\n" + "".join(f"{i},l{min(i // 7, distinct - 1)}\n" for i in range(n)))
    monkeypatch.setattr(csvread, "read_strings", lambda *a, **k: pytest.fail("general reader used"))
    got, _ = read_columns(p, **KW)
    monkeypatch.undo()
    _same(got, _general(p, **KW)[0])
    assert got["label"].codes.dtype == width
