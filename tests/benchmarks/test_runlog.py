"""d3mkit.benchmarks.runlog: the one owner of a reproduction's CSV log, --resume and
--from-csv (abstraction and ViSudo-PC reproductions share it)."""

import pytest

from d3mkit.benchmarks.runlog import RunLog, results
from d3mkit.cli import main
from d3mkit.core.errors import D3MKitError, UsageError


def _log(tmp_path):
    return RunLog(tmp_path / "out" / "log.csv", ("model", "rep", "acc"), key=("model", "rep"),
                  text=("model",))


def test_start_append_resume_and_read(tmp_path):
    log = _log(tmp_path)
    assert log.start(resume=True) == set()            # no log yet: a fresh header
    assert log.path.read_text() == "model,rep,acc\n"
    log.append({"model": "cnn", "rep": 0, "acc": 0.25})
    log.append({"model": "mlp", "rep": 1, "acc": None})
    assert log.start(resume=True) == {("cnn", 0), ("mlp", 1)}
    df = log.read()
    assert df["rep"].tolist() == [0, 1] and df["acc"].isna().tolist() == [False, True]
    assert df["model"].tolist() == ["cnn", "mlp"]
    assert log.start(resume=False) == set() and len(log.read()) == 0


def test_damaged_logs_are_named_messages(tmp_path):
    log = _log(tmp_path)
    log.path.parent.mkdir()
    log.path.write_text("model,rep\ncnn,0\n")
    with pytest.raises(D3MKitError, match="lacks column.*acc") as e:
        log.read()
    assert e.value.exit_code == 1 and e.value.issues[0].code == "runlog.columns"
    log.path.write_text("model,rep,acc\ncnn,0,0.5\ncnn,one,0.5\n")
    with pytest.raises(D3MKitError, match="row 2, column rep.*'one' is not a number"):
        log.read()
    log.path.write_text('model,rep,acc\n"cnn,0,0.5\n')
    with pytest.raises(D3MKitError):
        log.read()


def test_from_csv_needs_the_log_and_no_training(tmp_path):
    log = _log(tmp_path)
    with pytest.raises(UsageError, match="from_csv: no"):
        results(log, True, lambda: pytest.fail("trained"))
    log.start(resume=False)
    assert results(log, True, lambda: pytest.fail("trained")).empty


@pytest.mark.parametrize("cmd", [["abstraction", "--table", "1"], ["visudo"]])
def test_reproducers_share_the_options(tmp_path, capsys, cmd):
    out = tmp_path / "r"
    assert main(["reproduce", *cmd, "--out", str(out), "--from-csv"]) == 2
    assert "--from-csv: no" in capsys.readouterr().err
    out.mkdir()
    name = "abstraction_table1.csv" if cmd[0] == "abstraction" else "visudo_overlap.csv"
    (out / name).write_text("nothing\n1\n")
    assert main(["reproduce", *cmd, "--out", str(out), "--from-csv"]) == 1
    err = capsys.readouterr().err
    assert name in err and "runlog.columns" in err and "Traceback" not in err
