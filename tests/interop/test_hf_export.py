"""``d3mkit export hf`` (issue 24 item 3): a DatasetDict saved with save_to_disk, one split per
TRAIN/TEST of --repeat/--fold, ClassLabel targets, Image media, a dataset card; the rows
``datasets.load_from_disk`` reads equal the task root's."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from _attack_util import refused, run
from d3mkit.taskroot.model import TaskRoot

datasets = pytest.importorskip("datasets", reason="the [hf] extra (datasets) is not installed")
if getattr(datasets, "__file__", None) is None:   # the repository's own datasets/ folder, not the library
    pytest.skip("the [hf] extra (datasets) is not installed", allow_module_level=True)

from _croissant_util import BUILD_NAMES, PARAMS, ROOTS
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
        got = [[tuple(float(x) for x in g.split(",")) if isinstance(w, tuple) and isinstance(g, str) else g
                for g, w in zip(row, wrow)] for row, wrow in zip(got, want)]    # a realVector: text as written
        text = [getattr(ds.features[c], "dtype", "") == "string" for c in frame.columns]
        want = [[str(w) if t and isinstance(w, (int, float)) else w for w, t in zip(row, text)]
                for row in want]       # a column kept as text (this split's rows may all read as numbers)
        assert got == want, split
        assert set(media) <= {c for c, f in dd[split].features.items() if isinstance(f, datasets.Image)}
    return dd


@pytest.mark.slow
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


@pytest.mark.slow
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


def _typed_root(tmp: Path) -> Path:
    """Every colType the export maps: boolean, dateTime, real with missing cells, a realVector,
    free text, and an integer column with a cell that does not read (kept as text)."""
    import pandas as pd

    from _scoring_util import make_task
    frame = pd.DataFrame({"d3mIndex": range(8), "flag": ["true", "false", "", "true", "false", "true", "false", "true"],
                          "when": ["2020-01-02", "2021-03-04T05:06:07Z", "", "1999-12-31", "2020-01-02",
                                   "2020-01-03", "2020-01-04", "2020-01-05"],
                          "x": ["1.5", "", "2", "-3.25", "4", "5", "6", "7"],
                          "vec": ["1,2", "3,4", "5,6", "7,8", "9,10", "11,12", "13,14", "15,16"],
                          "note": ["007", "NA", "", "a b", "x", "y", "z", "w"],
                          "count": ["1", "2", "?", "4", "5", "6", "7", "8"],
                          "y": list("abababab")})
    return make_task(tmp, "typed", frame, ["y"], [{"metric": "accuracy"}],
                     col_types={"flag": "boolean", "when": "dateTime", "x": "real", "vec": "realVector",
                                "note": "string", "count": "integer"}, test=[1, 4, 7])


@pytest.mark.slow
def test_every_coltype(tmp_path, capsys):
    root = _typed_root(tmp_path)
    out = tmp_path / "hf"
    code, _, err = run(["export", "hf", root, "--out", out], capsys)
    assert code == 0 and err.count("[export.kept_text]") == 1 and "column count" in err, err
    with pytest.warns(Warning):                      # TaskRoot.frame's CoercionWarning for the column 'count'
        dd = _same_rows(out, root)
    f = dd["train"].features
    assert (f["flag"].dtype, f["x"].dtype, f["vec"].dtype, f["note"].dtype) == ("bool", "float64", "string", "string")
    assert str(f["when"].dtype).startswith("timestamp[ns")
    assert f["count"].dtype == "string"               # '?' does not read as an integer: the column stays text
    assert dd["train"]["count"][:3] == ["1", "?", "4"] and dd["train"]["note"][:2] == ["007", None]
    assert dd["train"]["vec"][0] == "1,2"             # as written


@pytest.mark.slow
def test_save_to_disk_layout(tmp_path, capsys, monkeypatch):
    """The files are those datasets' own save_to_disk writes (same names, the same keys in
    state.json, dataset_info.json's and the split sizes), and a split past the shard size gets several Arrow files."""
    import json

    import d3mkit.interop.hf as hf
    root = _copy([r for r in ROOTS if r.name == "wine"][0], tmp_path)
    monkeypatch.setattr(hf, "SHARD_BYTES", 2000)             # and slices of 10 rows: several shards
    monkeypatch.setattr(datasets.arrow_writer, "get_arrow_writer_batch_size_from_features", lambda f: 10)
    out = tmp_path / "hf"
    assert run(["export", "hf", root, "--out", out], capsys)[0] == 0
    _same_rows(out, root)
    ref = tmp_path / "ref"
    datasets.DatasetDict({"train": datasets.Dataset.from_dict({"a": [1]}),
                          "test": datasets.Dataset.from_dict({"a": [2]})}).save_to_disk(str(ref))
    assert json.loads((out / "dataset_dict.json").read_text()) == json.loads((ref / "dataset_dict.json").read_text())
    for split in ("train", "test"):
        ours, theirs = ({p.name.split("-")[0] for p in (d / split).iterdir()} for d in (out, ref))
        assert ours == theirs, (ours, theirs)
        for name in ("state.json", "dataset_info.json"):
            a, b = (json.loads((d / split / name).read_text()) for d in (out, ref))
            assert a.keys() == b.keys() if name == "state.json" else a.keys() >= b.keys(), name   # + splits, sizes
        state = json.loads((out / split / "state.json").read_text())
        files = sorted(p.name for p in (out / split).glob("data-*.arrow"))
        assert [f["filename"] for f in state["_data_files"]] == files
        assert len(files) > 1 and files[-1].endswith(f"-of-{len(files):05d}.arrow")


def test_fold_members_bitmaps_and_keys(tmp_path):
    """Small non-negative integer indices are bitmaps; large or text ones sorted keys; either
    way member_mask answers the same, and the checks of select() hold."""
    import numpy as np

    from d3mkit.core.errors import D3MKitError
    from d3mkit.taskroot.splits.read import fold_members, member_mask
    for ids, kind in (([3, 0, 7, 12], bool), ([10**12, 5, 7, 9], np.int64), (["a", "b", "c", "d"], str)):
        p = tmp_path / "dataSplits.csv"
        p.write_text("d3mIndex,type,repeat,fold\n" + "".join(
            f"{i},{t},0,0\n" for i, t in zip(ids, ["TRAIN", "TEST", "TRAIN", "TEST"])))
        train, test = fold_members(p)
        assert train.dtype.kind == np.dtype(kind).kind, (ids, train.dtype)
        cells = np.array([f" {i} " for i in ids] + ["x", "-1", "99"], dtype=object)
        assert member_mask(cells, train).tolist() == [True, False, True, False, False, False, False]
        assert member_mask(cells, test).tolist() == [False, True, False, True, False, False, False]
    p.write_text("d3mIndex,type,repeat,fold\n1,TRAIN,0,0\n1,TEST,0,0\n")
    with pytest.raises(D3MKitError, match="also TRAIN"):
        fold_members(p)


@pytest.mark.slow
@pytest.mark.parametrize("bench", BUILD_NAMES)
def test_benchmark_builds_load_from_disk(bench, tmp_path, capsys):
    """A small build of each benchmark exported and read back with load_from_disk."""
    from _croissant_util import BUILDS
    code, out, err = run(BUILDS[bench](tmp_path), capsys)
    assert code == 0, err
    for i, root in enumerate(Path(p) for p in out.split()):
        code, _, err = run(["export", "hf", root, "--out", tmp_path / f"hf{i}"], capsys)
        assert code == 0, err
        _same_rows(tmp_path / f"hf{i}", root)


def test_media_leaving_the_root_refused_even_with_force(tmp_path, capsys):
    import os
    import shutil
    root = _copy([r for r in ROOTS if r.name == "value"][0], tmp_path)
    media = root / "value_dataset" / "media"
    shutil.move(media, tmp_path / "elsewhere")
    os.symlink(tmp_path / "elsewhere", media)
    for extra in ([], ["--force"]):
        refused(["export", "hf", root, "--out", tmp_path / "hf", *extra], capsys, "path.escape", 1)
        assert not (tmp_path / "hf").exists() and not list(tmp_path.glob(".hf*"))


def test_images_noted_as_one_input(tmp_path, capsys):
    """Under the command line's read log the image collection is one input (its directory),
    not one note per image (~300 bytes each at 10^5 images), and still an input."""
    from d3mkit.io import readlog
    from d3mkit.core.errors import OutputInsideInput
    from d3mkit.interop.hf import export_hf
    root = _copy([r for r in ROOTS if r.name == "abstraction_rotation_example"][0], tmp_path)
    media = next(root.glob("*_dataset/media"))
    with readlog.recording():
        export_hf(root, tmp_path / "hf")
        assert not any(p.startswith(str(media.resolve()) + "/") for p in readlog._READ.values())
        with pytest.raises(OutputInsideInput):
            readlog.refuse_input(media)
