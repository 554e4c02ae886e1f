"""Benchmarks: one sub-package each, plus the tables the CLI dispatches through.

* :data:`BUILDERS` — ``d3mkit build NAME``: module with ``add_build_arguments(parser)``
  and ``build(args) -> list[Path]`` (the task roots written). ``args`` always carries
  ``out``, ``seed``, ``force`` and ``quiet``.
* :data:`BASELINES` — ``d3mkit baseline --model NAME``: module with
  ``run_baseline(task, model, args)`` returning the score report, and optionally
  ``add_baseline_arguments(parser)``. ``args`` carries ``device``, ``epochs``, ``seed``.
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
    "resnet18": "d3mkit.benchmarks.value.baseline",
    "resnet50": "d3mkit.benchmarks.value.baseline",
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


def optional_module(path: str):
    """Import ``path``; None when that module (not something it imports) is absent."""
    from importlib import import_module
    try:
        return import_module(path)
    except ModuleNotFoundError as exc:
        if exc.name is not None and path.startswith(exc.name):
            return None
        raise


def echo_validation(root, echo) -> None:
    """Validate a task root a demo just built; echo the count of its issues, then each."""
    from d3mkit.validate import validate_task_root
    issues = validate_task_root(root)
    n_err = sum(i.is_error for i in issues)
    echo(f"   validate: {n_err} error(s), {len(issues) - n_err} warning(s)")
    for i in issues:
        echo(f"     {i.format()}")
