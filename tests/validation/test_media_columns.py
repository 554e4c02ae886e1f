"""Baselines find their images through the datasetDoc (TaskRoot.media_paths, which asks
DatasetDoc.media_columns), never through a column or directory name of their own: renaming
both in a task root changes nothing they read."""

from __future__ import annotations

import numpy as np
import pytest

from d3mkit.core.errors import UsageError
from d3mkit.taskroot.model import TaskRoot
from taskroot_helpers import rename_media


def test_abstraction_images_follow_the_datasetdoc(tmp_path):
    from d3mkit.benchmarks.abstraction import cli
    from d3mkit.benchmarks.abstraction.protocol import Protocol
    root = cli.build_task_root(tmp_path, Protocol("mirror", 5, 20, 10, 2), seed=0)
    before, ld = cli.load_images(TaskRoot.open(root))
    rename_media(root, "image", "shapeFile", "media", "pictures/all")
    after, ld2 = cli.load_images(TaskRoot.open(root))
    assert np.array_equal(before, after) and "shapeFile" in ld2.columns


@pytest.mark.slow
def test_visudo_puzzles_follow_the_datasetdoc(tmp_path):
    from d3mkit.benchmarks.visudo.baseline import load_puzzles
    from d3mkit.cli import main
    assert main(["build", "visudo", "--out", str(tmp_path), "--sources", "digits", "--n-train", "2",
                 "--n-test", "2", "--n-valid", "1", "--quiet", "--seed", "1"]) == 0
    root = next(p for p in tmp_path.iterdir() if p.is_dir())
    before = load_puzzles(TaskRoot.open(root))
    rename_media(root, "puzzleImage", "grid", "puzzleImages", "pix/grids")
    after = load_puzzles(TaskRoot.open(root))
    assert np.array_equal(before["images"], after["images"]) and (before["split"] == after["split"]).all()
    assert "valid" in set(after["split"])


def test_media_paths_names_a_missing_table_or_column(tmp_path):
    from d3mkit.benchmarks.abstraction import cli
    from d3mkit.benchmarks.abstraction.protocol import Protocol
    task = TaskRoot.open(cli.build_task_root(tmp_path, Protocol("mirror", 5, 20, 10, 2), seed=0))
    with pytest.raises(UsageError, match="no table 'validData'"):
        task.media_paths(table="validData")
    with pytest.raises(UsageError, match="has no column 'image'"):
        task.media_paths(rows=task.learning_data().drop(columns=["image"]))
