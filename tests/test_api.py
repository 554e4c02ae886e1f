"""The public API (docs/api.md): its examples run here as a doctest, and the facade
``d3mkit`` stays cheap to import."""

import doctest
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


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
