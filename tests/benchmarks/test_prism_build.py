"""PRISM task roots from manifests: PVLI/PVLr layout, validation, scoring, bad input."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from PIL import Image

from d3mkit.benchmarks.prism.cli import build_task_root
from d3mkit.benchmarks.prism.manifest import read_manifest
from d3mkit.cli import main
from d3mkit.core.errors import D3MKitError
from d3mkit.scoring.score import score_task_root
from d3mkit.taskroot.model import TaskRoot
from d3mkit.validation import validate_task_root


def _records(tmp_path, n=12):
    (tmp_path / "img").mkdir(exist_ok=True)
    recs = []
    for i in range(n):
        fmt = "jpg" if i % 3 == 0 else "png"
        Image.new("RGB", (12, 12), (i * 20, 100, 0)).save(tmp_path / "img" / f"p{i}.{fmt}")
        recs.append({"hypothesis": f"a glass is used for drinking water {i}", "image": f"img/p{i}.{fmt}",
                     "label": "allow" if i % 2 else "Prevent ", "rationale": f"the glass is shattered {i}",
                     "strategy": "EC", "source": "test", "lf": "unless", "precision": 0.75})
    return recs


def _jsonl(path, recs):
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    return path


@pytest.mark.parametrize("task", ["pvli", "pvlr"])
def test_build_valid_task_root(tmp_path, task):
    m = _jsonl(tmp_path / "m.jsonl", _records(tmp_path))
    root = build_task_root(tmp_path / "out", m, tmp_path, task, seed=3)
    assert not [i for i in validate_task_root(root) if i.is_error]
    t = TaskRoot.open(root)
    ld = t.learning_data()
    cols = ["d3mIndex", "hypothesis", "image", "label"] + (["rationale"] if task == "pvlr" else [])
    assert list(ld.columns) == cols
    assert set(ld["label"]) == {"allow", "prevent"}
    assert t.problem.target_names == (["label"] if task == "pvli" else ["label", "rationale"])
    assert (t.dataset_dir / "media" / ld["image"][0]).is_file()
    names = [m.get("specifyOther") or m["metric"] for m in t.problem.metrics]
    assert names == (["accuracy", "f1"] if task == "pvli" else ["accuracy", "rationaleTokenF1", "rationaleRougeL",
                                                                 "rationaleRougeLStandard"])
    prov = pd.read_csv(t.debug_dir / "provenance.csv")
    assert prov["manifest_line"].tolist() == list(range(1, 13)) and set(prov["lf"]) == {"unless"}
    # same seed, same bytes
    again = build_task_root(tmp_path / "out2", m, tmp_path, task, seed=3)
    for rel in (f"prism_{task}_dataset/tables/learningData.csv", f"prism_{task}_problem/dataSplits.csv"):
        assert (root / rel).read_bytes() == (again / rel).read_bytes()


def test_pvlr_scoring_of_perfect_and_partial_predictions(tmp_path):
    root = build_task_root(tmp_path / "out", _jsonl(tmp_path / "m.jsonl", _records(tmp_path)), tmp_path, "pvlr")
    t = TaskRoot.open(root)
    ld = t.learning_data().set_index("d3mIndex")
    _, test = t.split_indices(0, 0)
    pred = ld.loc[test, ["label", "rationale"]].reset_index()
    p = tmp_path / "pred.csv"
    pred.to_csv(p, index=False)
    rep = score_task_root(t, p)
    assert rep.value("rationaleTokenF1") == 1.0 and rep.value("accuracy", "label") == 1.0
    pred["rationale"] = "the glass"
    pred.to_csv(p, index=False)
    rep = score_task_root(t, p)
    assert 0.0 < rep.value("rationaleTokenF1") < 1.0 and 0.0 < rep.value("rationaleRougeL") < 1.0


@pytest.mark.slow
def test_bad_records_reported_with_line_numbers(tmp_path):
    recs = _records(tmp_path, 6)
    recs[1]["hypothesis"] = "   "
    recs[2]["label"] = "maybe"
    recs[3]["image"] = "img/nope.png"
    (tmp_path / "img" / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    recs[4]["image"] = "img/broken.png"
    del recs[5]["label"]
    m = _jsonl(tmp_path / "m.jsonl", recs)
    with open(m, "a", encoding="utf-8") as fh:
        fh.write('{"hypothesis": "unterminated\n')
    _, issues = read_manifest(m, tmp_path, task="pvli")
    got = {(i.location, i.message.split(" (")[0]) for i in issues}
    assert ("line 2", "empty hypothesis") in got
    assert ("line 3", "unknown label 'maybe'") in got
    assert ("line 4", "image 'img/nope.png': file not found") in got
    assert any(loc == "line 5" and "unreadable image" in msg for loc, msg in got)
    assert ("line 6", "missing field(s): label") in got
    assert any(loc == "line 7" and "not valid JSON" in msg for loc, msg in got)
    with pytest.raises(D3MKitError):
        build_task_root(tmp_path / "out", m, tmp_path, "pvli")
    assert not (tmp_path / "out" / "prism_pvli").exists()
    # the CLI: exit 1, messages name file and line, nothing written
    assert main(["build", "prism", "--manifest", str(m), "--images", str(tmp_path), "--out", str(tmp_path / "o")]) == 1
    assert not (tmp_path / "o" / "prism_pvli").exists()


def test_skip_invalid_and_missing_column(tmp_path, capsys):
    recs = _records(tmp_path, 8)
    recs[0]["label"] = "sometimes"
    m = _jsonl(tmp_path / "m.jsonl", recs)
    root = build_task_root(tmp_path / "out", m, tmp_path, "pvli", skip_invalid=True, echo=print)
    assert len(TaskRoot.open(root).learning_data()) == 7
    assert "skipped 1 problem(s)" in capsys.readouterr().out
    csv_path = tmp_path / "m.csv"
    pd.DataFrame(recs).drop(columns=["image"]).to_csv(csv_path, index=False)
    _, issues = read_manifest(csv_path, tmp_path)
    assert issues[0].location == "line 1" and "missing column(s): image" in issues[0].message
    assert main(["build", "prism", "--manifest", str(csv_path), "--out", str(tmp_path / "o"), "--skip-invalid"]) == 1
    # PVLr needs the rationale column
    pd.DataFrame(recs).drop(columns=["rationale"]).to_csv(csv_path, index=False)
    _, issues = read_manifest(csv_path, tmp_path, task="pvlr")
    assert "rationale" in issues[0].message
    assert main(["build", "prism", "--manifest", str(tmp_path / "none.csv"), "--out", str(tmp_path / "o")]) == 2


def test_csv_manifest_with_quotes_and_multiline_fields(tmp_path):
    recs = _records(tmp_path, 6)
    recs[2]["hypothesis"] = 'he said "it is ""fine""",\nthen left'
    csv_path = tmp_path / "m.csv"
    pd.DataFrame(recs).to_csv(csv_path, index=False)
    with open(csv_path, "a", encoding="utf-8") as fh:
        fh.write('"x","img/p1.png","allow","r","EC","s","lf","high","extra"\n')
    good, issues = read_manifest(csv_path, tmp_path)
    assert len(good) == 6 and good[2].hypothesis.startswith('he said "it is')
    assert len(issues) == 1 and issues[0].location == "line 9"


def test_split_column_fixes_the_split_and_bom_is_accepted(tmp_path):
    recs = _records(tmp_path, 10)
    for i, r in enumerate(recs):
        r["split"] = "test" if i >= 7 else "Train"
    csv_path = tmp_path / "m.csv"
    pd.DataFrame(recs).to_csv(csv_path, index=False, encoding="utf-8-sig")   # with a BOM
    root = build_task_root(tmp_path / "out", csv_path, tmp_path, "pvli")
    assert not [i for i in validate_task_root(root) if i.is_error]
    t = TaskRoot.open(root)
    train, test = t.split_indices(0, 0)
    assert sorted(test) == ["7", "8", "9"] and len(train) == 7
    assert t.problem.splits["stratified"] is False and abs(t.problem.splits["testSize"] - 0.3) < 1e-12
    recs[4]["split"] = ""
    _jsonl(tmp_path / "m.jsonl", recs)
    _, issues = read_manifest(tmp_path / "m.jsonl", tmp_path)
    assert [(i.location, i.code) for i in issues] == [("line 5", "prism.manifest.split")]
    recs[4]["split"] = "validation"
    _jsonl(tmp_path / "m.jsonl", recs)
    _, issues = read_manifest(tmp_path / "m.jsonl", tmp_path)
    assert "unknown split 'validation'" in issues[0].message


@pytest.mark.slow
def test_pvli_layout_tuning_noisy_test_clean_test(tmp_path, capsys):
    recs = _records(tmp_path, 12)
    for r, s in zip(recs, ["tuning"] * 6 + ["noisy-test"] * 3 + ["Clean_Test"] * 3):
        r["split"] = s
    m = _jsonl(tmp_path / "m.jsonl", recs)
    assert main(["build", "prism", "--manifest", str(m), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    assert capsys.readouterr().out.split() == [str(tmp_path / "o/prism_pvli_noisy_test"),
                                               str(tmp_path / "o/prism_pvli_clean_test")]
    for test, rows in (("noisy_test", range(6, 9)), ("clean_test", range(9, 12))):
        root = tmp_path / "o" / f"prism_pvli_{test}"
        assert not [i for i in validate_task_root(root) if i.is_error]
        t = TaskRoot.open(root)
        train, tst = t.split_indices(0, 0)
        ld = t.learning_data().set_index("d3mIndex")
        assert len(train) == 6 and len(tst) == 3
        assert [h.endswith(f" {i}") for h, i in zip(ld.loc[tst, "hypothesis"], rows)] == [True] * 3
        man = json.loads((root / f"prism_pvli_{test}_debug/manifest.json").read_text())
        assert man["parameters"]["split"]["tuning"] == 6 and man["parameters"]["split"]["cleanTest"] == 3
    # the single-root builder refuses the layout; a mixed split column is an error
    with pytest.raises(Exception, match="PVLI layout"):
        build_task_root(tmp_path / "x", m, tmp_path, "pvli")
    # the paper's sampling: N tuning + N noisy test drawn from the unmarked records, seeded
    for r in recs:
        r["split"] = "clean-test" if r["split"] == "Clean_Test" else ""
    m = _jsonl(tmp_path / "m2.jsonl", recs)
    argv = ["build", "prism", "--manifest", str(m), "--quiet", "--pvli-sizes", "5,4", "--seed", "1"]
    assert main(argv + ["--out", str(tmp_path / "a")]) == 0
    assert main(argv + ["--out", str(tmp_path / "b")]) == 0
    a = (tmp_path / "a/prism_pvli_noisy_test/prism_pvli_noisy_test_dataset/tables/learningData.csv").read_text()
    assert a == (tmp_path / "b/prism_pvli_noisy_test/prism_pvli_noisy_test_dataset/tables/learningData.csv").read_text()
    t = TaskRoot.open(tmp_path / "a/prism_pvli_noisy_test")
    assert [len(x) for x in t.split_indices(0, 0)] == [5, 4]
    capsys.readouterr()
    assert main(argv[:-4] + ["--pvli-sizes", "8,4", "--out", str(tmp_path / "c")]) == 2
    assert "the manifest has 9 record(s) without a split" in capsys.readouterr().err
