"""``d3mkit export hf`` (issue 24 item 3): a DatasetDict saved with save_to_disk, one split per
TRAIN/TEST of --repeat/--fold, ClassLabel targets, Image media, a dataset card; the rows
``datasets.load_from_disk`` reads equal the task root's."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from _attack_util import refused, run
from d3mkit.taskroot import TaskRoot

datasets = pytest.importorskip("datasets", reason="the [hf] extra (datasets) is not installed")
if getattr(datasets, "__file__", None) is None:   # the repository's own datasets/ folder, not the library
    pytest.skip("the [hf] extra (datasets) is not installed", allow_module_level=True)

from _croissant_util import PARAMS, ROOTS
from _croissant_util import copy_root as _copy
from _croissant_util import wine_kfold


def _same_rows(out: Path, root: Path, repeat=0, fold=0):
    from _croissant_util import frame_rows, value
    dd = datasets.load_from_disk(str(out))
    task = TaskRoot.open(root)
    media = task.dataset.media_columns()
    for split, frame in zip(("train", "test"), task.train_test(repeat, fold)):
        ds = dd[split]
        for c, f in ds.features.items():
            if isinstance(f, datasets.Image):
                ds = ds.cast_column(c, datasets.Image(decode=False))
        got = []
        for ex in ds:
            row = []
            for c in frame.columns:
                f, v = ds.features[c], ex[c]
                if isinstance(f, datasets.ClassLabel):
                    v = None if v is None or v < 0 else f.names[v]
                elif isinstance(f, datasets.Image):
                    assert v["bytes"] == task.media_paths(c).iloc[0].parent.joinpath(v["path"]).read_bytes()
                    v = v["path"]
                row.append(value(v))
            got.append(row)
        want = frame_rows(frame.astype({c: str for c in frame.columns if str(frame[c].dtype) == "category"}))
        assert got == want, split
        assert set(media) <= {c for c, f in dd[split].features.items() if isinstance(f, datasets.Image)}
    return dd


@pytest.mark.parametrize("root", PARAMS)
def test_problems_load_from_disk(root, tmp_path, capsys):
    root = _copy(root, tmp_path)
    out = tmp_path / "hf"
    code, stdout, err = run(["export", "hf", root, "--out", out], capsys)
    assert code == 0 and err == "", err
    dd = _same_rows(out, root)
    task = TaskRoot.open(root)
    for t in task.targets:
        col = task.dataset.learning_data.column(t)
        if col.col_type == "categorical":
            assert isinstance(dd["train"].features[t], datasets.ClassLabel)
    card = (out / "README.md").read_text()
    assert card.startswith("---\nlicense: ") and "\n---\n" in card[4:]
    assert "## Citation" in card and "dataCollection" in card
    from huggingface_hub import DatasetCard          # installed with datasets: the Hub's own parser
    meta = DatasetCard.load(out / "README.md").data.to_dict()
    assert meta["license"] and meta["pretty_name"] == root.name


@pytest.mark.slow
def test_repeat_and_fold(tmp_path, capsys):
    root = wine_kfold(tmp_path, capsys)
    out = tmp_path / "hf"
    assert run(["export", "hf", root, "--out", out, "--repeat", "1", "--fold", "2"], capsys)[0] == 0
    _same_rows(out, root, 1, 2)
    refused(["export", "hf", root, "--out", tmp_path / "hf2", "--repeat", "5"], capsys, "splits.no_test", 1)
    assert not (tmp_path / "hf2").exists()


def test_bad_input(tmp_path, capsys, monkeypatch):
    root = _copy([r for r in ROOTS if r.name == "wine"][0], tmp_path)
    refused(["export", "hf", root, "--out", root / "hf"], capsys, "usage", 2)
    assert not (root / "hf").exists()
    (tmp_path / "exists").mkdir()
    refused(["export", "hf", root, "--out", tmp_path / "exists"], capsys, "output.exists", 2)
    ld = root / "wine_dataset" / "tables" / "learningData.csv"
    rows = ld.read_text().splitlines(keepends=True)
    rows[2] = "0" + rows[2][rows[2].index(","):]           # d3mIndex 0 twice: an error
    ld.write_text("".join(rows))
    refused(["export", "hf", root, "--out", tmp_path / "bad"], capsys, "index.duplicate", 1, path=ld)
    assert not (tmp_path / "bad").exists() and not list(tmp_path.glob(".bad*"))
    code, _, err = run(["export", "hf", root, "--out", tmp_path / "forced", "--force"], capsys)
    assert code == 0 and "[export.invalid_root]" in err and (tmp_path / "forced" / "dataset_dict.json").is_file()
    monkeypatch.setitem(sys.modules, "datasets", None)       # the [hf] extra missing
    refused(["export", "hf", root, "--out", tmp_path / "x"], capsys, "dependency.missing", 3)   # exit 3, as for every missing extra
