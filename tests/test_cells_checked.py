"""TaskRootWriter.cells_checked: the commit-time validation of a table whose writer checked every
cell reads only its index, target and refersTo columns; those are still checked in full, and so
is every other document (d3mkit import declares learningData checked: it inferred the colTypes
from the cells)."""

from __future__ import annotations

import pandas as pd
import pytest

from d3mkit.docs import Column, DatasetDoc, ProblemDoc, Resource, Target
from d3mkit.errors import D3MKitError
from d3mkit.package import TaskRootWriter
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
    with pytest.raises(D3MKitError) as exc:
        _write(tmp_path / "a", bad_x, checked=False)
    assert exc.value.issues[0].code == "coltype.integer"
    root = _write(tmp_path / "b", bad_x, checked=True)          # the writer vouched for x's cells
    assert [i.code for i in validate_task_root(root) if i.is_error] == ["coltype.integer"]   # full check


def test_index_and_target_still_checked(tmp_path):
    dup = pd.DataFrame({"d3mIndex": [0, 1, 1, 3], "x": ["1", "2", "3", "4"], "y": list("abab")})
    with pytest.raises(D3MKitError) as exc:
        _write(tmp_path / "a", dup, checked=True)
    assert "index.duplicate" in {i.code for i in exc.value.issues}
    assert not (tmp_path / "a" / "t").exists()
