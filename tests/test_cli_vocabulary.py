"""The command line speaks one language (issue 19 item 4, issue 23 section 2): one option
vocabulary with hidden, warning old spellings; plain-text help with examples; "did you
mean"; one terminal form of scores and ``--format json``; one code for a missing path;
messages that say what to do; any console encoding."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from _attack_util import run as _run
from d3mkit.cli import COMMANDS, build_parser, main

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wine(tmp_path_factory):
    from taskroot_helpers import wine_root
    return wine_root(tmp_path_factory.mktemp("wine"), with_predictions=True)


def run(argv, capsys):
    """``(exit code, stdout, stderr)``; a usage error (argparse's SystemExit) included."""
    try:
        return _run(argv, capsys)
    except SystemExit as exc:
        out, err = capsys.readouterr()
        return exc.code, out, err


def _score(wine, *extra):
    return ["score", "--problem", wine, "--predictions", wine.parent / "predictions.csv", *extra]


# --- bare d3mkit, ghost commands, did you mean ------------------------------------------------
def test_bare_d3mkit_lists_every_command_with_a_line_each(capsys):
    code, out, err = run([], capsys)
    assert code == 2 and out == ""
    lines = err.splitlines()
    for name in COMMANDS:   # the name, then its help on the same line or (a long name) the next
        k = next(k for k, l in enumerate(lines) if l.strip().split()[:1] == [name])
        assert len(lines[k].split()) > 1 or len(lines[k + 1].split()) > 1, lines[k]
    assert "examples:" in err


def test_no_ghost_command():
    assert "value" not in COMMANDS
    parser = build_parser()
    choices = next(a for a in parser._actions if a.dest == "command").choices
    assert set(choices) == set(COMMANDS)


def test_a_mistyped_command_gets_did_you_mean(capsys):
    code, _, err = run(["valiate", "x"], capsys)
    assert code == 2 and "did you mean 'validate'?" in err


def test_a_mistyped_option_gets_did_you_mean(wine, tmp_path, capsys):
    code, _, err = run(["views", wine, "--out", tmp_path / "v", "--forse"], capsys)
    assert code == 2 and "did you mean --force?" in err and err.startswith("usage: d3mkit views")


# --- help ----------------------------------------------------------------------------------
@pytest.mark.parametrize("cmd", [[c] for c in COMMANDS] + [["build", "tabular"], ["build", "visudo"],
                                                         ["prism", "extract"]])
def test_help_is_plain_text_with_an_example(cmd, capsys):
    with pytest.raises(SystemExit) as info:
        main([*cmd, "--help"])
    out = capsys.readouterr().out
    assert info.value.code == 0
    assert "``" not in out and ":func:" not in out, out
    if len(cmd) == 1 or cmd[0] == "build":
        assert "example" in out and f"d3mkit {' '.join(cmd)}" in out.split("example")[-1], out


# --- one vocabulary, old spellings as hidden warning aliases ---------------------------------------
def test_score_output_alias_still_works_and_warns(wine, tmp_path, capsys):
    code, _, err = run(_score(wine, "--output", tmp_path / "s.csv"), capsys)
    assert code == 0 and "--output is deprecated" in err and "use --out" in err
    assert list(pd.read_csv(tmp_path / "s.csv").columns) == ["index", "problemID", "metric", "value"]


def test_score_dataset_alias_still_works_and_warns(wine, capsys):
    code, out, err = run(_score(wine, "--dataset", wine / "wine_dataset"), capsys)
    assert code == 0 and "--dataset is deprecated" in err and "use --datasets" in err and "accuracy" in out


def test_convert_output_alias_still_works_and_warns(wine, tmp_path, capsys):
    out = tmp_path / "p4.json"
    code, stdout, err = run(["convert", wine / "wine_problem", "--to", "4.0.0", "-o", out], capsys)
    assert code == 0 and out.is_file() and "-o is deprecated" in err and stdout.strip() == str(out)


def test_prism_output_alias_still_works_and_warns(tmp_path, capsys):
    caps = tmp_path / "c.txt"
    caps.write_text("You must not touch the stove if it is hot.\n")
    code, _, err = run(["prism", "extract", "--captions", caps, "--output", tmp_path / "o.jsonl"], capsys)
    assert code == 0 and "--output is deprecated" in err and (tmp_path / "o.jsonl").exists()


def test_visudo_count_aliases_still_work_and_warn(tmp_path, capsys):
    code, _, err = run(["build", "visudo", "--out", tmp_path, "--sources", "digits", "--train-count", "2",
                        "--test-count", "2", "--valid-count", "1", "--quiet"], capsys)
    assert code == 0 and all(f"--{k}-count is deprecated" in err for k in ("train", "test", "valid"))
    code, _, err = run(["build", "visudo", "--out", tmp_path / "b", "--sources", "digits", "--n-train", "0",
                        "--quiet"], capsys)
    assert code == 1 and "--n-train" in err and "train_count" not in err and "--train-count" not in err


def test_aliases_are_hidden_from_help(capsys):
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    out = capsys.readouterr().out
    assert "--out" in out and "--datasets" in out and "--output" not in out and "--dataset " not in out


@pytest.mark.parametrize("reproducer", ["abstraction", "visudo"])
def test_device_is_a_choice_everywhere(reproducer, capsys):
    code, _, err = run(["reproduce", reproducer, "--device", "gpu"], capsys)
    assert code == 2 and "invalid choice: 'gpu'" in err


def test_an_option_the_model_does_not_use_is_refused(tmp_path, capsys):
    from d3mkit.benchmarks.abstraction.cli import build_task_root
    from d3mkit.benchmarks.abstraction.protocol import Protocol
    root = build_task_root(tmp_path, Protocol("rotation", 5, 30, 20, 0), name="shapes")
    code, _, err = run(["baseline", root, "--batch-size", "50"], capsys)
    assert code == 2 and "--batch-size: not used by model 'abstraction-cnn'" in err
    assert "--abstraction-batch-size" in err
    assert not (root.parent / "shapes" / "shapes_solution").exists()


def test_a_tabular_model_refuses_epochs_and_the_mean_refuses_max_iter(wine, capsys):
    code, _, err = run(["baseline", wine, "--epochs", "3"], capsys)
    assert code == 2 and "--epochs: not used by model 'logistic-regression'" in err
    code, _, err = run(["baseline", wine, "--model", "mean", "--max-iter", "5"], capsys)
    assert code == 2 and "--max-iter: not used by model 'mean'" in err


# --- one output style --------------------------------------------------------------------------
def test_score_prints_the_one_human_form(wine, capsys):
    code, out, _ = run(_score(wine), capsys)
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["metric", "value"] and "index" not in out and "," not in out
    assert lines[1].split()[0] == "accuracy" and float(lines[1].split()[1]) == 1.0


def test_baseline_prints_the_same_form_and_json(wine, capsys):
    code, out, _ = run(["baseline", wine, "--model", "mean"], capsys)
    assert code == 0 and out.splitlines()[0].split() == ["metric", "value"] and "\t" not in out
    code, out, _ = run(["baseline", wine, "--model", "mean", "--format", "json"], capsys)
    doc = json.loads(out)
    assert code == 0 and doc["model"] == "mean" and doc["scores"][0]["metric"] == "accuracy"


def test_score_json_and_the_file_keep_their_shapes(wine, tmp_path, capsys):
    code, out, _ = run(_score(wine, "--format", "json", "--out", tmp_path / "s.csv"), capsys)
    assert code == 0 and json.loads(out)["scores"][0]["metric"] == "accuracy"
    assert list(pd.read_csv(tmp_path / "s.csv").columns) == ["index", "problemID", "metric", "value"]


def test_score_out_refuses_an_existing_file_without_force(wine, tmp_path, capsys):
    dest = tmp_path / "s.csv"
    dest.write_text("keep me")
    code, _, err = run(_score(wine, "--out", dest), capsys)
    assert code == 2 and "[output.exists]" in err and "--force" in err and dest.read_text() == "keep me"
    code, _, _ = run(_score(wine, "--out", dest, "--force"), capsys)
    assert code == 0 and dest.read_text().startswith("index,problemID,metric,value")


def test_convert_out_prints_what_it_wrote(wine, tmp_path, capsys):
    out = tmp_path / "p4.json"
    code, stdout, _ = run(["convert", wine / "wine_problem", "--to", "4.0.0", "--out", out], capsys)
    assert code == 0 and stdout.strip() == str(out)


# --- messages that help --------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [
    ["validate", "{nope}"],
    ["score", "--problem", "{nope}", "--predictions", "{nope}"],
    ["score", "--problem", "{wine}", "--predictions", "{nope}"],
    ["views", "{nope}", "--out", "{tmp}/v"],
    ["baseline", "{nope}"],
    ["split", "{nope}"],
    ["convert", "{nope}", "--to", "4.0.0"],
    ["evaluate", "--problems", "{nope}", "--submissions", "{nope}", "--out", "{tmp}/e"],
    ["prism", "extract", "--captions", "{nope}"],
])
def test_a_missing_path_gives_one_code_on_every_command(argv, wine, tmp_path, capsys):
    nope = tmp_path / "no-such-path"
    argv = [a.format(nope=nope, wine=wine, tmp=tmp_path) for a in argv]
    code, out, err = run(argv, capsys)
    assert code == 2 and f"{nope}: error [usage.path] path does not exist" in out + err, out + err


def test_build_wine_hints_the_tabular_benchmark(capsys):
    code, _, err = run(["build", "wine"], capsys)
    assert code == 2 and "d3mkit build tabular --dataset wine" in err


def test_score_repeat_says_which_repeats_exist(wine, capsys):
    code, _, err = run(_score(wine, "--repeat", "1"), capsys)
    assert code == 1 and "no TEST rows for repeat 1, fold 0" in err and "repeat 0 fold 0" in err


def test_the_torch_hint_names_the_extra_and_has_its_own_exit_code(wine, monkeypatch, capsys):
    from d3mkit.errors import EXIT_MISSING_DEPENDENCY
    monkeypatch.setitem(sys.modules, "torch", None)      # import torch -> ImportError
    from d3mkit.baselines.common import require_torch
    from d3mkit.errors import MissingDependency
    with pytest.raises(MissingDependency) as info:
        require_torch()
    assert info.value.exit_code == EXIT_MISSING_DEPENDENCY == 3
    assert 'pip install "d3mkit[baselines]"' in str(info.value) and "-e" not in str(info.value)


def test_validate_summary_lists_only_failures(wine, tmp_path, capsys):
    import shutil
    bad = tmp_path / "many" / "bad"
    shutil.copytree(wine, bad)
    shutil.copytree(wine, tmp_path / "many" / "good")
    (bad / "wine_problem" / "problemDoc.json").write_text("{")
    code, out, _ = run(["validate", tmp_path / "many", "--summary"], capsys)
    lines = out.splitlines()
    assert code == 1 and len(lines) == 2 and lines[0].startswith("FAIL ") and "bad" in lines[0]
    assert "failing" in lines[-1] and "INVALID" in lines[-1]


def test_metrics_text_shows_the_descriptions(capsys):
    from d3mkit.registry import registry
    code, out, _ = run(["metrics"], capsys)
    assert code == 0 and registry()["accuracy"].describe()["description"] in out


# --- console and JSON ------------------------------------------------------------------------------
def _cli(args, env_extra, cwd):
    env = dict(os.environ, PYTHONPATH=str(REPO), **env_extra)
    return subprocess.run([sys.executable, "-m", "d3mkit", *map(str, args)], env=env, cwd=cwd,
                          capture_output=True)


def test_an_ascii_console_gets_escapes_not_an_encoding_error(wine, tmp_path):
    import shutil
    root = tmp_path / "cafe"
    shutil.copytree(wine, root)
    doc = root / "wine_problem" / "problemDoc.json"
    data = json.loads(doc.read_text())
    data["about"]["problemID"] = "café_problem"
    doc.write_text(json.dumps(data))
    for fmt in ("text", "json"):
        p = _cli(["score", "--problem", root, "--predictions", wine.parent / "predictions.csv",
                  "--format", fmt], {"PYTHONIOENCODING": "ascii"}, tmp_path)
        assert p.returncode == 0 and b"internal error" not in p.stderr, p.stderr
        if fmt == "json":
            assert json.loads(p.stdout.decode("ascii"))["problemID"] == "café_problem"
    p = _cli(["validate", root, "--format", "json"], {"PYTHONIOENCODING": "ascii"}, tmp_path)
    assert p.returncode == 0 and b"internal error" not in p.stderr
    p.stdout.decode("ascii")


def test_validate_json_escapes_undecodable_bytes_of_a_path(tmp_path):
    if sys.platform == "darwin":
        pytest.skip("macOS file systems refuse names that are not UTF-8")
    bad = os.fsencode(tmp_path) + b"/bad\xffname.json"
    with open(bad, "wb") as fh:
        fh.write(b"{")
    p = _cli(["validate", os.fsdecode(bad), "--format", "json"],
             {"LC_ALL": "C", "PYTHONIOENCODING": "utf-8:surrogateescape"}, tmp_path)
    assert p.returncode in (1, 2), p.stderr
    text = p.stdout.decode("utf-8")          # never raw 0xff: valid UTF-8 JSON
    doc = json.loads(text)
    assert "\\xff" in json.dumps(doc) or "\\\\xff" in text


def test_score_out_never_replaces_what_it_reads(wine, capsys):
    truth = wine / "wine_dataset" / "tables" / "learningData.csv"
    before = truth.read_bytes()
    code, _, err = run(_score(wine, "--out", truth, "--force"), capsys)
    assert code == 2 and "[output.is_input]" in err and truth.read_bytes() == before
