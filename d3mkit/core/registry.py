"""The metric registry: every metric d3mkit can score, by the name a problemDoc uses.

What this module owns: the :class:`Metric` record, the task-type groups
(:data:`CLASSIFICATION`, :data:`REGRESSION`, :data:`CLUSTERING`) and therefore which task
types each metric fits — the validator and the scorer both ask it — and the loading of
metrics. It sits at the bottom of the import order (it imports nothing of d3mkit but
:mod:`d3mkit.core.errors`), so validation can ask it without importing scoring.

A :class:`Metric` carries the facts a scorer and a user need (direction, range, task types,
confidence need, parameters, multi-target behaviour, origin) and a pure ``score`` function
on arrays. Every metric registers through the ``d3mkit.metrics`` entry-point group, d3mkit's
own included: pyproject.toml lists d3mkit's modules (the standard metrics in
``d3mkit.scoring.metrics`` and ``d3mkit.scoring.objectdetection``, and each benchmark's
``metrics`` module), and importing a module registers the metrics it decorates with
:func:`register_metric`. An entry point may also name a :class:`Metric` or a zero-argument
callable returning one or a list of them. d3mkit's own entry points are read from the
pyproject.toml of the source checkout when d3mkit runs from one (else from the installed
metadata); one that cannot be loaded is an error (a packaging bug). A third-party entry
point that cannot be loaded is a warning (:func:`plugin_issues`), not a crash.

Calling convention of ``score``: ``score(y_true, y_pred, *, <declared keywords>) -> float``
where ``y_true``/``y_pred`` are 1-D numpy arrays for a singleTarget metric and 2-D
``(n_rows, n_targets)`` arrays for an allTargets metric, already aligned row by row (values
parsed per the target's colType: numbers for integer/real, strings otherwise). For a
multiLabel problem (several truth rows per d3mIndex) only metrics registered with
``multilabel=True`` are allowed; they get one :class:`d3mkit.scoring.multilabel.LabelSets`
(indicator matrices of truth and predictions, and the confidence matrix) as both ``y_true``
and ``y_pred``.

A metric gets exactly the keywords it declares, nothing else: its problemDoc parameters
(``params``, under their problemDoc names: ``K``, ``posLabel``) and its ``inputs``, named
from :data:`INPUTS`. Both are checked against the function's signature when the
:class:`Metric` is made: every declared name must be a keyword parameter, every keyword
parameter without a default must be declared, and ``**kwargs`` is refused (a misspelt
keyword must fail, not vanish). ``needs_confidence`` implies the ``confidence`` input and
``metadata_file`` the ``metadata`` input. ``layout`` names the predictions layout the
metric scores when it needs one (``"ranked"``: rows of (d3mIndex, value, rank);
``"objectDetection"``).

>>> @register_metric(name="demoZeroOne", higher_is_better=True, best=1.0, worst=0.0,
...                  description="fraction of exact matches (example)")
... def _zero_one(y_true, y_pred):
...     import numpy as np
...     return float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))
>>> get_metric("demoZeroOne")(["a", "b"], ["a", "c"])
0.5
>>> unregister_metric("demoZeroOne")
"""

from __future__ import annotations

import re

import inspect
from dataclasses import dataclass
from types import MappingProxyType, ModuleType
from typing import Callable, Iterable, Mapping

from d3mkit.core import entrypoints
from d3mkit.core.errors import D3MKitError, close_match, error, require_type, warning

ENTRY_POINT_GROUP = "d3mkit.metrics"

# task-type groups (problemSchema 3.1.1 taskType values) a metric may declare it fits
CLASSIFICATION = ("classification", "vertexNomination", "vertexClassification", "linkPrediction",
                  "graphMatching", "communityDetection", "semiSupervisedClassification")
REGRESSION = ("regression", "timeSeriesForecasting", "collaborativeFiltering",
              "semiSupervisedRegression")
CLUSTERING = ("clustering", "communityDetection")
OBJECT_DETECTION = ("objectDetection",)

#: the inputs a metric may declare, each supplied by the scorer when the layout has it
INPUTS = {
    "confidence": "per row the confidence of its label (1-D), or a (rows, classes) matrix",
    "classes": "the class names of a (rows, classes) confidence matrix",
    "codes": "the labels' integer form (d3mkit.scoring.labels.LabelCodes) when the parse has it",
    "ranks": "per truth row the rank the predictions gave its true value (500: not listed)",
    "metadata": "the rows of metadata_file (a pandas DataFrame) in the rows' order",
    "images_true": "objectDetection: each truth box's image",
    "images_pred": "objectDetection: each predicted box's image",
    "target_names": "the target column names, in the order of the 2-D columns",
    "d3m_index": "the rows' d3mIndex values",
}
LAYOUTS = ("ranked", "objectDetection")


@dataclass(frozen=True)
class Metric:
    name: str
    score: Callable[..., float]
    higher_is_better: bool
    best: float
    worst: float
    task_types: tuple[str, ...] = ()          # empty: any task type
    needs_confidence: bool = False
    params: tuple[str, ...] = ()              # problemDoc parameter names it accepts
    applicability: str = "singleTarget"       # default applicabilityToTarget
    standard: bool = False                    # one of problemSchema 3.1.1's metric names
    metadata_file: str | None = None          # CSV in <name>_debug/ the metric needs
    description: str = ""
    source: str = "d3mkit"                    # where it came from (module or entry point)
    inputs: tuple[str, ...] = ()              # keywords from INPUTS the function reads
    layout: str | None = None                 # the predictions layout it needs (LAYOUTS)
    multilabel: bool = False                  # scores multiLabel label sets (LabelSets)
    binary_only: bool = False                 # scores binary problems only (not multiClass/multiLabel)

    def __post_init__(self) -> None:
        implied = (("confidence",) if self.needs_confidence else ()) + \
            (("metadata",) if self.metadata_file else ())
        object.__setattr__(self, "inputs", tuple(dict.fromkeys((*self.inputs, *implied))))
        object.__setattr__(self, "params", tuple(self.params))
        check_signature(self)

    def __call__(self, y_true, y_pred, **kwargs) -> float:
        return float(self.score(y_true, y_pred, **kwargs))

    def applies_to(self, task_type: str | None) -> bool:
        return not self.task_types or task_type in self.task_types

    def describe(self) -> dict:
        return {"name": self.name, "higherIsBetter": self.higher_is_better,
                "best": self.best, "worst": self.worst, "taskTypes": list(self.task_types),
                "needsConfidence": self.needs_confidence, "params": list(self.params),
                "applicabilityToTarget": self.applicability, "standard": self.standard,
                "metadataFile": self.metadata_file, "multiLabel": self.multilabel,
                "binaryOnly": self.binary_only, "inputs": list(self.inputs),
                "layout": self.layout,
                "description": self.description,
                "source": self.source}


def check_signature(metric: Metric) -> None:
    """TypeError unless ``metric.score`` takes ``(y_true, y_pred)`` and, as keywords, every
    declared input and parameter, needs no keyword it does not declare, and takes no
    ``**kwargs``; and unless its inputs and layout are known names."""
    where = f"metric {metric.name!r} ({metric.source})"
    unknown = [i for i in metric.inputs if i not in INPUTS]
    if unknown:
        raise TypeError(f"{where} declares unknown input(s) {', '.join(map(repr, unknown))}; "
                        f"inputs are: {', '.join(INPUTS)}")
    if metric.layout is not None and metric.layout not in LAYOUTS:
        raise TypeError(f"{where} declares layout {metric.layout!r}; layouts are: {', '.join(LAYOUTS)}")
    try:
        sig = inspect.signature(metric.score)
    except (TypeError, ValueError):
        return   # a builtin without a signature: nothing to check
    ps = list(sig.parameters.values())
    var_kw = [p.name for p in ps if p.kind is p.VAR_KEYWORD]
    if var_kw:
        raise TypeError(f"{where}: its function takes **{var_kw[0]}; name each keyword it reads "
                        f"and declare it (inputs=, params=) so that a misspelt keyword fails")
    positional = [p for p in ps if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) < 2 and not any(p.kind is p.VAR_POSITIONAL for p in ps):
        raise TypeError(f"{where}: its function must take (y_true, y_pred, ...)")
    keywords = {p.name: p for p in ps[2:] if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    declared = (*metric.inputs, *metric.params)
    missing = [n for n in declared if n not in keywords]
    if missing:
        raise TypeError(f"{where} declares {', '.join(map(repr, missing))} but its function "
                        f"has no such keyword parameter")
    undeclared = [n for n, p in keywords.items() if p.default is p.empty and n not in declared]
    if undeclared:
        raise TypeError(f"{where}: its function needs {', '.join(map(repr, undeclared))}, "
                        f"which it does not declare (inputs=, params=)")


_REGISTRY: dict[str, Metric] = {}
_VIEW = MappingProxyType(_REGISTRY)
_LOADED = False
_LOAD_ISSUES: list = []


def add_metric(metric: Metric, *, replace: bool = False) -> Metric:
    """Register ``metric``; a second metric of the same name is an error unless ``replace``."""
    if metric.name in _REGISTRY and not replace and _REGISTRY[metric.name] is not metric:
        raise ValueError(f"metric {metric.name!r} is already registered "
                         f"(from {_REGISTRY[metric.name].source})")
    _REGISTRY[metric.name] = metric
    return metric


def register_metric(name: str | None = None, **props) -> Callable:
    """Decorator: register the decorated pure function as a metric; returns the function.
    Written with parentheses: ``@register_metric()`` or ``@register_metric("name")``."""
    if callable(name):
        raise TypeError(f"name: expected a metric name (str) or None, got the function {name.__name__!r}: "
                        f"write @register_metric() or @register_metric(\"name\")")
    require_type("name", name, (str, type(None)), "a metric name (str) or None")

    def deco(fn: Callable) -> Callable:
        props.setdefault("source", fn.__module__)
        if "description" not in props and fn.__doc__:
            props["description"] = first_sentence(fn.__doc__)
        if props.get("description"):
            props["description"] = as_sentence(props["description"])
        add_metric(Metric(name=name or fn.__name__, score=fn, **props))
        return fn
    return deco


def first_sentence(doc: str) -> str:
    """The first sentence of a docstring (its first paragraph up to a full stop), whole."""
    para = " ".join(doc.strip().split("\n\n")[0].split())
    m = re.search(r"(?<![.A-Z])\.(\s|$)", para)
    return para[:m.start() + 1] if m else para


def as_sentence(text: str) -> str:
    """``text`` as a sentence for users: a capital first letter and a final full stop."""
    text = " ".join(str(text).split())
    if text and text[0].islower():
        text = text[0].upper() + text[1:]
    return text if not text or text.endswith((".", "!", "?")) else text + "."


def unregister_metric(name: str) -> None:
    _REGISTRY.pop(name, None)


def _add_from(ep: "entrypoints.EntryPoint", source: str | None) -> None:
    obj = ep.load()
    if isinstance(obj, ModuleType):
        return   # importing the module registered its metrics
    items = obj() if callable(obj) and not isinstance(obj, Metric) else obj
    items = [items] if isinstance(items, Metric) else list(items)
    for m in items:
        if not isinstance(m, Metric):
            raise TypeError(f"{ep.value} gave {type(m).__name__}, not a Metric")
        add_metric(Metric(**{**m.__dict__, "source": source or m.source}))


def _load_entry_points() -> None:
    for ep in entrypoints.own(ENTRY_POINT_GROUP):
        try:
            _add_from(ep, None)
        except Exception as exc:
            raise ImportError(f"d3mkit's own metric entry point {ep.name} = {ep.value} cannot be "
                              f"loaded ({type(exc).__name__}: {exc}); fix pyproject.toml") from exc
    for ep in entrypoints.third_party(ENTRY_POINT_GROUP):
        try:
            _add_from(ep, f"entry point {ep.name} = {ep.value}")
        except Exception as exc:  # a broken plugin must not break d3mkit
            _LOAD_ISSUES.append(warning("metrics.plugin", ep.name,
                                        f"could not load metric plugin {ep.value}: {exc}"))


def registry() -> Mapping[str, Metric]:
    """All registered metrics by name (built-ins and plugins loaded on first use), as a
    read-only view: metrics are added and removed through :func:`register` and
    :func:`unregister` only."""
    global _LOADED
    if not _LOADED:
        _LOADED = True
        _load_entry_points()
    return _VIEW


def plugin_issues() -> list:
    registry()
    return list(_LOAD_ISSUES)


def get_metric(name: str) -> Metric:
    """The metric called ``name``; an unknown name raises with the known names listed (and
    the one it was most likely meant to be); a name that is not a str is a TypeError."""
    require_type("name", name, str, "a metric name (str)")
    reg = registry()
    if name not in reg:
        known = ", ".join(sorted(reg))
        match = close_match(name, reg)
        hint = f"did you mean {match!r}? " if match else ""
        raise D3MKitError(error("metric.unknown", "", f"unknown metric {name!r}; {hint}known metrics: {known}"))
    return reg[name]


def resolve(entry: dict) -> Metric:
    """The metric a problemDoc ``performanceMetrics`` entry names (``other`` resolves
    ``specifyOther``)."""
    name = entry.get("specifyOther") if entry.get("metric") == "other" else entry.get("metric")
    return get_metric(str(name))


def names() -> Iterable[str]:
    return sorted(registry())
