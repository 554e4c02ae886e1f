"""Benchmarks: one sub-package each, plus the tables the CLI dispatches through.

* :data:`BUILDERS` — ``d3mkit build NAME``: module with ``add_build_arguments(parser)``
  and ``build(args) -> list[Path]`` (the task roots written). ``args`` always carries
  ``out``, ``seed``, ``force`` and ``quiet``.
* :data:`BASELINES` — ``d3mkit baseline --model NAME``: module with
  ``run_baseline(task, model, config)`` returning the score report, and optionally
  ``add_baseline_arguments(parser)``. A module that defines ``CONFIG`` (a frozen
  subclass of :class:`d3mkit.benchmarks.config.BaselineConfig`) receives
  ``CONFIG.from_args(args, model=model)``; the others still receive the argparse
  namespace, whose common fields (``device``, ``epochs``, ``seed``, ``batch_size``) the
  command has checked through :class:`~d3mkit.benchmarks.config.BaselineConfig` first.
* :data:`DEFAULT_MODEL` — the model used when ``--model`` is omitted, by the benchmark
  recorded in the task root's manifest.
* :data:`DEMOS` — modules with ``run_demo(out: Path, device: str, echo) -> None``, run
  in order by ``d3mkit demo``.
"""

BUILDERS = {
    "tabular": "d3mkit.benchmarks.tabular",
    "value": "d3mkit.benchmarks.value.cli",
    "value-detection": "d3mkit.benchmarks.value.cli_detection",
    "visudo": "d3mkit.benchmarks.visudo.cli",
    "abstraction": "d3mkit.benchmarks.abstraction.cli",
    "prism": "d3mkit.benchmarks.prism.cli",
}

BASELINES = {
    "logistic-regression": "d3mkit.benchmarks.tabular",
    "mean": "d3mkit.benchmarks.tabular",
    "resnet18": "d3mkit.benchmarks.value.baseline",
    "resnet50": "d3mkit.benchmarks.value.baseline",
    "resnet101": "d3mkit.benchmarks.value.baseline",
    "digit": "d3mkit.benchmarks.visudo.baseline",
    "visual": "d3mkit.benchmarks.visudo.baseline",
    "nesy": "d3mkit.benchmarks.visudo.baseline",
    "abstraction-cnn": "d3mkit.benchmarks.abstraction.baseline",
    "zero-rate": "d3mkit.benchmarks.prism.baseline",
    "random": "d3mkit.benchmarks.prism.baseline",
    "text": "d3mkit.benchmarks.prism.baseline",
    "fusion": "d3mkit.benchmarks.prism.baseline",
}

DEFAULT_MODEL = {
    "tabular": "logistic-regression",
    "value": "resnet18",
    "value-detection": None,
    "visudo": "visual",
    "abstraction": "abstraction-cnn",
    "prism": "text",
}

DEMOS = [
    "d3mkit.benchmarks.tabular",
    "d3mkit.benchmarks.value.demo",
    "d3mkit.benchmarks.visudo.demo",
    "d3mkit.benchmarks.abstraction.demo",
    "d3mkit.benchmarks.prism.demo",
]


REPRODUCERS = {
    "problems": "d3mkit.benchmarks.problems",
    "abstraction": "d3mkit.benchmarks.abstraction.reproduce",
    "value": "d3mkit.benchmarks.value.reproduce",
    "visudo": "d3mkit.benchmarks.visudo.reproduce",
}
"""``d3mkit reproduce NAME ARGS...``: module with ``add_arguments(parser)`` and
``run(args) -> int`` (the exit code); the module docstring's first line is its help."""


def add_build_arguments(parser) -> None:
    """The options every ``d3mkit build BENCHMARK`` takes (before the benchmark's own)."""
    from pathlib import Path

    from d3mkit.benchmarks.config import seed_value
    parser.add_argument("--out", type=Path, required=True, help="directory to write task roots into")
    parser.add_argument("--seed", type=seed_value, default=0, help="random seed (same seed, same bytes)")
    parser.add_argument("--force", action="store_true", help="replace existing task roots")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


def optional_module(path: str):
    """Import ``path``; None when that module (not something it imports) is absent."""
    from importlib import import_module
    try:
        return import_module(path)
    except ModuleNotFoundError as exc:
        if exc.name is not None and path.startswith(exc.name):
            return None
        raise


def module_summary(path: str) -> str | None:
    """The first line of module ``path``'s docstring, read from its source without importing
    it (``d3mkit build --help`` lists the builders without their imports); None when the
    module is absent (as :func:`optional_module`) or has no docstring."""
    import ast
    from importlib.util import find_spec
    try:
        spec = find_spec(path)
    except ModuleNotFoundError:
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    with open(spec.origin, encoding="utf-8") as fh:
        doc = ast.get_docstring(ast.parse(fh.read()))
    return doc.strip().splitlines()[0] if doc else None


def echo_validation(root, echo) -> None:
    """Validate a task root a demo just built; echo the count of its issues, then each."""
    from d3mkit.validation import validate_task_root
    issues = validate_task_root(root)
    n_err = sum(i.is_error for i in issues)
    echo(f"   validate: {n_err} error(s), {len(issues) - n_err} warning(s)")
    for i in issues:
        echo(f"     {i.format()}")
