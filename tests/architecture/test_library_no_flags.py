"""The library raises typed errors that name Python parameters; only ``d3mkit/cli.py`` and
``d3mkit/commands/`` speak in command-line flags (issue 19 item 2).

Every string (and f-string part) inside a ``raise`` statement, or inside a call that builds
an issue or an error (``error(...)``, ``UsageError(...)``, ``D3MKitError.single(...)``, a
module's ``_bad(...)``), is searched for ``--word``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import d3mkit
from _sources import parse
from d3mkit.core.errors import EXIT_USAGE, ArgumentError, D3MKitError, OutputExists, UsageError

PKG = Path(d3mkit.__file__).parent
FLAG = re.compile(r"(?<![\w-])--[a-z]")
BUILDERS = re.compile(r"(Error|error|warning|Issue|single|_bad|Argument|Exists|Input|Dependency)$")


def _library_modules():
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).as_posix()
        if rel == "cli.py" or rel.startswith("commands/"):
            continue
        yield rel, path


def _strings(node):
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            yield sub.lineno, sub.value


def _call_name(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def flag_mentions(source: str | ast.Module) -> list[tuple[int, str]]:
    """(line, text) of every raised or issue message naming a ``--flag`` (in source text
    or its syntax tree)."""
    found = []
    for node in ast.walk(ast.parse(source) if isinstance(source, str) else source):
        if isinstance(node, ast.Raise) or (isinstance(node, ast.Call) and BUILDERS.search(_call_name(node))):
            found += [(line, text) for line, text in _strings(node) if FLAG.search(text)]
    return sorted(set(found))


def test_the_grep_finds_a_flag_in_a_raise():
    assert flag_mentions('raise UsageError(f"--out must be new, got {x}")')
    assert flag_mentions('out.append(error("code", "--split", "bad"))')
    assert not flag_mentions('raise UsageError(f"{out} already exists")')
    assert not flag_mentions('p.add_argument("--out", help="x")')


@pytest.mark.slow
def test_no_library_module_names_a_command_line_flag():
    bad = [f"d3mkit/{rel}:{line}: {text!r}" for rel, path in _library_modules()
           for line, text in flag_mentions(parse(path))]
    assert not bad, "library messages naming a --flag (raise a typed error naming the " \
                    "parameter; d3mkit/cli.py maps it):\n" + "\n".join(bad)


def test_a_python_caller_of_write_views_is_told_force_true(tmp_path):
    from d3mkit import write_views
    from taskroot_helpers import wine_root
    root = wine_root(tmp_path / "r")
    (tmp_path / "views").mkdir()
    with pytest.raises(OutputExists) as info:
        write_views(root, tmp_path / "views")
    exc = info.value
    assert isinstance(exc, UsageError) and isinstance(exc, D3MKitError) and exc.exit_code == EXIT_USAGE
    assert "force=True" in str(exc) and "--" not in str(exc)
    assert exc.issues[0].code == "output.exists"


def test_the_cli_names_the_flag(tmp_path, capsys):
    from d3mkit.cli import main
    from taskroot_helpers import wine_root
    root = wine_root(tmp_path / "r")
    (tmp_path / "views").mkdir()
    assert main(["views", str(root), "--out", str(tmp_path / "views")]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "pass --force to replace it" in err and "force=True" not in err


def test_an_argument_error_names_the_parameter_or_the_flag():
    from d3mkit.benchmarks.config import BaselineConfig
    with pytest.raises(ArgumentError) as info:
        BaselineConfig(epochs=0)
    assert info.value.issues[0].message == "epochs must be at least 1, got 0"
    from d3mkit.cli import flag_namer
    from argparse import Namespace
    flags = flag_namer(Namespace(_flags={"epochs": "--n-epochs"}))
    assert info.value.render(flags)[0].message == "--n-epochs must be at least 1, got 0"
