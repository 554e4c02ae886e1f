"""Locations are data (issue 31 item 3): everywhere in d3mkit an issue's row, line and column
are passed as fields (``row=``, ``column=``, ``line=``, ``json_path=``) and the text is rendered
from them (d3mkit.core.errors.Issue, which parses nothing back); no call writes a location such
as ``f"row {r}, column {c}"`` by hand. Checked on the syntax tree."""

from __future__ import annotations

import ast
from pathlib import Path

from _sources import parse

REPO = Path(__file__).resolve().parents[2]
AREA = ["d3mkit"]
#: callables that build an issue, and the position of their location argument
LOCATION_AT = {"Issue": 2, "error": 1, "warning": 1, "make": 1, "single": 2}
PREFIXES = ("row ", "line ", "column ")


def _files():
    for a in AREA:
        p = REPO / a
        yield from ([p] if p.is_file() else sorted(p.rglob("*.py")))


def _name(func) -> str | None:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _written_location(node) -> str | None:
    """The text a location argument starts with when it is a literal or an f-string."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        return str(node.values[0].value)
    return None


def offenders(tree: ast.AST) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or _name(node.func) not in LOCATION_AT:
            continue
        at = LOCATION_AT[_name(node.func)]
        args = ([node.args[at]] if len(node.args) > at else []) + \
            [k.value for k in node.keywords if k.arg == "location"]
        for a in args:
            text = _written_location(a)
            if text is not None and text.startswith(PREFIXES):
                out.append((node.lineno, text))
    return out


def test_the_walk_finds_a_written_location():
    tree = ast.parse('error("x", f"row {r}, column {c}", "m")\nD3MKitError.single(p, "c", "line 3", "m")\n'
                     'make("c", location="column a", message="m")\nerror("x", "", "row 3 is bad", row=3)\n')
    assert [line for line, _ in offenders(tree)] == [1, 2, 3]


def test_no_location_is_written_by_hand():
    found = [f"{f.relative_to(REPO)}:{line}: {text!r}" for f in _files() for line, text in offenders(parse(f))]
    assert not found, "pass row=/column=/line=/json_path= instead:\n" + "\n".join(found)
