"""Imports run one way: documents -> validation -> splits/views/packaging -> scoring ->
benchmarks -> commands -> cli (docs/design.md). Every ``import``/``from ... import`` of a
d3mkit module, at module level or inside a function, is checked on the AST; the package
facade ``d3mkit/__init__.py`` (lazy, above everything) is the one exception; ``d3mkit.api``
(the public verbs) sits on top with the cli."""

import ast
from pathlib import Path

from _sources import parse

REPO = Path(__file__).resolve().parents[1]
LAYERS = [
    ("documents", ["d3mkit.errors", "d3mkit.lazy", "d3mkit.numtext", "d3mkit.beside", "d3mkit.spans", "d3mkit.entrypoints", "d3mkit.codes", "d3mkit.readlog", "d3mkit.limits", "d3mkit.paths", "d3mkit.atomic", "d3mkit.images", "d3mkit.registry", "d3mkit.display",
                   "d3mkit.docs", "d3mkit.schemas"]),
    ("validation", ["d3mkit.validation", "d3mkit.tables"]),
    ("packaging", ["d3mkit.splits", "d3mkit.views", "d3mkit.package", "d3mkit.taskroot",
                   "d3mkit.importing", "d3mkit.digests"]),
    ("scoring", ["d3mkit.scoring"]),
    ("benchmarks", ["d3mkit.benchmarks", "d3mkit.baselines", "d3mkit.evaluate", "d3mkit.executor",
                    "d3mkit.server", "d3mkit.interop", "d3mkit.systems"]),
    ("commands", ["d3mkit.commands"]),
    ("cli", ["d3mkit.cli", "d3mkit.__main__", "d3mkit.api"]),
]


def layer(module: str) -> int | None:
    best = None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and (best is None or len(p) > best[1]):
                best = (i, len(p))
    return None if best is None else best[0]


def modules():
    for f in sorted((REPO / "d3mkit").rglob("*.py")):
        parts = f.relative_to(REPO).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        yield name, f


def imported(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module, node.lineno
            for a in node.names:      # "from d3mkit.x import y" may import the module x.y
                yield f"{node.module}.{a.name}", node.lineno


def test_every_module_has_a_layer():
    missing = [name for name, _ in modules() if name != "d3mkit" and layer(name) is None]
    assert not missing, f"add these to LAYERS (and to docs/design.md): {missing}"


def test_imports_run_one_way():
    wrong = []
    for name, f in modules():
        if name == "d3mkit":
            continue
        me = layer(name)
        for target, line in imported(parse(f)):
            if not target.startswith("d3mkit.") or target.startswith("d3mkit.__version__"):
                continue
            other = layer(target)
            if other is not None and other > me:
                wrong.append(f"{f.relative_to(REPO)}:{line}: {LAYERS[me][0]} module imports "
                             f"{target} ({LAYERS[other][0]})")
    assert not wrong, "\n".join(wrong)


def test_registry_names_no_module_by_string():
    """The review's example: the registry imported benchmark modules by string; now every
    metric module comes through the d3mkit.metrics entry-point group (pyproject.toml)."""
    tree = ast.parse((REPO / "d3mkit" / "registry.py").read_text(encoding="utf-8"))
    calls = {n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", None)
             for n in ast.walk(tree) if isinstance(n, ast.Call)}
    assert not calls & {"import_module", "__import__"}
    strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    assert not [s for s in strings if s.startswith("d3mkit.") and "\n" not in s and s != "d3mkit.metrics"]
