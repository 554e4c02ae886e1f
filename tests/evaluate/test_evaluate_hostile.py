"""``d3mkit evaluate`` under the mistakes and attacks of issue 25: nothing to score, swapped
arguments, names that collide when cut or hold control characters, a full disk and a
second run at the same time, Ctrl-C, unreadable folders, files outside ``tables/``, dot
directories, ``--max-size-mb inf``; and the exit policy, the summary and ``--quiet``."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from d3mkit.cli import main
from d3mkit.evaluate.synthetic import make_campaign

REPO = Path(__file__).resolve().parents[2]


def _read(path: Path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def _evaluate(p, s, out, *extra) -> int:
    return main(["evaluate", "--problems", str(p), "--submissions", str(s), "--out", str(out),
                 "--workers", "1", "--bootstrap", "50", *extra])


def _digests(out: Path) -> dict:
    return {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in sorted(out.iterdir())}


@pytest.fixture
def small(tmp_path):
    p, s = make_campaign(tmp_path, systems=3, problems=2, rows=30, seed=21, malformed=0)
    return tmp_path, p, s


# ----------------------------------------------------------------------- nothing to score
@pytest.mark.parametrize("case", ["empty", "duplicate_ids", "swapped"])
def test_nothing_scored_exits_1_with_one_line_and_whole_outputs(small, capsys, case):
    tmp, p, s = small
    if case == "empty":
        p = tmp / "empty"
        p.mkdir()
    elif case == "duplicate_ids":
        import shutil
        for name in ("synth_000", "synth_001"):
            shutil.copytree(p / name, tmp / "dup" / "a" / name)
            shutil.copytree(p / name, tmp / "dup" / "b" / name)
        p = tmp / "dup"
    else:
        p, s = s, p
    out = tmp / "out"
    assert _evaluate(p, s, out, "--quiet") == 1
    assert capsys.readouterr().err == ""                        # --quiet: not even this
    assert _evaluate(p, s, out) == 1
    err = capsys.readouterr().err
    assert "internal error" not in err and "Traceback" not in err
    assert "[evaluate.nothing_scored] nothing was scored" in err
    for name in ("scores.csv", "aggregates.csv", "failures.csv", "comparisons.csv", "summary.json",
                 "leaderboard.html"):
        assert (out / name).is_file(), name
    assert "</html>" in (out / "leaderboard.html").read_text()


# ----------------------------------------------------------------------- exit policy, summary
@pytest.mark.slow
def test_fail_on_policy_summary_and_quiet(small, capsys):
    tmp, p, s = small
    (s / "system_02" / "synth_001_problem" / "predictions.csv").write_text("d3mIndex,y\n")
    import shutil
    shutil.rmtree(s / "system_01" / "synth_000_problem")
    out = tmp / "out"
    assert _evaluate(p, s, out) == 0                             # default: none
    captured = capsys.readouterr()
    line = captured.err.strip()
    assert line.startswith("3 systems x 2 problems = 6 submissions: 4 complete, 0 partial, 1 failed, 1 missing; "
                           "folds: 4 of 6 scored, 1 failed, 1 missing;"), line
    assert line.count("scored") == 1                             # one count of the folds scored
    # the output paths (results.parquet where pyarrow is installed)
    import importlib.util
    assert len(captured.out.splitlines()) == 7 + (importlib.util.find_spec("pyarrow") is not None)
    assert _evaluate(p, s, out, "--fail-on", "failures") == 1
    assert _evaluate(p, s, out, "--fail-on", "missing") == 1
    capsys.readouterr()
    assert _evaluate(p, s, out, "--fail-on", "none", "--quiet") == 0
    assert capsys.readouterr() == ("", "")


# ----------------------------------------------------------------------- names
def test_labels_of_long_names_never_collide():
    from d3mkit.evaluate.leaderboard import short_labels
    names = [f"visudo_mnist_basic_overlap_{k:03d}_split_s{j}_problem" for k in range(5) for j in range(3)]
    names += ["a" * 40, "a" * 41, "a" * 20 + "…" + "a" * 7]
    labels = short_labels(names)
    assert len(set(labels.values())) == len(names)
    assert all(len(lab) <= len(n) for n, lab in labels.items())


def test_control_characters_in_names_are_refused_and_shown_escaped(small, capsys):
    tmp, p, s = small
    import shutil
    shutil.copytree(s / "system_00", s / "evil\nname")
    shutil.copytree(s / "system_00", s / "red\x1b[31mtext")
    os.rename(s / "system_01" / "synth_000_problem", s / "system_01" / "synth_000\rproblem")
    out = tmp / "out"
    assert _evaluate(p, s, out) == 0
    captured = capsys.readouterr()
    assert "\x1b" not in captured.err + captured.out
    rows = _read(out / "failures.csv")
    codes = {(r["system"], r["problemID"], r["code"]) for r in rows}
    assert ("evil\\x0aname", "", "name.control") in codes
    assert ("red\\x1b[31mtext", "", "name.control") in codes
    assert ("system_01", "synth_000\\x0dproblem", "name.control") in codes
    raw = (out / "failures.csv").read_text() + (out / "leaderboard.html").read_text()
    assert "\x1b" not in raw and "\r" not in raw
    assert {r["system"] for r in _read(out / "scores.csv")} == {"system_00", "system_01", "system_02"}


def test_dot_directories_are_skipped(small):
    tmp, p, s = small
    (s / ".git" / "objects").mkdir(parents=True)
    (s / ".DS_Store").write_text("x")
    (s / "system_00" / ".ipynb_checkpoints").mkdir()
    out = tmp / "out"
    assert _evaluate(p, s, out, "--quiet") == 0
    assert _read(out / "failures.csv") == []
    assert ".git" not in (out / "leaderboard.html").read_text()


@pytest.mark.parametrize("value", ["inf", "nan", "-1", "0"])
def test_max_size_mb_must_be_a_finite_positive_number(small, capsys, value):
    tmp, p, s = small
    assert _evaluate(p, s, tmp / "out", "--max-size-mb", value) == 2
    assert "--max-size-mb must be a positive number" in capsys.readouterr().err
    assert not (tmp / "out").exists()


# ----------------------------------------------------------------------- unreadable folders
@pytest.mark.slow
def test_unreadable_system_folder_is_a_row_not_an_abort(small, monkeypatch):
    from d3mkit.evaluate.campaign import run_campaign
    from d3mkit.io.executor import make_executor
    tmp, p, s = small
    real = Path.iterdir

    def iterdir(self):
        if self.name == "system_01":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)
    monkeypatch.setattr(Path, "iterdir", iterdir)
    camp = run_campaign(p, s, tmp / "out", make_executor(workers=1))
    rows = [(f.system, f.code) for f in camp.failures]
    assert rows == [("system_01", "file.unreadable")]
    assert "cannot list the directory: Permission denied" in camp.failures[0].message
    assert {o.system for o in camp.outcomes if o.scores} == {"system_00", "system_02"}


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads every directory")
def test_unreadable_system_folder_for_real(small):
    tmp, p, s = small
    (s / "system_01").chmod(0)
    try:
        assert _evaluate(p, s, tmp / "out", "--quiet") == 0
    finally:
        (s / "system_01").chmod(0o755)
    assert [(r["system"], r["code"]) for r in _read(tmp / "out" / "failures.csv")] == \
        [("system_01", "file.unreadable")]


# ----------------------------------------------------------------------- the cache key
@pytest.mark.slow
def test_cache_key_covers_learning_data_outside_tables_and_the_limits(tmp_path):
    from d3mkit.evaluate.campaign import run_campaign
    from d3mkit.io.executor import make_executor
    p, s = make_campaign(tmp_path, systems=2, problems=1, rows=30, seed=22, malformed=0)
    ddir = p / "synth_000" / "synth_000_dataset"
    (ddir / "data").mkdir()
    os.rename(ddir / "tables" / "learningData.csv", ddir / "data" / "learningData.csv")
    (ddir / "tables").rmdir()
    doc = json.loads((ddir / "datasetDoc.json").read_text())
    doc["dataResources"][0]["resPath"] = "data/learningData.csv"
    (ddir / "datasetDoc.json").write_text(json.dumps(doc))
    ex = make_executor(workers=1)
    out = tmp_path / "out"
    first = run_campaign(p, s, out, ex)
    assert first.scored == 2 and not first.failures
    before = (out / "scores.csv").read_text()
    assert run_campaign(p, s, out, ex).scored == 0
    data = ddir / "data" / "learningData.csv"
    lines = data.read_text().splitlines()
    idx, x, y = lines[2].split(",")                                # row 1 is TEST
    lines[2] = ",".join([idx, x, "b" if y != "b" else "c"])
    data.write_text("\n".join(lines) + "\n")
    again = run_campaign(p, s, out, ex)
    assert again.scored == 2 and (out / "scores.csv").read_text() != before
    assert run_campaign(p, s, out, ex, max_bytes=10 ** 6).scored == 2    # another limit in force
    os.environ["D3MKIT_MAX_COLUMNS"] = "50"
    try:
        assert run_campaign(p, s, out, ex, max_bytes=10 ** 6).scored == 2
    finally:
        del os.environ["D3MKIT_MAX_COLUMNS"]


# ----------------------------------------------------------------------- outputs commit together
@pytest.mark.slow
def test_a_full_disk_leaves_the_previous_outputs_whole(small, monkeypatch, capsys):
    import errno
    tmp, p, s = small
    out = tmp / "out"
    assert _evaluate(p, s, out, "--quiet") == 0
    before = _digests(out)
    (s / "system_00" / "synth_000_problem" / "predictions.csv").write_text("d3mIndex,y\n")
    real = Path.write_text

    def write_text(self, text, *a, **k):
        if self.name == "leaderboard.html":
            raise OSError(errno.ENOSPC, "No space left on device", str(self))
        return real(self, text, *a, **k)
    monkeypatch.setattr(Path, "write_text", write_text)
    assert _evaluate(p, s, out, "--quiet") == 2
    err = capsys.readouterr().err
    assert "No space left on device" in err and "Traceback" not in err
    assert _digests(out) == before                                # the old run, whole
    assert sorted(x.name for x in tmp.iterdir() if x.name.startswith(".out")) == []


def _run_cli(args, **kw):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen([sys.executable, "-m", "d3mkit", "evaluate", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


@pytest.mark.slow
def test_two_concurrent_runs_never_mix_their_outputs(tmp_path):
    pa, sa = make_campaign(tmp_path / "a", systems=2, problems=3, rows=400, seed=23, malformed=0,
                           names=["alpha_one", "alpha_two"])
    pb, sb = make_campaign(tmp_path / "b", systems=2, problems=3, rows=400, seed=24, malformed=0,
                           names=["beta_one", "beta_two"])
    out = tmp_path / "out"
    for _ in range(3):
        procs = [_run_cli(["--problems", str(p), "--submissions", str(s), "--out", str(out), "--workers", "1",
                           "--quiet", "--no-cache"]) for p, s in ((pa, sa), (pb, sb))]
        for pr in procs:
            pr.communicate(timeout=300)
            assert pr.returncode == 0
        systems = {r["system"] for r in _read(out / "scores.csv")}
        page = (out / "leaderboard.html").read_text()
        summary = json.loads((out / "summary.json").read_text())
        assert systems in ({"alpha_one", "alpha_two"}, {"beta_one", "beta_two"})
        assert set(summary["systems"]) == systems
        assert all(f'title="{name}"' in page for name in systems)
        assert not any(x.name.startswith(".out.") for x in tmp_path.iterdir())


@pytest.mark.slow
def test_ctrl_c_prints_one_line_and_exits_130(tmp_path):
    p, s = make_campaign(tmp_path, systems=6, problems=8, rows=20_000, seed=25, malformed=0)
    # SIGINT's default disposition in the child, as under a terminal: a process started in the
    # background of a shell, or by a pytest-xdist worker, inherits SIGINT ignored (and Python
    # then keeps it ignored, rightly: nohup's rule)
    proc = _run_cli(["--problems", str(p), "--submissions", str(s), "--out", str(tmp_path / "out"),
                     "--workers", "2", "--bootstrap", "20000"], start_new_session=True,
                    preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # interrupt once the workers run (a fixed sleep raced a fast machine, which had finished)
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            if children.read_text().split():
                break
        except OSError:
            pass
        time.sleep(0.05)
    time.sleep(1.0)
    assert proc.poll() is None, proc.communicate()
    os.killpg(proc.pid, signal.SIGINT)                            # as a terminal does: the whole group
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err == "interrupted\n", err
    assert not (tmp_path / "out").exists()
