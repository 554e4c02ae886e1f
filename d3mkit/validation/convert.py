"""Conversion with a schema check: :func:`convert_checked` converts a problemDoc
(:func:`d3mkit.documents.convert.convert_problem`) and, for a 3.1.1 result, adds a warning for
everything in it that will not validate against problemSchema 3.1.1 (fields 4.0.0 has and
3.1.1 does not are kept by the conversion). What ``d3mkit convert`` runs."""

from __future__ import annotations

from typing import Any

from d3mkit.documents.convert import convert_problem
from d3mkit.core.errors import Issue, warning
from d3mkit.validation.schema import check_problem_schema


def convert_checked(doc: Any, to: str, path: str = "") -> tuple[dict | None, list[Issue]]:
    out, issues = convert_problem(doc, to, path)
    if out is not None and to == "3.1.1":
        issues = issues + [warning(i.code, i.location, f"{i.message} (in the converted 3.1.1 document)", path)
                           for i in check_problem_schema(out, path)]
    return out, issues
