"""Adversarial suite, issue class 1 (no silent wrong score) for two table problems:

* a row with more or fewer fields than the header (learningData, dataSplits, targets.csv,
  predictions) is an error in ``score`` naming the file and the row (``csv.bad_row``), never
  skipped or padded silently; ``validate`` reports the same rows (one owner:
  d3mkit.tables.csvread.field_counts);
* integers beyond 2**53 compare exactly (d3mkit.validation.coltypes.exact_numbers): an integer
  target 9007199254740993 is not the prediction 9007199254740992, in ``score`` (checked
  against scikit-learn on the exact labels) and in ``validate`` (index keys, dataSplits)."""

from __future__ import annotations

from decimal import Decimal

import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, f1_score

from _attack_util import class_task, dataset_doc, problem_doc, refused, run, scores
from _scoring_util import make_task
from d3mkit.tables.csvread import field_counts

B = 2 ** 53


def _ld(root):
    return dataset_doc(root).parent / "tables" / "learningData.csv"


def _splits(root):
    return problem_doc(root).parent / "dataSplits.csv"


def _edit_line(path, lineno, fn):
    lines = path.read_text().split("\n")
    lines[lineno - 1] = fn(lines[lineno - 1])
    path.write_text("\n".join(lines))


# ------------------------------------------------------------------- field counts (item 2)
RAGGED = {   # name: (file, line to edit (1 = header), edit)
    "learningData TEST row + 1 field": ("ld", 3, lambda l: l + ",extra"),
    "learningData TEST row + 3 fields": ("ld", 3, lambda l: l + ",a,b,c"),
    "learningData TEST row - 1 field": ("ld", 3, lambda l: l.rsplit(",", 1)[0]),
    "learningData TEST row only the index": ("ld", 3, lambda l: l.split(",")[0]),
    "learningData TRAIN row + 1 field": ("ld", 2, lambda l: l + ",extra"),
    "learningData TRAIN row - 1 field": ("ld", 2, lambda l: l.rsplit(",", 1)[0]),
    "learningData last row - 1 field, no newline": ("ld", 21, lambda l: l.rsplit(",", 1)[0]),
    "learningData row + quoted field with a comma": ("ld", 5, lambda l: l + ',"x,y"'),
    "learningData quoted row - 1 field": ("ld", 5, lambda l: '"' + l.split(",")[0] + '",' + l.split(",")[1]),
    "learningData CRLF row - 1 field": ("ld", 4, lambda l: l.rsplit(",", 1)[0] + "\r"),
    "dataSplits TEST row + 1 field": ("sp", 3, lambda l: l + ",9"),
    "dataSplits TEST row - 1 field": ("sp", 3, lambda l: l.rsplit(",", 1)[0]),
    "dataSplits TRAIN row - 2 fields": ("sp", 2, lambda l: l.rsplit(",", 2)[0]),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(RAGGED))
def test_score_refuses_ragged_truth_rows(tmp_path, capsys, name):
    root = class_task(tmp_path)
    which, line, fn = RAGGED[name]
    path = _ld(root) if which == "ld" else _splits(root)
    if name.endswith("no newline"):
        path.write_text(path.read_text().rstrip("\n"))
    _edit_line(path, line, fn)
    pred = tmp_path / "pred.csv"
    truth = pd.read_csv(_ld(class_task(tmp_path / "clean")), dtype=str)
    pred.write_text("d3mIndex,y\n" + "".join(f"{i},{y}\n" for i, y in zip(truth["d3mIndex"], truth["y"])
                                              if int(i) % 2 == 1))
    text = refused(["score", "--problem", root, "--predictions", pred], capsys, "csv.bad_row", path=path)
    assert f"row {line}" in text, text
    code, out, _ = run(["validate", root], capsys)
    assert code == 1 and "[csv.bad_row]" in out and f"row {line}" in out, out


@pytest.mark.parametrize("tail, fields", [(",x", 3), ("", 1), (",x,y,z", 5)])
def test_score_refuses_ragged_targets_and_predictions(tmp_path, capsys, tail, fields):
    root = class_task(tmp_path)
    good = "".join(f"{i},{'abcab'[i % 5]}\n" for i in range(1, 20, 2))
    rows = good.splitlines()
    rows[2] = (rows[2] + tail) if fields > 1 else rows[2].split(",")[0]
    bad = "d3mIndex,y\n" + "\n".join(rows) + "\n"
    for which in ("predictions", "targets"):
        (tmp_path / "good.csv").write_text("d3mIndex,y\n" + good)
        (tmp_path / "bad.csv").write_text(bad)
        p, t = (tmp_path / "bad.csv", tmp_path / "good.csv") if which == "predictions" else \
            (tmp_path / "good.csv", tmp_path / "bad.csv")
        text = refused(["score", "--problem", problem_doc(root), "--predictions", p, "--targets", t],
                       capsys, "csv.bad_row", path=tmp_path / "bad.csv")
        assert "row 4" in text and f"found {fields}" in text, text


def test_field_counts_agrees_with_the_csv_module(tmp_path):
    import csv
    import numpy as np
    rng = np.random.default_rng(5)
    for trial in range(20):
        lines = ["a,b,c"]
        for _ in range(50):
            k = int(rng.choice([1, 2, 3, 3, 3, 4, 6]))
            cells = [str(rng.integers(100)) for _ in range(k)]
            if rng.random() < 0.05 and trial % 2:
                cells[0] = '"q,' + cells[0] + '"'
            lines.append(",".join(cells) if rng.random() > 0.05 else "")
        p = tmp_path / f"t{trial}.csv"
        p.write_text("\n".join(lines) + ("\n" if trial % 3 else ""))
        rows, counts = field_counts(p, 3)
        with open(p, newline="") as fh:
            want = [(r, len(x)) for r, x in enumerate(csv.reader(fh), start=1) if r > 1 and x and len(x) != 3]
        assert list(zip(rows.tolist(), counts.tolist())) == want


# ------------------------------------------------------------- integers beyond 2**53 (item 3)
def _int_task(tmp_path, labels):
    frame = pd.DataFrame({"d3mIndex": range(len(labels)), "x": [str(i % 3) for i in range(len(labels))],
                          "y": [str(v) for v in labels]})
    return make_task(tmp_path, "t", frame, ["y"], [{"metric": "accuracy"}, {"metric": "f1Macro"}],
                     col_types={"y": "integer"}, test=range(len(labels)))


BIG = {   # name: (truth labels, predictions as written)
    "2^53+1 vs 2^53": ([B + 1, B, B + 1, B], [B, B, B + 1, B]),
    "2^53+1 vs 2^53 written 9007199254740992.0": ([B + 1, B, 7, 8], [f"{B}.0", B, 7, 8]),
    "2^63-1 vs 2^63-2": ([2 ** 63 - 1, 2 ** 63 - 2, 1, 2], [2 ** 63 - 2, 2 ** 63 - 2, 1, 2]),
    "-(2^53+1) vs -2^53": ([-(B + 1), -B, 3, 3], [-B, -B, 3, 3]),
    "2^64+1 vs 2^64": ([2 ** 64 + 1, 2 ** 64, 5, 5], [2 ** 64, 2 ** 64, 5, 5]),
    "10^30+1 vs 10^30": ([10 ** 30 + 1, 10 ** 30, 4, 4], [10 ** 30, 10 ** 30, 4, 4]),
    "right: 2^53+1 spelled 9007199254740993e0": ([B + 1, B, 1, 2], ["9007199254740993e0", B, 1, 2]),
    "right: spellings .0 and e0": ([B + 1, B + 3, B + 1, 1], [f"{B + 1}.0", B + 3, B + 1, "1.0"]),
}


@pytest.mark.parametrize("name", list(BIG))
def test_big_integer_labels_score_exactly(tmp_path, capsys, name):
    truth, pred = BIG[name]
    root = _int_task(tmp_path, truth)
    p = tmp_path / "pred.csv"
    p.write_text("d3mIndex,y\n" + "".join(f"{i},{v}\n" for i, v in enumerate(pred)))
    code, out, err = run(["score", "--problem", root, "--predictions", p, "--format", "json"], capsys)
    assert code == 0, err
    exact = [int(Decimal(str(v))) for v in pred]            # the hand computation, exact
    got = scores(out)
    assert got["accuracy"] == pytest.approx(accuracy_score([str(t) for t in truth], [str(v) for v in exact]))
    assert got["f1Macro"] == pytest.approx(f1_score([str(t) for t in truth], [str(v) for v in exact],
                                                    average="macro"))
    assert (got["accuracy"] == 1.0) == name.startswith("right")


def test_big_d3m_index_compares_exactly(tmp_path, capsys):
    frame = pd.DataFrame({"d3mIndex": [str(B + 1), str(B + 3)], "x": ["1", "2"], "y": ["a", "b"]})
    root = make_task(tmp_path, "t", frame, ["y"], [{"metric": "accuracy"}], test=[B + 1, B + 3])
    p = tmp_path / "pred.csv"
    p.write_text(f"d3mIndex,y\n{B},a\n{B + 3}.0,b\n")          # 2^53 is not 2^53 + 1
    text = refused(["score", "--problem", root, "--predictions", p], capsys, "predictions.index_set")
    assert str(B + 1) in text
    p.write_text(f"d3mIndex,y\n{B + 1}.0,a\n {B + 3},b\n")       # spellings of the same integers
    code, out, _ = run(["score", "--problem", root, "--predictions", p], capsys)
    assert code == 0 and scores(out)["accuracy"] == 1.0


@pytest.mark.parametrize("split_index, ok", [(f"{B + 1}", True), (f"{B + 1}.0", True), (f"{B}", False),
                                             (f"{B + 2}", False)])
def test_validate_big_index_in_splits(tmp_path, capsys, split_index, ok):
    frame = pd.DataFrame({"d3mIndex": [str(B + 1), "2", "3", "4"], "x": ["1", "2", "1", "2"],
                          "y": ["a", "b", "a", "b"]})
    root = make_task(tmp_path, "t", frame, ["y"], [{"metric": "accuracy"}], test=[B + 1, 3])
    sp = _splits(root)
    sp.write_text(sp.read_text().replace(str(B + 1), split_index))
    code, out, _ = run(["validate", root], capsys)
    assert ("[splits.unknown_index]" in out) != ok, out
