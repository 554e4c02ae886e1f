"""``d3mkit import table`` and ``d3mkit.import_table``: hand-made tables whose colTypes, task
and splits are known; the round trip import -> validate -> views -> score; and every bad
input of issue 21 (one line, a catalogued code, an exit code, nothing written)."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest

import d3mkit
from _attack_util import refused, run
from d3mkit.documents import DatasetDoc, ProblemDoc
from d3mkit.taskroot.model import TaskRoot

MIXED = ("id,age,income,city,married,joined,note,label\n"
         + "".join(f"{i},{20 + i % 30},{1000 + i * 10.5},{['Paris', 'Lyon', 'Nice'][i % 3]},"
                   f"{['yes', 'no'][i % 2]},2020-01-{1 + i % 28:02d},free text {i},{['a', 'b', 'c'][i % 3]}\n"
                   for i in range(1, 31)))


def _coltypes(root):
    ddoc = DatasetDoc.load(next(root.glob("*_dataset/datasetDoc.json")))
    return {c.col_name: c.col_type for c in ddoc.learning_data.columns}


def _nothing_written(out):
    return not out.exists() or not any(p for p in out.iterdir() if not p.name.startswith("."))


@pytest.fixture
def mixed(tmp_path):
    p = tmp_path / "people.csv"
    p.write_text(MIXED)
    return p


def test_inferred_coltypes_task_metrics_and_splits(mixed, tmp_path, capsys):
    code, out, err = run(["import", "table", mixed, "--target", "label", "--out", tmp_path / "o"], capsys)
    assert code == 0 and err == "people: target 'label' holds 3 categorical values (labels): colType categorical, " \
        "classification/multiClass, metrics accuracy, f1Macro (--types to change)\n", err
    root = tmp_path / "o" / "people"
    assert out.strip() == str(root)
    assert _coltypes(root) == {"d3mIndex": "integer", "id": "integer", "age": "integer", "income": "real",
                               "city": "categorical", "married": "boolean", "joined": "dateTime",
                               "note": "string", "label": "categorical"}
    task = TaskRoot.open(root)
    assert (task.problem.task_type, task.problem.task_subtype) == ("classification", "multiClass")
    assert [m["metric"] for m in task.problem.metrics] == ["accuracy", "f1Macro"]
    splits = task.splits()
    assert (splits["type"] == "TEST").sum() == 6 and len(splits) == 30      # holdOut 0.2 of 30
    test = set(splits.loc[splits["type"] == "TEST", "d3mIndex"].astype(int))
    labels = task.learning_data().set_index("d3mIndex")["label"]
    assert sorted(labels.loc[[str(i) for i in test]].value_counts().tolist()) == [2, 2, 2]   # stratified
    assert task.learning_data()["d3mIndex"].tolist() == [str(i) for i in range(30)]
    assert d3mkit.is_valid(root)


def test_regression_kfold_repeats_and_options(mixed, tmp_path, capsys):
    types = tmp_path / "types.json"
    types.write_text(json.dumps({"age": "real", "id": "categorical"}))
    code, out, _ = run(["import", "table", mixed, "--target", "income", "--out", tmp_path / "o", "--name", "inc",
                        "--split", "kFold", "--folds", "3", "--repeats", "2", "--seed", "7",
                        "--types", types, "--metric", "meanAbsoluteError"], capsys)
    assert code == 0
    task = TaskRoot.open(tmp_path / "o" / "inc")
    assert (task.problem.task_type, task.problem.task_subtype) == ("regression", "univariate")
    assert [m["metric"] for m in task.problem.metrics] == ["meanAbsoluteError"]
    assert _coltypes(task.root)["age"] == "real" and _coltypes(task.root)["id"] == "categorical"
    s = task.splits()
    assert sorted(set(zip(s["repeat"].astype(int), s["fold"].astype(int)))) == [(r, f) for r in (0, 1) for f in (0, 1, 2)]
    assert task.problem.splits["stratified"] is False


def test_index_column_and_multivariate(tmp_path, capsys):
    p = tmp_path / "t.csv"
    p.write_text("key,x,y1,y2\n" + "".join(f"{100 + 3 * i},{i % 4},{i * 0.5},{i * 2}\n" for i in range(20)))
    code, _, _ = run(["import", "table", p, "--target", "y1,y2", "--index", "key", "--out", tmp_path / "o"], capsys)
    assert code == 0
    task = TaskRoot.open(tmp_path / "o" / "t")
    assert task.learning_data()["d3mIndex"].tolist()[:3] == ["100", "103", "106"]
    assert "key" not in task.learning_data().columns
    assert (task.problem.task_type, task.problem.task_subtype) == ("regression", "multivariate")
    assert task.problem.target_names == ["y1", "y2"]


def test_d3mindex_used_as_is_and_binary_01_target(tmp_path, capsys):
    p = tmp_path / "b.csv"
    p.write_text("d3mIndex,x,y\n" + "".join(f"{50 - i},{i * 1.5},{i % 2}\n" for i in range(20)))
    assert run(["import", "table", p, "--target", "y", "--out", tmp_path / "o"], capsys)[0] == 0
    task = TaskRoot.open(tmp_path / "o" / "b")
    assert task.learning_data()["d3mIndex"].tolist()[:2] == ["50", "49"]
    assert _coltypes(task.root)["y"] == "categorical"
    assert (task.problem.task_type, task.problem.task_subtype) == ("classification", "binary")


def test_tsv_and_gzip_read_like_csv(mixed, tmp_path, capsys):
    tsv = tmp_path / "people.tsv"
    tsv.write_text(MIXED.replace(",", "\t"))
    gz = tmp_path / "people2.csv.gz"
    gz.write_bytes(gzip.compress(MIXED.encode()))
    for src in (tsv, gz):
        assert run(["import", "table", src, "--target", "label", "--out", tmp_path / "o"], capsys)[0] == 0
    a, b = TaskRoot.open(tmp_path / "o" / "people"), TaskRoot.open(tmp_path / "o" / "people2")
    assert a.learning_data().equals(b.learning_data())
    assert _coltypes(a.root) == _coltypes(b.root)


def test_parquet(mixed, tmp_path, capsys):
    pytest.importorskip("pyarrow", reason="Parquet needs pyarrow (the [parquet] extra)")
    pq = tmp_path / "people.parquet"
    pd.read_csv(mixed).to_parquet(pq)
    assert run(["import", "table", pq, "--target", "label", "--out", tmp_path / "o"], capsys)[0] == 0
    types = _coltypes(tmp_path / "o" / "people")
    assert types["income"] == "real" and types["city"] == "categorical" and types["age"] == "integer"


def test_dataframe_api_runs_the_same_code(mixed, tmp_path):
    df = pd.read_csv(mixed)
    df["city"] = df["city"].astype("category")
    root = d3mkit.import_table(df, target="label", out=tmp_path / "o", name="frame")
    same = d3mkit.import_table(mixed, target="label", out=tmp_path / "o", name="file")
    assert _coltypes(root) == _coltypes(same)
    a = TaskRoot.open(root).learning_data()
    b = TaskRoot.open(same).learning_data()
    assert a.drop(columns=["income"]).equals(b.drop(columns=["income"]))
    assert np.allclose(a["income"].astype(float), b["income"].astype(float))
    assert (root.parent / "frame" / "frame_problem" / "dataSplits.csv").read_bytes() == \
        (same / "file_problem" / "dataSplits.csv").read_bytes()


@pytest.mark.slow
def test_round_trip_validate_views_score(mixed, tmp_path, capsys):
    root = d3mkit.import_table(mixed, target="label", out=tmp_path / "o")
    assert run(["validate", root], capsys)[0] == 0
    code, out, _ = run(["views", root, "--out", tmp_path / "v"], capsys)
    assert code == 0 and (tmp_path / "v" / "SCORE" / "targets.csv").exists()
    task = TaskRoot.open(root)
    _, test = task.train_test()
    report = d3mkit.score(root, pd.DataFrame({"d3mIndex": test["d3mIndex"], "label": test["label"]}))
    assert report.value("accuracy") == 1.0


def test_missing_target_rows_dropped_and_counted(tmp_path, capsys):
    p = tmp_path / "m.csv"
    p.write_text("x,y\n" + "".join(f"{i},{'' if i in (3, 7) else 'ab'[i % 2]}\n" for i in range(20)))
    code, out, err = run(["import", "table", p, "--target", "y", "--out", tmp_path / "o"], capsys)
    assert code == 0 and "warning [import.target_missing]" in err and "2 row(s)" in err and "row 5" in err
    task = TaskRoot.open(tmp_path / "o" / "m")
    ld = task.learning_data()
    assert len(ld) == 18 and "3" not in set(ld["d3mIndex"]) and "4" in set(ld["d3mIndex"])
    manifest = json.loads((task.root / "m_debug" / "manifest.json").read_text())
    assert manifest["parameters"]["droppedRows"] == 2


def test_media_column_becomes_a_collection(tmp_path, capsys):
    from PIL import Image
    media = tmp_path / "pics"
    (media / "sub").mkdir(parents=True)
    rows = []
    for i in range(12):
        name = f"sub/p{i}.png" if i % 2 else f"p{i}.png"
        Image.new("L", (4, 4), i * 10).save(media / name)
        rows.append(f"{name},{'cd'[i % 2]}")
    p = tmp_path / "pics.csv"
    p.write_text("file,label\n" + "\n".join(rows) + "\n")
    code, _, err = run(["import", "table", p, "--target", "label", "--media", media, "--out", tmp_path / "o"], capsys)
    assert code == 0, err
    task = TaskRoot.open(tmp_path / "o" / "pics")
    assert list(task.dataset.media_columns()) == ["file"]
    ld = task.learning_data()
    paths = task.media_paths("file", ld)
    assert all(q.is_file() for q in paths) and len(paths) == 12
    # the sub-folder held every 'd' image: stored under neutral names, the original kept in _debug
    assert not ld["file"].str.contains("sub|p[0-9]").any()
    sources = pd.read_csv(task.root / "pics_debug" / "media_sources.csv", dtype=str).set_index("file")["source"]
    for q, label in zip(paths, ld["label"]):
        i = int(sources[q.name].split("/")[-1][1:-4])
        assert "cd"[i % 2] == label and Image.open(q).getpixel((0, 0)) == i * 10
    assert d3mkit.is_valid(task.root)


# --- bad input: one line, a code, an exit code, nothing written -------------------------------
def _csv(tmp_path, text, name="bad.csv", mode="w"):
    p = tmp_path / name
    if mode == "wb":
        p.write_bytes(text)
    else:
        p.write_text(text)
    return p


GOOD_ROWS = "".join(f"{i},{'ab'[i % 2]}\n" for i in range(10))
BAD = [
    ("no target column", "x,y\n" + GOOD_ROWS, ["--target", "z"], "import.target", 2),
    ("empty target", "x,y\n" + "".join(f"{i},\n" for i in range(5)), ["--target", "y"], "import.target_empty", 1),
    ("constant target", "x,y\n" + "".join(f"{i},a\n" for i in range(5)), ["--target", "y"], "import.target_constant", 1),
    ("duplicate index", "k,y\n1,1.5\n1,2.5\n2,3.5\n", ["--target", "y", "--index", "k"], "import.index", 1),
    ("non-integer index", "k,y\n1,a\nx,b\n2,a\n", ["--target", "y", "--index", "k"], "import.index", 1),
    ("non-integer d3mIndex", "d3mIndex,y\n1.5,a\n2,b\n3,a\n", ["--target", "y"], "import.index", 1),
    ("duplicated column names", "x,x,y\n" + "".join(f"{i},{i},{'ab'[i % 2]}\n" for i in range(5)),
     ["--target", "y"], "csv.duplicate_header", 1),
    ("empty column name", "x,,y\n" + "".join(f"{i},{i},{'ab'[i % 2]}\n" for i in range(5)),
     ["--target", "y"], "import.column_name", 1),
    ("ragged rows", "x,y\n1,a\n2,b,3\n3,a\n", ["--target", "y"], "csv.bad_row", 1),
    ("short row", "x,y\n1,a\n2\n3,a\n", ["--target", "y"], "csv.bad_row", 1),
    ("long first row", "x,y\n1,a,9\n2,b\n3,a\n", ["--target", "y"], "csv.bad_row", 1),
    ("the one row long", "x,y\n1,a,9\n", ["--target", "y"], "csv.bad_row", 1),
    ("short row, text last", "y,x,z\na,1,p\nb,2\na,3,q\nb,4,r\n", ["--target", "y"], "csv.bad_row", 1),
    ("regression on text", "x,y\n" + GOOD_ROWS, ["--target", "y", "--task", "regression"], "import.task", 1),
    ("unknown metric", "x,y\n" + GOOD_ROWS, ["--target", "y", "--metric", "accurcy"], "metric.unknown", 2),
    ("test size 1", "x,y\n" + GOOD_ROWS, ["--target", "y", "--test-size", "1"], "import.split", 2),
    ("header only", "x,y\n", ["--target", "y"], "csv.no_rows", 1),
]


@pytest.mark.parametrize("text,args,code,exit_code", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_table(tmp_path, capsys, text, args, code, exit_code):
    src = _csv(tmp_path, text)
    out = tmp_path / "o"
    err = refused(["import", "table", src, "--out", out, *args], capsys, code, exit_code, path=src)
    assert len(err.strip().splitlines()) == 1
    assert _nothing_written(out)


def test_non_utf8(tmp_path, capsys):
    src = _csv(tmp_path, "x,y\n1,caf\xe9\n2,b\n".encode("latin-1"), mode="wb")
    refused(["import", "table", src, "--target", "y", "--out", tmp_path / "o"], capsys, "file.encoding", 1, path=src)
    assert _nothing_written(tmp_path / "o")


def test_ragged_row_is_named_before_what_it_causes(tmp_path, capsys):
    """The widths are counted only when the parse hints at a bad row; the bad row is still the
    issue named, not the type error it causes further on."""
    src = _csv(tmp_path, "x,y\n1,a\n2\nq,b\n4,a\n")
    types = tmp_path / "types.json"
    types.write_text('{"x": "integer"}')
    text = refused(["import", "table", src, "--target", "y", "--types", types, "--out", tmp_path / "o"], capsys,
                   "csv.bad_row", 1, path=src)
    assert "row 3" in text
    assert _nothing_written(tmp_path / "o")


def test_types_contradicted_by_cells(tmp_path, capsys):
    src = _csv(tmp_path, "zip,y\n75001,a\n7500x,b\n69002,a\n69003,b\n")
    types = tmp_path / "types.json"
    types.write_text('{"zip": "integer"}')
    text = refused(["import", "table", src, "--target", "y", "--types", types, "--out", tmp_path / "o"], capsys,
                   "import.types", 1, path=src)
    assert "row 3, column zip" in text and "'7500x'" in text
    types.write_text('{"nope": "integer"}')
    refused(["import", "table", src, "--target", "y", "--types", types, "--out", tmp_path / "o"], capsys,
            "import.types", 2)
    types.write_text('["zip"]')
    refused(["import", "table", src, "--target", "y", "--types", types, "--out", tmp_path / "o"], capsys,
            "import.types", 1, path=types)
    assert _nothing_written(tmp_path / "o")


def test_too_many_columns_refused_from_the_header(tmp_path, capsys):
    header = ",".join(f"c{i}" for i in range(100_000))
    src = _csv(tmp_path, header + "\n" + ",".join("1" for _ in range(100_000)) + "\n")
    text = refused(["import", "table", src, "--target", "c0", "--out", tmp_path / "o"], capsys,
                   "import.too_wide", 1, path=src)
    assert "100,000 columns" in text and "D3MKIT_MAX_IMPORT_COLUMNS" in text
    assert _nothing_written(tmp_path / "o")


def test_broken_gzip_and_missing_file(tmp_path, capsys):
    gz = _csv(tmp_path, b"\x1f\x8b\x08not gzip at all", name="t.csv.gz", mode="wb")
    refused(["import", "table", gz, "--target", "y", "--out", tmp_path / "o"], capsys, "import.gzip", 1, path=gz)
    refused(["import", "table", tmp_path / "nope.csv", "--target", "y", "--out", tmp_path / "o"], capsys,
            "file.missing", 2)
    assert _nothing_written(tmp_path / "o")


def test_gzip_ragged_row_names_the_gzip_file(tmp_path, capsys):
    """The row count is taken on the decompressed copy; the message names the user's file."""
    gz = _csv(tmp_path, gzip.compress(("x,y\n" + GOOD_ROWS + "1,a,extra\n").encode()), name="t.csv.gz", mode="wb")
    text = refused(["import", "table", gz, "--target", "y", "--out", tmp_path / "o"], capsys, "csv.bad_row", 1,
                   path=gz)
    assert "d3mkit-import-" not in text and "row 12" in text
    assert _nothing_written(tmp_path / "o")


def test_media_refusals(tmp_path, capsys):
    media = tmp_path / "m"
    media.mkdir()
    (media / "a.png").write_bytes(b"not a png")
    (tmp_path / "secret.png").write_bytes(b"x")
    src = _csv(tmp_path, "f,y\na.png,a\na.png,b\n")
    refused(["import", "table", src, "--target", "y", "--media", media, "--out", tmp_path / "o"], capsys,
            "image.unreadable", 1)
    src = _csv(tmp_path, "f,y\n../secret.png,a\n../secret.png,b\n", name="esc.csv")
    refused(["import", "table", src, "--target", "y", "--media", media, "--out", tmp_path / "o"], capsys,
            "path.escape", 1, path=src)
    (media / "ok.txt").write_text("t")
    src2 = _csv(tmp_path, "f,y\nok.txt,a\nmissing.txt,b\n", name="miss.csv")
    refused(["import", "table", src2, "--target", "y", "--media", media, "--out", tmp_path / "o"], capsys,
            "import.media", 1, path=src2)
    src3 = _csv(tmp_path, "f,y\nnothing,a\nhere,b\n", name="none.csv")
    refused(["import", "table", src3, "--target", "y", "--media", media, "--out", tmp_path / "o"], capsys,
            "import.media", 1, path=src3)
    (media / "link.txt").symlink_to(tmp_path / "secret.png")
    src4 = _csv(tmp_path, "f,y\nok.txt,a\nlink.txt,b\n", name="link.csv")
    refused(["import", "table", src4, "--target", "y", "--media", media, "--out", tmp_path / "o"], capsys,
            "path.escape", 1, path=src4)
    assert _nothing_written(tmp_path / "o")


@pytest.mark.slow
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_chunked_path_keeps_every_cell(tmp_path, monkeypatch, newline):
    """The chunked CSV path (small chunks here) writes the cells the whole-table path does:
    quoted commas and newlines, CRLF, blank lines, a BOM; a d3mIndex first column copied as is."""
    import d3mkit.importing.scan as scan
    monkeypatch.setattr(scan, "CHUNK_ROWS", 3)
    rows = [f'{i},"a, {i}",{"x" if i % 2 else "y"}' if i % 3 else f'{i},"two{newline}lines",{"x" if i % 2 else "y"}'
            for i in range(10)]
    text = "\ufeffn,s,y" + newline + newline.join(rows[:5]) + newline + newline + newline.join(rows[5:]) + newline
    plain = text.replace('"', "").replace("a, ", "a; ").replace(f"two{newline}lines", "two lines")
    for name, body in (("q.csv", text), ("p.csv", plain)):
        (tmp_path / name).write_bytes(body.encode())
        root = d3mkit.import_table(tmp_path / name, target="y", out=tmp_path / "o")
        ld = TaskRoot.open(root).learning_data()
        expected = pd.read_csv(tmp_path / name, dtype=str, keep_default_na=False, encoding="utf-8-sig")
        expected.insert(0, "d3mIndex", [str(i) for i in range(10)])
        pd.testing.assert_frame_equal(ld, expected, check_dtype=False)
        assert _coltypes(root)["n"] == "integer" and d3mkit.is_valid(root)
    idx = tmp_path / "i.csv"
    idx.write_text("d3mIndex,v,y\n" + "".join(f"{100 - i},{i * 0.5},{'xy'[i % 2]}\n" for i in range(10)))
    root = d3mkit.import_table(idx, target="y", out=tmp_path / "o")
    assert (root / "i_dataset" / "tables" / "learningData.csv").read_bytes() == idx.read_bytes()


@pytest.mark.slow
def test_chunked_and_whole_table_paths_infer_the_same(tmp_path, monkeypatch):
    """Columns that make pandas' typed chunks disagree with the text (an integer column with
    empty cells, 1 beside 1.0, a number column turning to text in a later chunk, booleans
    spelled True/yes, integers beyond 64 bits, nan spelled out) get the colType the rules give
    the whole column, whatever the chunk size."""
    import d3mkit.importing.scan as scan
    cols = {
        "int_gaps": ["1", "", "3", "4", "", "6", "7", "8"],
        "int_then_real": ["1", "2", "3", "4", "5", "6", "7", "8.5"],
        "one_point_o": ["1", "2", "3.0", "4", "5", "6", "7", "8"],
        "num_then_text": ["1", "2", "1", "2", "1", "2", "x", "x"],
        "bools": ["True", "false", "TRUE", "False", "yes", "no", "t", "f"],
        "huge": ["99999999999999999999999", "1", "2", "3", "4", "5", "6", "7"],
        "nans": ["1.5", "nan", "2", "inf", "3", "-inf", "4", "5"],
        "empty": [""] * 8,
        "y": list("abababab"),
    }
    src = tmp_path / "t.csv"
    pd.DataFrame(cols).to_csv(src, index=False)
    whole = _coltypes(d3mkit.import_table(pd.DataFrame(cols), target="y", out=tmp_path / "o", name="whole"))
    assert whole == {"d3mIndex": "integer", "int_gaps": "integer", "int_then_real": "real", "one_point_o": "real",
                     "num_then_text": "categorical", "bools": "boolean", "huge": "integer", "nans": "real",
                     "empty": "string", "y": "categorical"}
    for size in (2, 3, 1000):
        monkeypatch.setattr(scan, "CHUNK_ROWS", size)
        root = d3mkit.import_table(src, target="y", out=tmp_path / f"o{size}")
        assert _coltypes(root) == whole, size
