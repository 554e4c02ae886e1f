"""d3mkit: benchmark tasks as D3M problem directories, validation, scoring and baselines.

Importing this package is cheap: it never imports torch, pandas or the benchmarks. The
public API (docs/api.md) is loaded on first use of a name:

* validation — :func:`validate`, :func:`iter_issues`, :func:`is_valid`; :class:`Issue`,
  :class:`D3MKitError` (a ``ValueError``);
* documents and task roots — :class:`ProblemDoc`, :class:`DatasetDoc`, :class:`TaskRoot`;
* splits and views — :func:`make_splits`, :func:`write_views`;
* bringing your own data — :func:`import_table` (a path or a DataFrame), :func:`import_arff`
  (with an OpenML split file), :func:`import_images` (an ImageFolder), :func:`import_croissant` (a
  record set of a local Croissant file); each returns the task root written;
  :func:`info` (what a task root holds, as a dict);
* scoring — :func:`score`; the registry :class:`Metric`, :func:`register_metric`,
  :func:`get_metric`, :func:`metric_names`.

>>> import d3mkit
>>> issubclass(d3mkit.D3MKitError, ValueError), "accuracy" in d3mkit.metric_names()
(True, True)
>>> from d3mkit import validate
>>> import types; isinstance(validate, types.FunctionType)
True
"""

__version__ = "0.1.0"

_API = {
    "validate": "d3mkit.validation.verbs", "iter_issues": "d3mkit.validation.verbs", "is_valid": "d3mkit.validation.verbs",
    "score": "d3mkit.api",
    "Issue": "d3mkit.core.errors", "D3MKitError": "d3mkit.core.errors",
    "ProblemDoc": "d3mkit.documents.problem", "DatasetDoc": "d3mkit.documents.dataset",
    "TaskRoot": "d3mkit.taskroot.model",
    "import_table": "d3mkit.importing.table", "import_arff": "d3mkit.importing.arff",
    "import_images": "d3mkit.importing.images", "info": "d3mkit.importing.info",
    "import_croissant": "d3mkit.importing.croissant",
    "make_splits": "d3mkit.taskroot.splits.plan", "write_views": "d3mkit.taskroot.views",
    "Metric": "d3mkit.core.registry", "register_metric": "d3mkit.core.registry",
    "get_metric": "d3mkit.core.registry", "metric_names": "d3mkit.core.registry",
}
__all__ = ["__version__", *_API]


def __getattr__(name: str):
    """Load a public name on first use (PEP 562), so ``import d3mkit`` stays cheap."""
    if name not in _API:
        raise AttributeError(f"module 'd3mkit' has no attribute {name!r}")
    from importlib import import_module
    value = getattr(import_module(_API[name]), "names" if name == "metric_names" else name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_API))
