"""The chunked reader takes TSV, gzip, ``--index``, a d3mIndex that is not the first column and
empty target cells (issue 21: those read the whole table as text before): each gives exactly
the task root the whole-table path gives for the same table, and never calls it."""

from __future__ import annotations

import gzip

import pandas as pd
import pytest

import d3mkit
import d3mkit.importing.source as source

ROWS = [(i, f"{i % 5}", f"{i * 0.25}", ["north", "south, east", 'say "hi"'][i % 3] if i % 4 else "west",
         "ab"[i % 2] if i % 7 else "c") for i in range(40)]
HEADER = ["key", "n", "x", "place", "y"]


def _text(sep=",", index_last=False, holes=False, quote=True) -> str:
    def cell(v):
        v = str(v)
        if quote and (sep in v or '"' in v):
            return '"' + v.replace('"', '""') + '"'
        return v if quote else v.replace(",", ";").replace('"', "'")
    rows = [list(r) for r in ROWS]
    header = list(HEADER)
    if holes:
        for r in rows[3::6]:
            r[4] = ""
    if index_last:
        header = header[1:] + ["d3mIndex"]
        rows = [r[1:] + [r[0] * 2 + 1] for r in rows]
    return sep.join(header) + "\n" + "".join(sep.join(cell(v) for v in r) + "\n" for r in rows)


CASES = {
    "tsv": ("t.tsv", _text("\t"), []),
    "gzip csv": ("t.csv.gz", _text(), []),
    "gzip tsv": ("t.tsv.gz", _text("\t"), []),
    "index": ("t.csv", _text(), ["key"]),
    "index, plain": ("t.csv", _text(quote=False), ["key"]),
    "d3mIndex last": ("t.csv", _text(index_last=True), []),
    "empty targets": ("t.csv", _text(holes=True), []),
    "empty targets, plain": ("t.csv", _text(holes=True, quote=False), []),
    "empty targets, tsv, index": ("t.tsv", _text("\t", holes=True), ["key"]),
    "tsv, plain": ("t.tsv", _text("\t", quote=False), []),
    "d3mIndex last, plain": ("t.csv", _text(index_last=True, quote=False), []),
    "empty targets, tsv, index, plain": ("t.tsv", _text("\t", holes=True, quote=False), ["key"]),
    "gzip tsv, index, plain": ("t.tsv.gz", _text("\t", quote=False), ["key"]),
}


def name_of(index, text) -> str:
    return next(k for k, v in CASES.items() if v[1] == text and v[2] == index)


@pytest.mark.slow
@pytest.mark.parametrize("block", [None, 64], ids=["one block", "64-byte blocks"])
@pytest.mark.parametrize("name,text,index", list(CASES.values()), ids=list(CASES))
def test_chunked_path_equals_whole_table(tmp_path, monkeypatch, name, text, index, block):
    """With 64-byte blocks, a quote found after the first blocks were written sends the
    re-writing back to the start, through pandas."""
    if block:
        import d3mkit.importing.scan as scan
        monkeypatch.setattr(scan, "BLOCK", block)
    src = tmp_path / name
    if name.endswith(".gz"):
        src.write_bytes(gzip.compress(text.encode()))
    else:
        src.write_text(text)
    sep = "\t" if ".tsv" in name else ","
    frame = pd.read_csv(src, sep=sep, dtype=str, keep_default_na=False)
    whole = d3mkit.import_table(frame, target="y", index=index[0] if index else None, out=tmp_path / "w", name="t")

    def never(*args):
        raise AssertionError("the whole table was read, or a plain file re-written by pandas")
    monkeypatch.setattr(source, "read_source", never)
    lean = d3mkit.import_table(src, target="y", index=index[0] if index else None, out=tmp_path / "l", name="t")
    for rel in ("t_dataset/tables/learningData.csv", "t_problem/dataSplits.csv", "t_dataset/datasetDoc.json",
                "t_problem/problemDoc.json"):
        a, b = (whole / rel).read_bytes(), (lean / rel).read_bytes()
        if rel.endswith("datasetDoc.json"):
            a = a.replace(b"DataFrame", name.encode())
        assert a == b, rel
    assert d3mkit.is_valid(lean)


@pytest.mark.slow
@pytest.mark.parametrize("index", [None, "key"])
def test_blank_line_or_cr_at_any_block_boundary(tmp_path, monkeypatch, index):
    """A blank line or a CR wherever the blocks are cut: learningData as one block writes it
    (the blank line skipped, as every reader does)."""
    import d3mkit.importing.scan as scan
    rows = [f"{i},{i % 3},{'ab'[i % 2]}" for i in range(12)]
    for text in ("key,n,y\n" + "\n".join(rows[:5]) + "\n\n" + "\n".join(rows[5:]) + "\n",
                 "key,n,y\n" + "\n".join(rows[:7]) + "\r\n" + "\n".join(rows[7:]) + "\n"):
        src = tmp_path / "t.csv"
        src.write_text(text, newline="")
        want = (d3mkit.import_table(src, target="y", index=index, out=tmp_path / "w", name="t", force=True)
                / "t_dataset/tables/learningData.csv").read_bytes()
        for block in range(4, len(text) + 2, 3):
            monkeypatch.setattr(scan, "BLOCK", block)
            got = d3mkit.import_table(src, target="y", index=index, out=tmp_path / "o", name="t", force=True)
            assert (got / "t_dataset/tables/learningData.csv").read_bytes() == want, block
        monkeypatch.setattr(scan, "BLOCK", 1 << 24)


@pytest.mark.parametrize("key", ["key", "key, id", "007"])
@pytest.mark.parametrize("values", ["canonical", "+3", "07"])
def test_first_column_index_copied_or_rewritten(tmp_path, key, values):
    """An index that is the first column: learningData is the file's bytes with d3mIndex as
    the first header name when every value is written as str(int) writes it and the header
    line is plain; a quoted header or a value written ``+3`` or ``07`` is re-written. Either
    way the bytes the whole-table path writes."""
    rows = [[str(i * 3 + 1), "ab"[i % 2], "xyz"[i % 3]] for i in range(30)]
    if values != "canonical":
        rows[4][0] = values
    head = ",".join(f'"{k}"' if "," in k else k for k in (key, "n", "y"))
    src = tmp_path / "t.csv"
    src.write_text(head + "\n" + "".join(",".join(r) + "\n" for r in rows))
    frame = pd.read_csv(src, dtype=str, keep_default_na=False)
    whole = d3mkit.import_table(frame, target="y", index=key, out=tmp_path / "w", name="t")
    lean = d3mkit.import_table(src, target="y", index=key, out=tmp_path / "l", name="t")
    rel = "t_dataset/tables/learningData.csv"
    assert (whole / rel).read_bytes() == (lean / rel).read_bytes()
    assert (lean / rel).read_text().startswith("d3mIndex,n,y\n")


def test_tsv_ragged_row_named(tmp_path, capsys):
    from _attack_util import refused
    src = tmp_path / "r.tsv"
    src.write_text("x\ty\n1\ta\n2\tb\t9\n3\ta\n")
    refused(["import", "table", src, "--target", "y", "--out", tmp_path / "o"], capsys, "csv.bad_row", 1, path=src)


def test_parquet_equals_its_dataframe(tmp_path, monkeypatch):
    pytest.importorskip("pyarrow", reason="Parquet needs pyarrow (the [parquet] extra)")
    import numpy as np
    n = 30
    df = pd.DataFrame({"when": pd.date_range("2021-01-01", periods=n, freq="h"),
                       "grade": pd.Categorical(["x", "y", "z"] * 10), "ok": [True, False] * 15,
                       "v": np.where(np.arange(n) % 9 == 0, np.nan, np.arange(n) / 7), "k": np.arange(n) * 2,
                       "y": ["a", "b", "c"] * 10})
    src = tmp_path / "t.parquet"
    df.to_parquet(src)
    whole = d3mkit.import_table(df, target="y", out=tmp_path / "w", name="t")
    monkeypatch.setattr(source, "read_source", lambda path: (_ for _ in ()).throw(AssertionError("read whole")))
    lean = d3mkit.import_table(src, target="y", out=tmp_path / "l", name="t")
    for rel in ("t_dataset/tables/learningData.csv", "t_problem/dataSplits.csv", "t_problem/problemDoc.json"):
        assert (whole / rel).read_bytes() == (lean / rel).read_bytes(), rel
    from d3mkit.documents import DatasetDoc
    cols = {c.col_name: c.col_type for c in DatasetDoc.load(lean / "t_dataset" / "datasetDoc.json").learning_data.columns}
    assert cols == {"d3mIndex": "integer", "when": "dateTime", "grade": "categorical", "ok": "boolean", "v": "real",
                    "k": "integer", "y": "categorical"}


@pytest.mark.slow
def test_media_column_chunked(tmp_path, monkeypatch):
    from PIL import Image
    media = tmp_path / "pics"
    media.mkdir()
    for i in range(12):
        Image.new("L", (4, 4), i * 10).save(media / f"p{i}.png")
    src = tmp_path / "m.csv"
    src.write_text("x,pic,y\n" + "".join(f"{i},p{i}.png,{'ab'[i % 2] if i != 5 else ''}\n" for i in range(12)))
    whole = d3mkit.import_table(pd.read_csv(src, dtype=str, keep_default_na=False), target="y", media=media,
                                out=tmp_path / "w", name="m")
    monkeypatch.setattr(source, "read_source", lambda path: (_ for _ in ()).throw(AssertionError("read whole")))
    lean = d3mkit.import_table(src, target="y", media=media, out=tmp_path / "l", name="m")
    from d3mkit.importing.media import neutral_name
    p3, p5 = neutral_name(media / "p3.png"), neutral_name(media / "p5.png")
    for rel in ("m_dataset/tables/learningData.csv", "m_problem/dataSplits.csv", "m_problem/problemDoc.json",
                f"m_dataset/media/{p3}", "m_debug/media_sources.csv"):
        assert (whole / rel).read_bytes() == (lean / rel).read_bytes(), rel
    assert not (lean / "m_dataset" / "media" / p5).exists()          # its row was left out
    assert d3mkit.is_valid(lean)
