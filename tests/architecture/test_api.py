"""The public API (docs/api.md): its examples run here as a doctest, and the facade
``d3mkit`` stays cheap to import."""

import pytest
import doctest
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_docs_api_examples_run():
    res = doctest.testfile(str(REPO / "docs" / "api.md"), module_relative=False,
                           optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted > 20 and res.failed == 0


def test_import_d3mkit_is_cheap_and_names_load_lazily():
    code = ("import sys, d3mkit\nbefore = sorted(m for m in ('pandas', 'numpy', 'torch') if m in sys.modules)\n"
            "d3mkit.Issue\nprint(before, 'pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[] False"


def test_every_public_name_resolves():
    import d3mkit
    for name in d3mkit.__all__:
        assert getattr(d3mkit, name) is not None, name


def test_taskroot_media_paths_resolved_and_inside():
    import pytest

    from d3mkit import D3MKitError, TaskRoot
    task = TaskRoot.open(REPO / "problems" / "abstraction_rotation_example")
    paths = task.media_paths()
    assert len(paths) == len(task.learning_data()) and all(p.is_file() and p.is_absolute() for p in paths)
    rows = task.learning_data().head(1).copy()
    rows[rows.columns[1]] = "../../../etc/passwd"
    with pytest.raises(D3MKitError, match="leaves collection"):
        task.media_paths(rows=rows)


def test_issue_location_is_rendered_from_its_fields_never_parsed_back():
    """Locations are data (issue 31 item 3): the text is rendered from the fields; a text
    location is kept as given and no field is read back out of it."""
    from d3mkit import Issue
    for kw, text in [({"json_path": "about.taskType"}, "about.taskType"),
                     ({"row": 3, "column": "y"}, "row 3, column y"),
                     ({"line": 2, "column": 5}, "line 2, column 5")]:
        built = Issue("error", "x.y", message="m", **kw)
        given = Issue("error", "x.y", text, "m")
        assert built.location == given.location == text
        assert (given.json_path, given.row, given.line, given.column) == (None, None, None, None)
        assert built.to_dict() == given.to_dict() == {"severity": "error", "code": "x.y", "location": text,
                                                      "message": "m"}
