"""How a score is shown to a person: one form for every command and demo.

A score is its metric name (``NAME[target]`` for a per-target score, as scores.csv names it)
and its value with six significant digits; a list of scores is an aligned two-column table.
Files (scores.csv) and ``--format json`` keep full precision; this is only the terminal's
form.

>>> print("\\n".join(score_table([("accuracy", None, 0.9722222), ("f1", "class", 1.0)])))
metric     value
accuracy   0.972222
f1[class]  1
>>> format_value(float("nan")), format_value(1234567.0), format_value(2.5e-07)
('nan', '1.23457e+06', '2.5e-07')
"""

from __future__ import annotations

from typing import Iterable


def score_label(metric: str, target: str | None = None) -> str:
    """``metric``, or ``metric[target]`` for a score of one target."""
    return f"{metric}[{target}]" if target else str(metric)


def format_value(value) -> str:
    """A score value as people read it: six significant digits (``%g``)."""
    try:
        return f"{float(value):.6g}"
    except (TypeError, ValueError):
        return str(value)


def score_table(scores: Iterable, header: bool = True) -> list[str]:
    """Lines of an aligned ``metric  value`` table of ``scores``: ``(metric, target, value)``
    tuples or objects with those attributes (a score report's scores)."""
    rows = []
    for s in scores:
        metric, target, value = s if isinstance(s, tuple) else (s.metric, s.target, s.value)
        rows.append((score_label(metric, target), format_value(value)))
    if header:
        rows.insert(0, ("metric", "value"))
    width = max((len(label) for label, _ in rows), default=0)
    return [f"{label:<{width}}  {value}" for label, value in rows]


def score_line(scores: Iterable) -> str:
    """The scores on one line, for a progress report: ``accuracy 0.972222, f1Macro 0.97``."""
    return ", ".join(f"{score_label(*s[:2]) if isinstance(s, tuple) else score_label(s.metric, s.target)} "
                     f"{format_value(s[2] if isinstance(s, tuple) else s.value)}" for s in scores)
