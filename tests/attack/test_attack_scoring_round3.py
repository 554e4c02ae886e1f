"""Issue 23 section 1, the scoring classes (hostile and messy inputs, round 3): each test
is one member of its class and fails before the fix.

* a wrong box scored: an 8-number polygon that is not an axis-aligned rectangle;
* missing-value words: only an empty cell is missing for a label colType;
* row numbers: the physical line of the file everywhere (truth and predictions; blank
  lines, quoted newlines, mixed CRLF/LF/CR endings);
* labels that look equal: compared in Unicode NFC;
* reserved names: a target column is never the confidence or rank column;
* integer spellings: ``2_5`` and full-width digits are not a d3mIndex; a blank d3mIndex
  says so.
"""

from __future__ import annotations

import pandas as pd
import pytest

from _attack_util import refused, run, scores
from _scoring_util import make_task
from d3mkit.api import score
from d3mkit.core.errors import D3MKitError


def _issues(exc) -> list:
    return exc.value.issues


def _code_at(exc, code):
    return next(i for i in _issues(exc) if i.code == code)


# ---------------------------------------------------------------------------- boxes
@pytest.fixture
def od(tmp_path):
    ld = pd.DataFrame({"d3mIndex": [0, 1, 2], "image": ["a.png", "b.png", "c.png"],
                       "bbox": ["0,0,10,10", "5,5,20,20", "1,1,4,4"]})
    return make_task(tmp_path, "od", ld, ["bbox"], [{"metric": "objectDetectionAP"}],
                     task_type="objectDetection", subtype=None, col_types={"bbox": "realVector"},
                     image_col="image", test=[0, 1, 2])


def test_skewed_polygon_is_a_bad_box(od, tmp_path, capsys):
    p = tmp_path / "p.csv"
    # rows 2 and 4 are rectangles; row 3's vertices 2 and 4 are off the rectangle that
    # vertices 1 and 3 span (a skewed quadrilateral): before, it scored AP 1.0
    p.write_text("d3mIndex,image,bbox,confidence\n"
                 '0,a.png,"0,0,0,10,10,10,10,0",0.9\n'
                 '1,b.png,"5,5,9,20,20,20,16,5",0.8\n'
                 '2,c.png,"1,1,1,4,4,4,4,1",0.7\n')
    text = refused(["score", "--problem", od, "--predictions", p], capsys, "predictions.bad_box")
    assert "row 3, column bbox" in text and "axis-aligned" in text
    p.write_text(p.read_text().replace('"5,5,9,20,20,20,16,5"', '"5,5,5,20,20,20,20,5"'))
    code, out, _err = run(["score", "--problem", od, "--predictions", p], capsys)
    assert code == 0 and scores(out)["objectDetectionAP"] == 1.0


# ---------------------------------------------------------------------------- missing words
@pytest.mark.parametrize("word", ["NA", "None", "null", "N/A", "NaN", "nan"])
def test_missing_value_words_are_labels(tmp_path, capsys, word):
    frame = pd.DataFrame({"d3mIndex": range(10), "y": [word, "b"] * 5})
    root = make_task(tmp_path, "t", frame, ["y"], [{"metric": "accuracy"}], test=[0, 1])
    code, out, _err = run(["validate", root], capsys)
    assert code == 0, out
    pred = pd.DataFrame({"d3mIndex": [0, 1], "y": [word, word]})
    assert score(root, pred).value("accuracy") == 0.5
    p = tmp_path / "p.csv"
    pred.to_csv(p, index=False)
    code, out, err = run(["score", "--problem", root, "--predictions", p], capsys)
    assert code == 0 and scores(out)["accuracy"] == 0.5, err


def test_an_empty_cell_is_still_missing(tmp_path):
    frame = pd.DataFrame({"d3mIndex": range(4), "y": ["a", "b", "a", "b"]})
    root = make_task(tmp_path, "t", frame, ["y"], [{"metric": "accuracy"}], test=[0, 1, 2, 3])
    with pytest.raises(D3MKitError) as exc:
        score(root, pd.DataFrame({"d3mIndex": [0, 1, 2, 3], "y": ["a", " ", "a", "b"]}))
    assert _code_at(exc, "predictions.missing_value").location == "row 3, column y"


# ---------------------------------------------------------------------------- row numbers
def test_truth_errors_name_the_learning_data_line(tmp_path):
    n = 30
    frame = pd.DataFrame({"d3mIndex": range(n), "y": ["1"] * n})
    frame.loc[25, "y"] = "x"                    # learningData line 27, the 6th TEST row
    root = make_task(tmp_path, "t", frame, ["y"], [{"metric": "accuracy"}],
                     col_types={"y": "integer"}, test=list(range(20, 30)))
    with pytest.raises(D3MKitError) as exc:
        score(root, pd.DataFrame({"d3mIndex": range(20, 30), "y": 1}))
    issue = _code_at(exc, "truth.not_numeric")
    assert issue.location == "row 27, column y" and issue.path.endswith("learningData.csv")


@pytest.fixture
def task(tmp_path):
    frame = pd.DataFrame({"d3mIndex": range(6), "y": list("ababab")})
    return make_task(tmp_path, "t", frame, ["y"], [{"metric": "accuracy"}], test=[0, 1, 2, 3])


@pytest.mark.parametrize("body, line", [
    (b"d3mIndex,y\n0,a\n\n1,b\n2,\n3,b\n", 5),                  # a blank line counts
    (b'd3mIndex,y\n0,"a"\n1,"b\nb"\n2,\n3,b\n', 5),             # a quoted newline counts
    (b"d3mIndex,y\r\n0,a\r1,b\n2,\r\n3,b\r", 4),                # mixed CRLF/CR/LF endings
])
def test_prediction_rows_are_physical_lines(task, tmp_path, body, line):
    p = tmp_path / "p.csv"
    p.write_bytes(body)
    with pytest.raises(D3MKitError) as exc:
        score(task, p)
    issue = _code_at(exc, "predictions.missing_value")
    assert issue.location == f"row {line}, column y", [i.format() for i in _issues(exc)]


def test_mixed_line_endings_read_correctly(task, tmp_path):
    p = tmp_path / "p.csv"
    p.write_bytes(b"d3mIndex,y\r\n0,a\r1,b\n2,a\r\n3,a\r")
    assert score(task, p).value("accuracy") == 0.75


def test_mixed_line_endings_in_learning_data(tmp_path):
    frame = pd.DataFrame({"d3mIndex": range(4), "x": ["1", "2", "3", "4"], "y": list("abab")})
    root = make_task(tmp_path, "t", frame, ["y"], [{"metric": "accuracy"}], test=[0, 1, 2, 3])
    ld = next(root.glob("*_dataset")) / "tables" / "learningData.csv"
    ld.write_bytes(b"d3mIndex,x,y\r\n0,1,a\r1,2,b\n2,3,a\r\n3,4,b\r")
    assert score(root, pd.DataFrame({"d3mIndex": [0, 1, 2, 3], "y": list("abab")})).value("accuracy") == 1.0


# ---------------------------------------------------------------------------- NFC
def test_labels_compared_in_nfc(tmp_path):
    nfc, nfd = "caf\u00e9", "cafe\u0301"
    frame = pd.DataFrame({"d3mIndex": range(6), "y": [nfc, "tea", nfc, "tea", nfc, "tea"]})
    root = make_task(tmp_path, "t", frame, ["y"], [{"metric": "accuracy"}, {"metric": "f1Macro"}],
                     test=[0, 1, 2])
    report = score(root, pd.DataFrame({"d3mIndex": [0, 1, 2], "y": [nfd, "tea", nfd]}))
    assert report.value("accuracy") == 1.0 and report.value("f1Macro") == 1.0
    assert not [i for i in report.issues if i.code == "predictions.unseen_label"]


# ---------------------------------------------------------------------------- reserved names
@pytest.mark.parametrize("name", ["Confidence", "confidence", "rank"])
def test_a_target_is_never_the_confidence_column(tmp_path, name):
    frame = pd.DataFrame({"d3mIndex": range(4), name: ["2.5", "7.0", "3.25", "10.0"]})
    root = make_task(tmp_path, "t", frame, [name], [{"metric": "meanAbsoluteError"}],
                     task_type="regression", subtype=None, col_types={name: "real"}, test=[0, 1, 2, 3])
    perfect = pd.DataFrame({"d3mIndex": range(4), name: [2.5, 7.0, 3.25, 10.0]})
    assert score(root, perfect).value("meanAbsoluteError") == 0.0


# ---------------------------------------------------------------------------- integer spellings
@pytest.mark.parametrize("spelling", ["2_5", "\uff12\uff15"])
def test_index_spellings_python_int_reads_are_refused(tmp_path, spelling):
    frame = pd.DataFrame({"d3mIndex": range(30), "y": ["a", "b"] * 15})
    root = make_task(tmp_path, "t", frame, ["y"], [{"metric": "accuracy"}], test=[25, 26])
    p = tmp_path / "p.csv"
    p.write_text(f"d3mIndex,y\n{spelling},b\n26,a\n", encoding="utf-8")
    with pytest.raises(D3MKitError) as exc:
        score(root, p)
    issue = _code_at(exc, "predictions.index_set")
    assert spelling in issue.message and issue.location == "row 2, column d3mIndex"


def test_a_blank_index_says_so(task, tmp_path):
    p = tmp_path / "p.csv"
    p.write_text("d3mIndex,y\n0,a\n,b\n2,a\n3,b\n")
    with pytest.raises(D3MKitError) as exc:
        score(task, p)
    issue = _issues(exc)[0]
    assert issue.code == "predictions.missing_value" and "blank d3mIndex" in issue.message
    assert issue.location == "row 3, column d3mIndex"
