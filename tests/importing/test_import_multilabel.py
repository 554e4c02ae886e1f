"""Several non-numeric targets become one D3M multiLabel target (issue 21: "several targets
give multivariate or multiLabel"): one label column, one learningData row per (d3mIndex,
label), the task classification/multiLabel; the root validates, splits each instance as one
unit, and ``d3mkit score`` scores predictions written the d3m way (one row per predicted
label)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import d3mkit
from _attack_util import refused, run
from d3mkit.taskroot.model import TaskRoot

N = 40
RNG = np.random.default_rng(3)
SUN, RAIN, SNOW = (RNG.random(N) < 0.5), (RNG.random(N) < 0.4), (RNG.random(N) < 0.2)
SUN[~(SUN | RAIN | SNOW)] = True
SUN[[0, 5]], RAIN[[0, 5]], SNOW[[0, 5]] = False, False, False       # rows 0 and 5 only: no label


def _indicators(tmp_path, yes="1", no="0"):
    p = tmp_path / "weather.csv"
    p.write_text("x,sun,rain,snow\n" + "".join(
        f"{i * 1.5},{yes if SUN[i] else no},{yes if RAIN[i] else no},{yes if SNOW[i] else no}\n" for i in range(N)))
    return p


def _expected_labels():
    return {i: [n for n, col in (("sun", SUN), ("rain", RAIN), ("snow", SNOW)) if col[i]] for i in range(N)}


@pytest.mark.parametrize("yes,no", [("1", "0"), ("true", "false"), ("yes", "no")])
def test_indicator_columns_become_label_rows(tmp_path, capsys, yes, no):
    code, out, err = run(["import", "table", _indicators(tmp_path, yes, no), "--target", "sun,rain,snow",
                          "--out", tmp_path / "o"], capsys)
    assert code == 0, err
    assert "warning [import.target_missing]" in err and "2 row(s) with no label" in err
    task = TaskRoot.open(tmp_path / "o" / "weather")
    assert (task.problem.task_type, task.problem.task_subtype) == ("classification", "multiLabel")
    assert task.problem.target_names == ["label"]
    assert [m["metric"] for m in task.problem.metrics] == ["accuracy", "f1Macro"]
    ld = task.learning_data()
    assert list(ld.columns) == ["d3mIndex", "x", "label"]
    got = ld.groupby(ld["d3mIndex"].astype(int))["label"].apply(list).to_dict()
    assert got == {i: labels for i, labels in _expected_labels().items() if labels}
    cols = {c.col_name: c for c in task.dataset.learning_data.columns}
    assert cols["label"].col_type == "categorical" and "sun, rain, snow" in cols["label"].extra["colDescription"]
    assert task.problem.splits["stratified"] is False
    splits = task.splits()
    assert splits["d3mIndex"].is_unique                        # each instance one split unit, listed once
    manifest = json.loads((task.root / "weather_debug" / "manifest.json").read_text())
    assert manifest["parameters"]["multiLabelFrom"] == ["sun", "rain", "snow"]
    assert manifest["parameters"]["droppedRows"] == 2
    assert run(["validate", task.root], capsys)[0] == 0


@pytest.mark.slow
def test_round_trip_views_and_score(tmp_path, capsys):
    root = d3mkit.import_table(_indicators(tmp_path), target=["sun", "rain", "snow"], out=tmp_path / "o")
    code, _, err = run(["views", root, "--out", tmp_path / "v"], capsys)
    assert code == 0, err
    truth = pd.read_csv(tmp_path / "v" / "SCORE" / "targets.csv", dtype=str)
    assert not truth["d3mIndex"].is_unique                     # one row per (index, label)
    task = TaskRoot.open(root)
    _, test = task.train_test()
    perfect = tmp_path / "perfect.csv"
    test[["d3mIndex", "label"]].to_csv(perfect, index=False)
    code, out, err = run(["score", "--problem", root, "--predictions", perfect, "--format", "json"], capsys)
    assert code == 0, err
    scores = {s["metric"]: s["value"] for s in json.loads(out)["scores"]}
    assert scores["accuracy"] == 1.0 and scores["f1Macro"] == 1.0
    # one label per index, always "sun": not every label set right
    some = test.drop_duplicates("d3mIndex")[["d3mIndex"]].assign(label="sun")
    partial = tmp_path / "partial.csv"
    some.to_csv(partial, index=False)
    code, out, err = run(["score", "--problem", root, "--predictions", partial, "--format", "json"], capsys)
    assert code == 0, err
    assert {s["metric"]: s["value"] for s in json.loads(out)["scores"]}["accuracy"] < 1.0


def test_label_value_columns(tmp_path):
    df = pd.DataFrame({"x": range(12), "tag1": ["a", "b", "c", "a", "", "b"] * 2,
                       "tag2": ["b", "", "a", "a", "", "c"] * 2})
    root = d3mkit.import_table(df, target="tag1,tag2", out=tmp_path / "o", name="tags")
    ld = TaskRoot.open(root).learning_data()
    sets = ld.groupby(ld["d3mIndex"].astype(int))["label"].apply(list).to_dict()
    assert sets[0] == ["a", "b"] and sets[1] == ["b"] and sets[3] == ["a"]     # "a" twice counts once
    assert 4 not in sets and 10 not in sets                                   # no label: left out
    assert d3mkit.is_valid(root)


def test_same_root_from_a_file_and_a_frame(tmp_path):
    src = _indicators(tmp_path)
    a = d3mkit.import_table(src, target="sun,rain,snow", out=tmp_path / "a")
    b = d3mkit.import_table(pd.read_csv(src), target="sun,rain,snow", out=tmp_path / "b", name="weather")
    for rel in ("weather_dataset/tables/learningData.csv", "weather_problem/dataSplits.csv"):
        assert (a / rel).read_bytes() == (b / rel).read_bytes()


def test_arff_nominal_label_attributes(tmp_path):
    pytest.importorskip("arff", reason="import arff needs liac-arff (the [arff] extra)")
    p = tmp_path / "emotions.arff"
    p.write_text("@RELATION emotions\n@ATTRIBUTE f1 NUMERIC\n@ATTRIBUTE happy {0,1}\n@ATTRIBUTE sad {0,1}\n"
                 "@ATTRIBUTE calm {0,1}\n@DATA\n"
                 + "".join(f"{i / 3},{int(SUN[i])},{int(RAIN[i])},{int(SNOW[i])}\n" for i in range(N)))
    root = d3mkit.import_arff(p, target="happy,sad,calm", out=tmp_path / "o")
    task = TaskRoot.open(root)
    assert task.problem.task_subtype == "multiLabel"
    assert set(task.learning_data()["label"]) == {"happy", "sad", "calm"}
    assert d3mkit.is_valid(root)


def test_numeric_targets_stay_multivariate(tmp_path):
    df = pd.DataFrame({"x": range(10), "a": np.linspace(0, 1, 10), "b": np.arange(10) * 3})
    task = TaskRoot.open(d3mkit.import_table(df, target="a,b", out=tmp_path / "o", name="mv"))
    assert (task.problem.task_type, task.problem.task_subtype) == ("regression", "multivariate")


BAD = [
    ("numeric targets as multiLabel", "x,a,b\n" + "".join(f"{i},{i * 0.5},{i * 1.5}\n" for i in range(8)),
     ["--target", "a,b", "--subtype", "multiLabel", "--task", "regression"], "import.task", 2),
    ("no row has a label", "x,a,b\n" + "".join(f"{i},no,no\n" for i in range(8)), ["--target", "a,b"],
     "import.target_empty", 1),
    ("0/1 columns all 0", "x,a,b\n" + "".join(f"{i},0,0\n" for i in range(8)), ["--target", "a,b"],
     "import.target_constant", 1),
    ("one label only", "x,a,b\n" + "".join(f"{i},1,0\n" for i in range(8)), ["--target", "a,b"],
     "import.target_constant", 1),
    ("label targets as regression", "x,a,b\n" + "".join(f"{i},{'pq'[i % 2]},{'rs'[i % 2]}\n" for i in range(8)),
     ["--target", "a,b", "--task", "regression"], "import.task", 1),
    ("label targets, another subtype", "x,a,b\n" + "".join(f"{i},p,{'qr'[i % 2]}\n" for i in range(8)),
     ["--target", "a,b", "--subtype", "binary"], "import.task", 2),
]


@pytest.mark.parametrize("text,args,code,exit_code", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_multilabel(tmp_path, capsys, text, args, code, exit_code):
    src = tmp_path / "t.csv"
    src.write_text(text)
    err = refused(["import", "table", src, "--out", tmp_path / "o", *args], capsys, code, exit_code, path=src)
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o" / "t").exists()
