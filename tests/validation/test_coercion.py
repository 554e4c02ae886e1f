"""The coercion policy (issue 20): a cell that does not read as its colType is a warning
in validate (an error with --strict), quoted as the file writes it, and TaskRoot.frame keeps
it (the column as text) and reports it, never dropping it to a missing value."""

import warnings

import pandas as pd
import pytest

from d3mkit.core.errors import CoercionWarning
from d3mkit.taskroot.model import TaskRoot
from d3mkit.validation.coltypes import coerce
from d3mkit.validation.run import validate_paths
from validate_helpers import Root, build_tabular


@pytest.fixture
def tab(tmp_path):
    return Root(build_tabular(tmp_path, "t"))


def test_bad_cells_are_warnings_quoted_as_written(tab):
    for r, v in ((1, "Y"), (2, "0.0"), (3, "1.0")):
        tab.set_cell(tab.ld, r, "flag", v)
    report = validate_paths([tab.root])
    got = [(i.severity, i.message) for i in report.issues() if i.code == "coltype.boolean"]
    assert got == [("warning", f"{v!r} is not a boolean (true/false/1/0/yes/no) (colType boolean)")
                   for v in ("Y", "0.0", "1.0")]
    assert report.valid() and not report.valid(strict=True)


def test_whitespace_message_reads_as_english(tab):
    tab.set_cell(tab.ld, 1, "y", " a")
    (i,) = [i for i in validate_paths([tab.root]).issues() if i.code == "coltype.categorical"]
    assert i.message.startswith("' a' has leading") and " is has " not in i.message


def test_frame_keeps_cells_it_cannot_type(tab):
    tab.set_cell(tab.ld, 1, "flag", "N")
    tab.set_cell(tab.ld, 2, "x", "?")
    task = TaskRoot.open(tab.root)
    raw = task.learning_data()
    with pytest.warns(CoercionWarning, match=r"x \(real, 1 cell.*flag \(boolean, 1 cell"):
        f = task.frame()
    # nothing lost: every non-empty cell is still there as written
    assert f["flag"].astype(str).tolist() == raw["flag"].astype(str).tolist()
    assert f["x"].iloc[2] == "?" and str(f["flag"].dtype) == "category"
    codes = sorted((i.code, i.location) for i in f.attrs["issues"])
    assert codes == [("coltype.boolean", "row 3, column flag"), ("coltype.real", "row 4, column x")]
    # columns that read stay typed
    assert str(f["k"].dtype) == "Int64" and str(f["when"].dtype).startswith("datetime64")


def test_frame_of_clean_root_warns_nothing(tab):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = TaskRoot.open(tab.root).frame()
    assert f.attrs["issues"] == [] and str(f["flag"].dtype) == "boolean"


def test_coerce_never_makes_a_missing_value():
    for ct, cells in (("boolean", ["Y", "N", "0.0", "2.0"]), ("integer", ["1", "PrivacySuppressed"]),
                      ("real", ["1.5", "?"]), ("dateTime", ["2020-01-01", "soon"])):
        col, bad = coerce(pd.Series(cells + [""]), ct)
        assert col.isna().tolist() == [False] * len(cells) + [True], ct
        assert len(bad) >= 1


def test_epoch_seconds_with_a_fraction_and_year_one_read_as_dates(tab):
    """A dateTime column whose cells read as a year (1) and as epoch seconds with a fraction
    (2.5): pandas' inferred unit refused to hold both and validate crashed with a traceback."""
    col, bad = coerce(pd.Series(["1", "2.5", ""]), "dateTime")
    assert bad.tolist() == [] and [str(v) for v in col.tolist()] == [
        "0001-01-01 00:00:00+00:00", "1970-01-01 00:00:02.500000+00:00", "NaT"]
    tab.set_cell(tab.ld, 1, "when", "1")
    tab.set_cell(tab.ld, 2, "when", "2.5")
    report = validate_paths([tab.root])
    assert report.valid(), report.issues()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TaskRoot.open(tab.root).frame()
