"""``d3mkit import images``: an ImageFolder becomes an image-classification task root whose
media the task-root reader finds; every refusal of issue 21 is one line, a code, nothing written."""

from __future__ import annotations

import os
import re

import numpy as np
import pandas as pd
import pytest
from PIL import Image

import d3mkit
from _attack_util import refused, run
from d3mkit.taskroot.model import TaskRoot


def _folder(tmp_path, classes=("cat", "dog", "eel"), per=4):
    root = tmp_path / "pets"
    for k, c in enumerate(classes):
        (root / c).mkdir(parents=True)
        for i in range(per):
            Image.new("RGB", (5, 3), (k * 60, i * 20, 7)).save(root / c / f"{c}{i}.png")
    return root


def test_imagefolder_becomes_image_classification(tmp_path, capsys):
    folder = _folder(tmp_path)
    code, out, err = run(["import", "images", folder, "--out", tmp_path / "o", "--test-size", "0.25"], capsys)
    assert code == 0 and out.strip() == str(tmp_path / "o" / "pets"), err
    task = TaskRoot.open(tmp_path / "o" / "pets")
    assert (task.problem.task_type, task.problem.task_subtype) == ("classification", "multiClass")
    ld = task.learning_data()
    assert ld.columns.tolist() == ["d3mIndex", "image", "label"]
    assert sorted(ld["label"]) == ["cat"] * 4 + ["dog"] * 4 + ["eel"] * 4
    # every image under a neutral name, its pixels those of its own class's file
    assert all(re.fullmatch(r"[0-9a-f]{16}\.png", v) for v in ld["image"])
    paths = task.media_paths("image", ld)
    sources = pd.read_csv(task.root / "pets_debug" / "media_sources.csv", dtype=str).set_index("file")["source"]
    for p, label in zip(paths, ld["label"]):
        k = ("cat", "dog", "eel").index(label)
        assert sources[p.name].split("/")[0] == label
        assert np.asarray(Image.open(p))[0, 0].tolist()[::2] == [k * 60, 7]
    assert task.dataset.resource("media").res_type == "image"
    splits = task.splits()
    test = set(splits.loc[splits["type"] == "TEST", "d3mIndex"].astype(str))
    assert sorted(ld.set_index("d3mIndex").loc[sorted(test), "label"]) == ["cat", "dog", "eel"]   # stratified
    assert d3mkit.is_valid(task.root)


def test_api_and_binary(tmp_path):
    root = d3mkit.import_images(_folder(tmp_path, ("0", "1")), out=tmp_path / "o", name="bits",
                                split="kFold", folds=2)
    task = TaskRoot.open(root)
    assert task.problem.task_subtype == "binary" and task.problem.splits["numFolds"] == 2


def _bad(tmp_path, capsys, folder, code, exit_code=1, path=None):
    refused(["import", "images", folder, "--out", tmp_path / "o"], capsys, code, exit_code, path=path)
    assert not (tmp_path / "o").exists() or not [p for p in (tmp_path / "o").iterdir() if not p.name.startswith(".")]


def test_non_image(tmp_path, capsys):
    """What is not an image is skipped, listed and counted; --strict refuses it."""
    folder = _folder(tmp_path)
    (folder / "cat" / "notes.txt").write_text("hello")
    (folder / "README").write_text("x")
    (folder / "cat" / "more").mkdir()
    code, out, err = run(["import", "images", folder, "--out", tmp_path / "o"], capsys)
    assert code == 0, err
    assert "[import.skipped] 3 entries" in err and "cat/notes.txt" in err and "README" in err and "cat/more" in err
    text = refused(["import", "images", folder, "--out", tmp_path / "o2", "--strict"], capsys, "import.images")
    for name in ("notes.txt", "README", "more"):        # every problem in one run
        assert name in text


def test_every_problem_in_one_run(tmp_path, capsys):
    folder = _folder(tmp_path)
    (folder / "dog" / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\nbroken")
    (folder / "empty").mkdir()
    text = refused(["import", "images", folder, "--out", tmp_path / "o"], capsys, "image.unreadable")
    assert "[import.images]" in text and "empty" in text


def test_corrupt_image(tmp_path, capsys):
    folder = _folder(tmp_path)
    (folder / "dog" / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\nbroken")
    _bad(tmp_path, capsys, folder, "image.unreadable", path=folder / "dog" / "broken.png")


def test_empty_class(tmp_path, capsys):
    folder = _folder(tmp_path)
    (folder / "fox").mkdir()
    _bad(tmp_path, capsys, folder, "import.images", path=folder / "fox")


def test_one_class(tmp_path, capsys):
    one = _folder(tmp_path / "x", ("only",))
    _bad(tmp_path, capsys, one, "import.images", path=one)


@pytest.mark.parametrize("what", ["file", "class"])
def test_symlink_out_of_the_folder(tmp_path, capsys, what):
    folder = _folder(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    Image.new("RGB", (2, 2)).save(outside / "secret.png")
    link = folder / "cat" / "s.png" if what == "file" else folder / "stolen"
    link.symlink_to(outside / "secret.png" if what == "file" else outside)
    _bad(tmp_path, capsys, folder, "path.escape", path=link)


def test_not_a_directory(tmp_path, capsys):
    _bad(tmp_path, capsys, tmp_path / "nope", "usage.path", 2)


def _derivable(values, labels) -> float:
    """The accuracy of the best guess of a label from each value's text: the label whose
    name the value contains (case-insensitively), else nothing."""
    hits = 0
    for v, y in zip(values, labels):
        found = [c for c in set(labels) if c.lower() in str(v).lower()]
        hits += found == [y]
    return hits / len(labels)


def test_no_label_in_the_blind_test_view(tmp_path, capsys):
    """The blind TEST view of an imported image folder tells no label: not in a media file's
    name or path, not in any cell of its tables, not through the d3mIndex of a neighbouring
    TRAIN row (the rows are in a seeded random order, not class by class)."""
    classes = ("cats", "dogs", "eels", "foxes")
    folder = tmp_path / "pets"
    for k, c in enumerate(classes):
        (folder / c).mkdir(parents=True)
        for i in range(10):
            Image.new("RGB", (4, 4), (k * 50, i * 20, 3)).save(folder / c / f"{c}_{i}.png")
    code, _, err = run(["import", "images", folder, "--out", tmp_path / "o", "--test-size", "0.5"], capsys)
    assert code == 0, err
    code, _, err = run(["views", tmp_path / "o" / "pets", "--out", tmp_path / "v"], capsys)
    assert code == 0, err
    truth = pd.read_csv(tmp_path / "v" / "SCORE" / "targets.csv", dtype=str).set_index("d3mIndex")["label"]
    test = tmp_path / "v" / "TEST"
    learning = pd.read_csv(next(test.rglob("learningData.csv")), dtype=str)
    labels = truth.loc[learning["d3mIndex"]].tolist()
    assert len(labels) == 20 and (learning["label"].fillna("") == "").all()
    names = [p.relative_to(test).as_posix() for p in test.rglob("*")]
    assert not [n for n in names if any(c in n for c in classes)]
    for col in learning.columns:
        assert _derivable(learning[col], labels) == 0.0, col
    # the nearest TRAIN row by d3mIndex: at chance, not the label
    train = pd.read_csv(next((tmp_path / "v" / "TRAIN").rglob("learningData.csv")), dtype=str)
    ti = train["d3mIndex"].astype(int).to_numpy()
    near = [train["label"].iloc[int(np.abs(ti - int(i)).argmin())] for i in learning["d3mIndex"]]
    assert np.mean([a == b for a, b in zip(near, labels)]) < 0.6
