"""Where validation's checks come from: the ``d3mkit.checks`` entry-point group.

What this module owns: :func:`load_checks`, the :class:`~d3mkit.validation.checks.Checklist`
of every registered check. d3mkit's own checks register in the group like a third party's
(pyproject.toml), the predictions check of :mod:`d3mkit.scoring.check` included, so
validation runs it without importing a layer above it. An entry point names a
:class:`~d3mkit.validation.checks.Check`, a list of them, or a zero-argument callable
returning either.
"""

from __future__ import annotations

from d3mkit.core import entrypoints
from d3mkit.core.errors import Issue, warning
from d3mkit.validation.checks import Check, Checklist

GROUP = "d3mkit.checks"


def _as_checks(obj) -> list[Check]:
    """An entry point's object as checks: a :class:`Check`, an iterable of them, or a
    zero-argument callable returning either."""
    if callable(obj) and not isinstance(obj, Check):
        obj = obj()
    items = [obj] if isinstance(obj, Check) else list(obj)
    if not all(isinstance(c, Check) for c in items) or not items:
        raise TypeError(f"expected a d3mkit.validation.checks.Check or a list of them, got {type(obj).__name__}")
    return items


def load_checks() -> Checklist:
    """Every check of the ``d3mkit.checks`` group: d3mkit's own in the order pyproject.toml
    lists them (one that cannot be loaded is a packaging bug and raises), then third
    parties' by name (one that cannot be loaded is left out with a ``checks.plugin``
    warning). Without d3mkit's own entries (metadata older than the group), validation's
    built-in checks."""
    checks: list[Check] = []
    for ep in entrypoints.own(GROUP):
        checks.extend(_as_checks(ep.load()))
    if not checks:
        from d3mkit.validation.builtin import BUILTIN
        checks.extend(BUILTIN)
    issues: list[Issue] = []
    for ep in entrypoints.third_party(GROUP):
        try:
            checks.extend(_as_checks(ep.load()))
        except Exception as exc:     # a third party's bug must not stop validation
            issues.append(warning("checks.plugin", f"entry point {ep.name}",
                                  f"could not be loaded ({type(exc).__name__}: {exc}); its checks are left out"))
    return Checklist(tuple(checks), tuple(issues))


