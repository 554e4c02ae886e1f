"""Benchmarks: one sub-package (or module) each, registered as plug-ins, plus the helpers
their builders and demos share.

Every benchmark is a :class:`d3mkit.benchmarks.plugins.Benchmark` record registered
through the ``d3mkit.benchmarks`` entry-point group (pyproject.toml lists d3mkit's own:
tabular, value, value-detection, visudo, abstraction, prism); ``d3mkit build``,
``baseline``, ``demo`` and ``reproduce`` find them there by name
(:mod:`d3mkit.benchmarks.plugins` says what each field is called with). This module keeps
the helpers they share: the common build options, importing an optional module (and
saying which extra installs it), and echoing a demo's validation.
"""


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


def missing(module: str, extra: str) -> str | None:
    """Why a demo skips a step that needs ``module`` (which the optional extra ``extra``
    installs), or None when it imports: ``'torch is not installed (pip install
    "d3mkit[baselines]")'``."""
    if optional_module(module) is not None:
        return None
    return f'{module} is not installed (pip install "d3mkit[{extra}]")'


def echo_validation(root, echo) -> None:
    """Validate a task root a demo just built; echo the count of its issues, then each
    (a warning as a detail line: ``echo`` is the demo's, see :mod:`d3mkit.benchmarks.plugins`)."""
    from d3mkit.validation import validate_task_root
    issues = validate_task_root(root)
    n_err = sum(i.is_error for i in issues)
    echo(f"   validate: {n_err} error(s), {len(issues) - n_err} warning(s)")
    for i in issues:   # the errors always; the warnings with d3mkit demo --verbose
        echo(f"     {i.format()}", **({} if i.is_error else {"detail": True}))
