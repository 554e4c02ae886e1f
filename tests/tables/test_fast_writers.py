"""The fast paths of writing a task root (issue 21's import speed): dataSplits bytes formatted
without ``DataFrame.to_csv``, numbered learningData lines built with numpy, and the commit-time
validation reading what the writer holds in memory. Each must give exactly what the general
path gives: the same bytes, the same issues."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from d3mkit.documents import Column, DatasetDoc, ProblemDoc, Resource, Target
from d3mkit.io.numtext import int_text, number_lines, rows_text
from d3mkit.taskroot.writer import TaskRootWriter
from d3mkit.taskroot.splits.plan import make_splits
from d3mkit.taskroot.splits.write import splits_bytes
from d3mkit.validation.run import validate_task_root

RNG = np.random.default_rng(7)
N = 300
TYPES = pd.Series(RNG.choice(["TRAIN", "TEST"], N), dtype=object)
INDEXES = {
    "ints": np.arange(N),
    "negative and large": RNG.integers(-10 ** 17, 10 ** 17, N),
    "int32": np.arange(N, dtype=np.int32),
    "uint64 top": np.full(N, 2 ** 64 - 1, dtype=np.uint64),
    "strings": pd.Series(RNG.integers(0, 50, N).astype(str), dtype=object),
    "quoted strings": pd.Series(["a,b", 'say "x"', "line\nbreak"] * (N // 3), dtype=object),
    "empty strings": pd.Series([""] * N, dtype=object),
    "floats": pd.Series(RNG.normal(size=N)),
}


@pytest.mark.parametrize("arrow", [True, False], ids=["pyarrow", "numpy"])
@pytest.mark.parametrize("index", list(INDEXES.values()), ids=list(INDEXES))
@pytest.mark.parametrize("image", [False, True])
def test_splits_bytes_equal_to_csv(monkeypatch, index, image, arrow):
    import d3mkit.io.numtext as numtext
    if arrow:
        pytest.importorskip("pyarrow", reason="the pyarrow join needs pyarrow")
    monkeypatch.setattr(numtext, "ARROW", arrow)
    cols = {"d3mIndex": index}
    if image:
        cols["image"] = pd.Series(RNG.choice(["a.png", "b,c.png"], N), dtype=object)
    frame = pd.DataFrame({**cols, "type": TYPES, "repeat": RNG.integers(0, 3, N), "fold": RNG.integers(0, 12, N)})
    assert splits_bytes(frame) == frame.to_csv(index=False, lineterminator="\n").encode()


@pytest.mark.parametrize("frame", [
    pd.DataFrame({"d3mIndex": [1, 2], "type": ["TRAIN", None], "repeat": [0, 0], "fold": [0, 0]}),
    pd.DataFrame({"d3mIndex": [1, 2], "type": ["TRAIN", "x,y"], "repeat": [0, 0], "fold": [0, 0]}),
    pd.DataFrame({"d3mIndex": [1, 2], "type": ["TRAIN", "TEST"], "repeat": [0.0, 1.0], "fold": [0, 0]}),
    pd.DataFrame({"d3mIndex": [1, 2], "type": pd.Categorical(["TRAIN", "TEST"]), "repeat": [0, 0], "fold": [0, 1]}),
    pd.DataFrame({"d3mIndex": [], "type": [], "repeat": [], "fold": []}),
], ids=["missing type", "quoted type", "float repeat", "categorical type", "empty"])
def test_splits_bytes_odd_frames(frame):
    assert splits_bytes(frame) == frame.to_csv(index=False, lineterminator="\n").encode()


def test_int_text_is_str():
    a = np.concatenate([RNG.integers(-10 ** 18, 10 ** 18, 1000), [0, -1, 9, 10, np.iinfo(np.int64).min,
                                                                     np.iinfo(np.int64).max]])
    assert rows_text([int_text(a)]) == "".join(f"{v}\n" for v in a.tolist()).encode()


@pytest.mark.parametrize("arrow", [True, False], ids=["pyarrow", "numpy"])
@pytest.mark.parametrize("start", [41, np.array([5, -17, 10 ** 15, 0, -(2 ** 63)] * 200)], ids=["counter", "array"])
@pytest.mark.parametrize("text", [b"a,b\n", b"a,b\r\nc\r\n", b"x\n\ny\n\r\nz\n", b"\n\n", b"q\n" * 1000,
                                  "\u00e9,\u20ac\n\t,\n".encode() * 3, b"\xff\xfe,x\n"])
def test_number_lines(monkeypatch, text, start, arrow):
    import d3mkit.io.numtext as numtext
    if arrow:
        pytest.importorskip("pyarrow", reason="the pyarrow join needs pyarrow")
    monkeypatch.setattr(numtext, "ARROW", arrow)
    lines = [ln for ln in text.split(b"\n")[:-1] if ln not in (b"", b"\r")]
    out, count = number_lines(text, start)
    numbers = start[:len(lines)].tolist() if np.ndim(start) else range(start, start + len(lines))
    assert out.tobytes() == b"".join(b"%d,%s\n" % (k, ln) for k, ln in zip(numbers, lines))
    assert count == len(lines)


def test_number_lines_tab_separator_and_view(monkeypatch):
    pytest.importorskip("pyarrow", reason="the pyarrow join needs pyarrow")
    block = memoryview(b"skip\na\tb\nc\n")[5:]
    assert number_lines(block, 3, b"\t")[0].tobytes() == b"3\ta\tb\n4\tc\n"


def _root(tmp_path, splits: pd.DataFrame, index=range(6)):
    cols = [Column(0, "d3mIndex", "integer", ("index",)), Column(1, "y", "categorical", ("suggestedTarget",))]
    ddoc = DatasetDoc.new("t_dataset", "t", [Resource.table("learningData", "tables/learningData.csv", cols)])
    pdoc = ProblemDoc.new("t_problem", "t", "classification", "binary", "t_dataset",
                          [Target(0, "learningData", 1, "y")], [{"metric": "accuracy"}],
                          splits={"method": "holdOut", "testSize": 0.5, "stratified": True})
    with TaskRootWriter(tmp_path, "t", benchmark="test", validate=False) as w:
        w.write_table("tables/learningData.csv", pd.DataFrame({"d3mIndex": list(index), "y": list("ababab")}))
        w.write_dataset_doc(ddoc)
        w.write_problem_doc(pdoc, splits)
    return w.root


BAD_SPLITS = {
    "good": pd.DataFrame({"d3mIndex": range(6), "type": ["TRAIN", "TRAIN", "TEST", "TEST", "TRAIN", "TEST"],
                          "repeat": 0, "fold": 0}),
    "unknown index and bad type": pd.DataFrame({"d3mIndex": [0, 1, 2, 3, 4, 99], "type": ["TRAIN", "TEST", "TRAIN",
                                                "x", "TRAIN", "TEST"], "repeat": 0, "fold": 0}),
    "string index, overlap": pd.DataFrame({"d3mIndex": ["0", "1", "1", "3", "4", "5"], "type": ["TRAIN", "TEST", "TRAIN",
                                           "TEST", "TRAIN", "TEST"], "repeat": 0, "fold": 0}),
    "negative fold, empty cell": pd.DataFrame({"d3mIndex": ["0", "", "2", "3", "4", "5"], "type": ["TRAIN", "TEST"] * 3,
                                               "repeat": [0, 0, 0, 0, 0, 0], "fold": [0, 0, -1, 0, 0, 0]}),
    "big ints": pd.DataFrame({"d3mIndex": [2 ** 60 + k for k in range(6)], "type": ["TRAIN", "TEST"] * 3,
                              "repeat": 0, "fold": 0}),
}


@pytest.mark.parametrize("splits", list(BAD_SPLITS.values()), ids=list(BAD_SPLITS))
def test_validation_from_memory_equals_from_file(tmp_path, splits):
    root = _root(tmp_path, splits)
    path = root / "t_problem" / "dataSplits.csv"
    from_file = [(i.code, i.location, i.message) for i in validate_task_root(root)]
    from_memory = [(i.code, i.location, i.message) for i in validate_task_root(root, in_memory={path: splits})]
    assert from_memory == from_file
    assert (from_file == []) == (splits is BAD_SPLITS["good"])


def test_learning_data_columns_from_memory(tmp_path):
    """The import hands its index and target columns to the writer; the validation reads them
    from there, and a duplicate index there is still found."""
    splits = BAD_SPLITS["good"]
    root = _root(tmp_path, splits, index=[0, 1, 2, 3, 4, 4])
    ld = root / "t_dataset" / "tables" / "learningData.csv"
    held = pd.DataFrame({"d3mIndex": np.array([0, 1, 2, 3, 4, 4]), "y": list("ababab")})
    codes = [i.code for i in validate_task_root(root, cells_checked=(ld,), in_memory={ld: held})]
    assert "index.duplicate" in codes
    assert codes == [i.code for i in validate_task_root(root)]


def test_make_splits_large_string_and_int_index_agree():
    """d3mIndex as strings (a CSV read) and as integers (the import's frame) split alike."""
    n = 5000
    y = RNG.choice(["a", "b", "c"], n)
    cols = [Column(0, "d3mIndex", "integer", ("index",)), Column(1, "y", "categorical", ("suggestedTarget",))]
    ddoc = DatasetDoc.new("t_dataset", "t", [Resource.table("learningData", "tables/learningData.csv", cols)])
    pdoc = ProblemDoc.new("t_problem", "t", "classification", "multiClass", "t_dataset",
                          [Target(0, "learningData", 1, "y")], [{"metric": "accuracy"}],
                          splits={"method": "kFold", "numFolds": 4, "numRepeats": 2, "randomSeed": 3})
    ints = make_splits(pdoc, pd.DataFrame({"d3mIndex": np.arange(n), "y": y}), ddoc)
    strs = make_splits(pdoc, pd.DataFrame({"d3mIndex": np.arange(n).astype(str).astype(object), "y": y},
                                          dtype=object), ddoc)
    assert splits_bytes(ints) == splits_bytes(strs)
