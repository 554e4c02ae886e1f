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

REPO = Path(__file__).resolve().parents[2]


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


def test_options_before_the_command_are_the_commands(capsys, tmp_path):
    """``d3mkit --format json COMMAND ...`` is ``d3mkit COMMAND ... --format json`` (a user
    writes the output format first as often as last); alone, it is bare d3mkit in JSON."""
    import json
    code, out, err = run(["--format", "json"], capsys)
    assert code == 2 and json.loads(out)["issues"][0]["code"] == "usage" and "validate" in err
    code, out, _ = run(["--format=json", "metrics"], capsys)
    assert code == 0 and isinstance(json.loads(out), (list, dict))
    code, out, _ = run(["--format", "json", "validate", str(tmp_path / "nope")], capsys)
    assert code == 2 and json.loads(out)["issues"]
    code, out, err = run(["--format", "json", "serve", "x"], capsys)   # serve prints nothing: no --format
    assert code == 2 and "unrecognized arguments: --format" in err and json.loads(out)["issues"]


def test_no_ghost_command():
    assert "value" not in COMMANDS
    parser = build_parser()
    choices = next(a for a in parser._actions if a.dest == "command").choices
    assert set(choices) == set(COMMANDS)


def test_a_mistyped_command_gets_did_you_mean(capsys):
    code, _, err = run(["valiate", "x"], capsys)
    assert code == 2 and "did you mean 'validate'?" in err
    code, _, err = run(["VALIDATE", "x"], capsys)          # case does not count
    assert code == 2 and "did you mean 'validate'?" in err


def test_a_mistyped_option_gets_did_you_mean(wine, tmp_path, capsys):
    code, _, err = run(["views", wine, "--out", tmp_path / "v", "--forse"], capsys)
    assert code == 2 and "did you mean --force?" in err and err.startswith("usage: d3mkit views")


def test_did_you_mean_does_not_count_the_dashes_every_option_has(wine, capsys):
    code, _, err = run(["split", wine / "wine_problem", "--repeat", "1"], capsys)   # split has no --repeat
    assert code == 2 and "unrecognized arguments: --repeat 1" in err and "did you mean" not in err
    code, _, err = run(["validate", wine, "--metric", "accuracy"], capsys)           # not --strict
    assert code == 2 and "unrecognized arguments: --metric" in err and "did you mean" not in err
    for typo, meant in (("--n-trian", "--n-train"), ("--test_size", "--test-size")):
        code, _, err = run(["build", "visudo" if "trian" in typo else "tabular", "--out", "x", typo, "3"], capsys)
        assert code == 2 and f"did you mean {meant}?" in err, err


def test_a_mistyped_model_gets_did_you_mean(wine, capsys):
    code, _, err = run(["baseline", wine, "--model", "logistic-regresion"], capsys)
    assert code == 2 and "unknown model 'logistic-regresion'; did you mean 'logistic-regression'?" in err
    code, _, err = run(["baseline", wine, "--model", "Mean"], capsys)
    assert code == 2 and "did you mean 'mean'?" in err


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


@pytest.mark.slow
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
    from d3mkit.core.errors import EXIT_MISSING_DEPENDENCY
    monkeypatch.setitem(sys.modules, "torch", None)      # import torch -> ImportError
    from d3mkit.baselines.common import require_torch
    from d3mkit.core.errors import MissingDependency
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
    from d3mkit.core.registry import registry
    code, out, _ = run(["metrics"], capsys)
    assert code == 0 and registry()["accuracy"].describe()["description"] in out


# --- console and JSON ------------------------------------------------------------------------------
def _cli(args, env_extra, cwd):
    env = dict(os.environ, PYTHONPATH=str(REPO), **env_extra)
    return subprocess.run([sys.executable, "-m", "d3mkit", *map(str, args)], env=env, cwd=cwd,
                          capture_output=True)


@pytest.mark.slow
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


@pytest.mark.slow
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


# --- the vocabulary, walked over every parser -------------------------------------------------------
def _parsers():
    """``(prog, parser)`` of every parser the command line has: each command, each
    subcommand (build's benchmarks, reproduce's reproducers, import's sources, export's
    formats, challenge's and prism's commands), ready (lazy options added)."""
    import argparse

    from d3mkit.commands.options import add_aliases

    def walk(p):
        if hasattr(p, "_ready"):
            p._ready()
        add_aliases(p)
        yield p.prog, p
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for sp in a.choices.values():
                    yield from walk(sp)
    yield from walk(build_parser())


def _visible(p):
    """``{"--option": action}`` of the options ``--help`` shows."""
    import argparse
    return {o: a for a in p._actions for o in a.option_strings
            if o.startswith("--") and a.help != argparse.SUPPRESS}


def _leaf(p) -> bool:
    import argparse
    return not any(isinstance(a, argparse._SubParsersAction) for a in p._actions)


PARSERS = dict(_parsers())
#: what prints results: every leaf but these has --format text|json
NO_FORMAT = {"d3mkit serve": "runs a server, prints nothing on stdout",
             "d3mkit prism extract": "--format is the output's jsonl|csv|manifest (machine-readable already)",
             "d3mkit prism query": "--format is the output's jsonl|csv"}


def test_the_walk_sees_every_command_and_the_new_ones():
    for prog in ("d3mkit import table", "d3mkit import images", "d3mkit export croissant", "d3mkit export hf",
                 "d3mkit challenge create", "d3mkit challenge team add", "d3mkit serve", "d3mkit submit",
                 "d3mkit info", "d3mkit build visudo", "d3mkit reproduce visudo", "d3mkit reproduce problems",
                 "d3mkit evaluate"):
        assert prog in PARSERS, prog
    assert {p.split()[1] for p in PARSERS if len(p.split()) > 1} == set(COMMANDS)


@pytest.mark.parametrize("prog", sorted(PARSERS))
def test_every_parser_speaks_the_one_vocabulary(prog):
    from d3mkit.commands.options import DEPRECATED, FORMATS
    p = PARSERS[prog]
    shown = _visible(p)
    every = {o: a for a in p._actions for o in a.option_strings}
    # old spellings: never shown; where they exist they are the hidden alias of the new one
    for old, (new, commands) in DEPRECATED.items():
        if prog in commands:       # (build tabular's --dataset NAME is not score's old --dataset)
            assert old not in shown and new in shown, (prog, old)
        if old in every and prog in commands:
            assert every[old].dest == every[new].dest, (prog, old)
        elif old in every:         # another command's own option of that name, not an alias
            assert type(every[old]).__name__ != "_Deprecated", (prog, old)
    for opt, action in shown.items():
        # --out for everything written, nothing else spelled "output"
        assert "output" not in opt, (prog, opt)
        if action.dest in ("out", "output"):
            assert opt == "--out", (prog, opt)
        # counts are --n-train/--n-test/--n-valid, fractions --test-size
        assert not opt.endswith("-count") and not opt.startswith("--num-"), (prog, opt)
        if opt.startswith("--n-"):
            assert opt in ("--n-train", "--n-test", "--n-valid"), (prog, opt)
        if any(w in opt for w in ("size", "fraction", "share", "ratio")) and \
                any(w in opt for w in ("test", "train", "valid")):
            assert opt == "--test-size", (prog, opt)
        # the search path of datasets is --datasets, repeatable
        if action.dest in ("datasets", "dataset") and action.type is Path:
            assert opt == "--datasets" and isinstance(action.default, list), (prog, opt)
        # one --seed: a non-negative integer, checked when parsed
        if opt == "--seed":
            assert getattr(action.type, "__name__", "") == "seed_value", prog
        # --device is a choice everywhere
        if opt == "--device":
            assert list(action.choices) == ["auto", "cpu", "cuda"], prog
        # one name for a size cap of files read
        if "mb" in opt.split("-"):
            assert opt == "--max-size-mb", (prog, opt)
    if _leaf(p) and prog not in NO_FORMAT and prog != "d3mkit":
        assert "--format" in shown, f"{prog} prints results without --format json"
        assert set(FORMATS) <= set(shown["--format"].choices), prog


@pytest.mark.parametrize("prog", sorted(p for p in PARSERS if p != "d3mkit"))
def test_every_parser_has_plain_help_with_an_example(prog):
    p = PARSERS[prog]
    text = p.format_help()
    assert "``" not in text and ":func:" not in text and ":class:" not in text, prog
    import re
    m = re.search(r"\nexamples?:\n(.*)", text, re.S)
    assert m, prog
    assert f"d3mkit {prog.split()[1]}" in m.group(1), prog


@pytest.mark.parametrize("argv,hint", [
    (["export", "croisant", "x"], "did you mean 'croissant'?"),
    (["import", "tabel", "x"], "did you mean 'table'?"),
    (["build", "tabluar"], "did you mean 'tabular'?"),
    (["challenge", "finalise", "x"], "did you mean 'finalize'?"),
    (["import", "table", "x.csv", "--out", "o", "--targt", "y"], "did you mean --target?"),
    (["challenge", "create", "--problems", "p", "--out", "o", "--max-siz-mb", "3"], "did you mean --max-size-mb?"),
])
def test_did_you_mean_reaches_every_level(argv, hint, capsys):
    code, _, err = run(argv, capsys)
    assert code == 2 and hint in err, err


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["evaluate", "--example", "x", "--seed", "-1"],
                                  ["challenge", "create", "--problems", "p", "--out", "o", "--seed", "-1"]])
def test_a_negative_seed_is_a_usage_error_everywhere(argv, capsys):
    code, _, err = run(argv, capsys)          # evaluate --seed -1 was an internal error
    assert code == 2 and "--seed: must be >= 0, got -1" in err and "internal error" not in err


def test_challenge_max_mb_is_a_hidden_alias(tmp_path, capsys):
    from d3mkit.commands.options import add_aliases
    p = PARSERS["d3mkit challenge create"]
    add_aliases(p)
    ns = p.parse_args(["--problems", "p", "--out", "o", "--max-mb", "3"])
    assert ns.max_size_mb == 3.0 and "--max-mb is deprecated" in capsys.readouterr().err
    assert "--max-mb" not in p.format_help()


def test_blas_threads_sleep_unless_the_user_says(monkeypatch, capsys):
    """The command line has numpy's OpenBLAS threads sleep at once after work (they spin for
    2**28 cycles otherwise); a value the user set is kept."""
    import os
    from d3mkit import cli
    monkeypatch.delenv("OPENBLAS_THREAD_TIMEOUT", raising=False)
    run(["codes"], capsys)
    assert os.environ["OPENBLAS_THREAD_TIMEOUT"] == cli.BLAS_SPIN[1]
    monkeypatch.setenv("OPENBLAS_THREAD_TIMEOUT", "20")
    run(["codes"], capsys)
    assert os.environ["OPENBLAS_THREAD_TIMEOUT"] == "20"
