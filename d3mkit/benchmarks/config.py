"""Typed configurations of benchmark entry points: the shared fields and their checks.

A benchmark's builder or baseline takes a frozen dataclass, not an argparse namespace, so
that demos, tools and tests call it the same way the command line does. This module owns
the fields every benchmark shares and the one place each is checked:

* :class:`BuildConfig` — ``out``, ``seed`` (>= 0), ``force``, ``quiet``;
* :class:`BaselineConfig` — ``model``, ``device`` (auto | cpu | cuda), ``epochs`` (>= 1, or
  None for the model's default), ``seed`` (>= 0), ``batch_size`` (>= 1 or None), ``quiet``.

A benchmark subclasses them (still ``frozen=True``) with its own fields and, when it has
more to check, a ``check()`` method that calls ``super().check()``. A bad value raises
:class:`~d3mkit.core.errors.InvalidArgument` (a UsageError, exit 2) naming the field; the CLI
names the option that fills it (``--epochs``), a Python caller reads the field name. :meth:`Config.from_args` builds a
config from an argparse namespace (fields the namespace lacks keep their defaults).

>>> cfg = BaselineConfig(epochs=3, seed=1)
>>> cfg.epochs, cfg.device
(3, 'auto')
>>> BaselineConfig(epochs=0)
Traceback (most recent call last):
...
d3mkit.core.errors.InvalidArgument: error [usage] epochs must be at least 1, got 0
>>> import argparse
>>> BaselineConfig.from_args(argparse.Namespace(epochs=None, seed=4, colour="red")).seed
4
>>> cfg.replace(epochs=5).epochs
5
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from d3mkit.core.errors import InvalidArgument

DEVICES = ("auto", "cpu", "cuda")


def check_int(name: str, value: Any, *, minimum: int | None = None, maximum: int | None = None,
              optional: bool = False) -> None:
    """``value`` is an int (not a bool) within [minimum, maximum]; None only if optional."""
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(name, f"must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise InvalidArgument(name, f"must be at least {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise InvalidArgument(name, f"must be at most {maximum}, got {value}")


def check_positive(name: str, value: Any, *, optional: bool = False) -> None:
    """``value`` is a finite real number > 0 (learning rates, sizes in units)."""
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value <= 0:
        raise InvalidArgument(name, f"must be a finite number > 0, got {value!r}")


def check_fraction(name: str, value: Any, *, low_open: bool = True, high_open: bool = True) -> None:
    """``value`` is a real number in (0, 1) (ends included when not open)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if ok:
        ok = (value > 0 if low_open else value >= 0) and (value < 1 if high_open else value <= 1)
    if not ok:
        lo, hi = ("(" if low_open else "["), (")" if high_open else "]")
        raise InvalidArgument(name, f"must be in {lo}0, 1{hi}, got {value!r}")


def check_choice(name: str, value: Any, choices) -> None:
    if value not in choices:
        raise InvalidArgument(name, f"must be one of {', '.join(map(str, choices))}, got {value!r}")


def seed_value(text: str) -> int:
    """argparse type of ``--seed``: an integer numpy accepts (0 <= seed), else a usage error."""
    import argparse
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {v}")
    return v


@dataclass(frozen=True)
class Config:
    """Base of every typed configuration: checked on creation, built from argparse."""

    def __post_init__(self) -> None:
        self.check()

    def check(self) -> None:
        """Raise :class:`UsageError` for a bad field; subclasses extend it."""

    @classmethod
    def from_args(cls, args, **overrides):
        """A config from an argparse namespace: every field the namespace has (and is not
        None where the field has a default), then ``overrides``."""
        values = {}
        for f in dataclasses.fields(cls):
            if not f.init or not hasattr(args, f.name):
                continue
            v = getattr(args, f.name)
            has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
            if v is None and has_default:
                continue
            values[f.name] = v
        values.update(overrides)
        return cls(**values)

    def replace(self, **changes):
        """A copy with ``changes`` (checked again)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        """Fields as JSON-ready values (paths as strings), for manifests and reports."""
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in dataclasses.asdict(self).items()}


@dataclass(frozen=True)
class BuildConfig(Config):
    """What every ``d3mkit build BENCHMARK`` takes."""

    out: Path = Path("out")
    seed: int = 0
    force: bool = False
    quiet: bool = False

    def check(self) -> None:
        object.__setattr__(self, "out", Path(self.out))
        check_int("seed", self.seed, minimum=0)


@dataclass(frozen=True)
class BaselineConfig(Config):
    """What every ``d3mkit baseline`` takes; ``epochs`` and ``batch_size`` None mean the
    model's default."""

    model: str | None = None
    device: str = "auto"
    epochs: int | None = None
    seed: int = 0
    batch_size: int | None = None
    quiet: bool = False

    def check(self) -> None:
        check_choice("device", self.device, DEVICES)
        check_int("epochs", self.epochs, minimum=1, optional=True)
        check_int("seed", self.seed, minimum=0)
        check_int("batch_size", self.batch_size, minimum=1, optional=True)

    def epochs_or(self, default: int) -> int:
        return default if self.epochs is None else self.epochs

    def batch_size_or(self, default: int) -> int:
        return default if self.batch_size is None else self.batch_size
