"""Reading, checking and aligning predictions: shuffled rows, layouts, every error case."""

import numpy as np
import pandas as pd
import pytest

from _scoring_util import make_task, write_csv
from d3mkit.core.errors import D3MKitError
from d3mkit.scoring.score import score_predictions, score_task_root
from d3mkit.tables import write_table

LD = pd.DataFrame({"d3mIndex": range(10), "x": range(10), "y": list("abcabcabca")})
# TEST = odd indices 1,3,5,7,9 -> truth b, a, c, b, a


@pytest.fixture
def task(tmp_path):
    return make_task(tmp_path, "t", LD, ["y"], [{"metric": "accuracy"}, {"metric": "f1Macro"}])


def _codes(exc):
    return [i.code for i in exc.value.issues if i.is_error]


def _score(task, text, **kw):
    p = write_csv(task.parent / "pred.csv", text)
    return score_task_root(task, p, **kw)


def test_alignment_with_shuffled_rows(task):
    ordered = _score(task, "d3mIndex,y\n1,b\n3,a\n5,a\n7,b\n9,a\n")
    shuffled = _score(task, "d3mIndex,y\n9,a\n5,a\n1,b\n7,b\n3,a\n")
    assert ordered.value("accuracy") == shuffled.value("accuracy") == 0.8
    assert ordered.value("f1Macro") == shuffled.value("f1Macro")


def test_confidence_column_any_case_and_extra_columns_warn(task):
    r = _score(task, "d3mIndex,y,CONFIDENCE,note\n1,b,0.5,x\n3,a,1,x\n5,c,0,x\n7,b,.2,x\n9,a,1,x\n")
    assert r.value("accuracy") == 1.0
    assert [i.code for i in r.issues] == ["predictions.extra_column"]


@pytest.mark.parametrize("text, code", [
    ("", "csv.empty"),
    ("\n\n", "csv.empty"),
    ("d3mIndex,y\n", "csv.no_rows"),
    ("d3mIndex;y\n1;b\n", "csv.delimiter"),
    ("d3mIndex\ty\n1\tb\n", "csv.delimiter"),
    ("d3mIndex,y,y\n1,b,b\n", "csv.duplicate_header"),
    ("d3mIndex,y\n1,b\n3,a,zz\n", "csv.bad_row"),
    ("D3MIndex,y\n1,b\n", "predictions.no_index"),
    ("d3mIndex,label\n1,b\n", "predictions.no_target"),
    ("d3mIndex,y\n1,b\n3,\n5,a\n7,nan\n9,a\n", "predictions.missing_value"),
    ("d3mIndex,y\n1,b\n3,a\n5,a\n7,b\n", "predictions.index_set"),
    ("d3mIndex,y\n1,b\n3,a\n5,a\n7,b\n9,a\n11,a\n", "predictions.index_set"),
    ("d3mIndex,y\n1,b\n1,b\n5,a\n7,b\n9,a\n", "predictions.duplicate_index"),
    ("d3mIndex,y,confidence\n1,b,0.5\n3,a,1.5\n5,a,0\n7,b,1\n9,a,x\n", "predictions.confidence_range"),
    ("d3mIndex,y,confidence\n1,b,0.5\n3,a,1\n5,a,0\n7,b,1\n9,a,x\n", "predictions.confidence"),
    ("d3mIndex,y,confidence,Confidence\n1,b,1,1\n", "predictions.duplicate_confidence"),
])
def test_error_cases(task, text, code):
    with pytest.raises(D3MKitError) as exc:
        _score(task, text)
    assert code in _codes(exc)
    assert exc.value.exit_code == 1
    issue = next(i for i in exc.value.issues if i.code == code)
    assert issue.path.endswith("pred.csv")
    assert "\n" not in issue.message


def test_index_set_message_counts_and_lists(task):
    with pytest.raises(D3MKitError) as exc:
        _score(task, "d3mIndex,y\n1,b\n3,a\n100,a\n101,b\n")
    msg = next(i for i in exc.value.issues if i.code == "predictions.index_set").message
    assert "3 TEST index(es) missing (5, 7, 9)" in msg
    assert "2 not in the TEST set (100, 101)" in msg


def test_missing_values_report_rows(task):
    with pytest.raises(D3MKitError) as exc:
        _score(task, "d3mIndex,y\n1,b\n3,\n5,a\n7, \n9,a\n")
    i = next(i for i in exc.value.issues if i.code == "predictions.missing_value")
    assert i.location == "row 3, column y" and "rows 3, 5" in i.message
    # only an empty cell is missing for a categorical target (issue 23): NaN is a label
    with pytest.raises(D3MKitError) as exc:
        _score(task, "d3mIndex,y\n1,b\n3,\n5,a\n7,NaN\n9,a\n")
    i = next(i for i in exc.value.issues if i.code == "predictions.missing_value")
    assert "(rows 3)" in i.message


def test_unseen_label_is_a_warning(task):
    r = _score(task, "d3mIndex,y\n1,b\n3,a\n5,zebra\n7,b\n9,a\n")
    assert r.value("accuracy") == 0.8
    assert any(i.code == "predictions.unseen_label" and i.severity == "warning" for i in r.issues)


def test_regression_text_is_an_error(tmp_path):
    ld = pd.DataFrame({"d3mIndex": range(6), "v": ["1.5", "2", "3", "4", "5", "6.25"]})
    t = make_task(tmp_path, "r", ld, ["v"], [{"metric": "meanAbsoluteError"}], task_type="regression",
                  subtype="univariate", col_types={"v": "real"})
    ok = _score(t, "d3mIndex,v\n1,2.5\n3,4\n5,6.25\n")   # truth 2, 4, 6.25
    assert ok.value("meanAbsoluteError") == pytest.approx(0.5 / 3)
    with pytest.raises(D3MKitError) as exc:
        _score(t, "d3mIndex,v\n1,2.5\n3,four\n5,6.25\n")
    i = next(i for i in exc.value.issues if i.code == "predictions.not_numeric")
    assert i.location == "row 3, column v" and "'four'" in i.message


def test_missing_confidence_where_required(tmp_path):
    t = make_task(tmp_path, "b", pd.DataFrame({"d3mIndex": range(6), "y": list("010101")}), ["y"],
                  [{"metric": "rocAuc"}], subtype="binary", test=[0, 1, 2, 3])   # truth 0 1 0 1
    with pytest.raises(D3MKitError) as exc:
        _score(t, "d3mIndex,y\n0,1\n1,1\n2,0\n3,0\n")
    assert "predictions.no_confidence" in _codes(exc)
    # per-row layout: confidence of the predicted label; positive score = 1 - c otherwise
    # positive scores .2 .7 .6 .4 -> pairs (pos > neg): .7>.2 .7>.6 .4>.2 -> 3/4
    r = _score(t, "d3mIndex,y,confidence\n0,0,0.8\n1,1,0.7\n2,1,0.6\n3,0,0.6\n")
    assert r.value("rocAuc") == pytest.approx(0.75)


def test_metric_not_fitting_task_and_unknown_metric(tmp_path):
    t = make_task(tmp_path, "m", LD, ["y"], [{"metric": "rSquared"},
                                             {"metric": "other", "specifyOther": "noSuchMetric"}])
    with pytest.raises(D3MKitError) as exc:
        _score(t, "d3mIndex,y\n1,b\n3,a\n5,c\n7,b\n9,a\n")
    issues = {i.code: i for i in exc.value.issues}
    assert issues["metric.task_type"].location == "inputs.performanceMetrics[0]"
    assert "known metrics:" in issues["metric.unknown"].message and "accuracy" in issues["metric.unknown"].message


def test_per_class_confidence_layout(tmp_path):
    ld = pd.DataFrame({"d3mIndex": range(8), "y": list("aabbccab")})
    t = make_task(tmp_path, "c", ld, ["y"], [{"metric": "accuracy"}, {"metric": "rocAucMacro"}],
                  test=[0, 2, 4, 6])     # truth a, b, c, a
    rows = ["d3mIndex,y,confidence"]
    probs = {0: (0.7, 0.2, 0.1), 2: (0.2, 0.5, 0.3), 4: (0.1, 0.6, 0.3), 6: (0.4, 0.3, 0.3)}
    for i in (6, 2, 0, 4):
        rows += [f"{i},{c},{p}" for c, p in zip("abc", probs[i])]
    r = _score(t, "\n".join(rows) + "\n")
    assert r.value("accuracy") == 0.75     # hard label = most confident class
    from sklearn.metrics import roc_auc_score
    y = np.eye(3)[[0, 1, 2, 0]]
    s = np.array([probs[i] for i in (0, 2, 4, 6)])
    assert r.value("rocAucMacro") == pytest.approx(roc_auc_score(y, s, average="macro"))
    with pytest.raises(D3MKitError) as exc:   # indices 2, 4, 6 listed once: mixed layouts
        _score(t, "d3mIndex,y,confidence\n0,a,0.5\n0,a,0.5\n2,b,1\n4,c,1\n6,a,1\n")
    assert "predictions.mixed_layout" in _codes(exc)
    with pytest.raises(D3MKitError) as exc:
        _score(t, "d3mIndex,y,confidence\n0,a,0.5\n0,a,0.5\n2,b,1\n2,a,0\n4,c,1\n4,a,0\n6,a,1\n6,b,0\n")
    assert "predictions.duplicate_index" in _codes(exc)


def test_multi_target_single_and_all_targets(tmp_path):
    ld = pd.DataFrame({"d3mIndex": range(4), "u": ["1", "2", "3", "4"], "w": ["0", "0", "2", "2"]})
    t = make_task(tmp_path, "mt", ld, ["u", "w"],
                  [{"metric": "meanSquaredError"}, {"metric": "rootMeanSquaredErrorAvg"},
                   {"metric": "meanAbsoluteError", "applicabilityToTarget": "allTargets"}],
                  task_type="regression", subtype="multivariate",
                  col_types={"u": "real", "w": "real"}, test=[0, 1, 2, 3])
    r = _score(t, "d3mIndex,u,w\n0,1,1\n1,2,1\n2,3,2\n3,6,2\n")
    labels = r.to_frame()["metric"].tolist()
    assert labels == ["meanSquaredError[u]", "meanSquaredError[w]", "rootMeanSquaredErrorAvg",
                      "meanAbsoluteError"]
    assert r.value("meanSquaredError", "u") == 1.0
    assert r.value("meanSquaredError", "w") == 0.5
    assert r.value("rootMeanSquaredErrorAvg") == pytest.approx((1 + 0.5 ** 0.5) / 2)
    assert r.value("meanAbsoluteError") == pytest.approx((0.5 + 0.5) / 2)


def test_object_detection_keyed_by_image(tmp_path):
    ld = pd.DataFrame({"d3mIndex": [0, 1, 2, 3], "image": ["a.png", "a.png", "b.png", "c.png"],
                       "bbox": ["10,10,50,50", "60,60,90,90", "0,0,20,20", "5,5,9,9"]})
    t = make_task(tmp_path, "od", ld, ["bbox"], [{"metric": "objectDetectionAP"}],
                  task_type="objectDetection", subtype=None, col_types={"bbox": "realVector"},
                  image_col="image", test=[0, 1, 2])
    r = _score(t, "d3mIndex,image,bbox,confidence\n7,b.png,\"0,0,20,20\",0.9\n"
                  "8,a.png,\"10,10,50,50\",0.8\n9,a.png,\"200,200,220,220\",0.7\n")
    # 2 of 3 truth boxes found, in the top-2 detections: AP = 2/3
    assert r.value("objectDetectionAP") == pytest.approx(2 / 3)
    with pytest.raises(D3MKitError) as exc:
        _score(t, "d3mIndex,image,bbox\n0,c.png,\"1,2,3\"\n")
    assert {"predictions.image_set", "predictions.bad_box"} <= set(_codes(exc))


def test_ranked_layout(tmp_path):
    ld = pd.DataFrame({"d3mIndex": [0, 1, 2], "rel": ["father", "sister", "brother"]})
    t = make_task(tmp_path, "lp", ld, ["rel"],
                  [{"metric": "other", "specifyOther": "meanReciprocalRank"},
                   {"metric": "other", "specifyOther": "hitsAtK", "K": 3}, {"metric": "accuracy"}],
                  task_type="linkPrediction", subtype=None, test=[0, 1, 2])
    text = ("d3mIndex,rel,rank\n0,brother,1\n0,cousin,2\n0,mother,3\n0,father,4\n1,sister,1\n"
            "1,mother,2\n2,father,1\n2,brother,2\n2,sister,3\n")
    r = _score(t, text)
    assert r.value("meanReciprocalRank") == pytest.approx((1 / 4 + 1 + 1 / 2) / 3)
    assert r.value("hitsAtK") == pytest.approx(2 / 3)
    assert r.value("accuracy") == pytest.approx(1 / 3)


def test_targets_csv_and_repeat_fold(tmp_path, task):
    write_table(pd.DataFrame({"d3mIndex": [1, 3], "y": ["b", "a"]}), tmp_path / "targets.csv")
    p = write_csv(tmp_path / "p.csv", "d3mIndex,y\n3,a\n1,c\n")
    r = score_predictions(task / "t_problem", p, targets=tmp_path / "targets.csv")
    assert r.value("accuracy") == 0.5
    with pytest.raises(D3MKitError) as exc:
        score_task_root(task, p, repeat=3)
    assert "splits.no_test" in _codes(exc)


def test_metadata_file_is_aligned_by_index(tmp_path, task):
    from d3mkit.scoring.registry import add_metric, Metric, unregister_metric
    seen = {}

    def meta_metric(y_true, y_pred, metadata=None):
        seen["idx"] = metadata["d3mIndex"].tolist()
        return float(len(metadata))
    add_metric(Metric("demoMeta", meta_metric, True, 1.0, 0.0, metadata_file="samples.csv"))
    try:
        doc = task / "t_problem" / "problemDoc.json"
        import json
        d = json.loads(doc.read_text())
        d["inputs"]["performanceMetrics"] = [{"metric": "other", "specifyOther": "demoMeta"}]
        doc.write_text(json.dumps(d))
        p = write_csv(tmp_path / "p.csv", "d3mIndex,y\n9,a\n5,a\n1,b\n7,b\n3,a\n")
        with pytest.raises(D3MKitError) as exc:
            score_task_root(task, p)
        assert "metric.metadata" in _codes(exc)
        write_table(pd.DataFrame({"d3mIndex": list(range(10))[::-1], "g": list("xyxyxyxyxy")}),
                    task / "t_debug" / "samples.csv")
        r = score_task_root(task, p)
        assert r.value("demoMeta") == 5.0 and seen["idx"] == ["1", "3", "5", "7", "9"]
    finally:
        unregister_metric("demoMeta")


def test_unseen_label_not_warned_for_free_form_targets(tmp_path):
    # every truth value distinct (boards, sentences): a new predicted value is not a label error
    ld = pd.DataFrame({"d3mIndex": range(4), "x": range(4), "y": ["r1", "r2", "r3", "r4"]})
    root = make_task(tmp_path, "ff", ld, ["y"], [{"metric": "accuracy"}])
    from d3mkit.taskroot.model import TaskRoot
    _, test = TaskRoot.open(root).split_indices()
    rows = "".join(f"{i},new{i}\n" for i in test)
    pred = write_csv(tmp_path / "p.csv", "d3mIndex,y\n" + rows)
    report = score_task_root(root, pred)
    assert not [i for i in report.issues if i.code == "predictions.unseen_label"]
