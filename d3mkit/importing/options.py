"""What an import may be told, and what it gives back.

What this module owns: :class:`ImportOptions` (the Python keywords of
:func:`d3mkit.importing.table.import_table`, their types checked before anything is read),
:class:`Imported` (the root written and the warnings), a ``types`` JSON file, and the task
root name a file name gives.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from d3mkit.core.errors import D3MKitError, Issue, error, require_path, require_type
from d3mkit.importing import infer

@dataclass
class ImportOptions:
    """Everything an import may be told; the Python keywords of :func:`import_table`."""

    target: list[str]
    name: str | None = None
    task: str | None = None
    subtype: str | None = None
    index: str | None = None
    types: dict[str, str] = field(default_factory=dict)
    metrics: list[str | dict] | None = None     # names, or performanceMetrics entries with parameters
    split: str = "holdOut"
    test_size: float = 0.2
    folds: int = 5
    repeats: int = 0
    stratified: bool | None = None
    seed: int = 0
    media: Path | None = None
    force: bool = False
    description: str | None = None
    problem_description: str | None = None       # default: "Predict <targets> (<task>/<subtype>)."
    license: str | None = None                   # the datasetDoc's licence (default "unknown": never invented)
    citation: str | None = None
    source_url: str | None = None                # the datasetDoc's sourceURI
    rai: dict | None = None                      # Croissant RAI fields for the manifest's "rai"
    ignore: list[str] = field(default_factory=list)   # columns left out of the task root
    target_text: str | None = None               # --target as given: an exact column name wins over COL,COL
    na_values: list[str] | None = None           # missing-value tokens (default infer.NA_TOKENS)
    keep_text: bool = False                      # no token is a missing value: such a column stays text

    @property
    def na_tokens(self) -> frozenset[str]:
        """The cells that are missing values in an otherwise numeric or date column."""
        if self.keep_text:
            return frozenset()
        return frozenset(self.na_values) - {""} if self.na_values is not None else infer.NA_TOKENS

    def __post_init__(self):
        if self.task == "multiLabel":       # D3M's subtype named as the task: classification/multiLabel
            self.task = "classification"
            self.subtype = self.subtype or "multiLabel"


@dataclass
class Imported:
    """What an import wrote: the task root and the warnings on the way."""

    root: Path
    issues: list[Issue] = field(default_factory=list)
    decided: str = ""           # what was decided, the rule and the option that changes it (printed)


def as_list(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",")] if "," in value else [value]
    return [str(v) for v in value]


_NAMES = "a column name (str) or a list of them"
#: keyword -> (accepted types, what the TypeError says is expected); None is accepted where
#: the keyword's default is None
_KEYWORDS = {
    "name": (str, "a str"), "task": (str, "a str"), "subtype": (str, "a str"), "index": (str, "a column name (str)"),
    "split": (str, "a str"), "description": (str, "a str"), "test_size": ((int, float), "a number"),
    "license": (str, "a str"), "citation": (str, "a str"), "source_url": (str, "a str"),
    "keep_text": (bool, "a bool"),
    "folds": (int, "an int"), "repeats": (int, "an int"), "seed": (int, "an int"),
    "stratified": (bool, "a bool"), "force": (bool, "a bool"),
}
_OPTIONAL = {"name", "task", "subtype", "index", "description", "stratified", "license", "citation",
             "source_url"}   # None means "choose"


def check_keywords(target, kwargs: dict) -> None:
    """The keywords of an import have the types they must (a ``TypeError`` naming the
    keyword otherwise), before anything is read: ``target`` a str or a list of str,
    ``metrics`` a str or a list of names and performanceMetrics entries, ``types`` a dict or
    a path, ``media`` a path."""
    metric = "a metric name (str) or a list of names or performanceMetrics entries (dicts)"
    for param, value, expected, kinds in (("target", target, _NAMES, str),
                                          ("metrics", kwargs.get("metrics"), metric, (str, dict))):
        if value is None and param == "metrics":
            continue
        require_type(param, value, (str, list, tuple), expected)
        for v in ([] if isinstance(value, str) else value):
            require_type(param, v, kinds, expected)
    if kwargs.get("types") is not None:
        require_type("types", kwargs["types"], (dict, str, os.PathLike), "a dict or the path of a JSON file")
    if kwargs.get("media") is not None:
        require_path("media", kwargs["media"])
    for param, (kinds, expected) in _KEYWORDS.items():
        if param not in kwargs or (kwargs[param] is None and param in _OPTIONAL):
            continue
        require_type(param, kwargs[param], kinds, expected)


def options(target, **kwargs) -> ImportOptions:
    """:class:`ImportOptions` from the keywords of the Python API (``types`` a dict or a
    JSON file's path; ``metrics`` names or performanceMetrics entries; ``media`` a path), their
    types checked (:func:`check_keywords`)."""
    check_keywords(target, kwargs)
    types = kwargs.pop("types", None)
    if types is not None and not isinstance(types, dict):
        types = read_types(types)
    metrics = kwargs.pop("metrics", None)
    media = kwargs.pop("media", None)
    if metrics is not None and not isinstance(metrics, str):     # entries with parameters stay dicts
        metrics = [m if isinstance(m, dict) else str(m) for m in metrics]
    else:
        metrics = as_list(metrics) or None
    ignore = kwargs.pop("ignore", None)
    ignore = as_list(ignore) if isinstance(ignore, str) else list(ignore or [])
    return ImportOptions(target=as_list(target), types=dict(types or {}), ignore=ignore,
                         target_text=target if isinstance(target, str) else None,
                         metrics=metrics or None, media=Path(media) if media is not None else None,
                         **kwargs)


def read_types(path: Path | str) -> dict[str, str]:
    """A ``types`` JSON file: an object mapping column names to colTypes."""
    from d3mkit.documents.jsonio import load_json
    data = load_json(path)
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise D3MKitError(error("import.types", "", "a types file must be a JSON object mapping column names "
                                "to colType names, e.g. {\"zip\": \"categorical\"}", str(path)))
    return data


def default_name(path: Path) -> str:
    """A task root name from a file name: ``data.csv.gz`` -> ``data``; characters other than
    letters, digits, ``_`` and ``-`` become ``_``."""
    stem = path.name.split(".")[0] or "imported"
    return re.sub(r"[^0-9A-Za-z_-]+", "_", stem).strip("_") or "imported"
