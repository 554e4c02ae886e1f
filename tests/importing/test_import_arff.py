"""``d3mkit import arff``: ARFF types map to colTypes, an OpenML split file becomes dataSplits.csv
row for row, and bad ARFF or split files get one line, a code and nothing written."""

from __future__ import annotations

import pandas as pd
import pytest

import d3mkit
from _attack_util import refused, run
from d3mkit.documents import DatasetDoc
from d3mkit.taskroot.model import TaskRoot

pytest.importorskip("arff", reason="import arff needs liac-arff (the [arff] extra)")

N = 15
HEADER = """% a hand-made OpenML-style dataset
@RELATION toy
@ATTRIBUTE count NUMERIC
@ATTRIBUTE 'weight kg' REAL
@ATTRIBUTE note STRING
@ATTRIBUTE day DATE "yyyy-MM-dd'T'HH:mm:ss"
@ATTRIBUTE class {a,b,'c d'}
@DATA
"""


def _dataset(tmp_path, rows=N):
    body = "".join(f"{2 * i},{i}.25,'text, {i}',2020-01-{i + 1:02d}T00:00:00,{['a', 'b', chr(39) + 'c d' + chr(39)][i % 3]}\n"
                   for i in range(rows))
    p = tmp_path / "toy.arff"
    p.write_text(HEADER + body)
    return p


def _split_file(tmp_path, rows, name="split.arff"):
    p = tmp_path / name
    p.write_text("@RELATION splits\n@ATTRIBUTE type {TRAIN,TEST}\n@ATTRIBUTE rowid NUMERIC\n"
                 "@ATTRIBUTE repeat NUMERIC\n@ATTRIBUTE fold NUMERIC\n@DATA\n"
                 + "".join(f"{t},{i},{r},{f}\n" for t, i, r, f in rows))
    return p


def _openml_rows(n=N, folds=3, repeats=2):
    """OpenML's layout: per repeat and fold, TRAIN rows then TEST rows, in an order of its own."""
    out = []
    for r in range(repeats):
        for f in range(folds):
            order = [(i * 7 + r) % n for i in range(n)]
            out += [("TRAIN", i, r, f) for i in order if (i + r) % folds != f]
            out += [("TEST", i, r, f) for i in order if (i + r) % folds == f]
    return out


def test_arff_types_map_to_coltypes(tmp_path, capsys):
    code, out, err = run(["import", "arff", _dataset(tmp_path), "--target", "class", "--out", tmp_path / "o"], capsys)
    assert code == 0, err
    root = tmp_path / "o" / "toy"
    ddoc = DatasetDoc.load(root / "toy_dataset" / "datasetDoc.json")
    cols = {c.col_name: c for c in ddoc.learning_data.columns}
    assert {n: c.col_type for n, c in cols.items()} == {"d3mIndex": "integer", "count": "integer",
                                                        "weight kg": "real", "note": "string",
                                                        "day": "dateTime", "class": "categorical"}
    assert cols["class"].extra["colDescription"] == "ARFF nominal levels: a, b, c d"
    task = TaskRoot.open(root)
    assert (task.problem.task_type, task.problem.task_subtype) == ("classification", "multiClass")
    ld = task.learning_data()
    assert ld["note"].tolist()[:2] == ["text, 0", "text, 1"] and ld["class"].tolist()[:3] == ["a", "b", "c d"]
    assert d3mkit.is_valid(root)


def test_openml_split_file_gives_equal_datasplits_rows(tmp_path, capsys):
    rows = _openml_rows()
    split = _split_file(tmp_path, rows)
    root = d3mkit.import_arff(_dataset(tmp_path), target="class", out=tmp_path / "o", splits=split)
    written = pd.read_csv(root / "toy_problem" / "dataSplits.csv")
    expected = pd.DataFrame(rows, columns=["type", "d3mIndex", "repeat", "fold"])[["d3mIndex", "type", "repeat", "fold"]]
    pd.testing.assert_frame_equal(written, expected)
    s = TaskRoot.open(root).problem.splits
    assert (s["method"], s["numFolds"], s["numRepeats"], s["stratified"]) == ("kFold", 3, 2, False)
    assert run(["validate", root], capsys)[0] == 0


def test_holdout_split_file(tmp_path):
    rows = [("TEST" if i % 4 == 0 else "TRAIN", i, 0, 0) for i in range(N)]
    root = d3mkit.import_arff(_dataset(tmp_path), target="class", out=tmp_path / "o",
                              splits=_split_file(tmp_path, rows))
    s = TaskRoot.open(root).problem.splits
    assert s["method"] == "holdOut" and s["testSize"] == pytest.approx(4 / 15, abs=1e-6)


def _bad_split(tmp_path, rows):
    return _split_file(tmp_path, rows, "bad_split.arff")


SPLIT_CASES = [
    ("rowid beyond the rows", [("TRAIN", i, 0, 0) for i in range(N)] + [("TEST", 99, 0, 0)], "import.splits_rows"),
    ("rows left out", [("TRAIN", i, 0, 0) for i in range(N - 2)], "import.splits_rows"),
    ("row twice", [("TRAIN", i, 0, 0) for i in range(N)] + [("TEST", 3, 0, 0)], "import.splits_rows"),
    ("negative fold", [("TRAIN", i, 0, -1) for i in range(N)], "import.splits_file"),
]


@pytest.mark.parametrize("rows,code", [c[1:] for c in SPLIT_CASES], ids=[c[0] for c in SPLIT_CASES])
def test_bad_split_file(tmp_path, capsys, rows, code):
    split = _bad_split(tmp_path, rows)
    refused(["import", "arff", _dataset(tmp_path), "--target", "class", "--splits", split, "--out", tmp_path / "o"],
            capsys, code, 1, path=split)
    assert not (tmp_path / "o" / "toy").exists()


def test_split_file_without_its_attributes(tmp_path, capsys):
    split = tmp_path / "s.arff"
    split.write_text("@RELATION s\n@ATTRIBUTE type {TRAIN,TEST}\n@ATTRIBUTE row NUMERIC\n@DATA\nTRAIN,1\n")
    text = refused(["import", "arff", _dataset(tmp_path), "--target", "class", "--splits", split, "--out",
                    tmp_path / "o"], capsys, "import.splits_file", 1, path=split)
    assert "rowid" in text


def test_unparseable_arff_names_the_line(tmp_path, capsys):
    p = tmp_path / "bad.arff"
    p.write_text("@RELATION r\n@ATTRIBUTE x NUMERIC\n@ATTRIBUTE y {a,b}\n@DATA\n1,a\n2,zzz\n")
    text = refused(["import", "arff", p, "--target", "y", "--out", tmp_path / "o"], capsys, "import.arff", 1, path=p)
    assert "line 6" in text
    p.write_text("@RELATION r\n@ATTRIBUTE x WHATEVER\n@DATA\n1\n")
    refused(["import", "arff", p, "--target", "x", "--out", tmp_path / "o"], capsys, "import.arff", 1, path=p)
    p.write_bytes(b"@RELATION r\n@ATTRIBUTE x {caf\xe9,b}\n@DATA\nb\n")
    refused(["import", "arff", p, "--target", "x", "--out", tmp_path / "o"], capsys, "file.encoding", 1, path=p)
    assert not (tmp_path / "o").exists() or not list((tmp_path / "o").iterdir())


def test_arff_target_missing(tmp_path, capsys):
    refused(["import", "arff", _dataset(tmp_path), "--target", "klass", "--out", tmp_path / "o"], capsys,
            "import.target", 2)


DATED = """@RELATION dated
@ATTRIBUTE x NUMERIC
@ATTRIBUTE d DATE "dd-MM-yyyy"
@ATTRIBUTE t DATE 'EEE, d MMM yyyy hh:mm a'
@ATTRIBUTE class {a,b}
@DATA
"""


def _dated(tmp_path, bad_row=None, fmt=None):
    lines = []
    for i in range(12):
        d = f"{i + 1:02d}-03-2021" if i != bad_row else "2021-03-01"
        day = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][i % 7]
        lines.append(f"{i},{d},'{day}, {i + 1} Mar 2021 0{i % 9 + 1}:30 {'AM' if i % 2 else 'PM'}',{'ab'[i % 2]}")
    head = DATED if fmt is None else DATED.replace('"dd-MM-yyyy"', fmt)
    p = tmp_path / "dated.arff"
    p.write_text(head + "\n".join(lines) + "\n")
    return p


def test_arff_date_formats_become_iso(tmp_path):
    root = d3mkit.import_arff(_dated(tmp_path), target="class", out=tmp_path / "o")
    task = TaskRoot.open(root)
    ld = task.learning_data()
    assert ld["d"].tolist()[:3] == ["2021-03-01", "2021-03-02", "2021-03-03"]
    # 1 March 2021 was a Monday: the day names the file gives agree; 1:30 PM is 13:30
    assert ld["t"].tolist()[:2] == ["2021-03-01T13:30:00", "2021-03-02T02:30:00"]
    cols = {c.col_name: c.col_type for c in task.dataset.learning_data.columns}
    assert cols["d"] == cols["t"] == "dateTime"
    assert d3mkit.is_valid(root)


def test_arff_date_not_in_its_format(tmp_path, capsys):
    src = _dated(tmp_path, bad_row=4)
    text = refused(["import", "arff", src, "--target", "class", "--out", tmp_path / "o"], capsys,
                   "import.arff_date", 1, path=src)
    assert "row 6, column d" in text and "'2021-03-01'" in text and "dd-MM-yyyy" in text
    assert not (tmp_path / "o" / "dated").exists()


def test_arff_date_format_unreadable(tmp_path, capsys):
    src = _dated(tmp_path, fmt='"yyyy-ww"')
    text = refused(["import", "arff", src, "--target", "class", "--out", tmp_path / "o"], capsys,
                   "import.arff_date", 1, path=src)
    assert "'w'" in text
