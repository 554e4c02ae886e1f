"""A command that reads a task root reads one version of it (issue 31): a root replaced while
``score`` reads it (``build --force`` exchanges the two trees) is read again, so the problem,
the splits and the truth all come from one tree."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest

import d3mkit
from d3mkit.scoring import score as score_mod


def _root(tmp_path, name, labels, metric):
    df = pd.DataFrame({"x": range(12), "y": labels})
    return d3mkit.import_table(df, target="y", out=tmp_path / name, name="t", seed=0, stratified=False,
                               metrics=metric)


def test_a_root_replaced_during_the_read_is_read_again(tmp_path, monkeypatch):
    old = _root(tmp_path / "a", "o", ["a", "b"] * 6, "accuracy")
    new = _root(tmp_path / "b", "o", ["b", "a"] * 6, "f1Macro")     # every label flipped, another metric
    splits = pd.read_csv(old / "t_problem" / "dataSplits.csv")
    test = splits.loc[splits["type"] == "TEST", "d3mIndex"].tolist()
    ld = pd.read_csv(old / "t_dataset" / "tables" / "learningData.csv").set_index("d3mIndex")
    pred = tmp_path / "pred.csv"
    pd.DataFrame({"d3mIndex": test, "y": ld.loc[test, "y"].tolist()}).to_csv(pred, index=False)
    spare = tmp_path / "spare"
    real = score_mod.load_truth
    swaps = []

    def swapping(*a, **kw):          # the tree is exchanged after the documents were read
        if not swaps:
            swaps.append(1)
            old.rename(spare)
            shutil.copytree(new, old)
        return real(*a, **kw)
    monkeypatch.setattr(score_mod, "load_truth", swapping)
    got = d3mkit.score(old, pred)
    acc = dict((s.metric, s.value) for s in got.scores) if hasattr(got, "scores") else got
    assert swaps == [1]
    # read again from the new tree alone (its metric, its labels), never the old problemDoc's
    # metric over the new tree's truth
    assert acc == {"f1Macro": 0.0}, acc


def test_a_root_that_never_stops_changing_is_refused(tmp_path, monkeypatch):
    root = _root(tmp_path, "o", ["a", "b"] * 6, "accuracy")
    calls = iter(range(1000))
    monkeypatch.setattr(score_mod, "_identity", lambda *a: next(calls))
    with pytest.raises(d3mkit.D3MKitError) as err:
        score_mod.prepare_problem(root)
    assert err.value.issues[0].code == "task_root.changed"
