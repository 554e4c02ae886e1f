"""Adversarial suite, issue class 2: a small input must not cost unbounded memory or
time. Non-regular files are refused before anything opens them, every file read has a
size cap, and every size an input controls (header width, numRepeats/numFolds,
repeat/fold values, multiLabel label counts) is checked first, with an issue naming the
file and the field (exit 1). Limits come from d3mkit.io.limits and are raised by
environment variables; the tests lower them to stay small."""

from __future__ import annotations

import os
import stat
import time

import pytest

from _attack_util import class_task, dataset_doc, problem_doc, refused, run, scores

NONREG = ["fifo", "dev_zero", "dev_null", "dev_urandom", "socket", "directory"]


def _make_nonregular(path, kind):
    if path.exists() or path.is_symlink():
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        import socket
        s = socket.socket(socket.AF_UNIX)
        try:
            s.bind(str(path))
        except OSError:
            pytest.skip("cannot bind a UNIX socket here")
        finally:
            s.close()
    elif kind == "directory":
        path.mkdir()
    else:   # a character device inside the root (as root), else a symlink to the system's
        dev = "/dev/" + kind.split("_", 1)[1]
        if not os.path.exists(dev):
            pytest.skip(f"{dev} missing")
        try:
            os.mknod(path, stat.S_IFCHR | 0o644, os.stat(dev).st_rdev)
        except (PermissionError, OSError):
            path.symlink_to(dev)


@pytest.fixture
def task(tmp_path):
    root = class_task(tmp_path)
    p = problem_doc(root)
    p.write_text(p.read_text().replace('"testSize": 0.2', '"testSize": 0.5'))
    return root


def _preds(tmp_path, text="d3mIndex,y\n1,b\n3,a\n5,a\n7,b\n9,c\n11,a\n13,b\n15,a\n17,b\n19,c\n"):
    p = tmp_path / "pred.csv"
    p.write_text(text)
    return p


# which file, which command: every reader refuses a non-regular file unread
TARGETS = ["predictions", "learningData", "dataSplits", "problemDoc", "datasetDoc"]


@pytest.mark.parametrize("kind", NONREG)
@pytest.mark.parametrize("which", TARGETS)
def test_nonregular_file_in_score(task, tmp_path, capsys, kind, which):
    pred = _preds(tmp_path)
    target = {"predictions": pred,
              "learningData": task / "t_dataset" / "tables" / "learningData.csv",
              "dataSplits": task / "t_problem" / "dataSplits.csv",
              "problemDoc": problem_doc(task), "datasetDoc": dataset_doc(task)}[which]
    _make_nonregular(target, kind)
    t0 = time.monotonic()
    code, out, err = run(["score", "--problem", task / "t_problem" / "problemDoc.json",
                          "--predictions", pred, "--datasets", task / "t_dataset"], capsys)
    assert time.monotonic() - t0 < 60   # a FIFO would block forever
    assert code in (1, 2) and str(target) in err, err
    assert "[file.not_regular]" in err or (kind == "directory" and ("is_directory" in err or "[usage]" in err)), err
    assert out == ""


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "directory"])
@pytest.mark.parametrize("which", ["learningData", "dataSplits", "problemDoc", "datasetDoc"])
@pytest.mark.parametrize("cmd", ["validate", "views", "split"])
def test_nonregular_file_other_commands(task, tmp_path, capsys, kind, which, cmd):
    target = {"learningData": task / "t_dataset" / "tables" / "learningData.csv",
              "dataSplits": task / "t_problem" / "dataSplits.csv",
              "problemDoc": problem_doc(task), "datasetDoc": dataset_doc(task)}[which]
    if cmd == "split" and which == "dataSplits":
        pytest.skip("split writes dataSplits (output safety is issue class 4)")
    _make_nonregular(target, kind)
    argv = {"validate": ["validate", task], "views": ["views", task, "--out", tmp_path / "v"],
            "split": ["split", task / "t_problem", "--force"]}[cmd]
    code, out, err = run(argv, capsys)
    assert code in (1, 2), (out, err)
    assert target.name in out + err or cmd != "validate", out + err
    assert not (tmp_path / "v").exists()


@pytest.mark.parametrize("which", ["predictions", "learningData", "dataSplits"])
def test_file_size_cap(task, tmp_path, capsys, monkeypatch, which):
    pred = _preds(tmp_path)
    target = {"predictions": pred, "learningData": task / "t_dataset" / "tables" / "learningData.csv",
              "dataSplits": task / "t_problem" / "dataSplits.csv"}[which]
    with open(target, "a") as fh:   # blank lines: the largest file, same content
        fh.write("\n" * 2000)
    monkeypatch.setenv("D3MKIT_MAX_FILE_BYTES", str(target.stat().st_size - 1))
    err = refused(["score", "--problem", task, "--predictions", pred], capsys, "file.too_large", path=target)
    assert "D3MKIT_MAX_FILE_BYTES" in err
    monkeypatch.setenv("D3MKIT_MAX_FILE_BYTES", str(target.stat().st_size))
    code, out, _ = run(["score", "--problem", task, "--predictions", pred], capsys)
    assert code == 0


@pytest.mark.parametrize("doc", ["problemDoc", "datasetDoc"])
@pytest.mark.parametrize("cmd", ["validate", "score", "views"])
def test_json_size_cap(task, tmp_path, capsys, monkeypatch, doc, cmd):
    p = problem_doc(task) if doc == "problemDoc" else dataset_doc(task)
    monkeypatch.setenv("D3MKIT_MAX_JSON_BYTES", "100")
    argv = {"validate": ["validate", task], "views": ["views", task, "--out", tmp_path / "v"],
            "score": ["score", "--problem", task, "--predictions", _preds(tmp_path), "--datasets", task / "t_dataset"]}[cmd]
    code, out, err = run(argv, capsys)
    assert code in (1, 2) and "[file.too_large]" in out + err and "D3MKIT_MAX_JSON_BYTES" in out + err


@pytest.mark.parametrize("extra", [10, 1000, 8_000])
def test_wide_predictions_header(task, tmp_path, capsys, extra):
    """Extra columns are warned about and ignored; reading is linear in the header (the
    time bound here only catches a hang, it is not a benchmark)."""
    cols = ",".join(f"c{i}" for i in range(extra))
    zeros = ",".join("0" for _ in range(extra))
    rows = "".join(f"{i},{'abcab'[i % 5]},{zeros}\n" for i in range(1, 20, 2))
    pred = _preds(tmp_path, f"d3mIndex,y,{cols}\n{rows}")
    t0 = time.monotonic()
    code, out, err = run(["score", "--problem", task, "--predictions", pred], capsys)
    assert code == 0 and "[predictions.extra_column]" in err
    assert scores(out)["accuracy"] == 1.0
    assert time.monotonic() - t0 < 60


@pytest.mark.parametrize("which", ["predictions", "learningData", "dataSplits"])
def test_column_cap(task, tmp_path, capsys, monkeypatch, which):
    pred = _preds(tmp_path, "d3mIndex,y,e1,e2,e3\n" + "".join(f"{i},a,0,0,0\n" for i in range(1, 20, 2)))
    ld = task / "t_dataset" / "tables" / "learningData.csv"
    target = {"predictions": pred, "learningData": ld, "dataSplits": task / "t_problem" / "dataSplits.csv"}[which]
    if which == "learningData":   # six columns
        ld.write_text("".join(line + (",z1,z2,z3\n" if i == 0 else ",0,0,0\n")
                              for i, line in enumerate(ld.read_text().splitlines())))
    monkeypatch.setenv("D3MKIT_MAX_COLUMNS", {"predictions": "4", "learningData": "5", "dataSplits": "3"}[which])
    err = refused(["score", "--problem", task, "--predictions", pred], capsys, "csv.too_wide", path=target)
    assert "D3MKIT_MAX_COLUMNS" in err


def test_header_line_without_newline_is_bounded(task, tmp_path, capsys):
    pred = _preds(tmp_path, "d3mIndex,y," + "x" * (17 << 20))   # 17 MiB, no newline
    refused(["score", "--problem", task, "--predictions", pred], capsys, "csv.too_wide", path=pred)


SPLIT_BOMBS = [
    ("repeats_1e9", {"numRepeats": 10 ** 9}),
    ("repeats_1e18", {"numRepeats": 10 ** 18}),
    ("folds_1e9", {"method": "kFold", "numFolds": 10 ** 9}),
    ("product", {"method": "kFold", "numFolds": 200, "numRepeats": 200}),
    ("repeats_float", {"numRepeats": 1e15}),
]


@pytest.mark.parametrize("name, change", SPLIT_BOMBS, ids=[b[0] for b in SPLIT_BOMBS])
@pytest.mark.parametrize("cmd", ["validate", "split", "views"])
def test_split_count_bombs(task, tmp_path, capsys, name, change, cmd):
    import json
    p = problem_doc(task)
    d = json.loads(p.read_text())
    d["inputs"]["dataSplits"].update(change)
    p.write_text(json.dumps(d))
    argv = {"validate": ["validate", task], "split": ["split", task / "t_problem", "--force"],
            "views": ["views", task, "--out", tmp_path / "v"]}[cmd]
    t0 = time.monotonic()
    code, out, err = run(argv, capsys)
    assert time.monotonic() - t0 < 60   # a hang catcher (10^9 repeats ran for minutes), not a benchmark
    if cmd == "views":   # views reads repeat 0, fold 0 of the splits file; the counts do not matter
        assert code in (0, 1)
        return
    assert code == 1, (out, err)
    if cmd == "validate" and name == "repeats_float":
        assert "numRepeats" in out and "[schema.type]" in out
        return
    assert "[splits.too_many]" in out + err and "D3MKIT_MAX_SPLITS" in out + err
    assert str(p) in out + err


def test_split_rows_cap(task, capsys, monkeypatch):
    import json
    p = problem_doc(task)
    d = json.loads(p.read_text())
    d["inputs"]["dataSplits"].update({"method": "kFold", "numFolds": 5, "numRepeats": 3})
    p.write_text(json.dumps(d))
    monkeypatch.setenv("D3MKIT_MAX_SPLIT_ROWS", "299")   # 20 rows x 3 x 5 = 300
    err = refused(["split", task / "t_problem", "--force"], capsys, "splits.too_many", path=p)
    assert "D3MKIT_MAX_SPLIT_ROWS" in err
    monkeypatch.setenv("D3MKIT_MAX_SPLIT_ROWS", "300")
    assert run(["split", task / "t_problem", "--force"], capsys)[0] == 0


@pytest.mark.parametrize("value", ["10000", "99999999999999999999", "9223372036854775807", "1e300"])
@pytest.mark.parametrize("col", ["repeat", "fold"])
def test_huge_repeat_fold_values(task, capsys, value, col):
    p = task / "t_problem" / "dataSplits.csv"
    lines = p.read_text().splitlines()
    head = lines[0].split(",")
    cells = lines[1].split(",")
    cells[head.index(col)] = value
    lines[1] = ",".join(cells)
    p.write_text("\n".join(lines) + "\n")
    out = refused(["validate", task], capsys, "splits.value", path=p)
    assert "below 10,000" in out


@pytest.fixture
def multilabel(tmp_path):
    from _scoring_util import make_task
    import pandas as pd
    rows = [(i, lab) for i in range(12) for lab in ("ab"[i % 2], "cd"[i % 3 % 2])]
    frame = pd.DataFrame(rows, columns=["d3mIndex", "tag"])
    return make_task(tmp_path, "ml", frame, ["tag"], [{"metric": "f1Micro"}, {"metric": "hammingLoss"}],
                     subtype="multiLabel", test=list(range(1, 12, 2)))


@pytest.mark.parametrize("invented, env, value", [
    (3000, "D3MKIT_MAX_LABELS", "2000"),
    (20_000, "D3MKIT_MAX_LABELS", None),      # the 20,000 invented labels, default limits
    (500, "D3MKIT_MAX_LABEL_CELLS", "1000"),
])
def test_multilabel_label_bomb(multilabel, tmp_path, capsys, monkeypatch, invented, env, value):
    if value is not None:
        monkeypatch.setenv(env, value)
    else:
        monkeypatch.setenv("D3MKIT_MAX_LABEL_CELLS", "100000")   # 6 indices x 20,004 labels is over
    lines = ["d3mIndex,tag"] + [f"{i},x{i}_{k}" for i in range(1, 12, 2) for k in range(invented // 6 + 1)]
    pred = _preds(tmp_path, "\n".join(lines) + "\n")
    t0 = time.monotonic()
    err = refused(["score", "--problem", multilabel, "--predictions", pred], capsys,
                  "predictions.too_many_labels", path=pred)
    assert time.monotonic() - t0 < 60 and ("D3MKIT_MAX_LABEL" in err)


def test_multilabel_invented_labels_within_limits_score_right(multilabel, tmp_path, capsys):
    """Invented labels that fit the limits are scored, and right (scikit-learn)."""
    import pandas as pd
    from sklearn.metrics import f1_score, hamming_loss
    from sklearn.preprocessing import MultiLabelBinarizer
    truth = pd.read_csv(multilabel / "ml_dataset" / "tables" / "learningData.csv")
    test = [i for i in range(1, 12, 2)]
    true_sets = [set(truth.loc[truth["d3mIndex"] == i, "tag"]) for i in test]
    pred_sets = [{"ab"[i % 2]} | {f"x{k}" for k in range(i)} for i in test]
    lines = ["d3mIndex,tag"] + [f"{i},{lab}" for i, s in zip(test, pred_sets) for lab in sorted(s)]
    pred = _preds(tmp_path, "\n".join(lines) + "\n")
    code, out, err = run(["score", "--problem", multilabel, "--predictions", pred, "--format", "json"], capsys)
    assert code == 0, err
    mlb = MultiLabelBinarizer().fit(true_sets + pred_sets)
    yt, yp = mlb.transform(true_sets), mlb.transform(pred_sets)
    got = scores(out)
    assert got["f1Micro"] == pytest.approx(f1_score(yt, yp, average="micro"))
    assert got["hammingLoss"] == pytest.approx(hamming_loss(yt, yp))


@pytest.mark.parametrize("tail", [",1", ",,1", ",", ',"x,y"'])
def test_wide_predictions_with_a_ragged_row(task, tmp_path, capsys, tail):
    """Wide files parse only the scored columns; a row with too many fields is still an error."""
    extra = 1500
    zeros = ",".join("0" for _ in range(extra))
    rows = [f"{i},{'abcab'[i % 5]},{zeros}" for i in range(1, 20, 2)]
    rows[3] += tail
    pred = _preds(tmp_path, "d3mIndex,y," + ",".join(f"c{i}" for i in range(extra)) + "\n" + "\n".join(rows) + "\n")
    err = refused(["score", "--problem", task, "--predictions", pred], capsys, "csv.bad_row", path=pred)
    assert "row 5" in err
