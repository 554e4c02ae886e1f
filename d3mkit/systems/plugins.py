"""The system registry: every AutoML system ``d3mkit run`` can start, by name.

What this module owns: the :class:`System` record, the ``d3mkit.systems`` entry-point group
(d3mkit's own built-ins are listed in pyproject.toml and read from the source checkout when
d3mkit runs from one, :mod:`d3mkit.core.entrypoints`; they are also known here by name so that a
checkout whose installed metadata predates the group still finds them), the
``command:TEMPLATE`` systems, and which task types a system accepts.

A system is one of two kinds:

* **Python** (``fit`` and ``predict`` given): d3mkit starts ``python -m d3mkit.systems.child``
  in the sandbox; the child reads the views (:mod:`d3mkit.systems.data`), calls
  ``fit(train, options) -> model`` and ``predict(model, test, options) -> values`` (a (rows, targets) array, or for
  multiLabel one label list per row; :func:`d3mkit.systems.data.predictions_frame` makes the
  predictions file of them), timing each;
* **command** (``command`` given): ``command(paths, options) -> argv``, any program, run in
  the sandbox with the same limits; it writes ``paths["out"]``.

``options`` is a :class:`Options` (seed, time limit, cores). Task types are written
``taskType/taskSubType`` (``classification/binary``); a system refuses any other.

>>> s = get("command:python fit.py {train} {test} {problem} {out}")
>>> s.name, s.kind, s.accepts("regression", "univariate")
('command', 'command', None)
>>> get("flaml").accepts("objectDetection", None)
'flaml handles classification/binary, classification/multiClass, regression/univariate, not objectDetection'
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field, replace
from typing import Callable

from d3mkit.core import entrypoints
from d3mkit.benchmarks.plugins import ref
from d3mkit.core.errors import D3MKitError, UsageError, close_match, error

ENTRY_POINT_GROUP = "d3mkit.systems"
#: d3mkit's own systems (also in pyproject.toml); found without reinstalling the metadata
BUILTIN = {"constant": "d3mkit.systems.builtin:CONSTANT",
           "random-forest": "d3mkit.systems.builtin:RANDOM_FOREST",
           "flaml": "d3mkit.systems.builtin:FLAML",
           "autogluon": "d3mkit.systems.builtin:AUTOGLUON",
           "h2o": "d3mkit.systems.builtin:H2O",
           "tpot": "d3mkit.systems.builtin:TPOT"}
TABULAR = ("classification/binary", "classification/multiClass", "classification/multiLabel",
           "regression/univariate", "regression/multivariate")
PLACEHOLDERS = ("train", "test", "problem", "out")


@dataclass(frozen=True)
class Options:
    """What a system is told about its budget: ``seed``, ``time_limit`` (seconds, None:
    none), ``cores`` (its n_jobs), ``memory_limit`` (MB, None: none); ``started``: when its
    process started (``time.time()``, set by the child), so a system can budget what is left
    (:meth:`remaining`)."""
    seed: int = 0
    time_limit: float | None = None
    cores: int = 1
    memory_limit: int | None = None
    started: float | None = None

    def remaining(self) -> float | None:
        """Seconds of the time limit not yet spent (None: no limit)."""
        if self.time_limit is None:
            return None
        import time
        return self.time_limit - (time.time() - self.started if self.started is not None else 0.0)

    def to_dict(self) -> dict:
        return {"seed": self.seed, "time_limit": self.time_limit, "cores": self.cores,
                "memory_limit": self.memory_limit}


def _none() -> None:
    return None


@dataclass(frozen=True)
class System:
    """One AutoML system (see the module docstring)."""
    name: str
    description: str
    tasks: tuple[str, ...] = TABULAR
    fit: Callable | None = None           # fit(train: data.Train, options) -> model
    predict: Callable | None = None       # predict(model, test: data.Test, options) -> values
    command: Callable | None = None       # command(paths: dict, options) -> list[str]
    version: Callable = _none             # () -> version text, or None when not installed
    ready: Callable | None = None         # () -> None when ready, else why not (one line)
    install: Callable | None = None       # install(echo) -> None: what 'd3mkit systems install' does
    source: str = "d3mkit"

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"a system's name is a non-empty string, not {self.name!r}")
        if (self.fit is None) != (self.predict is None):
            raise TypeError(f"system {self.name!r}: give fit and predict together")
        if (self.fit is None) == (self.command is None):
            raise TypeError(f"system {self.name!r}: give fit/predict (a Python system) or command, one of them")
        object.__setattr__(self, "tasks", tuple(self.tasks))

    @property
    def kind(self) -> str:
        return "python" if self.fit is not None else "command"

    def why_not_ready(self) -> str | None:
        """None when the system can run here, else why not (what to install)."""
        if self.ready is not None:
            return self.ready()
        return None if self.version() is not None else f"{self.name} is not installed"

    def accepts(self, task_type: str | None, subtype: str | None) -> str | None:
        """None when the system handles ``task_type/subtype``, else why not."""
        if not self.tasks:
            return None
        if f"{task_type}/{subtype}" in self.tasks or task_type in self.tasks:
            return None
        what = f"{task_type}/{subtype}" if subtype else str(task_type)
        return f"{self.name} handles {', '.join(self.tasks)}, not {what}"

    def describe(self) -> dict:
        why = self.why_not_ready()
        return {"name": self.name, "ready": why is None, "version": self.version(),
                "tasks": list(self.tasks), "kind": self.kind, "description": self.description,
                "not_ready": why, "source": self.source}


# ---- command: systems ---------------------------------------------------------------------

def _template_argv(template: str):
    def argv(paths: dict, options: Options) -> list[str]:
        return [word.format(**paths) for word in shlex.split(template)]
    return argv


def command_system(template: str) -> System:
    """The system ``command:TEMPLATE``: ``TEMPLATE`` split as a shell would (no shell runs it),
    each placeholder ``{train}`` ``{test}`` ``{problem}`` ``{out}`` replaced by a sandbox path.
    A template with an unknown placeholder, or none naming ``{out}``, is a usage error."""
    import string
    try:
        words = shlex.split(template)
        names = {f for w in words for _, f, _, _ in string.Formatter().parse(w) if f is not None}
    except ValueError as exc:
        raise UsageError(f"command:{template}: cannot be read ({exc})") from None
    unknown = sorted(names - set(PLACEHOLDERS))
    if not words:
        raise UsageError("command: needs a program after the colon, e.g. command:python fit.py {train} {test} {out}")
    if unknown:
        raise UsageError(f"command:{template}: unknown placeholder(s) {', '.join('{' + n + '}' for n in unknown)}; "
                         f"placeholders are {', '.join('{' + p + '}' for p in PLACEHOLDERS)}")
    if "out" not in names:
        raise UsageError(f"command:{template}: names no {{out}} (the predictions file the program writes)")
    import shutil
    program = words[0]

    def ready() -> str | None:
        return None if shutil.which(program) else f"{program} is not on PATH"
    return System("command", f"the program {template}", tasks=(), command=_template_argv(template),
                  version=lambda: None, ready=ready, source=f"command:{template}")


# ---- the registry ----------------------------------------------------------------------

_LOADED: dict[str, System | None] = {}
_ISSUES: list = []


def _entry_points() -> dict:
    """name -> (entry point or 'module:attr', own?); d3mkit's own first."""
    eps: dict = {name: (target, True) for name, target in BUILTIN.items()}
    for ep in entrypoints.own(ENTRY_POINT_GROUP):
        eps[ep.name] = (ep, True)
    for ep in entrypoints.third_party(ENTRY_POINT_GROUP):
        eps.setdefault(ep.name, (ep, False))
    return eps


def names() -> list[str]:
    """Every registered system name (nothing imported)."""
    return list(_entry_points())


def _load(name: str, ep, is_own: bool) -> System | None:
    try:
        obj = ref(ep).resolve() if isinstance(ep, str) else ep.load()
        record = obj() if callable(obj) and not isinstance(obj, System) else obj
        if not isinstance(record, System):
            raise TypeError(f"it gave {type(record).__name__}, not a d3mkit.systems.plugins.System")
        if record.name != name:
            raise ValueError(f"its record is named {record.name!r}, not {name!r}")
    except Exception as exc:
        value = ep if isinstance(ep, str) else ep.value
        if is_own:
            raise ImportError(f"d3mkit's own system {name} = {value} cannot be loaded "
                              f"({type(exc).__name__}: {exc})") from exc
        from d3mkit.core.errors import warning
        _ISSUES.append(warning("systems.plugin", f"entry point {name}",
                               f"could not load system plugin {value}: {exc}"))
        return None
    return record if is_own else replace(record, source=f"entry point {name} = {ep.value}")


def systems() -> dict[str, System]:
    """Every registered system that loads, by name."""
    out = {}
    for name, (ep, own) in _entry_points().items():
        if name not in _LOADED:
            _LOADED[name] = _load(name, ep, own)
        if _LOADED[name] is not None:
            out[name] = _LOADED[name]
    return out


def plugin_issues() -> list:
    systems()
    return list(_ISSUES)


def get(name: str) -> System:
    """The system ``name``, or ``command:TEMPLATE``; an unknown name is a usage error listing
    the known ones."""
    if not isinstance(name, str):
        raise TypeError(f"name: expected a system name (str), got {type(name).__name__}")
    if name.startswith("command:"):
        return command_system(name[len("command:"):])
    known = systems()
    if name not in known:
        match = close_match(name, known)
        hint = f"did you mean {match!r}? " if match else ""
        raise D3MKitError(error("systems.unknown", "", f"unknown system {name!r}; {hint}known: "
                                f"{', '.join(known)}, or command:TEMPLATE"), 2)
    return known[name]
