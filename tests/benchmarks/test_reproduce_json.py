"""``d3mkit reproduce NAME --format json`` (issue 19 item 4): one document listing what was
reproduced or checked — the files written, the checks and their result, the figures
compared with the paper's — with the text mode's exit code; an error is the
``{"issues": [...]}`` document every command prints. The reports are rendered from small
run logs written here (``--from-csv``: no torch, no training); one tiny real run (one
network on CPU) and ``problems --check`` are slow."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from d3mkit.cli import main

REPO = Path(__file__).resolve().parents[2]


def _json(argv, capsys, code: int = 0):
    got = main([*map(str, argv), "--format", "json"])
    out, err = capsys.readouterr()
    assert got == code, (got, out, err)
    return json.loads(out), err


def _abstraction_log(out: Path) -> None:
    """Table 1's run log: rows Rotated and Original at n_train 250, two repetitions each."""
    from d3mkit.benchmarks.abstraction.reproduce import CSV_COLUMNS
    rows = [{"table": 1, "row": row, "transform": tr, "k": 0, "noise": 0, "testNoise": 0, "nTrain": 250,
             "nTest": 250, "rep": rep, "accuracy": acc, "expected": "", "chanceCorrected": "",
             "heldOut": "", "seconds": 1.0}
            for row, tr, accs in (("Original", "none", (0.95, 0.999)), ("Rotated", "rotation", (0.05, 0.07)))
            for rep, acc in enumerate(accs)]
    out.mkdir(parents=True)
    pd.DataFrame(rows, columns=list(CSV_COLUMNS)).to_csv(out / "abstraction_table1.csv", index=False)


def test_abstraction_lists_the_report_and_every_cell_beside_the_paper(tmp_path, capsys):
    out = tmp_path / "r"
    _abstraction_log(out)
    doc, err = _json(["reproduce", "abstraction", "--table", "1", "--out", out, "--from-csv"], capsys)
    assert doc["reproducer"] == "abstraction" and doc["exit_code"] == 0 and doc["checks"] == []
    assert doc["written"] == [str(out / "abstraction_table1.md")]      # the log was read, not written
    cells = {f["name"]: f for f in doc["figures"]}
    assert set(cells) == {"Table 1, Original, n_train 250", "Table 1, Rotated, n_train 250"}
    orig, rot = cells["Table 1, Original, n_train 250"], cells["Table 1, Rotated, n_train 250"]
    # the paper's way: each accuracy truncated to a percent (95, 99), mean and sd (ddof 0)
    assert (orig["ours"], orig["ours_sd"], orig["paper"], orig["paper_sd"]) == (97.0, 2.0, 91.6, 12.08)
    assert orig["agrees"] is True and rot["agrees"] is False and rot["paper"] == 40.4
    assert orig["metric"] == "test accuracy (%)"
    md = (out / "abstraction_table1.md").read_text()   # the report says what the document says
    assert "**1 of 2 cells within two" in md and "| 97.0 ± 2.0 | 91.6 ± 12.1 | ✓ |" in md
    assert str(out / "abstraction_table1.md") in err    # the text-mode lines went to stderr


def test_text_mode_prints_what_it_printed_before(tmp_path, capsys):
    out = tmp_path / "r"
    _abstraction_log(out)
    assert main(["reproduce", "abstraction", "--table", "1", "--out", str(out), "--from-csv"]) == 0
    assert capsys.readouterr().out == f"{out / 'abstraction_table1.md'}\n"


def test_visudo_lists_table3_beside_the_paper_and_figure8(tmp_path, capsys):
    from d3mkit.benchmarks.visudo.reproduce import CSV_COLUMNS
    out = tmp_path / "r"
    out.mkdir()
    rows = [{"overlap": w, "split": k, "model": m, "rocAuc": auc, "accuracy": 0.5, "epochs": 1,
             "distinctTrainImages": 48, "trainCells": 48, "seconds": 1.0}
            for w, k, m, auc in ((0, 0, "digit", 0.6), (0, 1, "digit", 0.8), (1, 0, "digit", 0.9),
                                 (0, 0, "nesy", 0.7))]
    pd.DataFrame(rows, columns=list(CSV_COLUMNS)).to_csv(out / "visudo_overlap.csv", index=False)
    doc, _ = _json(["reproduce", "visudo", "--source", "digits", "--out", out, "--from-csv"], capsys)
    assert doc["written"] == [str(out / "visudo_table3.md"), str(out / "visudo_figure8.md")]
    figs = {f["name"]: f for f in doc["figures"]}
    t3 = figs["Table 3, digit"]
    assert (t3["metric"], t3["paper"], t3["paper_sd"], t3["agrees"]) == ("AuROC", 0.71, 0.04, None)
    assert t3["ours"] == pytest.approx(0.7) and t3["ours_sd"] == pytest.approx(0.1)
    assert figs["Table 3, nesy"]["paper"] == 0.88
    assert figs["Figure 8, digit, overlap 1"]["ours"] == pytest.approx(0.9)
    assert figs["Figure 8, digit, overlap 1"]["paper"] is None      # a plot without numbers
    assert "Figure 8, nesy, overlap 1" not in figs                  # no run, no figure


def test_an_empty_log_is_a_failed_check_with_exit_1(tmp_path, capsys):
    out = tmp_path / "r"
    _abstraction_log(out)
    log = out / "abstraction_table1.csv"
    log.write_text(log.read_text().splitlines()[0] + "\n")
    doc, _ = _json(["reproduce", "abstraction", "--table", "1", "--out", out, "--from-csv"], capsys, code=1)
    assert doc["exit_code"] == 1 and doc["written"] == [] and doc["figures"] == []
    assert doc["checks"] == [{"what": str(log), "passed": False, "detail": "no repetitions recorded"}]


@pytest.mark.parametrize("argv,code,issue", [
    (["reproduce", "abstraction", "--table", "1", "--out", "{tmp}/none", "--from-csv"], 2, "usage"),
    (["reproduce", "abstraction", "--table", "14", "--out", "{tmp}/r"], 2, "usage"),
    (["reproduce", "visudo", "--source", "digits", "--out", "{bad}", "--from-csv"], 1, "runlog.columns"),
])
def test_an_error_is_the_issues_document(argv, code, issue, tmp_path, capsys):
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "visudo_overlap.csv").write_text("nothing\n1\n")
    argv = [a.format(tmp=tmp_path, bad=tmp_path / "bad") for a in argv]
    doc, err = _json(argv, capsys, code=code)
    assert list(doc) == ["issues"] and doc["issues"][0]["code"] == issue, doc
    assert f"[{issue}]" in err


def test_a_usage_error_of_a_reproducer_is_the_issues_document(capsys):
    with pytest.raises(SystemExit) as info:
        main(["reproduce", "abstraction", "--tabel", "1", "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert info.value.code == 2 and doc["issues"][0]["location"] == "d3mkit reproduce abstraction"
    assert "did you mean --table?" in doc["issues"][0]["message"]


def test_a_plugin_reproducer_returning_an_exit_code_still_gets_a_document(monkeypatch, capsys):
    from d3mkit.benchmarks import plugins
    record = plugins.Reproducer(options=lambda p: p.add_argument("--fail", action="store_true"),
                                run=lambda args: 1 if args.fail else 0, description="a toy")
    monkeypatch.setattr(plugins, "reproducers", lambda: {"toy": record})
    doc, _ = _json(["reproduce", "toy", "--fail"], capsys, code=1)
    assert doc == {"reproducer": "toy", "exit_code": 1, "written": [], "checks": [], "figures": []}


@pytest.mark.slow
def test_the_cheapest_real_run_one_network_on_cpu(tmp_path, capsys):
    pytest.importorskip("torch", reason="training needs the [baselines] extra")
    out = tmp_path / "r"
    doc, err = _json(["reproduce", "visudo", "--source", "digits", "--splits", "1", "--n-train", "3",
                      "--n-test", "3", "--n-valid", "2", "--epochs", "1", "--overlaps", "0", "--models", "digit",
                      "--device", "cpu", "--out", out], capsys)
    assert doc["exit_code"] == 0 and doc["written"] == [str(out / "visudo_table3.md"), str(out / "visudo_overlap.csv")]
    assert all(Path(p).is_file() for p in doc["written"])
    (fig,) = doc["figures"]
    assert fig["name"] == "Table 3, digit" and 0 <= fig["ours"] <= 1 and fig["paper"] == 0.71
    assert "1 model(s) to train" in err


@pytest.mark.slow
def test_problems_check_lists_every_file_and_the_one_that_differs(tmp_path, capsys):
    copy = tmp_path / "problems"
    shutil.copytree(REPO / "problems", copy)
    changed = copy / "wine" / "wine_problem" / "problemDoc.json"
    changed.write_text(changed.read_text() + " ")
    doc, err = _json(["reproduce", "problems", "--check", "--problems", copy], capsys, code=1)
    assert doc["exit_code"] == 1 and doc["written"] == []
    failed = [c for c in doc["checks"] if not c["passed"]]
    assert failed == [{"what": "wine/wine_problem/problemDoc.json", "passed": False, "detail": "differs"}]
    assert len(doc["checks"]) > 20 and "1 file(s) differ" in err
