"""A table already in D3M's long multiLabel form (one row per (d3mIndex, label): the index, or
the ``--index`` column, repeated) is imported as a multiLabel task (issue 21, brief item 1):
the rows of one index must agree outside the target (else ``import.long_form`` naming the
index and the column); splits are per instance; the root validates, ``views`` and ``score``
work; and the wide yes/no form gives the same root as the equivalent long table."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import d3mkit
from _attack_util import refused, run
from d3mkit.taskroot.model import TaskRoot

N = 48
RNG = np.random.default_rng(11)
LABELS = ("sun", "rain", "snow")
HAS = RNG.random((N, 3)) < np.array([0.5, 0.4, 0.25])
HAS[~HAS.any(axis=1), 0] = True                       # every instance has a label
X = [f"{i * 0.75:g}" for i in range(N)]
CITY = [("Paris", "Lyon", "Nice")[i % 3] for i in range(N)]


def _wide(tmp_path):
    p = tmp_path / "wide.csv"
    p.write_text("x,city,sun,rain,snow\n" + "".join(
        f"{X[i]},{CITY[i]},{int(HAS[i, 0])},{int(HAS[i, 1])},{int(HAS[i, 2])}\n" for i in range(N)))
    return p


def _long_rows():
    return [(i, X[i], CITY[i], LABELS[j]) for i in range(N) for j in range(3) if HAS[i, j]]


def _long(tmp_path, index_name="d3mIndex", name="long.csv"):
    p = tmp_path / name
    p.write_text(f"{index_name},x,city,label\n" + "".join(f"{i},{x},{c},{lab}\n" for i, x, c, lab in _long_rows()))
    return p


def test_long_form_is_a_multilabel_task(tmp_path, capsys):
    code, out, err = run(["import", "table", _long(tmp_path), "--target", "label", "--out", tmp_path / "o"], capsys)
    assert code == 0 and err == "long: targets label: one label column 'label', classification/multiLabel, " \
        "metrics accuracy, f1Macro\n", err
    task = TaskRoot.open(tmp_path / "o" / "long")
    assert (task.problem.task_type, task.problem.task_subtype) == ("classification", "multiLabel")
    assert [m["metric"] for m in task.problem.metrics] == ["accuracy", "f1Macro"]
    ld = task.learning_data()
    assert len(ld) == int(HAS.sum()) and ld["d3mIndex"].nunique() == N
    cols = {c.col_name: c for c in task.dataset.learning_data.columns}
    assert cols["label"].col_type == "categorical" and tuple(cols["label"].role) == ("suggestedTarget",)
    assert cols["city"].col_type == "categorical" and cols["x"].col_type == "real"
    splits = task.splits()
    assert splits["d3mIndex"].is_unique and len(splits) == N          # one split row per instance
    assert (splits["type"] == "TEST").sum() == round(0.2 * N)
    manifest = json.loads((task.root / "long_debug" / "manifest.json").read_text())
    assert manifest["parameters"]["multiLabelShape"] == "long"
    assert run(["validate", task.root], capsys)[0] == 0
    # views, then score the d3m way (one row per predicted label)
    code, _, err = run(["views", task.root, "--out", tmp_path / "v"], capsys)
    assert code == 0, err
    _, test = task.train_test()
    perfect = tmp_path / "perfect.csv"
    test[["d3mIndex", "label"]].to_csv(perfect, index=False)
    code, out, err = run(["score", "--problem", task.root, "--predictions", perfect, "--format", "json"], capsys)
    assert code == 0, err
    assert {s["metric"]: s["value"] for s in json.loads(out)["scores"]} == {"accuracy": 1.0, "f1Macro": 1.0}
    sun = tmp_path / "sun.csv"
    test.drop_duplicates("d3mIndex")[["d3mIndex"]].assign(label="sun").to_csv(sun, index=False)
    code, out, _ = run(["score", "--problem", task.root, "--predictions", sun, "--format", "json"], capsys)
    want = float(np.mean([set(g) == {"sun"} for _, g in test.groupby("d3mIndex")["label"]]))
    assert code == 0 and {s["metric"]: s["value"] for s in json.loads(out)["scores"]}["accuracy"] == want


@pytest.mark.parametrize("extra", [[], ["--split", "kFold", "--folds", "4", "--stratified", "--seed", "5"]],
                         ids=["holdOut", "stratified-kFold"])
def test_wide_and_long_give_the_same_root(tmp_path, extra):
    kw = dict(split="kFold", folds=4, stratified=True, seed=5) if extra else {}
    wide = d3mkit.import_table(_wide(tmp_path), target="sun,rain,snow", out=tmp_path / "a", name="weather", **kw)
    long = d3mkit.import_table(_long(tmp_path), target="label", out=tmp_path / "b", name="weather", **kw)
    for rel in ("weather_dataset/tables/learningData.csv", "weather_problem/dataSplits.csv",
                "weather_problem/problemDoc.json"):
        assert (wide / rel).read_bytes() == (long / rel).read_bytes(), rel
    a, b = (json.loads((r / "weather_dataset" / "datasetDoc.json").read_text()) for r in (wide, long))
    for doc in (a, b):       # the label column says where it came from: the one difference
        doc["about"].pop("source", None)
        for col in doc["dataResources"][0]["columns"]:
            col.pop("colDescription", None)
    assert a == b


def test_a_frame_and_an_index_column(tmp_path):
    rows = _long_rows()
    df = pd.DataFrame([(f"{x}", c, lab, i + 100) for i, x, c, lab in rows], columns=["x", "city", "label", "id"])
    a = d3mkit.import_table(df, target="label", index="id", out=tmp_path / "a", name="t")
    src = tmp_path / "t.csv"
    df.to_csv(src, index=False)
    b = d3mkit.import_table(src, target="label", index="id", out=tmp_path / "b")
    for rel in ("t_dataset/tables/learningData.csv", "t_problem/dataSplits.csv"):
        assert (a / rel).read_bytes() == (b / rel).read_bytes()
    ld = TaskRoot.open(a).learning_data()
    assert list(ld.columns) == ["d3mIndex", "x", "city", "label"] and ld["d3mIndex"].astype(int).min() == 100
    assert TaskRoot.open(a).problem.task_subtype == "multiLabel"


def test_stratified_on_label_sets(tmp_path):
    root = d3mkit.import_table(_long(tmp_path), target="label", out=tmp_path / "o", stratified=True, test_size=0.25)
    task = TaskRoot.open(root)
    assert task.problem.splits["stratified"] is True
    test = set(task.splits().query("type == 'TEST'")["d3mIndex"].astype(int))
    sets = {}
    for i in range(N):
        sets.setdefault(tuple(HAS[i]), []).append(i)
    for members in sets.values():           # each label set within one instance of its quota
        assert abs(sum(i in test for i in members) - 0.25 * len(members)) < 1 + 1e-9


def test_empty_labels_forced_subtype_and_task_alias(tmp_path, capsys):
    src = tmp_path / "t.csv"
    src.write_text("d3mIndex,x,y\n0,1,a\n0,1,\n1,2,b\n2,3,\n3,4,a\n3,4,b\n4,5,b\n5,6,a\n")
    code, _, err = run(["import", "table", src, "--target", "y", "--out", tmp_path / "o"], capsys)
    assert code == 0 and "[import.target_missing]" in err and "2 row(s)" in err
    ld = TaskRoot.open(tmp_path / "o" / "t").learning_data()
    assert ld["d3mIndex"].astype(int).tolist() == [0, 1, 3, 3, 4, 5]       # index 2 had no label
    one = tmp_path / "one.csv"                          # no index repeats: a label per instance, forced
    one.write_text("x,y\n" + "".join(f"{i},{'ab'[i % 2]}\n" for i in range(10)))
    for flag in (["--subtype", "multiLabel"], ["--task", "multiLabel"]):
        code, out, err = run(["import", "table", one, "--target", "y", "--out", tmp_path / "f", "--force", *flag],
                             capsys)
        assert code == 0, err
        assert TaskRoot.open(tmp_path / "f" / "one").problem.task_subtype == "multiLabel"


BAD = [
    ("another value within an index", "d3mIndex,x,y\n0,1,a\n0,2,b\n1,3,a\n", ["--target", "y"],
     "import.long_form", 1, "index 0 repeats with another value in column 'x' ('1' on row 2, '2' here)"),
    ("a label twice", "d3mIndex,x,y\n0,1,a\n0,1,b\n1,3,a\n0,1,a\n", ["--target", "y"],
     "import.long_form", 1, "index 0 lists the label 'a' twice (rows 2 and 5)"),
    ("repeated --index column differs", "id,x,y\n7,p,a\n7,q,b\n8,r,a\n", ["--target", "y", "--index", "id"],
     "import.long_form", 1, "index 7 repeats"),
    ("one label only", "d3mIndex,x,y\n0,1,a\n0,1,a\n", ["--target", "y"], "import.long_form", 1, "twice"),
    ("one label on every row", "d3mIndex,x,y\n0,1,a\n1,2,a\n1,2,\n", ["--target", "y", "--subtype", "multiLabel"],
     "import.target_constant", 1, "the one label 'a'"),
    ("repeated index, another subtype", "d3mIndex,x,y\n0,1,a\n0,1,b\n1,2,a\n", ["--target", "y", "--subtype", "binary"],
     "import.index", 1, "appears on more than one row"),
    ("repeated index, regression", "d3mIndex,x,y\n0,1,1.5\n0,1,2.5\n1,2,3\n", ["--target", "y", "--task", "regression"],
     "import.index", 1, "appears on more than one row"),
    ("repeated index, real target", "d3mIndex,x,y\n0,1,1.5\n0,1,2.5\n1,2,3.5\n", ["--target", "y"],
     "import.index", 1, "appears on more than one row"),
    ("repeated index, two targets", "d3mIndex,x,y,z\n0,1,a,p\n0,1,b,q\n1,2,a,p\n", ["--target", "y,z"],
     "import.index", 1, "appears on more than one row"),
    ("multiLabel regression", "x,y\n" + "".join(f"{i},{i * 0.5}\n" for i in range(8)),
     ["--target", "y", "--task", "regression", "--subtype", "multiLabel"], "import.task", 2, "multiLabel"),
]


@pytest.mark.parametrize("text,args,code,exit_code,words", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_long_form(tmp_path, capsys, text, args, code, exit_code, words):
    src = tmp_path / "t.csv"
    src.write_text(text)
    err = refused(["import", "table", src, "--out", tmp_path / "o", *args], capsys, code, exit_code, path=src)
    assert len(err.strip().splitlines()) == 1 and words in err, err
    assert not (tmp_path / "o" / "t").exists()
