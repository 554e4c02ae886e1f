"""Adversarial suite, issue class 6: JSON that Python's parser accepts but JSON does not
mean (duplicate keys, NaN/Infinity, huge numbers, lone surrogates) is an error with a
code and a line/column in every command that reads the document."""

from __future__ import annotations

import shutil

import pytest

from _attack_util import class_task, dataset_doc, problem_doc, refused

# (name, code, edit of the document text) — each a distinct hostile document
PROBLEM_ATTACKS = [
    ("dup_top", "json.duplicate_key", lambda t: t.replace('{\n  "about"', '{\n  "about": {},\n  "about"', 1)),
    ("dup_nested", "json.duplicate_key", lambda t: t.replace('"taskType"', '"taskType": "regression",\n    "taskType"', 1)),
    ("dup_in_list", "json.duplicate_key", lambda t: t.replace('"metric"', '"metric": "f1",\n "metric"', 1)),
    ("dup_differs_case_ok", None, lambda t: t.replace('"taskType"', '"TaskType": 1,\n    "taskType"', 1)),
    ("nan_testsize", "json.nonfinite", lambda t: t.replace('"testSize": 0.5', '"testSize": NaN')),
    ("inf_testsize", "json.nonfinite", lambda t: t.replace('"testSize": 0.5', '"testSize": Infinity')),
    ("neg_inf", "json.nonfinite", lambda t: t.replace('"testSize": 0.5', '"testSize": -Infinity')),
    ("float_overflow", "json.nonfinite", lambda t: t.replace('"testSize": 0.5', '"testSize": 1e400')),
    ("neg_float_overflow", "json.nonfinite", lambda t: t.replace('"testSize": 0.5', '"testSize": -2.5E+999')),
    ("big_int_5000", "json.big_number", lambda t: t.replace('"randomSeed": 0', '"randomSeed": 1' + "0" * 5000)),
    ("big_int_25", "json.big_number", lambda t: t.replace('"randomSeed": 0', '"randomSeed": ' + "9" * 25)),
    ("big_neg_int", "json.big_number", lambda t: t.replace('"randomSeed": 0', '"randomSeed": -' + "9" * 20)),
    ("big_int_in_list", "json.big_number", lambda t: t.replace('"colIndex": 2', '"colIndex": 2' + "0" * 30)),
    ("lone_high", "json.surrogate", lambda t: t.replace('"problemName": "t"', '"problemName": "t\\ud800"')),
    ("lone_low", "json.surrogate", lambda t: t.replace('"problemName": "t"', '"problemName": "\\udfff t"')),
    ("reversed_pair", "json.surrogate", lambda t: t.replace('"problemName": "t"', '"problemName": "\\ude00\\ud83d"')),
    ("surrogate_key", "json.surrogate", lambda t: t.replace('"problemName"', '"problem\\ud801Name": 1, "problemName"')),
]


@pytest.fixture
def task(tmp_path):
    root = class_task(tmp_path)
    p = problem_doc(root)
    p.write_text(p.read_text().replace('"testSize": 0.2', '"testSize": 0.5, "randomSeed": 0'))
    return root


def _cmds(root, tmp_path):
    return {
        "validate": ["validate", root],
        "score": ["score", "--problem", root, "--predictions", tmp_path / "p.csv"],
        "split": ["split", next(root.glob("*_problem")), "--force"],
        "views": ["views", root, "--out", tmp_path / "views"],
        "convert": ["convert", problem_doc(root), "--to", "4.0.0"],
    }


@pytest.mark.parametrize("name, code, edit", PROBLEM_ATTACKS, ids=[a[0] for a in PROBLEM_ATTACKS])
@pytest.mark.parametrize("cmd", ["validate", "score", "split", "views", "convert"])
def test_problem_doc_attack(task, tmp_path, capsys, name, code, edit, cmd):
    p = problem_doc(task)
    text = p.read_text()
    assert '"testSize": 0.5' in text and '"randomSeed": 0' in text and '"problemName": "t"' in text
    p.write_text(edit(text))
    assert p.read_text() != text
    (tmp_path / "p.csv").write_text("d3mIndex,y\n1,b\n")
    argv = _cmds(task, tmp_path)[cmd]
    if code is None:   # keys differing only in case are distinct keys: no JSON issue
        from _attack_util import run
        _, _, err = run(argv, capsys)
        assert "json." not in err
        return
    err = refused(argv, capsys, code, path=p)
    assert "line " in err and "column " in err
    assert not (tmp_path / "views").exists()


DATASET_ATTACKS = [
    ("dup_about", "json.duplicate_key", lambda t: t.replace('"datasetID"', '"datasetID": "other",\n "datasetID"', 1)),
    ("dup_column_key", "json.duplicate_key", lambda t: t.replace('"colType"', '"colType": "real", "colType"', 1)),
    ("nan_version", "json.nonfinite", lambda t: t.replace('"datasetSchemaVersion": "3.1.2"', '"datasetSchemaVersion": NaN')),
    ("big_colindex", "json.big_number", lambda t: t.replace('"colIndex": 0', '"colIndex": 1' + "0" * 4400, 1)),
    ("surrogate_name", "json.surrogate", lambda t: t.replace('"datasetName": "t"', '"datasetName": "\\udbff"')),
]


@pytest.mark.parametrize("name, code, edit", DATASET_ATTACKS, ids=[a[0] for a in DATASET_ATTACKS])
@pytest.mark.parametrize("cmd", ["validate", "score", "split", "views"])
def test_dataset_doc_attack(task, tmp_path, capsys, name, code, edit, cmd):
    p = dataset_doc(task)
    text = p.read_text()
    p.write_text(edit(text))
    assert p.read_text() != text, name
    (tmp_path / "p.csv").write_text("d3mIndex,y\n1,b\n")
    if cmd == "score":   # the dataset is found by datasetID: name it explicitly
        argv = ["score", "--problem", task, "--predictions", tmp_path / "p.csv", "--datasets", p]
    else:
        argv = _cmds(task, tmp_path)[cmd]
    err = refused(argv, capsys, code, path=p)
    assert "line " in err


def test_json_attack_count():
    """The number of distinct hostile JSON documents in this file (for the report)."""
    n = len([a for a in PROBLEM_ATTACKS if a[1]]) + len(DATASET_ATTACKS)
    assert n >= 20


# PRISM manifests are JSON lines read by 'd3mkit build prism': the same strict JSON, per line
MANIFEST_ATTACKS = [
    ("dup_label", "json.duplicate_key", '"label": "allow", "label": "prevent"'),
    ("nan_precision", "json.nonfinite", '"label": "allow", "precision": NaN'),
    ("inf_precision", "json.nonfinite", '"label": "allow", "precision": -Infinity'),
    ("big_precision", "json.big_number", '"label": "allow", "precision": 1' + "0" * 5000),
    ("surrogate_hypothesis", "json.surrogate", '"label": "allow", "strategy": "E\\ud800C"'),
]


@pytest.mark.parametrize("name, code, fields", MANIFEST_ATTACKS, ids=[a[0] for a in MANIFEST_ATTACKS])
def test_prism_manifest_attack(tmp_path, capsys, name, code, fields):
    import json
    from PIL import Image
    from _attack_util import run
    (tmp_path / "img").mkdir()
    lines = []
    for i in range(8):
        Image.new("RGB", (8, 8), (i * 20, 0, 0)).save(tmp_path / "img" / f"p{i}.png")
        rec = {"hypothesis": f"h {i}", "image": f"img/p{i}.png", "rationale": f"r {i}"}
        text = json.dumps(rec)[:-1] + ", " + ('"label": "allow"' if i != 3 else fields) + "}"
        lines.append(text)
    m = tmp_path / "m.jsonl"
    m.write_text("\n".join(lines) + "\n")
    code_, _, err = run(["build", "prism", "--manifest", m, "--images", tmp_path, "--out", tmp_path / "o",
                         "--quiet"], capsys)
    assert code_ == 1 and f"[{code}]" in err and "line 4" in err and str(m) in err, err
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())
