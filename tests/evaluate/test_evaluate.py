"""``d3mkit evaluate``: same scores as ``d3mkit score``, bad submissions as failures.csv
rows (never a crash), ranks and aggregation, incremental re-runs, escaped HTML."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
from pathlib import Path

import pytest

from d3mkit.cli import main
from d3mkit.evaluate.synthetic import make_campaign


def _read(path: Path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def _evaluate(p, s, out, *extra) -> int:
    return main(["evaluate", "--problems", str(p), "--submissions", str(s), "--out", str(out),
                 "--quiet", *extra])


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    root = tmp_path_factory.mktemp("camp")
    p, s = make_campaign(root, systems=3, problems=3, rows=40, seed=5, malformed=0.3)
    return root, p, s


@pytest.mark.slow
def test_scores_equal_d3mkit_score_and_failures_have_its_codes(campaign, capsys):
    root, p, s = campaign
    out = root / "out_serial"
    assert _evaluate(p, s, out, "--workers", "1") == 0
    scores, failures = _read(out / "scores.csv"), _read(out / "failures.csv")
    assert list(scores[0]) == ["system", "problemID", "metric", "repeat", "fold", "value", "ci_low",
                               "ci_high", "rank"]
    assert list(failures[0]) == ["system", "problemID", "code", "message"]
    failed = {(f["system"], f["problemID"]): f["code"] for f in failures}
    assert failed, "the synthetic campaign has malformed submissions"
    got = {(r["system"], r["problemID"], r["metric"]): float(r["value"]) for r in scores}
    capsys.readouterr()
    for sysdir in sorted(s.iterdir()):
        for pdir in sorted(sysdir.iterdir()):
            pid = pdir.name
            problem = p / pid.removesuffix("_problem") / pid
            rc = main(["score", "--problem", str(problem), "--predictions", str(pdir / "predictions.csv"),
                       "--format", "json"])
            report = json.loads(capsys.readouterr().out)
            if rc == 0:
                for sc in report["scores"]:
                    assert got[(sysdir.name, pid, sc["metric"])] == sc["value"]
                assert (sysdir.name, pid) not in failed
            else:
                first = next(i["code"] for i in report["issues"] if i["severity"] == "error")
                assert failed[(sysdir.name, pid)] == first


@pytest.mark.slow
def test_ranks_follow_the_registry_direction(campaign):
    root, p, s = campaign
    out = root / "out_rank"
    assert _evaluate(p, s, out, "--workers", "1") == 0
    rows = _read(out / "scores.csv")
    for (pid, metric) in {(r["problemID"], r["metric"]) for r in rows}:
        cell = sorted(((float(r["value"]), int(r["rank"])) for r in rows
                       if r["problemID"] == pid and r["metric"] == metric), key=lambda t: t[1])
        values = [v for v, _ in cell]
        lower_better = metric in ("rootMeanSquaredError", "meanAbsoluteError")
        assert values == sorted(values, reverse=not lower_better)
        assert cell[0][1] == 1


OUTPUTS = ("scores.csv", "aggregates.csv", "failures.csv", "comparisons.csv", "summary.json",
           "leaderboard.html")


@pytest.mark.slow
def test_local_pool_equals_serial_byte_for_byte(campaign, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    root, p, s = campaign
    a, b = root / "out_a", root / "out_b"
    assert _evaluate(p, s, a, "--workers", "1", "--no-cache") == 0
    assert _evaluate(p, s, b, "--workers", "2", "--no-cache") == 0
    for name in OUTPUTS:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


@pytest.mark.slow
def test_dask_local_cluster_equals_local_pool_byte_for_byte(campaign, monkeypatch):
    distributed = pytest.importorskip("distributed")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    from d3mkit.evaluate.campaign import run_campaign
    from d3mkit.io.executor import make_executor
    root, p, s = campaign
    with make_executor(workers=2) as ex:
        run_campaign(p, s, root / "pool", ex, use_cache=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            make_executor(scheduler=cluster.scheduler_address) as ex:
        assert ex.kind == "dask" and ex.workers == 2
        run_campaign(p, s, root / "dask", ex, use_cache=False)
        assert "run_chunk" in cluster.scheduler.task_prefixes
    for name in OUTPUTS:
        assert (root / "pool" / name).read_bytes() == (root / "dask" / name).read_bytes(), name


@pytest.mark.slow
def test_rerun_rescores_only_the_problems_that_changed(tmp_path):
    """The unit of the cache is the problem (its comparisons depend on every submission):
    a re-run scores only the problems whose problem files or submissions changed."""
    from d3mkit.evaluate.campaign import Params, run_campaign
    from d3mkit.io.executor import make_executor
    p, s = make_campaign(tmp_path, systems=2, problems=2, rows=20, seed=1, malformed=0)
    out = tmp_path / "out"
    ex = make_executor(workers=1)
    first = run_campaign(p, s, out, ex)
    assert (first.scored, first.reused) == (4, 0)
    before = (out / "scores.csv").read_bytes()
    again = run_campaign(p, s, out, ex)
    assert (again.scored, again.reused) == (0, 4)
    assert (out / "scores.csv").read_bytes() == before
    f = s / "system_01" / "synth_000_problem" / "predictions.csv"      # a changed file
    f.write_text(f.read_text().replace(",a\n", ",b\n"))
    third = run_campaign(p, s, out, ex)
    assert (third.scored, third.reused) == (2, 2)
    shutil.copytree(s / "system_00", s / "system_new")                  # a new system: every problem
    assert (run_campaign(p, s, out, ex).scored) == 6
    cache = json.loads((out / ".evaluate-cache.json").read_text())      # a tampered entry
    key = sorted(cache["entries"])[0]
    cache["entries"][key]["outcomes"][0][1] = [["accuracy", "accuracy"]]
    (out / ".evaluate-cache.json").write_text(json.dumps(cache))
    assert run_campaign(p, s, out, ex).scored == 3
    truth = p / "synth_001" / "synth_001_problem" / "dataSplits.csv"  # a changed problem
    truth.write_text(truth.read_text().replace("1,TEST", "1,TRAIN", 1))
    assert run_campaign(p, s, out, ex).scored == 3
    assert run_campaign(p, s, out, ex, params=Params(bootstrap=10)).scored == 6   # other statistics
    (out / ".evaluate-cache.json").write_text("{not json")                # a broken cache
    assert run_campaign(p, s, out, ex).scored == 6


WEIRD = '<b onclick="x">&$\\alpha$'


def _bad_tree(tmp_path):
    p, s = make_campaign(tmp_path, systems=2, problems=3, rows=20, seed=2, malformed=0)
    good = (s / "system_00" / "synth_000_problem" / "predictions.csv").read_text()
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "predictions.csv").write_text(good)
    (s / "README.txt").write_text("stray")                                     # stray at the root
    (s / "system_00" / "notes.txt").write_text("stray")                        # stray in a system
    os.symlink(outside, s / "linked_system")                                   # system leaves the tree
    (s / "system_01" / "synth_001_problem" / "predictions.csv").unlink()
    os.symlink(outside / "predictions.csv",
               s / "system_01" / "synth_001_problem" / "predictions.csv")      # file leaves the tree
    for name in ("Clash", "clash"):                                             # names differing in case
        shutil.copytree(s / "system_00", s / name)
    weird = s / WEIRD                                                           # submitter-chosen name
    shutil.copytree(s / "system_00", weird)
    os.unlink(weird / "synth_000_problem" / "predictions.csv")
    os.mkfifo(weird / "synth_000_problem" / "predictions.csv")                  # a FIFO: never opened
    (weird / "unknown_problem_id").mkdir()
    (weird / "unknown_problem_id" / "predictions.csv").write_text(good)
    big = s / "big"
    (big / "synth_000_problem").mkdir(parents=True)
    (big / "synth_000_problem" / "predictions.csv").write_text(good + "9" * 3_000_000)
    run = s / "pipes" / "run-7f3a"                                              # D3M pipeline run layout
    run.mkdir(parents=True)
    (run / "predictions.csv").write_text(good)
    (run / "pipelineDoc.json").write_text(json.dumps({"problemID": "synth_000_problem"}))
    (s / "pipes" / "run-bad").mkdir()
    (s / "pipes" / "run-bad" / "pipelineDoc.json").write_text("{not json")
    (s / "pipes" / "synth_001_problem").mkdir()                                # entry without a file
    dup = s / "dups"
    for d in ("synth_000_problem", "run-x"):
        (dup / d).mkdir(parents=True)
        (dup / d / "predictions.csv").write_text(good)
    (dup / "run-x" / "pipelineDoc.json").write_text(json.dumps({"problem": {"problemID": "synth_000_problem"}}))
    os.mkdir(bytes(s) + b"/bad\xffname")                                       # not UTF-8
    shutil.copytree(p / "synth_002", p / "copy_of_002")                        # duplicate problemID
    return p, s


@pytest.mark.slow
def test_bad_submission_trees_are_failure_rows(tmp_path, capsys):
    p, s = _bad_tree(tmp_path)
    out = tmp_path / "out"
    assert _evaluate(p, s, out, "--workers", "2", "--max-size-mb", "1") == 0
    rows = _read(out / "failures.csv")
    codes = {(r["system"], r["problemID"], r["code"]) for r in rows}

    def has(system, code, problem=None):
        return any(c[0] == system and c[2] == code and (problem is None or c[1] == problem)
                   for c in codes)
    assert has("README.txt", "submission.stray")
    assert has("system_00", "submission.stray", "notes.txt")
    assert has("linked_system", "path.outside_tree")
    assert has("Clash", "system.case_clash") and has("clash", "system.case_clash")
    weird = WEIRD
    assert has(weird, "file.not_regular", "synth_000_problem")
    assert has(weird, "submission.unknown_problem", "unknown_problem_id")
    assert has("big", "file.too_large", "synth_000_problem")
    assert has("pipes", "submission.bad_pipeline", "run-bad")
    assert has("pipes", "submission.no_predictions", "synth_001_problem")
    assert has("dups", "submission.duplicate", "synth_000_problem")
    assert has("bad\\xffname", "name.encoding")
    assert has("", "problem.duplicate_id", "synth_002_problem")
    assert has("system_00", "submission.unknown_problem", "synth_002_problem")
    from d3mkit.core.codes import CODES   # every code in failures.csv is in the one catalogue
    assert {c[2] for c in codes} <= set(CODES), {c[2] for c in codes} - set(CODES)
    # the good submissions are scored; nothing behind a bad name or link is
    scored = {(r["system"], r["problemID"]) for r in _read(out / "scores.csv")}
    assert scored == {("system_00", "synth_000_problem"), ("system_00", "synth_001_problem"),
                      ("system_01", "synth_000_problem"), ("pipes", "synth_000_problem"),
                      (weird, "synth_001_problem")}
    page = (out / "leaderboard.html").read_text(encoding="utf-8")
    assert WEIRD not in page and "&lt;b onclick=&quot;x&quot;&gt;&amp;$\\alpha$" in page


def test_pipeline_run_layout_is_scored(tmp_path):
    p, s = make_campaign(tmp_path, systems=1, problems=1, rows=20, seed=3, malformed=0)
    (s / "system_00" / "synth_000_problem").rename(s / "system_00" / "pipeline-1")
    (s / "system_00" / "pipeline-1" / "pipelineDoc.json").write_text(
        json.dumps({"id": "pipeline-1", "problemID": "synth_000_problem"}))
    assert _evaluate(p, s, tmp_path / "out", "--workers", "1") == 0
    assert {r["problemID"] for r in _read(tmp_path / "out" / "scores.csv")} == {"synth_000_problem"}
    assert _read(tmp_path / "out" / "failures.csv") == []


@pytest.mark.slow
def test_unusable_problem_fails_its_submissions_not_the_campaign(tmp_path):
    p, s = make_campaign(tmp_path, systems=2, problems=2, rows=20, seed=4, malformed=0)
    (p / "synth_001" / "synth_001_dataset" / "tables" / "learningData.csv").write_text("garbage\n")
    assert _evaluate(p, s, tmp_path / "out", "--workers", "1") == 0
    rows = _read(tmp_path / "out" / "failures.csv")
    assert {(r["system"], r["code"]) for r in rows if r["problemID"] == "synth_001_problem"} == \
        {("system_00", "problem.unusable"), ("system_01", "problem.unusable")}
    assert len(_read(tmp_path / "out" / "scores.csv")) == 4


@pytest.mark.parametrize("extra,words", [
    (["--workers", "0"], "--workers must be at least 1"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "not both"),
])
def test_usage_errors(campaign, capsys, extra, words):
    root, p, s = campaign
    assert _evaluate(p, s, root / "o_usage", *extra) == 2
    assert words in capsys.readouterr().err


def test_out_inside_the_submissions_is_refused(campaign, capsys):
    root, p, s = campaign
    assert _evaluate(p, s, s / "results") == 2
    assert "outside --submissions" in capsys.readouterr().err
    assert not (s / "results").exists()


@pytest.mark.slow
def test_missing_submissions_rank_last(tmp_path):
    p, s = make_campaign(tmp_path, systems=3, problems=2, rows=20, seed=6, malformed=0)
    shutil.rmtree(s / "system_02" / "synth_000_problem")
    assert _evaluate(p, s, tmp_path / "out", "--workers", "1") == 0
    rows = _read(tmp_path / "out" / "failures.csv")
    assert rows == [{"system": "system_02", "problemID": "synth_000_problem",
                     "code": "submission.missing", "message": "no submission"}]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads every file")
def test_unreadable_file_is_a_failure_row(tmp_path):
    p, s = make_campaign(tmp_path, systems=1, problems=1, rows=20, seed=7, malformed=0)
    f = s / "system_00" / "synth_000_problem" / "predictions.csv"
    f.chmod(0)
    try:
        assert _evaluate(p, s, tmp_path / "out", "--workers", "1") == 0
    finally:
        f.chmod(0o644)
    assert [r["code"] for r in _read(tmp_path / "out" / "failures.csv")] == ["file.unreadable"]


def test_the_page_is_a_function_of_the_leaderboard_model():
    """The renderer needs no campaign and no files (a server builds the model itself)."""
    from d3mkit.evaluate.leaderboard import Cell, Leaderboard, MetricInfo, ProblemRow, ProblemTable, SystemRow, render
    model = Leaderboard(
        title="t", generated="2026-01-01 00:00 UTC", version="x", parameters={"bootstrap": 10},
        counts={"systems": 2, "problems": 1, "scored": 1, "failed": 0, "missing": 1, "failure_rows": 1},
        overall=[SystemRow("a<b", 1, 1.0, 1.0, 1, 0), SystemRow("c", 2, 2.0, 0.0, 0, 0, True)],
        systems=["a<b", "c"], problems=["p"], heat={("a<b", "p"): (1, 0.75)}, friedman=None,
        critical_difference=None, mean_ranks={"a<b": 1.0, "c": 2.0},
        tables=[ProblemTable("p", [MetricInfo("accuracy", "higher", "share right")], 1,
                             [ProblemRow("a<b", "scored", [Cell(0.75, float("nan"), 0.6, 0.9, 1, 1)], "best"),
                              ProblemRow("c", "missing", [None])], True)],
        failure_counts=[("submission.missing", 1)], failure_rows=[], links=["scores.csv"])
    page = render(model)
    assert page == render(model) and page.endswith("</html>\n")
    assert "a<b" not in page and 'title="a&lt;b"' in page
    assert '<td class="heat r1" data-v="1">1<small>0.75</small></td>' in page     # number in the cell
    assert "0.75 [0.6, 0.9]" in page and ">missing<" in page and "share right" in page
    assert 'href="scores.csv"' in page and "higher is better" in page
