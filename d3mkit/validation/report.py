"""The validation report: data first (:meth:`Report.to_dict`, the shape docs/design.md fixes
for ``validate --format json``), text second (:meth:`Report.to_text`).

>>> r = Report()
>>> r.add("a/problemDoc.json", "problemDoc", [])
>>> from d3mkit.validation.codes import make
>>> r.add("a/dataSplits.csv", "dataSplits",
...       [make("splits.duplicate", "", "listed twice", row=3, column="d3mIndex")])
>>> r.valid(), r.valid(strict=True)
(True, False)
>>> r.to_dict()["documents"][1]["issues"][0]["code"]
'splits.duplicate'
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import PurePath

from d3mkit.core.errors import Issue, clean_text, shown

KINDS = ("problemDoc", "datasetDoc", "dataSplits", "learningData", "table", "predictions", "digests")


@dataclass
class DocumentReport:
    path: str
    kind: str
    issues: list[Issue] = field(default_factory=list)

    def valid(self, strict: bool = False) -> bool:
        return not any(strict or i.is_error for i in self.issues)


class Report:
    """Documents in the order they are first added; issues appended per document."""

    def __init__(self) -> None:
        self._docs: dict[tuple[str, str], DocumentReport] = {}
        # (csv, problemDoc.json): CSV files named inside a problem directory that are not its
        # splits file, left for the scoring layer to check as predictions
        self.found_predictions: list = []
        # when a list: every issue is also appended here as it is added (the lazy
        # iter_issues drains it between the validator's steps)
        self.sink: list[Issue] | None = None

    def doc(self, path, kind: str) -> DocumentReport:
        key = (str(path), kind)
        if key not in self._docs:
            self._docs[key] = DocumentReport(str(path), kind)
        return self._docs[key]

    def add(self, path, kind: str, issues: list[Issue]) -> None:
        d = self.doc(path, kind)
        new = [i if i.path else replace(i, path=str(path)) for i in issues]
        d.issues.extend(new)
        if self.sink is not None:
            self.sink.extend(new)

    @property
    def documents(self) -> list[DocumentReport]:
        return sorted(self._docs.values(), key=lambda d: (
            str(PurePath(d.path).parent), KINDS.index(d.kind) if d.kind in KINDS else 99, d.path))

    def issues(self) -> list[Issue]:
        return [i for d in self.documents for i in d.issues]

    def valid(self, strict: bool = False) -> bool:
        return all(d.valid(strict) for d in self.documents)

    def to_dict(self, strict: bool = False) -> dict:
        return {"valid": self.valid(strict),
                "documents": [{"path": shown(d.path), "kind": d.kind, "valid": d.valid(strict),
                               "issues": [i.to_dict() for i in d.issues]}
                              for d in self.documents]}

    def to_json(self, strict: bool = False) -> str:
        return json.dumps(self.to_dict(strict), indent=2, ensure_ascii=False)

    def to_text(self, strict: bool = False, summary: bool = False) -> str:
        """One line per document and one per issue; with ``summary``, only the documents
        that fail, each with its counts (many task roots at once), and the verdict."""
        lines = []
        n_err = n_warn = 0
        for d in self.documents:
            errs = sum(i.is_error for i in d.issues)
            n_err += errs
            n_warn += len(d.issues) - errs
            path = clean_text(d.path, cut=False)
            if summary:
                if not d.valid(strict):
                    lines.append(f"FAIL {path} ({d.kind}): {errs} error(s), {len(d.issues) - errs} warning(s)")
                continue
            lines.append(f"{'ok  ' if d.valid(strict) else 'FAIL'} {path} ({d.kind})")
            for i in d.issues:
                where = f"{i.location}: " if i.location else ""
                lines.append(f"  {where}{i.severity} [{i.code}] {i.message}")
        verdict = "valid" if self.valid(strict) else "INVALID"
        n_fail = sum(not d.valid(strict) for d in self.documents)
        lines.append(f"{len(self._docs)} document(s)" + (f", {n_fail} failing" if summary else "")
                     + f", {n_err} error(s), {n_warn} warning(s): {verdict}"
                     + (" (strict: warnings fail)" if strict and n_warn else ""))
        return "\n".join(lines) + "\n"
