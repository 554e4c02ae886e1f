"""Validation reads a CSV file with pyarrow (:mod:`d3mkit.tables.arrow`) and one that reader
declines through pandas: both readers must give the checks the same columns, so every issue
(code, place, message, order) is the same whichever reader read the file. Each case edits
cells of a task root and validates it twice, the second time with the pyarrow reader
switched off."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from d3mkit.tables import csvread
from d3mkit.validation import validate_paths

from validate_helpers import Root, build_tabular


def _plain(root: Path) -> Root:
    """The tabular root without its quoted columns (realVector, json): every CSV plain."""
    tab = Root(root)
    drop = ("vec", "meta")
    tab.table(tab.ld, lambda df: df.drop(columns=list(drop)))

    def doc(d):
        res = tab.ld_res(d)
        res["columns"] = [c for c in res["columns"] if c["colName"] not in drop]
        for i, c in enumerate(res["columns"]):
            c["colIndex"] = i
    tab.ds(doc)
    tab.pr(lambda d: d["inputs"]["data"][0]["targets"][0].update(colIndex=7))
    return tab


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    root = build_tabular(tmp_path_factory.mktemp("plain"))
    _plain(root)
    return root


def _edit(path: Path, row: int, col: str, value: str) -> None:
    """Set the cell of data row ``row`` (0-based) in column ``col`` of a plain CSV file."""
    lines = path.read_text(encoding="utf-8").split("\n")
    header = lines[0].split(",")
    cells = lines[row + 1].split(",")
    cells[header.index(col)] = value
    lines[row + 1] = ",".join(cells)
    path.write_text("\n".join(lines), encoding="utf-8")


def _prefix_index(tab: Root) -> None:
    for path in (tab.ld, tab.splits):
        lines = path.read_text().split("\n")
        path.write_text("\n".join([lines[0]] + [f"a{x}" if x else x for x in lines[1:]]))
    tab.ds(lambda d: tab.col(d, "d3mIndex").update(colType="string"))


CASES = {
    "valid": [],
    "index_repeated": [("ld", 5, "d3mIndex", "3"), ("ld", 9, "d3mIndex", "3")],
    "index_empty": [("ld", 5, "d3mIndex", "")],
    "index_leading_zeros": [("ld", 7, "d3mIndex", "007"), ("sp", 3, "d3mIndex", "07")],
    "integer_bad": [("ld", 2, "k", "1.5"), ("ld", 4, "k", "x")],
    "integer_empty": [("ld", 2, "k", "")],
    "integer_plus": [("ld", 2, "k", "+3"), ("ld", 3, "k", " 4")],
    "integer_huge": [("ld", 2, "k", "9007199254740993")],
    "real_bad": [("ld", 1, "x", "abc"), ("ld", 2, "x", "1e5"), ("ld", 3, "x", "inf"), ("ld", 4, "x", "")],
    "real_forms": [("ld", 1, "x", "-.5"), ("ld", 2, "x", "5."), ("ld", 3, "x", "1.5E-3"), ("ld", 4, "x", "12"),
                   ("ld", 5, "x", "-0.0"), ("ld", 6, "x", "1.2.3")],
    "boolean_bad": [("ld", 1, "flag", "maybe"), ("ld", 2, "flag", " yes ")],
    "date_forms": [("ld", 1, "when", "2020-02-30"), ("ld", 2, "when", "yesterday"),
                   ("ld", 3, "when", "2020-01-01T10:00:00Z"), ("ld", 4, "when", "2020-01-01 10:00"),
                   ("ld", 5, "when", "1999"), ("ld", 6, "when", "2020-13-01"), ("ld", 7, "when", "1600-01-01")],
    "categorical_space": [("ld", 1, "y", " a"), ("ld", 2, "y", "")],
    "foreign_key_missing": [("ld", 1, "grp", "g9"), ("ld", 2, "grp", "")],
    "item_missing": [("ld", 1, "image", "nope.png"), ("ld", 2, "image", "../x.png"), ("ld", 3, "image", "")],
    "long_text": [("ld", 1, "grp", "g" * 40), ("ld", 2, "grp", "h" * 100)],
    "very_long_text": [("ld", 2, "grp", "h" * 200)],
    "unicode": [("ld", 1, "y", "\u00e9t\u00e9"), ("ld", 2, "grp", "\u00fc")],
    "true_false_texts": [("ld", i, "image", "true" if i % 2 else "false") for i in range(40)],
    "splits_unknown": [("sp", 1, "d3mIndex", "999")],
    "splits_repeated": [("sp", 1, "d3mIndex", "2")],
    "splits_type": [("sp", 1, "type", "VALID"), ("sp", 2, "type", "")],
    "splits_numbers": [("sp", 1, "repeat", "-1"), ("sp", 2, "repeat", ""), ("sp", 3, "fold", "x"),
                       ("sp", 4, "fold", "1.0"), ("sp", 5, "repeat", "99999999999999999999")],
    "splits_index_as_float": [("sp", 1, "d3mIndex", "1.0")],
    "splits_index_empty": [("sp", 1, "d3mIndex", "")],
    "string_index": _prefix_index,
}


def _distinct_names(tab: Root) -> None:
    """More than 4096 rows of mostly distinct texts, one longer than those after it: the
    column is kept as bytes, as wide as its longest cell."""
    lines = tab.ld.read_text().split("\n")
    head, rows = lines[0], [x for x in lines[1:] if x]
    cols = head.split(",")
    out = [head]
    for i in range(6000):
        cells = rows[i % len(rows)].split(",")
        cells[cols.index("d3mIndex")] = str(i)
        cells[cols.index("grp")] = "a-longer-text-cell" if i == 1 else f"g{i}"
        out.append(",".join(cells))
    tab.ld.write_text("\n".join(out) + "\n")       # grp refers to groups.gid: each value is quoted


CASES["many_distinct_texts"] = _distinct_names


def _issues(root: Path) -> list[str]:
    return [i.format() for i in validate_paths([root]).issues()]


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_arrow_and_pandas_readers_report_alike(case, pristine, tmp_path, monkeypatch):
    tab = Root(shutil.copytree(pristine, tmp_path / "t"))
    edits = CASES[case]
    if callable(edits):
        edits(tab)
    else:
        for which, row, col, value in edits:
            _edit(tab.ld if which == "ld" else tab.splits, row, col, value)
    used = []
    real = csvread.read_checked_columns

    def counted(*a, **kw):
        got = real(*a, **kw)
        used.append(got is not None)
        return got
    monkeypatch.setattr(csvread, "read_checked_columns", counted)
    with_arrow = _issues(tab.root)
    monkeypatch.setattr(csvread, "read_checked_columns", lambda *a, **kw: None)
    with_pandas = _issues(tab.root)
    assert with_arrow == with_pandas
    if case in ("valid", "index_repeated", "splits_repeated", "true_false_texts", "unicode", "long_text"):
        assert used == [True] * 3, used          # learningData, groups, dataSplits: all read with numpy
    if case == "valid":
        assert with_arrow == []


@pytest.mark.slow
def test_validate_imports_no_pandas_for_plain_files(pristine, tmp_path):
    """A plain task root is validated without importing pandas (about 80 MB of an interpreter)."""
    import subprocess
    import sys
    root = shutil.copytree(pristine, tmp_path / "t")
    code = ("import sys; from d3mkit.validation import validate_paths; "
            f"r = validate_paths([{str(root)!r}]); "
            "print(len(r.issues()), 'pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**__import__("os").environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert out.stdout.split() == ["0", "False"], out.stdout + out.stderr


@pytest.mark.slow
def test_many_item_names_read_as_bytes_report_alike(tmp_path, monkeypatch):
    """A column of more than 4096 distinct item names keeps them as a sorted byte array (no
    Python string per value): missing items, escaping names, empty cells and repeated
    indices are reported as the pandas reader's columns give them."""
    from d3mkit.tables import tablecols
    tab = Root(shutil.copytree(build_tabular(tmp_path / "src"), tmp_path / "t"))
    _plain(tab.root)
    n = 5000
    media = tab.dataset / "media"
    for i in range(n):
        (media / f"m{i}.png").write_bytes(b"x")
    (media / "sub").mkdir()
    (media / "sub" / "s.png").write_bytes(b"x")
    names = [f"m{i}.png" for i in range(n)]
    names[7], names[9], names[11], names[13], names[15] = "nope.png", "../up.png", "", "sub/s.png", "sub//s.png"
    names[17], names[19] = "./m1.png", "sub/../m2.png"
    lines = tab.ld.read_text().split("\n")
    head, rows = lines[0], [x for x in lines[1:] if x]
    cols = head.split(",")
    out = [head]
    for i in range(n):
        cells = rows[i % len(rows)].split(",")
        cells[cols.index("d3mIndex")] = str(i if i != 21 else 20)
        cells[cols.index("image")] = names[i]
        out.append(",".join(cells))
    tab.ld.write_text("\n".join(out) + "\n")
    seen = []
    real = tablecols.Texts.__init__

    def spy(self, *a, **kw):
        seen.append(kw.get("raw") is not None)
        real(self, *a, **kw)
    monkeypatch.setattr(tablecols.Texts, "__init__", spy)
    with_arrow = _issues(tab.root)
    assert any(seen), "the image column was not kept as bytes"
    monkeypatch.setattr(csvread, "read_checked_columns", lambda *a, **kw: None)
    assert _issues(tab.root) == with_arrow
    text = "\n".join(with_arrow)
    assert "item 'nope.png' is not in collection" in text and "'../up.png' leaves the dataset root" in text
    assert "'sub//s.png'" not in text and "'./m1.png'" not in text and "d3mIndex '20' already on row 22" in text
