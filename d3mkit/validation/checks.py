"""The units validation runs: checks, the documents they check, and where checks come from.

What this module owns: :class:`Check` (one unit: the kind of document it checks and a
function that checks one document), :class:`Document`, :class:`Session` (what one run's
checks share, passed to each as a parameter), :class:`Checklist` (an ordered, read-only set
of checks) and :func:`run_checks`, documents x checks. Where checks come from (the
``d3mkit.checks`` entry-point group) is :mod:`d3mkit.validation.plugins`; the driver that
finds the documents is :mod:`d3mkit.validation.run`.

As frictionless' checks and jsonschema's keyword validators are, a check is a function
that yields what it finds: each :class:`~d3mkit.core.errors.Issue` it yields is recorded
against the document, each ``None`` marks the end of a step (where the lazy
``iter_issues`` hands out what is ready). A check that reads other files (a dataset's
tables) records their issues in ``session.report`` itself.

>>> def no_readme(doc, session):
...     if not (doc.path.parent / "README.md").exists():
...         yield make("doc.unknown_kind", "", "no README beside the document", str(doc.path))
>>> toy = Check("toy.readme", "datasetDoc", no_readme, "a README beside each datasetDoc")
>>> checks = Checklist((toy,)).extended(Check("toy.other", "problemDoc", no_readme))
>>> [c.name for c in checks.of_kind("datasetDoc")], checks.names()
(['toy.readme'], ['toy.readme', 'toy.other'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Callable, Iterable, Iterator, Mapping

from d3mkit.core.codes import make
from d3mkit.core.errors import Issue
from d3mkit.tables.held import NOTHING, Held
from d3mkit.validation.report import Report

#: the kinds of document the driver hands to checks, in the order it runs them (a problem's
#: checks read what its dataset's checks found; a predictions file's, its problem)
KINDS = ("datasetDoc", "problemDoc", "predictions")


@dataclass(frozen=True)
class Document:
    """One document to check: its ``kind`` (one of :data:`KINDS`) and ``path``;
    ``problem``: a predictions file's problemDoc; ``options``: what the caller asked of
    this document's checks (predictions: ``targets``, ``repeat``, ``fold``)."""

    kind: str
    path: Path
    problem: Path | None = None
    options: Mapping = field(default_factory=lambda: MappingProxyType({}))


@dataclass
class ProblemEntry:
    """A problemDoc as the driver parsed it and paired it with its datasets: ``data`` (the
    parsed JSON), ``issues`` (its syntax issues, already reported), ``pairs`` (data entry
    -> datasetDoc path or None), ``missing`` (issues of datasets not found) and ``alone``
    (validated without its dataset)."""

    data: object
    issues: list[Issue]
    pairs: dict[int, Path | None]
    missing: list[Issue]
    alone: bool


@dataclass
class Session:
    """What one validation run's checks share: the ``report`` issues go to, what the caller
    ``held`` of the tables, the ``--datasets`` ``search`` directories; the problems as
    parsed and paired (``problems``), the datasets' flags those problems set
    (``object_detection``, ``multi_label``, ``targets``) and each dataset's
    :class:`~d3mkit.validation.files.DatasetContext` once its check has run
    (``datasets``); ``memo``: anything else a check computes once for later documents,
    under a key that starts with the check's name."""

    report: Report
    held: Held = NOTHING
    search: tuple = ()
    problems: dict[Path, ProblemEntry] = field(default_factory=dict)
    object_detection: set = field(default_factory=set)
    multi_label: set = field(default_factory=set)
    targets: dict = field(default_factory=dict)
    datasets: dict = field(default_factory=dict)
    memo: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Check:
    """One unit of validation: ``run(document, session)`` checks a document of ``kind``,
    yielding issues and ``None`` step marks (see the module docstring)."""

    name: str
    kind: str
    run: Callable[[Document, Session], Iterable[Issue | None] | None]
    description: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:     # a check of no kind the driver knows would never run
            raise ValueError(f"check {self.name!r}: kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        if not callable(self.run):
            raise TypeError(f"check {self.name!r}: run must be callable")


@dataclass(frozen=True)
class Checklist:
    """Checks in the order they run on a document; ``issues``: warnings about checks that
    could not be loaded. Read-only: :meth:`extended` and :meth:`without` give new lists."""

    checks: tuple[Check, ...] = ()
    issues: tuple[Issue, ...] = ()

    def of_kind(self, kind: str) -> list[Check]:
        return [c for c in self.checks if c.kind == kind]

    def names(self) -> list[str]:
        return [c.name for c in self.checks]

    def extended(self, *checks: Check) -> "Checklist":
        """This list and ``checks`` after it (a check of a name already here replaces it)."""
        new = {c.name for c in checks}
        return Checklist(tuple(c for c in self.checks if c.name not in new) + tuple(checks), self.issues)

    def without(self, *names: str) -> "Checklist":
        return Checklist(tuple(c for c in self.checks if c.name not in names), self.issues)


def run_checks(documents: Iterable[Document], checklist: Checklist, session: Session) -> Iterator[None]:
    """Run each document through the checks of its kind, recording in ``session.report``;
    yields after each step of a check and after each document. A document of a kind no
    check covers is an error (``check.missing``): never a silent pass."""
    report = session.report
    for doc in documents:
        report.doc(doc.path, doc.kind)
        mine = checklist.of_kind(doc.kind)
        if not mine:
            report.add(doc.path, doc.kind, [make("check.missing", "", f"no registered check validates a "
                                                 f"{doc.kind} document (is d3mkit installed whole?)", str(doc.path))])
        for check in mine:
            for item in check.run(doc, session) or ():
                if item is not None:
                    report.add(doc.path, doc.kind, [item])
                yield
        yield
