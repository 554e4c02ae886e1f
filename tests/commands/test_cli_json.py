"""``--format json`` on every command that prints results (issue 19 item 4): stdout is
exactly one JSON document, whatever else the command prints goes to stderr, and an error
prints the one convention ``{"issues": [{"severity", "code", "location", "message",
"path"}]}`` with the command's exit code (its lines still on stderr)."""

from __future__ import annotations

import json
import shutil

import pytest

from _attack_util import run
from d3mkit.cli import main


@pytest.fixture(scope="module")
def wine(tmp_path_factory):
    from taskroot_helpers import wine_root
    return wine_root(tmp_path_factory.mktemp("wine"), with_predictions=True)


def as_json(argv, capsys, code: int = 0):
    """``d3mkit ARGV --format json``: its exit code must be ``code`` and its stdout one JSON
    document; returns ``(document, stderr)``."""
    got, out, err = run([*argv, "--format", "json"], capsys)
    assert got == code, (got, out, err)
    return json.loads(out), err


def test_build(tmp_path, capsys):
    doc, _ = as_json(["build", "tabular", "--dataset", "wine", "--out", tmp_path, "--quiet"], capsys)
    assert doc["benchmark"] == "tabular" and len(doc["roots"]) == 1
    assert (tmp_path / "wine" / "wine_problem" / "problemDoc.json").is_file()
    assert doc["roots"][0] == str(tmp_path / "wine")


def test_split(wine, capsys):
    doc, _ = as_json(["split", wine / "wine_problem"], capsys)
    assert doc["changed"] is False and doc["path"].endswith("dataSplits.csv")
    assert doc["folds"][0]["repeat"] == 0 and doc["folds"][0]["train"] + doc["folds"][0]["test"] == doc["rows"]


def test_views(wine, tmp_path, capsys):
    doc, _ = as_json(["views", wine, "--out", tmp_path / "v"], capsys)
    assert set(doc["views"]) == {"TRAIN", "TEST", "SCORE"}
    assert all(p.startswith(str(tmp_path / "v")) for v in doc["views"].values() for p in v["contents"])


def test_convert_document_file_and_tree(wine, tmp_path, capsys):
    doc, _ = as_json(["convert", wine / "wine_problem", "--to", "4.0.0"], capsys)
    assert doc["out"] is None and doc["document"]["about"]["problemSchemaVersion"] == "4.0.0"
    doc, _ = as_json(["convert", wine / "wine_problem", "--to", "4.0.0", "--out", tmp_path / "p.json"], capsys)
    assert doc["out"] == str(tmp_path / "p.json") and doc["document"] is None and (tmp_path / "p.json").is_file()
    doc, _ = as_json(["convert", wine, "--to", "4.0.0", "--out", tmp_path / "tree"], capsys)
    assert doc["out"] == str(tmp_path / "tree") and isinstance(doc["issues"], list)


@pytest.mark.slow
def test_import_and_export(wine, tmp_path, capsys):
    csv = tmp_path / "t.csv"
    csv.write_text("a,b,label\n" + "".join(f"{i},{i % 3},{'xy'[i % 2]}\n" for i in range(30)))
    doc, _ = as_json(["import", "table", csv, "--target", "label", "--out", tmp_path / "roots"], capsys)
    assert doc["root"] == str(tmp_path / "roots" / "t") and doc["issues"] == []
    doc, _ = as_json(["export", "croissant", wine, "--out", wine.parent / "w.croissant.json"], capsys)
    assert doc["to"] == "croissant" and doc["out"].endswith("w.croissant.json")
    assert all(i["severity"] == "warning" for i in doc["issues"])


@pytest.mark.slow
def test_evaluate_example_and_campaign(tmp_path, capsys):
    doc, _ = as_json(["evaluate", "--example", tmp_path / "camp"], capsys)
    assert doc["command"].startswith("d3mkit evaluate --problems")
    doc, err = as_json(["evaluate", "--problems", doc["problems"], "--submissions", doc["submissions"],
                        "--out", tmp_path / "board", "--bootstrap", "0", "--workers", "1"], capsys)
    assert doc["counts"]["scored"] > 0 and doc["exit_code"] == 0 and doc["issues"] == []
    assert doc["outputs"]["leaderboard.html"] == str(tmp_path / "board" / "leaderboard.html")
    assert "systems x" in err          # the summary line stays on stderr


def test_evaluate_nothing_scored_is_an_issue_in_the_document(tmp_path, capsys):
    (tmp_path / "p").mkdir()
    (tmp_path / "s").mkdir()
    doc, err = as_json(["evaluate", "--problems", tmp_path / "p", "--submissions", tmp_path / "s",
                        "--out", tmp_path / "o"], capsys, code=1)
    assert doc["issues"][0]["code"] == "evaluate.nothing_scored" and "[evaluate.nothing_scored]" in err


@pytest.mark.slow
def test_demo(tmp_path, capsys):
    doc, err = as_json(["demo", "--only", "tabular", "--out", tmp_path / "d"], capsys)
    assert [p["part"] for p in doc["parts"]] == ["tabular"] and "tabular done" in err


@pytest.mark.slow
def test_challenge(tmp_path, capsys):
    from server_helpers import need_server_extra
    need_server_extra()
    from d3mkit.evaluate.synthetic import make_campaign
    problems, _ = make_campaign(tmp_path, systems=1, problems=1, rows=40, seed=0, malformed=0)
    doc, _ = as_json(["challenge", "create", "--problems", problems, "--out", tmp_path / "ch", "--seed", "1"],
                     capsys)
    assert doc["challenge"] == str(tmp_path / "ch") and doc["problems"][0]["units"] > 0
    doc, _ = as_json(["challenge", "team", "add", tmp_path / "ch", "alpha"], capsys)
    assert doc["team"] == "alpha" and len(doc["token"]) > 10
    doc, _ = as_json(["challenge", "finalize", tmp_path / "ch", "--workers", "1"], capsys)
    assert doc["queued_scored"] == 0


@pytest.mark.parametrize("argv", [["codes"], ["metrics"], ["info", "{wine}"], ["validate", "{wine}"],
                                  ["score", "--problem", "{wine}", "--predictions", "{preds}"],
                                  ["baseline", "{copy}", "--model", "mean"]])
def test_commands_that_had_json_still_print_one_document(argv, wine, tmp_path, capsys):
    copy = tmp_path / "w"
    if "{copy}" in argv:
        shutil.copytree(wine, copy)
    argv = [a.format(wine=wine, preds=wine.parent / "predictions.csv", copy=copy) for a in argv]
    as_json(argv, capsys)


# --- errors in JSON mode -----------------------------------------------------------------------
@pytest.mark.parametrize("argv,code,issue", [
    (["views", "{nope}", "--out", "{tmp}/v"], 2, "usage.path"),
    (["split", "{nope}"], 2, "usage.path"),
    (["convert", "{nope}", "--to", "4.0.0"], 2, "usage.path"),
    (["views", "{wine}", "--out", "{wine}/v"], 2, "output.is_input"),
    (["build", "tabular", "--dataset", "wine", "--out", "{wine}/..", "--quiet"], 2, "output.exists"),
    (["export", "croissant", "{nope}"], 2, "usage.path"),
    (["import", "table", "{empty}", "--target", "y", "--out", "{tmp}/r"], 1, None),
])
def test_an_error_is_the_issues_document(argv, code, issue, wine, tmp_path, capsys):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    argv = [a.format(nope=tmp_path / "nope", tmp=tmp_path, wine=wine, empty=empty) for a in argv]
    doc, err = as_json(argv, capsys, code=code)
    assert list(doc) == ["issues"] and doc["issues"], doc
    first = doc["issues"][0]
    assert set(first) == {"severity", "code", "location", "message", "path"} and first["severity"] == "error"
    if issue is not None:
        assert first["code"] == issue
    assert f"[{first['code']}]" in err                 # the same line on stderr as in text mode
    assert "--" in first["message"] or issue != "output.exists"   # flags, as the command line names them


def test_score_keeps_its_own_error_document(wine, tmp_path, capsys):
    bad = tmp_path / "p.csv"
    bad.write_text("d3mIndex,class\n")
    doc, _ = as_json(["score", "--problem", wine, "--predictions", bad], capsys, code=1)
    assert doc["scores"] == [] and doc["issues"] and "problemID" in doc


def test_text_mode_is_unchanged(wine, tmp_path, capsys):
    code = main(["split", str(wine / "wine_problem")])
    out = capsys.readouterr().out
    assert code == 0 and "up to date" in out and not out.startswith("{")


# --- argparse's own usage errors in JSON mode ------------------------------------------------------
def _usage(argv, capsys):
    """``(exit code, stdout, stderr)`` of a command argparse refuses (it raises SystemExit)."""
    with pytest.raises(SystemExit) as info:
        main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return info.value.code, out, err


@pytest.mark.parametrize("argv,says", [
    (["views", "--format", "json"], "the following arguments are required: task_root, --out"),
    (["views", "{wine}", "--out", "--format", "json"], "argument --out: expected one argument"),
    (["views", "{wine}", "--out", "{tmp}/v", "--forse", "--format", "json"],
     "unrecognized arguments: --forse; did you mean --force?"),
    (["valiate", "{wine}", "--format", "json"], "invalid choice: 'valiate'"),
    (["build", "tabular", "--dataset", "wines", "--out", "{tmp}/b", "--format=json"],
     "invalid choice: 'wines'"),
    (["evaluate", "--seed", "-1", "--format", "json"], "argument --seed: must be >= 0, got -1"),
    (["score", "--problem", "{wine}", "--predictions", "{wine}", "--format", "json", "--format", "yaml"],
     "argument --format: invalid choice: 'yaml'"),
], ids=["missing-argument", "missing-value", "unknown-option", "mistyped-command", "invalid-choice",
        "invalid-value", "invalid-format"])
def test_a_usage_error_is_the_issues_document(argv, says, wine, tmp_path, capsys):
    argv = [str(a).format(wine=wine, tmp=tmp_path) for a in argv]
    code, out, err = _usage(argv, capsys)
    assert code == 2
    if argv[-2:] == ["--format", "yaml"]:     # the last --format counts, as for argparse: text
        assert out == "" and says in err
        return
    doc = json.loads(out)
    assert list(doc) == ["issues"] and len(doc["issues"]) == 1
    issue = doc["issues"][0]
    assert issue["code"] == "usage" and issue["severity"] == "error" and says in issue["message"], issue
    assert issue["location"] == ("d3mkit" if argv[0] == "valiate" else f"d3mkit {argv[0]}") \
        or issue["location"].startswith(f"d3mkit {argv[0]} ")
    assert err.startswith("usage: ") and f"error: {issue['message']}" in err   # stderr as in text mode


def test_a_mistyped_command_in_json_mode_says_did_you_mean(capsys):
    code, out, _ = _usage(["valiate", "x", "--format", "json"], capsys)
    assert code == 2 and json.loads(out)["issues"][0]["message"].endswith("did you mean 'validate'?")


def test_a_usage_error_in_text_mode_prints_nothing_on_stdout(wine, capsys):
    code, out, err = _usage(["views", wine, "--forse"], capsys)
    assert code == 2 and out == "" and "did you mean --force?" in err
