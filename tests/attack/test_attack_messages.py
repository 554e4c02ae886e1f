"""Adversarial suite, issue class 5: untrusted text in messages. Every issue is one line:
control characters, line separators and bidi overrides from files are escaped, quoted
values are cut, numbers print as numbers, and errors name the user's path (not a
temporary sibling), including OS errors such as a full disk."""

from __future__ import annotations

import errno
import json

import pandas as pd
import pytest

from _attack_util import class_task, problem_doc, run, truth_rows

PAYLOADS = ["\n", "\r", "\r\n", "\x1b[31mRED\x1b[0m", "\x07", "\x7f", "\x9b2J", "\u2028", "\u2029",
            "\u202e", "\u2066", "\x0b", "\x0c", "\ufeff"]
RAW = [c for c in "\n\r\x1b\x07\x7f\x9b\u2028\u2029\u202e\u2066\x0b\x0c\ufeff"]


def _one_line_each(text: str) -> None:
    for line in text.splitlines():
        assert line.startswith("/") or line.startswith("index,") or line[:1].isdigit() or \
            "error [" in line or "warning [" in line, repr(line)
    for c in RAW:
        assert c not in text.replace("\n", ""), repr(c)


def _csv(path, rows):
    """Write with the csv module, every field quoted (a carriage return stays in its field)."""
    import csv
    df = pd.DataFrame(rows)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n", quoting=csv.QUOTE_ALL)
        w.writerow(df.columns)
        w.writerows(df.astype(str).itertuples(index=False))
    return path


@pytest.fixture
def task(tmp_path):
    return class_task(tmp_path)


@pytest.mark.parametrize("payload", PAYLOADS, ids=[repr(p) for p in PAYLOADS])
@pytest.mark.parametrize("channel", ["label", "column", "index", "metric"])
def test_control_characters_are_escaped(task, tmp_path, capsys, payload, channel):
    truth = truth_rows(task)
    rows = {"d3mIndex": truth["d3mIndex"].tolist(), "y": truth["y"].tolist()}
    if channel == "label":            # an unseen label is quoted in a warning
        rows["y"][0] = f"evil{payload}label"
    elif channel == "column":          # an extra column is named in a warning
        rows[f"col{payload}x"] = ["0"] * len(truth)
    elif channel == "index":           # an index outside TEST is quoted in an error
        rows["d3mIndex"][0] = f"9{payload}9"
    else:
        p = problem_doc(task)
        d = json.loads(p.read_text())
        d["inputs"]["performanceMetrics"].append({"metric": "other", "specifyOther": f"m{payload}x"})
        p.write_text(json.dumps(d))
    pred = _csv(tmp_path / "p.csv", rows)
    code, out, err = run(["score", "--problem", task, "--predictions", pred], capsys)
    assert err, "the attack must produce a message"
    _one_line_each(err)
    if channel in ("label", "column"):
        assert code == 0
    else:
        assert code == 1


@pytest.mark.slow
@pytest.mark.parametrize("size", [10_000, 1_000_000, 10_000_000])
def test_huge_label_is_cut(task, tmp_path, capsys, size):
    truth = truth_rows(task)
    labels = truth["y"].tolist()
    labels[0] = "L" * size
    pred = _csv(tmp_path / "p.csv", {"d3mIndex": truth["d3mIndex"], "y": labels})
    code, _, err = run(["score", "--problem", task, "--predictions", pred], capsys)
    assert code == 0 and "[predictions.unseen_label]" in err
    assert len(err) < 3000 and f"({size:,} characters)" in err


def test_huge_index_value_is_cut(task, tmp_path, capsys):
    truth = truth_rows(task)
    idx = truth["d3mIndex"].tolist()
    idx[0] = "7" * 100_000
    pred = _csv(tmp_path / "p.csv", {"d3mIndex": idx, "y": truth["y"]})
    code, _, err = run(["score", "--problem", task, "--predictions", pred], capsys)
    assert code == 1 and len(err) < 3000


@pytest.mark.parametrize("value", ["1.5", "-0.25", "7", "1e3"])
def test_numbers_print_as_numbers(tmp_path, capsys, value):
    frame = pd.DataFrame({"d3mIndex": range(20), "y": ["a", "b"] * 10})
    from _scoring_util import make_task
    root = make_task(tmp_path, "m", frame, ["y"], [{"metric": "rocAuc", "posLabel": "b"}], subtype="binary")
    truth = truth_rows(root)
    conf = ["0.5"] * len(truth)
    conf[1] = value
    pred = _csv(tmp_path / "p.csv", {"d3mIndex": truth["d3mIndex"], "y": ["b"] * len(truth), "confidence": conf})
    code, _, err = run(["score", "--problem", root, "--predictions", pred], capsys)
    assert code == 1 and "[predictions.confidence_range]" in err
    assert "np." not in err and str(float(value)) in err


@pytest.mark.parametrize("name", ["pred\nictions.csv", "p\x1b[2J.csv", "p\u202ecsv.exe"])
def test_path_with_control_characters(task, tmp_path, capsys, name):
    truth = truth_rows(task)
    pred = _csv(tmp_path / name, {"d3mIndex": truth["d3mIndex"], "y": truth["y"]})
    pred.write_text(pred.read_text() + "99,a\n")   # an index outside TEST: an error naming the file
    code, _, err = run(["score", "--problem", task, "--predictions", pred], capsys)
    assert code == 1
    _one_line_each(err)


def test_full_disk_names_the_output(task, tmp_path, capsys, monkeypatch):
    import builtins

    import d3mkit.io.atomic as atomic
    truth = truth_rows(task)
    pred = _csv(tmp_path / "p.csv", {"d3mIndex": truth["d3mIndex"], "y": truth["y"]})
    out = tmp_path / "scores.csv"
    real = builtins.open

    class Full:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *a):
            self.fh.close()

        def write(self, _text):
            raise OSError(errno.ENOSPC, "No space left on device")

    # every file write goes through d3mkit.io.atomic, which opens its temporary sibling with open()
    monkeypatch.setattr(atomic, "open", lambda *a, **k: Full(real(*a, **k)), raising=False)
    code, _, err = run(["score", "--problem", task, "--predictions", pred, "--out", out], capsys)
    assert code == 2 and f"{out}: error [file.os] No space left on device" in err, err
    assert not out.exists() and [p.name for p in tmp_path.iterdir() if p.name.startswith(".scores")] == []


def test_views_error_names_out_not_temporary_sibling(task, tmp_path, capsys, monkeypatch):
    import d3mkit.taskroot.views as views
    real = views.write_table

    def failing(df, path):
        if str(path).endswith("targets.csv"):
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(df, path)

    monkeypatch.setattr(views, "write_table", failing)
    out = tmp_path / "v"
    code, _, err = run(["views", task, "--out", out], capsys)
    assert code == 2 and f"{out}/SCORE/targets.csv" in err and ".tmp-" not in err, err
    assert not out.exists()


def test_message_attack_count():
    assert len(PAYLOADS) * 4 + 3 + 1 + 4 + 3 + 2 >= 60
