"""ViSudo-PC: `d3mkit build visudo` writes valid, deterministic task roots; bad input
gives a clear message and exit 1."""

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from d3mkit.cli import main

TINY = ["--sources", "digits", "--dimension", "4", "--n-train", "3", "--n-test", "2",
        "--n-valid", "2", "--quiet"]


def _tree_digest(root: Path) -> dict:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("vs")
    assert main(["build", "visudo", "--out", str(out), "--seed", "3", "--split", "0-1", *TINY]) == 0
    return out


@pytest.mark.slow
def test_build_writes_valid_task_roots(built, capsys):
    roots = sorted(p for p in built.iterdir() if p.is_dir() and not p.name.startswith("."))
    assert [r.name for r in roots] == ["visudo_basic_digits_d4_n3_o0_s0", "visudo_basic_digits_d4_n3_o0_s1"]
    assert main(["validate", *map(str, roots)]) == 0


@pytest.mark.slow
def test_layout_tables_and_debug(built):
    from d3mkit.taskroot.model import TaskRoot
    task = TaskRoot.open(built / "visudo_basic_digits_d4_n3_o0_s0")
    ld = task.learning_data()
    assert list(ld.columns) == ["d3mIndex", "puzzleImage", "label"]
    assert len(ld) == 10 and sorted(ld["label"].unique()) == ["0", "1"]   # train + test only
    assert task.problem.task_type == "classification" and task.problem.task_subtype == "binary"
    assert task.problem.metric_names == ["rocAuc", "accuracy"]
    # every TRAIN row is a training puzzle: exactly the paper's 3 correct + 3 corrupted
    train, test = task.split_indices()
    dbg_p = pd.read_csv(task.debug_dir / "puzzles.csv", dtype=str).set_index("d3mIndex")
    assert sorted(dbg_p.loc[train, "split"]) == ["train"] * 6
    assert sorted(dbg_p.loc[test, "split"]) == ["test"] * 4
    # the validation puzzles live in validData, never in learningData
    vd = task.table("validData")
    assert list(vd.columns) == ["validIndex", "puzzleImage", "label"] and len(vd) == 4
    assert set(dbg_p.loc[list(vd["validIndex"]), "split"]) == {"valid"}
    assert not set(vd["validIndex"]) & set(ld["d3mIndex"])
    assert all((task.dataset_dir / "media" / "puzzles" / f).is_file() for f in vd["puzzleImage"])
    cells = pd.read_csv(task.dataset_dir / "tables" / "cells.csv")
    assert list(cells.columns) == ["cellIndex", "d3mIndex", "row", "col", "cellImage"] and len(cells) == 10 * 16
    # the grid PNG is the cells tiled
    from d3mkit.benchmarks.visudo.render import load_png, untile
    grid = load_png(task.dataset_dir / "media" / "puzzles" / "000005.png")
    parts = untile(grid, 4)
    for k, row in enumerate(cells[cells.d3mIndex == 5].itertuples()):
        assert np.array_equal(parts[row.row * 4 + row.col], load_png(task.dataset_dir / "media" / "cells" / row.cellImage))
    # cell labels only in _debug
    dbg = pd.read_csv(task.debug_dir / "cellLabels.csv", dtype=str)
    assert list(dbg.columns) == ["d3mIndex", "split", "row", "col", "label", "source", "imageId"]
    assert len(dbg) == 14 * 16 and set(dbg["split"]) == {"train", "test", "valid"}
    for p in task.dataset_dir.rglob("*.csv"):
        assert "imageId" not in p.read_text() and "cellLabels" not in p.read_text()
    assert "cellLabels" not in (task.dataset_dir / "datasetDoc.json").read_text()
    # puzzles marked correct are correct Sudoku, the others not
    from d3mkit.benchmarks.visudo.sudoku import is_correct
    grids = dbg.sort_values(["d3mIndex", "row", "col"], key=lambda s: s.astype(int))["label"].astype(int)
    ok = is_correct(grids.to_numpy().reshape(-1, 4, 4))
    assert ok.tolist() == (pd.concat([ld["label"], vd["label"]]) == "1").tolist()
    # no source image in two splits
    per = dbg.groupby("imageId")["split"].nunique()
    assert per.max() == 1
    assert task.manifest["benchmark"] == "visudo" and task.manifest["parameters"]["strategy"] == "basic"


def test_same_seed_same_bytes(built, tmp_path):
    assert main(["build", "visudo", "--out", str(tmp_path), "--seed", "3", "--split", "1", *TINY]) == 0
    name = "visudo_basic_digits_d4_n3_o0_s1"
    assert _tree_digest(tmp_path / name) == _tree_digest(built / name)


def test_existing_root_needs_force(built, capsys):
    assert main(["build", "visudo", "--out", str(built), "--seed", "3", "--split", "0", *TINY]) == 2


@pytest.mark.parametrize("extra,needle", [
    (["--dimension", "6"], "square root"),
    (["--sources", "digits,nosuch"], "unknown source 'nosuch'"),
    (["--strategy", "transfer", "--dimension", "9"], "need 18 labels"),
    (["--sources", "mnist"], "--source-dir"),
    (["--sources", "digits,glyphs"], "exactly one source"),
    (["--n-train", "40"], "'digits:"),                    # 4 x 44 images of a label > 174
    (["--n-train", "99999999999"], "over the limit"),     # ran until killed before
    (["--split", "0-99999"], "at most 1000 task roots"),
])
def test_bad_input_exit_1(tmp_path, capsys, extra, needle):
    args = ["build", "visudo", "--out", str(tmp_path), *TINY, *extra]
    assert main(args) == 1
    assert needle in capsys.readouterr().err
    assert not any(tmp_path.iterdir())          # nothing half-written


@pytest.mark.slow
def test_other_strategies_build(tmp_path):
    for strat, src in (("perCell", "digits"), ("transfer", "digits"), ("perPuzzle", "digits,glyphs")):
        assert main(["build", "visudo", "--out", str(tmp_path), "--strategy", strat, "--sources", src,
                     "--n-train", "2", "--n-test", "1", "--n-valid", "1", "--quiet"]) == 0


@pytest.mark.slow
def test_visudo_modules_do_not_import_torch():
    import subprocess
    import sys
    code = ("import sys, d3mkit.benchmarks.visudo.cli, d3mkit.benchmarks.visudo.baseline, "
            "d3mkit.benchmarks.visudo.demo, d3mkit.benchmarks.visudo.models; print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
