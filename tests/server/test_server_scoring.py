"""The server's worker scoring (d3mkit.server.scoring): one read and one alignment per
submission, each part's scores computed on that part's rows, equal to ``d3mkit score`` of
a file of those rows against the truth of the same rows — also when a label occurs only in
the other part (f1Macro's label union), and through the file path a layout without
per-row arrays takes. Skipped without the ``[server]`` extra (the challenge is made by the
command)."""

from __future__ import annotations

import pandas as pd
import pytest

from server_helpers import expected_scores, make_challenge, need_server_extra

need_server_extra()

from d3mkit.server.challenge import open_challenge  # noqa: E402
from d3mkit.server.scoring import scorer, score_job  # noqa: E402

PID = "synth_000_problem"      # classification: accuracy, f1Macro
PID_REG = "synth_001_problem"  # regression: RMSE, MAE


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    return make_challenge(tmp_path_factory.mktemp("sc"), rows=60, teams=())


def _job(ch, pid, path, parts=("public", "private")):
    return {"id": "x", "predictions": str(path), "truth": ch.truth(pid), "check": True, "parts": list(parts)}


@pytest.mark.slow
def test_each_part_scores_like_d3mkit_score_of_its_rows(made, tmp_path):
    problems, subs, root, _ = made
    ch = open_challenge(root)
    private = set(pd.read_csv(ch.truth(PID)["private"], dtype=str)["d3mIndex"])
    df = pd.read_csv(subs / "system_00" / PID / "predictions.csv", dtype=str, keep_default_na=False)
    # a label only in the private rows' predictions: the public f1Macro must not count it
    df.loc[df["d3mIndex"].isin(sorted(private)[:3]), "y"] = "only_private"
    odd = tmp_path / "odd.csv"
    df.to_csv(odd, index=False)
    cases = [(PID, odd)] + [(pid, subs / f"system_{k:02d}" / pid / "predictions.csv")
                            for k in (0, 1) for pid in (PID, PID_REG)]
    for pid, path in cases:
        got = score_job(_job(ch, pid, path))
        assert got["status"] == "scored", got
        for part in ("public", "private"):
            want = expected_scores(problems, root, pid, path, part)
            assert {s["metric"]: s["value"] for s in got["scores"][part]} == pytest.approx(want, abs=1e-12), (pid, part)


@pytest.mark.slow
def test_the_file_path_gives_the_same_scores(made):
    problems, subs, root, _ = made
    ch = open_challenge(root)
    for pid in (PID, PID_REG):
        path = subs / "system_02" / pid / "predictions.csv"
        sc = scorer(ch.truth(pid))
        report, aligned = sc.check(path)
        for part in ("public", "private"):
            fast = {s.label: s.value for s in sc.score_part(aligned, path, part).scores}
            slow = {s.label: s.value for s in sc.score_part(None, path, part).scores}
            assert fast == pytest.approx(slow, abs=1e-12)


def test_the_prepared_problem_is_kept_and_renewed_when_its_truth_changes(made):
    _, _, root, _ = made
    ch = open_challenge(root)
    truth = ch.truth(PID)
    a = scorer(truth)
    assert scorer(truth) is a
    import os
    st = os.stat(truth["all"])
    os.utime(truth["all"], ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert scorer(truth) is not a


def _with_metadata_metric(problems, name="synth_000", samples=True):
    """The campaign's classification root with a metric reading ``<name>_debug/samples.csv``."""
    import json
    root = problems / name
    doc = root / f"{name}_problem" / "problemDoc.json"
    d = json.loads(doc.read_text())
    d["inputs"]["performanceMetrics"].append({"metric": "other", "specifyOther": "heldOutShapeAccuracy"})
    doc.write_text(json.dumps(d, indent=2))
    if samples:
        ld = pd.read_csv(root / f"{name}_dataset" / "tables" / "learningData.csv", dtype=str)
        debug = root / f"{name}_debug"
        debug.mkdir(exist_ok=True)
        pd.DataFrame({"d3mIndex": ld["d3mIndex"],
                      "trainedTransformed": ["true" if int(i) % 3 else "false" for i in ld["d3mIndex"]]}
                     ).to_csv(debug / "samples.csv", index=False)


@pytest.mark.slow
def test_a_metric_reading_debug_metadata_is_scored_from_the_copy_kept_beside_the_truth(tmp_path, monkeypatch):
    import io
    from d3mkit.cli import main
    monkeypatch.setenv("D3MKIT_FSYNC", "0")
    from d3mkit.evaluate.synthetic import make_campaign
    problems, subs = make_campaign(tmp_path / "c", systems=2, problems=1, rows=60, seed=3, malformed=0)
    _with_metadata_metric(problems)
    root = tmp_path / "challenge"
    with pytest.MonkeyPatch.context() as m:
        m.setattr("sys.stdout", io.StringIO())
        assert main(["challenge", "create", "--problems", str(problems), "--out", str(root), "--seed", "5"]) == 0
    ch = open_challenge(root)
    assert ch.problems[PID].metadata == ("samples.csv",)
    assert (root / "private" / "p000" / "debug" / "samples.csv").is_file()
    path = subs / "system_01" / PID / "predictions.csv"
    got = score_job(_job(ch, PID, path))
    assert got["status"] == "scored", got
    for part in ("public", "private"):
        want = expected_scores(problems, root, PID, path, part)
        assert "heldOutShapeAccuracy" in want
        assert {s["metric"]: s["value"] for s in got["scores"][part]} == pytest.approx(want, abs=1e-12)


def test_challenge_create_refuses_a_metric_whose_metadata_is_missing(tmp_path, capsys):
    from d3mkit.cli import main
    from d3mkit.evaluate.synthetic import make_campaign
    problems, _ = make_campaign(tmp_path / "c", systems=1, problems=1, rows=40, seed=3, malformed=0)
    _with_metadata_metric(problems, samples=False)
    code = main(["challenge", "create", "--problems", str(problems), "--out", str(tmp_path / "ch")])
    err = capsys.readouterr().err
    assert code == 1 and "challenge.metadata" in err and "samples.csv" in err and "synth_000_debug" in err
    assert not (tmp_path / "ch").exists()
