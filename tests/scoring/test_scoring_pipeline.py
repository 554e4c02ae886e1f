"""The scoring pipeline's seams (issue 19 item 1): one resolver, a DataFrame read without a
temporary file, layout strategies, metric inputs checked against signatures, TypeError for
wrong argument types."""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import pytest

from _scoring_util import make_task
from d3mkit.api import score
from d3mkit.core.errors import D3MKitError
from d3mkit.core.registry import Metric
from d3mkit.scoring.layouts import BY_NAME, LAYOUTS
from d3mkit.scoring.resolve import metadata_dir_of, resolve


@pytest.fixture
def task(tmp_path):
    frame = pd.DataFrame({"d3mIndex": range(10), "y": list("abababaabb")})
    return make_task(tmp_path, "t", frame, ["y"], [{"metric": "accuracy"}, {"metric": "f1Macro"}])


def _good(task):
    from d3mkit.taskroot.model import TaskRoot
    _train, test = TaskRoot.open(task).train_test()
    return pd.DataFrame({"d3mIndex": test["d3mIndex"].astype(int).to_numpy(), "y": test["y"].to_numpy()})


def test_dataframe_issues_name_the_frame_and_its_rows(task, tmp_path):
    good = _good(task)
    assert score(task, good).value("accuracy") == 1.0
    bad = good.copy()
    bad.loc[1, "y"] = None          # a missing cell: the frame's second row, CSV row 3
    with pytest.raises(D3MKitError) as exc:
        score(task, bad)
    issue = exc.value.issues[0]
    assert issue.path == "predictions (DataFrame)" and issue.location == "row 3, column y"
    assert issue.format().startswith("predictions (DataFrame): row 3, column y: error")
    # the same frame written as a file gives the same issue, named by the file
    path = tmp_path / "bad.csv"
    bad.to_csv(path, index=False)
    with pytest.raises(D3MKitError) as exc2:
        score(task, path)
    assert (exc2.value.issues[0].code, exc2.value.issues[0].location) == (issue.code, issue.location)


def test_no_temporary_file_for_a_dataframe(task, monkeypatch):
    import tempfile
    monkeypatch.setattr(tempfile, "TemporaryDirectory", None)   # used before: fails if called
    monkeypatch.setattr(tempfile, "mkdtemp", None)
    assert score(task, _good(task)).value("f1Macro") == 1.0


def test_targets_as_a_dataframe(task):
    good = _good(task)
    report = score(task, good, targets=good.assign(y=good["y"].to_numpy()[::-1]))
    assert 0.0 <= report.value("accuracy") < 1.0


@pytest.mark.parametrize("kw", [{"repeat": "0"}, {"fold": 1.0}, {"repeat": True}])
def test_wrong_argument_types_raise_typeerror(task, kw):
    with pytest.raises(TypeError):
        score(task, _good(task), **kw)


def test_wrong_source_types_raise_typeerror(task):
    with pytest.raises(TypeError, match="predictions"):
        score(task, [1, 2, 3])
    with pytest.raises(TypeError, match="targets"):
        score(task, _good(task), targets=42)
    with pytest.raises(TypeError, match="problem"):
        score(42, _good(task))


def test_one_resolver_and_one_debug_directory(task):
    res = resolve(task)
    assert res.metadata_dir == task / "t_debug"
    assert metadata_dir_of(task / "t_problem" / "problemDoc.json") == task / "t_debug"
    assert res.dataset is not None and res.dataset.dataset_id == "t_dataset"
    assert resolve(res.problem).metadata_dir == task / "t_debug"


def test_layouts_are_strategies():
    assert [l.name for l in LAYOUTS] == ["objectDetection", "multiLabel", "ranked", "classes", "rows"]
    assert set(BY_NAME) == {l.name for l in LAYOUTS}
    assert BY_NAME["ranked"].supplies == ("ranks",)


def _metric(fn, **kw):
    return Metric("demoSig", fn, True, 1.0, 0.0, **kw)


def test_metric_inputs_are_checked_against_the_signature():
    def ok(y_true, y_pred, confidence=None, K=3):
        return 0.0
    m = _metric(ok, inputs=("confidence",), params=("K",))
    assert m.inputs == ("confidence",)
    with pytest.raises(TypeError, match=r"\*\*_"):
        _metric(lambda t, p, **_: 0.0)
    with pytest.raises(TypeError, match="no such keyword"):
        _metric(ok, inputs=("classes",))                     # not in the signature
    with pytest.raises(TypeError, match="unknown input"):
        _metric(ok, inputs=("confidance",))                  # misspelt
    with pytest.raises(TypeError, match="does not declare"):
        _metric(lambda t, p, ranks: 0.0)                     # needed but not declared
    with pytest.raises(TypeError, match="layout"):
        _metric(ok, layout="grid")
    assert _metric(lambda t, p, metadata=None: 0.0, metadata_file="x.csv").inputs == ("metadata",)


def test_builtin_metrics_declare_what_they_read():
    from d3mkit.core.registry import registry
    reg = registry()
    assert reg["meanReciprocalRank"].layout == "ranked" and reg["meanReciprocalRank"].inputs == ("ranks",)
    assert set(reg["rocAuc"].inputs) == {"confidence", "classes", "codes"}
    assert reg["objectDetectionAP"].layout == "objectDetection"
    assert reg["accuracy"].inputs == ("codes",)   # compared as integer codes when the layout has them


def test_metrics_are_pure_under_threads():
    """No shared cache: the same metric on different arrays from several threads."""
    from d3mkit.scoring import metrics as M
    rng = np.random.default_rng(0)
    pairs = []
    for k in range(8):
        t = np.array([f"l{v}" for v in rng.integers(0, 3 + k, 2000)], dtype=object)
        p = np.array([f"l{v}" for v in rng.integers(0, 3 + k, 2000)], dtype=object)
        t.flags.writeable = p.flags.writeable = False
        pairs.append((t, p))
    want = [M.f1_macro(list(t), list(p)) for t, p in pairs]
    got = [None] * len(pairs)

    def run(i):
        for _ in range(20):
            got[i] = M.f1_macro(*pairs[i])
    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(pairs))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert got == want


def test_labels_only_in_train_rows_do_not_count(tmp_path):
    """learningData's target column is read as a categorical of the whole file; a label
    only TRAIN rows carry must not join the label set of the TEST rows (f1Macro)."""
    frame = pd.DataFrame({"d3mIndex": range(8), "y": ["a", "b", "c", "c", "a", "b", "c", "c"]})
    root = make_task(tmp_path, "t", frame, ["y"], [{"metric": "f1Macro"}], test=[0, 1, 4, 5])
    pred = pd.DataFrame({"d3mIndex": [0, 1, 4, 5], "y": ["a", "b", "a", "b"]})
    assert score(root, pred).value("f1Macro") == 1.0


@pytest.mark.parametrize("text, code", [("d3mIndex,y\n1,a\n3\n5,a\n7,b\n9,a\n", "csv.bad_row"),
                                        ("d3mIndex,y\n1,a\n3,b,x\n5,a\n7,b\n9,a\n", "csv.bad_row"),
                                        ("d3mIndex,y\n1,a\n3,\n5,a\n7,b\n9,a\n", "predictions.missing_value")])
def test_short_and_long_rows_found_without_counting_every_file(task, tmp_path, text, code):
    path = tmp_path / "p.csv"
    path.write_text(text)
    with pytest.raises(D3MKitError) as exc:
        score(task, path)
    assert exc.value.issues[0].code == code and exc.value.issues[0].location.startswith("row 3")
