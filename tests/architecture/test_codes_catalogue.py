"""One catalogue of issue codes (d3mkit/core/codes.py): every code literal any d3mkit module
emits — through error(), warning(), make(), D3MKitError.single(), Issue(...) or a code=
keyword — is listed, with the severity it is emitted with; ``d3mkit codes`` lists them."""

import ast
import json
import re
from pathlib import Path

import pytest

from _sources import parse
from d3mkit.cli import main
from d3mkit.core.codes import CODES, severity_of

REPO = Path(__file__).resolve().parents[2]
FAMILIES = {c.split(".")[0] for c in CODES}
CODE_LIKE = re.compile(r"^[a-z][A-Za-z_]*(\.[a-z][a-z_]*)+$")
KINDS = ("predictions", "truth")          # the scorer's f"{kind}.suffix" codes
SEVERITY_OF_CALL = {"error": "error", "warning": "warning", "single": "error"}


CORE = {"Issue": {1}, "error": {0}, "warning": {0}, "make": {0}, "single": {1}}


def _code_params(trees) -> dict[str, dict[str, set[int]]]:
    """Per module, its functions (nested ones too) with a parameter named ``code``: name ->
    positions of that parameter among a call's arguments (``self``/``cls`` not counted).
    These are the helpers a code goes through besides the core calls (:data:`CORE`)."""
    out: dict[str, dict[str, set[int]]] = {}
    for mod, tree in trees.items():
        defs = out.setdefault(mod, {})
        for n in ast.walk(tree):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names = [a.arg for a in n.args.posonlyargs + n.args.args]
                if names and names[0] in ("self", "cls"):
                    names = names[1:]
                if "code" in names:
                    defs.setdefault(n.name, set()).add(names.index("code"))
                elif any(a.arg == "code" for a in n.args.kwonlyargs):
                    defs.setdefault(n.name, set())
    return out


def _constants(trees) -> dict[str, dict[str, object]]:
    """Per module: its top-level string constants, its dicts of string values (a code per
    key: ("dict", values)) and the names it imports anywhere (``from m import NAME as
    alias`` -> ("import", m, NAME))."""
    out: dict[str, dict[str, object]] = {}
    for mod, tree in trees.items():
        names: dict[str, object] = {}
        for n in tree.body:
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                v = n.value
                if isinstance(v, ast.Constant) and isinstance(v.value, str):
                    names[n.targets[0].id] = v.value
                elif isinstance(v, ast.Dict) and v.values and all(
                        isinstance(x, ast.Constant) and isinstance(x.value, str) for x in v.values):
                    names[n.targets[0].id] = ("dict", [x.value for x in v.values])
        for n in ast.walk(tree):
            if isinstance(n, ast.ImportFrom) and n.module:
                for a in n.names:
                    names.setdefault(a.asname or a.name, ("import", n.module, a.name))
        out[mod] = names
    return out


def _resolve(mod: str, name: str, table, seen=()):
    """What ``name`` is in module ``mod`` after following imports (None: not a constant)."""
    v = table.get(mod, {}).get(name)
    if isinstance(v, tuple) and v[0] == "import" and (v[1], v[2]) not in seen:
        return _resolve(v[1], v[2], table, seen + ((v[1], v[2]),))
    return v


def _positions(mod: str, name: str, params, consts) -> set[int] | None:
    """Where a call of ``name`` in ``mod`` takes a code: a core call, a helper of the module,
    or a helper imported from another module of the sources."""
    if name in CORE:
        return CORE[name]
    if name in params.get(mod, {}):
        return params[mod][name]
    imp = consts.get(mod, {}).get(name)
    if isinstance(imp, tuple) and imp[0] == "import" and imp[2] in params.get(imp[1], {}):
        return params[imp[1]][imp[2]]
    return None


def emitted(root: Path = REPO / "d3mkit", package: str = "d3mkit"):
    """(code, severity or None, where) for every code the sources under ``root`` emit, and
    (None, None, where + what) for a code expression the scan cannot resolve. A code is
    complete for the scan when it is a literal, a module constant (also imported), the
    scorer's f"{kind}.suffix", schema's f"schema.{keyword}" fallback, a parameter passed on
    (its callers are scanned) or an existing issue's ``.code``."""
    trees = {}
    for f in sorted(root.rglob("*.py")):
        rel = f.relative_to(root).with_suffix("")
        parts = [package, *rel.parts]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        trees[".".join(parts)] = parse(f)
    params = _code_params(trees)
    consts = _constants(trees)
    for mod, tree in trees.items():
        where_file = mod.replace(".", "/") + ".py"
        stack: list[set[str]] = [set()]

        def visit(node):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                a = node.args
                stack.append(stack[-1] | {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs})
                for child in ast.iter_child_nodes(node):
                    yield from visit(child)
                stack.pop()
                return
            if isinstance(node, ast.Call):
                yield from call(node, stack[-1])
            for child in ast.iter_child_nodes(node):
                yield from visit(child)

        def call(n, local):
            name = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", None)
            if name == "Check":                # a validation check's name (problem.schema), not a code
                return
            where = f"{where_file}:{n.lineno}"
            exprs = []
            pos = _positions(mod, name, params, consts)
            if pos is not None:
                exprs = [n.args[i] for i in pos if i < len(n.args)]
                exprs += [k.value for k in n.keywords if k.arg == "code"]
            sev = SEVERITY_OF_CALL.get(name)
            if name == "Issue" and n.args and isinstance(n.args[0], ast.Constant):
                sev = n.args[0].value
            for e in exprs:
                if isinstance(e, ast.Constant) and isinstance(e.value, str):
                    yield e.value, sev, where
                elif isinstance(e, ast.Name) and e.id in local:
                    continue                                   # passed on: its callers are scanned
                elif isinstance(e, ast.Name) and isinstance(_resolve(mod, e.id, consts), str):
                    yield _resolve(mod, e.id, consts), sev, where
                elif isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) \
                        and isinstance(_resolve(mod, e.value.id, consts), tuple):
                    for code in _resolve(mod, e.value.id, consts)[1]:   # a dict of codes
                        yield code, sev, where
                elif isinstance(e, ast.Attribute) and e.attr == "code":
                    continue                                   # an existing issue's code, re-emitted
                elif isinstance(e, ast.JoinedStr) and len(e.values) == 2 \
                        and isinstance(e.values[0], ast.FormattedValue) \
                        and getattr(e.values[0].value, "id", None) == "kind" \
                        and isinstance(e.values[1], ast.Constant):
                    for kind in KINDS:
                        yield kind + e.values[1].value, sev, where
                elif isinstance(e, ast.JoinedStr) and e.values and isinstance(e.values[0], ast.Constant) \
                        and e.values[0].value == "schema.":
                    continue                                   # schema.<keyword>: the documented fallback
                else:
                    yield None, None, f"{where} ({ast.unparse(e)[:60]})"
            # codes in other arguments of any call (tuples of codes handed to helpers)
            code_args = set(map(id, exprs))
            for a in list(n.args) + [k.value for k in n.keywords]:
                if id(a) not in code_args and isinstance(a, ast.Constant) and isinstance(a.value, str) \
                        and CODE_LIKE.match(a.value) and a.value.split(".")[0] in FAMILIES:
                    yield a.value, None, where

        yield from visit(tree)


@pytest.mark.slow
def test_every_emitted_code_is_catalogued_with_its_severity():
    found = list(emitted())
    assert len(found) > 150
    unresolved = [w for c, _, w in found if c is None]
    assert not unresolved, ("a code the catalogue scan cannot see; make it a literal or a module "
                            "constant:\n" + "\n".join(unresolved))
    found = [f for f in found if f[0] is not None]
    missing = [f"{w}: {c}" for c, _, w in found if c not in CODES and not c.startswith("schema.")]
    assert not missing, "add to d3mkit/core/codes.py:\n" + "\n".join(missing)
    wrong = [f"{w}: {c} emitted as {s}, catalogued as {severity_of(c)}"
             for c, s, w in found if s in ("error", "warning") and c in CODES and s != CODES[c][0]]
    assert not wrong, "\n".join(wrong)


@pytest.mark.slow
def test_metric_unknown_has_one_severity():
    """The review's example: metric.unknown was a warning in validation and an error in the
    registry. Now the registry's unknown name is an error; validation's 'not registered
    here' is its own code, a warning."""
    sevs = {s for c, s, _ in emitted() if c == "metric.unknown" and s is not None}
    assert sevs == {"error"} and CODES["metric.unknown"][0] == "error"
    assert CODES["metric.unregistered"][0] == "warning"


def test_codes_command(capsys):
    assert main(["codes"]) == 0
    out = capsys.readouterr().out
    assert "metric.unknown" in out and "predictions.index_set" in out and "visudo.checksum" in out
    assert main(["codes", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["code"] for r in rows} == set(CODES)
    assert all(r["severity"] in ("error", "warning") and r["description"] for r in rows)


def test_the_scan_sees_codes_built_every_way(tmp_path):
    """Each way a module can hand a code on is seen, and an uncatalogued one fails the test
    above: a literal, a module constant (also imported), a helper's ``code`` parameter, the
    scorer's f"{kind}.suffix"; a code built otherwise is reported as unresolvable."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "consts.py").write_text('BAD = "nope.constant"\n')
    (pkg / "mod.py").write_text(
        "from pkg.consts import BAD as ALIAS\n"
        "HERE = \"nope.local\"\n"
        "def helper(path, code, msg):\n    return make(code, '', msg, path)\n"
        "def run(kind):\n"
        "    error('nope.literal', '', 'x')\n"
        "    warning(HERE, '', 'x')\n"
        "    D3MKitError.single('p', ALIAS, '', 'x')\n"
        "    helper('p', 'nope.helper', 'x')\n"
        "    error(f'{kind}.nope_kind', '', 'x')\n"
        "    error('nope.' + kind, '', 'x')\n")
    found = list(emitted(pkg, "pkg"))
    codes = {c for c, _, _ in found if c}
    assert {"nope.literal", "nope.local", "nope.constant", "nope.helper", "predictions.nope_kind",
            "truth.nope_kind"} <= codes
    assert not codes & set(CODES)
    assert [w for c, _, w in found if c is None] == ["pkg/mod.py:11 ('nope.' + kind)"]


def test_codes_emitted_at_run_time_are_recorded():
    """tests/conftest.py records every code d3mkit emits during the run and fails the session
    on an uncatalogued one: an Issue a d3mkit module builds is recorded, whatever the
    code's spelling; one a test builds is not."""
    import conftest
    from d3mkit.core.errors import error
    from d3mkit.validation.common import row_issues
    made = "nope." + "built_at_run_time"
    error(made, "", "a test's own issue")
    assert made not in conftest.EMITTED
    ns = {"__name__": "d3mkit.fake_module", "row_issues": row_issues}
    exec(compile(f"def emit():\n    return row_issues({made!r}, [1], 'c', str, 'f.csv', 'error')", "fake.py", "exec"), ns)
    ns["emit"]()
    try:
        assert conftest.uncatalogued() == {made: "d3mkit.fake_module"}
    finally:
        del conftest.EMITTED[made]
    assert conftest.uncatalogued() == {}


def test_no_code_is_listed_twice():
    """A dict literal keeps the last of two equal keys silently: each code once in codes.py."""
    import ast
    from collections import Counter
    tree = ast.parse((Path(__file__).resolve().parents[2] / "d3mkit" / "core" / "codes.py").read_text(encoding="utf-8"))
    keys = [k.value for node in ast.walk(tree) if isinstance(node, ast.Dict)
            for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    assert [k for k, n in Counter(keys).items() if n > 1] == []
