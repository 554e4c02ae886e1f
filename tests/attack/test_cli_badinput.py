"""Bad input across the ``d3mkit`` CLI: one line naming the file and the problem, exit 1
(invalid input) or 2 (usage / unreadable path), no traceback, nothing half-written.

Each test is a regression test for a case the bad-input audit found."""

from __future__ import annotations

import os

import pytest

from _attack_util import run
from d3mkit.cli import main

UNWRITABLE = "/proc/d3mkit-no-such-dir/out"   # cannot be created even by root




@pytest.fixture(scope="module")
def wine(tmp_path_factory):
    from d3mkit.benchmarks.tabular import build_task_root
    return build_task_root(tmp_path_factory.mktemp("wine"), "wine", seed=1)


def _tree(path):
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


# --- output paths ------------------------------------------------------------------------
def test_views_out_that_cannot_be_created(wine, capsys):
    code, _, err = run(["views", wine, "--out", UNWRITABLE], capsys)
    assert code == 2 and "/proc/d3mkit-no-such-dir" in err


@pytest.mark.parametrize("name", ["../evil", "a/b", ".hidden"])
def test_build_name_with_a_path_in_it(tmp_path, capsys, name):
    code, _, err = run(["build", "tabular", "--out", tmp_path / "o", "--name", name, "--quiet"], capsys)
    assert code == 2 and repr(name) in err and "plain directory name" in err
    assert not (tmp_path / "evil").exists() and _tree(tmp_path) in ([], ["o"])


def test_build_out_is_a_file(tmp_path, capsys):
    f = tmp_path / "f.txt"
    f.write_text("x")
    code, _, err = run(["build", "tabular", "--out", f, "--quiet"], capsys)
    assert code == 2 and str(f) in err and "not a directory" in err
    assert f.read_text() == "x"


def test_build_out_that_cannot_be_created(capsys):
    code, _, err = run(["build", "tabular", "--out", UNWRITABLE, "--quiet"], capsys)
    assert code == 2 and "/proc/d3mkit-no-such-dir" in err


# --- baselines on the wrong task root --------------------------------------------------
@pytest.fixture(scope="module")
def abstraction(tmp_path_factory):
    out = tmp_path_factory.mktemp("abs")
    assert main(["build", "abstraction", "--out", str(out), "--n-train", "20", "--n-test", "10",
                 "--name", "abs", "--quiet"]) == 0
    return out / "abs"


def _copy(src, dst, drop=None):
    import shutil
    shutil.copytree(src, dst)
    if drop is not None:
        p = dst / drop
        shutil.rmtree(p) if p.is_dir() else p.unlink()
    return dst


@pytest.mark.parametrize("model", ["resnet18", "text", "digit"])
def test_baseline_of_another_benchmark(abstraction, capsys, model):
    code, _, err = run(["baseline", abstraction, "--model", model, "--epochs", "1"], capsys)
    assert code == 2 and str(abstraction) in err and "d3mkit build abstraction" in err
    assert "abstraction-cnn" in err
    assert not (abstraction / "abs_solution").exists()


def test_baseline_without_manifest_and_without_model(abstraction, tmp_path, capsys):
    root = _copy(abstraction, tmp_path / "abs", "abs_debug/manifest.json")
    code, _, err = run(["baseline", root, "--epochs", "1"], capsys)
    assert code == 2 and "abs_debug/manifest.json" in err and "--model" in err


def test_value_baseline_on_a_root_without_boards(abstraction, tmp_path, capsys):
    pytest.importorskip("torch")
    root = _copy(abstraction, tmp_path / "abs", "abs_debug/manifest.json")
    code, _, err = run(["baseline", root, "--model", "resnet18", "--epochs", "1"], capsys)
    assert code == 1 and "learningData.csv" in err and "not a VALUE task root" in err
    assert not (root / "abs_solution").exists()


def test_prism_baseline_on_a_root_without_hypotheses(abstraction, tmp_path, capsys):
    root = _copy(abstraction, tmp_path / "abs", "abs_debug/manifest.json")
    code, _, err = run(["baseline", root, "--model", "text"], capsys)
    assert code == 2 and "not a PRISM task root" in err and str(root) in err


def test_abstraction_baseline_on_a_root_without_images(wine, tmp_path, capsys):
    pytest.importorskip("torch")
    root = _copy(wine, tmp_path / "wine", "wine_debug")
    code, _, err = run(["baseline", root, "--model", "abstraction-cnn", "--epochs", "1"], capsys)
    assert code == 2 and "not an abstraction task root" in err and "no image column" in err


def test_baseline_without_debug_fails_before_training(abstraction, tmp_path, capsys):
    root = _copy(abstraction, tmp_path / "abs", "abs_debug")
    code, _, err = run(["baseline", root, "--model", "abstraction-cnn", "--epochs", "1"], capsys)
    assert code == 1 and "abs_debug/samples.csv" in err and "performanceMetrics" in err
    assert not (root / "abs_solution").exists()


def test_write_solution_leaves_nothing_when_scoring_fails(abstraction, tmp_path):
    import pandas as pd

    from d3mkit.baselines.common import write_solution
    from d3mkit.core.errors import D3MKitError
    from d3mkit.taskroot.model import TaskRoot
    task = TaskRoot.open(_copy(abstraction, tmp_path / "abs"))
    bad = pd.DataFrame({"d3mIndex": ["no-such-index"], task.problem.target_names[0]: ["1"]})
    with pytest.raises(D3MKitError) as exc:
        write_solution(task, bad, model="x")
    assert not task.solution_dir.exists()
    paths = {i.path for i in exc.value.issues}
    assert str(task.solution_dir / "predictions.csv") in paths, paths


# --- prism extract / query ---------------------------------------------------------------
@pytest.fixture
def caps(tmp_path):
    p = tmp_path / "caps.txt"
    p.write_text("you need to open the door before you walk in\nthe cup is on the table\n")
    return p


@pytest.mark.parametrize("argv_of", [
    lambda bad, caps: ["prism", "extract", "--captions", bad],
    lambda bad, caps: ["prism", "query", "--premises", bad, "--captions", caps],
    lambda bad, caps: ["prism", "query", "--premises", caps, "--captions", bad],
])
@pytest.mark.parametrize("content, expect", [
    (b"\x00\x01\x02garbage\xff" * 50, "binary"),
    (b"", "could be read"),
    (b"not json\n[1, 2]\n", "could be read"),
])
def test_prism_input_without_a_usable_record(tmp_path, caps, capsys, argv_of, content, expect):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(content)
    out_file = tmp_path / "out.jsonl"
    code, out, err = run(argv_of(bad, caps) + ["--out", out_file], capsys)
    assert code == 1 and str(bad) in err and expect in err
    assert not out_file.exists()


def test_prism_query_names_the_premises_file(tmp_path, caps, capsys):
    code, _, err = run(["prism", "query", "--premises", tmp_path, "--captions", caps], capsys)
    assert code == 2 and "cannot read premises" in err and str(tmp_path) in err


@pytest.mark.slow
@pytest.mark.parametrize("cmd", ["extract", "query"])
@pytest.mark.parametrize("where", ["dir", "unwritable"])
def test_prism_output_that_cannot_be_written(tmp_path, caps, capsys, cmd, where):
    out = tmp_path if where == "dir" else UNWRITABLE
    argv = ["prism", cmd, "--captions", caps, "--out", out]
    if cmd == "query":
        argv += ["--premises", caps]
    code, _, err = run(argv, capsys)
    assert code == 2 and str(out) in err and "--out" in err
    assert os.listdir(tmp_path) == ["caps.txt"] or where == "dir"


# --- demo --------------------------------------------------------------------------------
def test_demo_unknown_part(tmp_path, capsys):
    code, _, err = run(["demo", "--out", tmp_path / "d", "--only", "nosuch"], capsys)
    assert code == 2 and "nosuch" in err and "tabular" in err
    assert not (tmp_path / "d").exists()


def test_demo_out_is_a_file(tmp_path, capsys):
    f = tmp_path / "f"
    f.write_text("x")
    code, _, err = run(["demo", "--out", f, "--only", "tabular"], capsys)
    assert code == 2 and str(f) in err and "not a directory" in err


# --- python -m d3mkit.benchmarks.value.report --------------------------------------------
def _report(argv, capsys):
    from d3mkit.benchmarks.value.report import main as report_main
    code = report_main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def boards(tmp_path):
    p = tmp_path / "pred.csv"
    p.write_text("d3mIndex,board\n0,rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR\n")
    return p


def test_value_report_header_only(tmp_path, capsys):
    p = tmp_path / "pred.csv"
    p.write_text("d3mIndex,board\n")
    code, _, err = _report([p, "--out", tmp_path / "o", "--samples", "100"], capsys)
    assert code == 1 and str(p) in err and "no predictions" in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("where", ["file", "unwritable"])
def test_value_report_out_that_cannot_be_written(tmp_path, boards, capsys, where):
    out = tmp_path / "f" if where == "file" else UNWRITABLE
    if where == "file":
        out.write_text("x")
    code, _, err = _report([boards, "--out", out, "--samples", "100"], capsys)
    assert code == 2 and str(out) in err and "Traceback" not in err


def test_value_report_negative_seed(tmp_path, boards, capsys):
    code, _, err = _report([boards, "--out", tmp_path / "o", "--seed", "-1"], capsys)
    assert code == 2 and "--seed" in err
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_value_report_writes_all_three_files_and_no_temporary(tmp_path, boards, capsys):
    code, out, _ = _report([boards, "--out", tmp_path / "o", "--samples", "100"], capsys)
    assert code == 0 and "rule_report.md" in out
    assert sorted(os.listdir(tmp_path / "o")) == ["rule_report.json", "rule_report.md", "rule_report.png"]


def test_value_report_names_the_file_once(wine, capsys):
    ld = wine / "wine_dataset" / "tables" / "learningData.csv"
    code, _, err = _report([ld, "--out", "/nonexistent-not-used"], capsys)
    assert code == 2 and err.count(str(ld)) == 1 and "--column" in err


# --- score / split -----------------------------------------------------------------------
@pytest.fixture
def predictions(wine, tmp_path):
    from d3mkit.tables import read_table
    splits = read_table(wine / "wine_problem" / "dataSplits.csv")
    test = splits.loc[splits["type"] == "TEST", "d3mIndex"]
    p = tmp_path / "pred.csv"
    p.write_text("d3mIndex,class\n" + "".join(f"{i},class_0\n" for i in test))
    return p


@pytest.mark.parametrize("content", ['{"about": {}}', "[1, 2]", '\ufeff{"inputs": {"data": []}}'])
@pytest.mark.parametrize("cmd", ["score", "split"])
def test_document_that_is_not_a_problem_doc(tmp_path, predictions, capsys, content, cmd):
    doc = tmp_path / "problemDoc.json"
    doc.write_text(content, encoding="utf-8")
    argv = ["score", "--problem", doc, "--predictions", predictions] if cmd == "score" else ["split", doc]
    code, _, err = run(argv, capsys)
    assert code == 1 and str(doc) in err and "inputs.data[0].datasetID" in err
    assert "None" not in err


def test_score_output_is_a_directory(wine, predictions, tmp_path, capsys):
    d = tmp_path / "d"
    d.mkdir()
    code, _, err = run(["score", "--problem", wine, "--predictions", predictions, "--out", d], capsys)
    assert code == 2 and str(d) in err and ".tmp" not in err and "--out" in err
    assert os.listdir(d) == []


def test_split_accepts_a_task_root(wine, capsys):
    code, out, _ = run(["split", wine], capsys)
    assert code == 0 and "up to date" in out


# --- build: absurd sizes ------------------------------------------------------------------
def test_abstraction_absurd_size_is_refused_before_allocating(tmp_path, capsys):
    code, _, err = run(["build", "abstraction", "--out", tmp_path, "--n-train", "99999999999",
                        "--quiet"], capsys)
    assert code == 1 and "--n-train" in err and "at most" in err
    assert os.listdir(tmp_path) == []


def test_memory_error_is_a_message(monkeypatch, capsys):
    import d3mkit.commands.metrics as metrics_cmd

    def boom(args):
        raise MemoryError()
    monkeypatch.setattr(metrics_cmd, "_run", boom)
    code, _, err = run(["metrics"], capsys)
    assert code == 2 and "out of memory" in err


def test_value_build_from_a_pgn_without_moves_names_the_file(tmp_path, capsys):
    pgn = tmp_path / "garbage.pgn"
    pgn.write_bytes(bytes(range(1, 256)) * 8)
    code, _, err = run(["build", "value", "--out", tmp_path / "o", "--pgn", pgn, "--size", "32",
                        "--n-train", "2", "--n-test", "2", "--workers", "1", "--quiet"], capsys)
    assert code == 1 and str(pgn) in err and "no moves" in err
    assert not (tmp_path / "o" / "value").exists()


# --- baselines on a damaged task root ------------------------------------------------------
@pytest.mark.parametrize("splits, expect", [
    ("garbage\n", "missing column(s) d3mIndex, type, repeat, fold"),
    ("d3mIndex,type\n0,TRAIN\n", "missing column(s) repeat, fold"),
    (None, "not an integer"),
    (b"\xa6\xff\x00\x9c" * 100, "file is binary"),
])
def test_baseline_with_a_broken_splits_file(abstraction, tmp_path, capsys, splits, expect):
    pytest.importorskip("torch", reason="abstraction-cnn needs torch before it reads the splits")
    root = _copy(abstraction, tmp_path / "abs")
    p = root / "abs_problem" / "dataSplits.csv"
    if splits is None:
        lines = p.read_text().splitlines()
        lines[1] = lines[1].rsplit(",", 2)[0] + ",x,0"
        splits = "\n".join(lines) + "\n"
    p.write_bytes(splits if isinstance(splits, bytes) else splits.encode())
    code, _, err = run(["baseline", root, "--model", "abstraction-cnn", "--epochs", "1"], capsys)
    assert code == 1 and str(p) in err and expect in err
    assert not (root / "abs_solution").exists()


def test_baseline_with_a_manifest_that_is_not_an_object(abstraction, tmp_path, capsys):
    root = _copy(abstraction, tmp_path / "abs")
    (root / "abs_debug" / "manifest.json").write_text("[1]")
    code, _, err = run(["baseline", root, "--epochs", "1"], capsys)
    assert code == 1 and "manifest.json" in err and "JSON object" in err


def test_baseline_solution_path_is_a_file(abstraction, tmp_path, capsys):
    root = _copy(abstraction, tmp_path / "abs")
    (root / "abs_solution").write_text("x")
    code, _, err = run(["baseline", root, "--model", "abstraction-cnn", "--epochs", "1"], capsys)
    assert code == 2 and "abs_solution" in err and "not a directory" in err
    assert (root / "abs_solution").read_text() == "x"


def test_abstraction_baseline_missing_image_message(abstraction, tmp_path, capsys):
    pytest.importorskip("torch")
    root = _copy(abstraction, tmp_path / "abs")
    victim = sorted((root / "abs_dataset" / "media").iterdir())[0]
    victim.unlink()
    code, _, err = run(["baseline", root, "--model", "abstraction-cnn", "--epochs", "1"], capsys)
    assert code == 1 and err.count(victim.name) == 2 and "[file.missing]" in err and "does not exist" in err
    assert not (root / "abs_solution").exists()


# --- prism build: a manifest field of the wrong JSON type ----------------------------------
@pytest.mark.parametrize("field, value, kind", [("hypothesis", ["x"], "array"),
                                                ("label", {"a": 1}, "object")])
def test_prism_manifest_field_of_the_wrong_json_type(tmp_path, capsys, field, value, kind):
    import json

    from PIL import Image
    Image.new("RGB", (8, 8)).save(tmp_path / "a.png")
    rows = [{"hypothesis": f"you can open door {i}", "image": "a.png", "label": ["allow", "prevent"][i % 2]}
            for i in range(6)]
    rows[2][field] = value
    man = tmp_path / "m.jsonl"
    man.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, _, err = run(["build", "prism", "--out", tmp_path / "o", "--manifest", man, "--quiet"], capsys)
    assert code == 1 and f"{man}: line 3" in err and f"{field} must be a string, not a JSON {kind}" in err
    assert not (tmp_path / "o" / "prism_pvli").exists()


# --- outputs that would destroy inputs -----------------------------------------------------
@pytest.mark.parametrize("where", ["root", "parent"])
def test_views_out_never_replaces_the_task_root(wine, tmp_path, capsys, where):
    root = _copy(wine, tmp_path / "t" / "wine")
    before = _tree(root)
    out = root if where == "root" else root.parent
    code, _, err = run(["views", root, "--out", out, "--force"], capsys)
    assert code == 2 and "outside the task root" in err
    assert _tree(root) == before


@pytest.mark.parametrize("which", ["predictions", "problemDoc"])
def test_score_output_never_overwrites_an_input(wine, predictions, capsys, which):
    target = predictions if which == "predictions" else wine / "wine_problem" / "problemDoc.json"
    before = target.read_bytes()
    code, _, err = run(["score", "--problem", wine, "--predictions", predictions, "--out", target], capsys)
    assert code == 2 and "[output.exists]" in err and str(target) in err     # refused without --force
    code, _, err = run(["score", "--problem", wine, "--predictions", predictions, "--out", target, "--force"],
                       capsys)
    assert code == 2 and "[output.is_input]" in err and str(target) in err   # and never over an input
    assert target.read_bytes() == before


@pytest.mark.parametrize("bench", ["value", "value-detection"])
def test_value_absurd_size_is_refused_before_allocating(tmp_path, capsys, bench):
    code, _, err = run(["build", bench, "--out", tmp_path, "--n-train", "99999999999", "--quiet"], capsys)
    assert code == 2 and "--n-train + --n-test must be at most" in err
    assert os.listdir(tmp_path) == []


# --- baseline / build option values ----------------------------------------------------------
@pytest.mark.parametrize("argv", [["build", "tabular", "--seed", "-1"], ["baseline", "x", "--seed", "-1"]])
def test_negative_seed_is_a_usage_error(tmp_path, capsys, argv):
    argv = argv[:2] + (["--out", str(tmp_path / "o")] if argv[0] == "build" else []) + argv[2:]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "--seed" in err and ">= 0" in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("opt, value", [("--abstraction-batch-size", "0"), ("--abstraction-batch-size", "-4"),
                                        ("--abstraction-lr", "-1"), ("--abstraction-lr", "nan")])
def test_abstraction_baseline_option_values(abstraction, tmp_path, capsys, opt, value):
    pytest.importorskip("torch")
    root = _copy(abstraction, tmp_path / "abs")
    code, _, err = run(["baseline", root, "--epochs", "1", opt, value], capsys)
    assert code == 2 and opt in err
    assert not (root / "abs_solution").exists()


def test_value_weights_file_that_is_not_torch(tmp_path, capsys):
    torch = pytest.importorskip("torch")  # noqa: F841
    from d3mkit.benchmarks.value.model import BoardNet, load_weights
    from d3mkit.core.errors import UsageError
    bad = tmp_path / "w.pt"
    bad.write_bytes(b"\x80\x04garbage" * 30)
    with pytest.raises(UsageError) as exc:
        load_weights(BoardNet.__new__(BoardNet), bad)
    msg = exc.value.issues[0].format()
    assert str(bad) in msg and "\n" not in msg and "not a torch state_dict file" in msg


def test_prism_query_negative_seed(caps, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["prism", "query", "--premises", str(caps), "--captions", str(caps), "--encoders", "lsa",
              "--seed", "-1"])
    assert exc.value.code == 2 and "--seed" in capsys.readouterr().err


@pytest.mark.parametrize("epochs", [0, -1])
def test_prism_fusion_epochs_below_one(epochs):
    pytest.importorskip("torch")
    from argparse import Namespace

    from d3mkit.benchmarks.prism.baseline import _fusion
    from d3mkit.core.errors import UsageError
    with pytest.raises(UsageError, match="epochs must be at least 1"):
        _fusion(None, None, None, Namespace(epochs=epochs, device="cpu", seed=0), None, None)


def test_split_datasets_that_does_not_exist(wine, tmp_path, capsys):
    code, _, err = run(["split", wine, "--datasets", tmp_path / "nope"], capsys)
    assert code == 2 and str(tmp_path / "nope") in err and "--datasets" in err


@pytest.mark.parametrize("content", ["[]", "{}", '{"inputs": {"data": [{"datasetID": "x", "targets": []}]}}'])
@pytest.mark.parametrize("cmd", ["baseline", "views"])
def test_task_root_with_an_unusable_problem_doc(abstraction, tmp_path, capsys, content, cmd):
    root = _copy(abstraction, tmp_path / "abs")
    doc = root / "abs_problem" / "problemDoc.json"
    doc.write_text(content)
    argv = ["baseline", root, "--model", "abstraction-cnn", "--epochs", "1"] if cmd == "baseline" \
        else ["views", root, "--out", tmp_path / "v"]
    code, _, err = run(argv, capsys)
    assert code == 1 and str(doc) in err and "not a usable problemDoc" in err
    assert not (root / "abs_solution").exists() and not (tmp_path / "v").exists()
