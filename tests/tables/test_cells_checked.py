"""TaskRootWriter.cells_checked: the commit-time validation of a table whose writer checked every
cell reads only its index, target and refersTo columns; those are still checked in full, and so
is every other document (d3mkit import declares learningData checked: it inferred the colTypes
from the cells)."""

from __future__ import annotations

import pandas as pd
import pytest

from d3mkit.documents import Column, DatasetDoc, ProblemDoc, Resource, Target
from d3mkit.core.errors import D3MKitError
from d3mkit.taskroot.writer import TaskRootWriter
from d3mkit.validation.run import validate_task_root


def _write(out, df, checked):
    cols = [Column(0, "d3mIndex", "integer", ("index",)), Column(1, "x", "integer"),
            Column(2, "y", "categorical", ("suggestedTarget",))]
    ddoc = DatasetDoc.new("t_dataset", "t", [Resource.table("learningData", "tables/learningData.csv", cols)])
    pdoc = ProblemDoc.new("t_problem", "t", "classification", "binary", "t_dataset",
                          [Target(0, "learningData", 2, "y")], [{"metric": "accuracy"}],
                          splits={"method": "holdOut", "testSize": 0.5, "stratified": True})
    with TaskRootWriter(out, "t", benchmark="test") as w:
        w.write_table("tables/learningData.csv", df)
        if checked:
            w.cells_checked("tables/learningData.csv")
        w.write_dataset_doc(ddoc)
        w.write_problem_doc(pdoc)
    return w.root


def test_only_the_columns_others_use_are_read(tmp_path):
    bad_x = pd.DataFrame({"d3mIndex": range(6), "x": ["1", "2", "oops", "4", "5", "6"], "y": list("ababab")})
    # a cell that does not read as its colType is a warning (issue 20): the root is written
    root = _write(tmp_path / "b", bad_x, checked=True)          # the writer vouched for x's cells
    ld = root / "t_dataset" / "tables" / "learningData.csv"
    coltype = lambda issues: [i.code for i in issues if i.code.startswith("coltype.")]  # noqa: E731
    assert coltype(validate_task_root(root)) == ["coltype.integer"]               # full check reads x
    assert coltype(validate_task_root(root, cells_checked=(ld,))) == []          # the writer's check does not


def test_index_and_target_still_checked(tmp_path):
    dup = pd.DataFrame({"d3mIndex": [0, 1, 1, 3], "x": ["1", "2", "3", "4"], "y": list("abab")})
    with pytest.raises(D3MKitError) as exc:
        _write(tmp_path / "a", dup, checked=True)
    assert "index.duplicate" in {i.code for i in exc.value.issues}
    assert not (tmp_path / "a" / "t").exists()
