"""Schema checks of problemDoc/datasetDoc JSON against the files in ``schemas/``.

This module owns the link between the schema files (one problemSchema and one datasetSchema
per supported version, see :mod:`d3mkit.documents.versions`; each as cerberus and as JSON
Schema draft 2020-12) and :class:`~d3mkit.core.errors.Issue`. A document is checked against the
schema of the version it declares; a missing or unsupported version is the one issue
``schema.version`` (no schema errors, no hints). :func:`check_problem_schema` and
:func:`check_dataset_schema` run the JSON Schema form with ``iter_errors`` and turn every
violation into one Issue with a stable code:

=====================  ===========================================================
code                   meaning
=====================  ===========================================================
schema.required        a required field is missing (location names the field)
schema.unknown_field   a field the schema does not allow in a closed object
schema.type            wrong JSON type (``1.0`` and ``true`` are not integers)
schema.enum            value outside an enumeration
schema.range           number below ``minimum`` / above ``maximum``
schema.empty           empty string where a value is needed
schema.min_items       list shorter than allowed (e.g. no targets)
schema.dependency      field only allowed with another value (``K`` without
                       ``precisionAtTopK``, ``testSize`` with ``kFold``, ...)
schema.one_of          value matches none of the allowed forms (``resObject``)
schema.version         the declared schema version is missing or not supported
=====================  ===========================================================

A document that declares no version at all also gets the issues of the base version's
schema (each message says so): they usually tell what the document is missing.

:func:`cerberus_errors` runs the cerberus form; the test suite checks both forms agree on
valid/invalid for a corpus of documents.

>>> doc = {"about": {"problemID": "p", "problemName": "p", "taskType": "classification",
...                  "problemSchemaVersion": "3.1.1"},
...        "inputs": {"data": [{"datasetID": "d", "targets": [
...            {"targetIndex": 0, "resID": "0", "colIndex": "2", "colName": "y"}]}],
...            "performanceMetrics": [{"metric": "f1", "K": 3}]},
...        "expectedOutputs": {}}
>>> for i in check_problem_schema(doc):
...     print(i.code, i.location)
schema.type inputs.data[0].targets[0].colIndex
schema.dependency inputs.performanceMetrics[0].K
>>> cerberus_errors("problem", doc) != []
True
>>> doc["about"]["problemSchemaVersion"] = "2.0"
>>> [i.code for i in check_problem_schema(doc)]
['schema.version']
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

import d3mkit
from d3mkit.core.errors import Issue, close_match, error
from d3mkit.documents.versions import BASE_VERSION, VERSIONS, declared_version, supported_version, version_issue

_FORM_SUFFIX = {"jsonschema": "schema", "cerberus": "cerberus"}


def schema_file(kind: str, form: str = "jsonschema", version: str | None = None) -> str:
    """File name of the ``kind`` schema of ``version`` (default: the hand-written base
    version, problemSchema 3.1.1 / datasetSchema 3.1.2) in ``form``."""
    k = _kind(kind)
    v = version or BASE_VERSION[k]
    if v not in VERSIONS or form not in _FORM_SUFFIX:
        raise ValueError(f"no {k} schema for version {v!r} in form {form!r}")
    return f"{k}Schema-{v}.{_FORM_SUFFIX[form]}.json"

_KIND_ALIASES = {"problem": "problem", "problemdoc": "problem",
                 "dataset": "dataset", "datasetdoc": "dataset"}

_JSON_TYPE = {dict: "object", list: "array", str: "string", bool: "boolean",
              int: "integer", float: "number", type(None): "null"}


def schema_dir() -> Path:
    """The schema files: the package data directory ``d3mkit/schemas`` (a real directory,
    shipped in wheels and used in place by editable installs)."""
    return Path(d3mkit.__file__).parent / "schemas"


def _kind(kind: str) -> str:
    try:
        return _KIND_ALIASES[kind.lower()]
    except (KeyError, AttributeError):
        raise ValueError(f"unknown document kind {kind!r}; expected 'problem' or 'dataset'") from None


@lru_cache(maxsize=None)
def _load_schema_text(name: str) -> str:
    return (schema_dir() / name).read_text(encoding="utf-8")


def load_schema(kind: str, form: str = "jsonschema", version: str | None = None) -> dict:
    """A fresh copy of the schema for ``kind`` (problem|dataset) in ``form``
    (jsonschema|cerberus) of ``version`` (default: the base version)."""
    return json.loads(_load_schema_text(schema_file(kind, form, version)))


# --- JSON Schema --------------------------------------------------------------------------
@lru_cache(maxsize=None)
def json_validator(kind: str, version: str | None = None):
    from jsonschema import Draft202012Validator, validators

    def is_integer(checker, value):
        return isinstance(value, int) and not isinstance(value, bool)

    def is_number(checker, value):
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    # JSON Schema counts 1.0 as an integer; a D3M document that writes colIndex 1.0 is
    # wrong (and cerberus rejects it), so the checker is strict about ints.
    checker = Draft202012Validator.TYPE_CHECKER.redefine_many(
        {"integer": is_integer, "number": is_number})
    cls = validators.extend(Draft202012Validator, type_checker=checker)
    schema = load_schema(kind, "jsonschema", version)
    Draft202012Validator.check_schema(schema)
    return cls(schema)


def format_location(path: Iterable[Any]) -> str:
    """``["inputs", "data", 0, "targets"]`` -> ``inputs.data[0].targets``.

    >>> format_location(["inputs", "data", 0, "targets", 0, "colIndex"])
    'inputs.data[0].targets[0].colIndex'
    >>> format_location([])
    ''
    """
    out = ""
    for p in path:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += ("." if out else "") + str(p)
    return out


def _json_type(value: Any) -> str:
    for t, name in _JSON_TYPE.items():
        if type(value) is t:
            return name
    return type(value).__name__


def _short(value: Any, limit: int = 60) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _names(values: Iterable[Any]) -> str:
    vals = [str(v) for v in values]
    return vals[0] if len(vals) == 1 else ", ".join(vals[:-1]) + " or " + vals[-1]


def _did_you_mean(value: Any, choices: Iterable[Any]) -> str:
    if not isinstance(value, str):
        return ""
    match = close_match(value, choices)
    return f"did you mean {_short(match)}?" if match else ""


def _expected_types(types) -> str:
    types = [types] if isinstance(types, str) else list(types)
    return _names(types)


def _dependency_issue(err, path: str) -> Issue:
    sp = list(err.relative_schema_path)
    i = sp.index("dependentSchemas")
    field, rest = sp[i + 1], sp[i + 2:]
    # each "properties" step after the dependent schema went one level into the instance
    depth = sum(1 for s in rest if s == "properties")
    obj_path = list(err.absolute_path)[:len(err.absolute_path) - depth]
    other = rest[1] if len(rest) > 1 and rest[0] == "properties" else None
    if err.validator == "const":
        want = _short(err.validator_value)
    elif err.validator == "enum":
        want = _names(err.validator_value)
    else:
        want = "a permitted value"
    got = f" ({other} is {_short(err.instance)})" if other else ""
    return _at("schema.dependency", format_location(obj_path + [field]),
                 f"{field} is only allowed when {other or 'the document'} is {want}{got}", path)


def _at(code: str, where: str, message: str, path: str) -> Issue:
    """A schema error at the JSON path ``where`` (a field: the text is rendered from it)."""
    return error(code, "", message, path, json_path=where)


def _issues_for(err, path: str) -> list[Issue]:
    loc_path = list(err.absolute_path)
    loc = format_location(loc_path)
    v, inst, val = err.validator, err.instance, err.validator_value
    if "dependentSchemas" in err.relative_schema_path:
        return [_dependency_issue(err, path)]
    if v == "required":
        missing = [p for p in val if isinstance(inst, dict) and p not in inst]
        if "then" in err.relative_schema_path:
            # a conditional requirement; the "then" schema describes its condition
            why = (err.schema or {}).get("description") if isinstance(err.schema, dict) else None
            return [_at("schema.required", format_location(loc_path + [m]),
                          why or f"required field {_short(m)} is missing", path) for m in missing]
        return [_at("schema.required", format_location(loc_path + [m]),
                      f"required field {_short(m)} is missing", path) for m in missing]
    if v == "additionalProperties":
        allowed = list((err.schema or {}).get("properties", {}))
        extras = [k for k in inst if k not in allowed] if isinstance(inst, dict) else []
        out = []
        for k in extras:
            hint = _did_you_mean(k, allowed) or (f"allowed here: {', '.join(allowed)}" if allowed else "")
            out.append(_at("schema.unknown_field", format_location(loc_path + [k]),
                             f"unknown field {_short(k)}" + (f"; {hint}" if hint else ""), path))
        return out
    if v == "type":
        return [_at("schema.type", loc,
                      f"expected {_expected_types(val)}, got {_json_type(inst)} {_short(inst)}", path)]
    if v in ("enum", "const"):
        choices = val if v == "enum" else [val]
        hint = _did_you_mean(inst, choices)
        return [_at("schema.enum", loc,
                      f"{_short(inst)} is not allowed" + (f" ({hint})" if hint else "")
                      + f"; expected {_names(_short(c) for c in choices)}", path)]
    if v in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        op = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}[v]
        return [_at("schema.range", loc, f"must be {op} {val}, got {_short(inst)}", path)]
    if v == "minLength":
        return [_at("schema.empty", loc, "must not be empty", path)]
    if v == "minItems":
        return [_at("schema.min_items", loc,
                      f"must contain at least {val} item{'s' if val != 1 else ''}, got {len(inst)}", path)]
    if v in ("oneOf", "anyOf"):
        desc = (err.schema or {}).get("description") if isinstance(err.schema, dict) else None
        what = desc or "one of the allowed forms"
        return [_at("schema.one_of", loc, f"{_short(inst)} is not valid here; expected {what}", path)]
    return [_at(f"schema.{v}", loc, err.message.splitlines()[0], path)]


def _check(kind: str, data: Any, path: str, version: str | None = None) -> list[Issue]:
    """Issues of ``data`` against the schema of ``version``, or when None, of the version
    the document declares (a missing or unsupported one is the single schema.version issue)."""
    if version is None:
        bad = version_issue(kind, data, str(path))
        if bad is not None and declared_version(kind, data) is None:
            # no version at all: what the base schema finds is still worth knowing
            base = BASE_VERSION[kind]
            return [bad] + [replace(i, message=f"{i.message} (checked against {kind}Schema {base}, "
                                               f"since the document declares no version)")
                            for i in _check(kind, data, path, base)]
        if bad is not None:
            return [bad]
        version = supported_version(kind, data)
    validator = json_validator(kind, version)
    issues: list[Issue] = []
    seen: set[tuple[str, str]] = set()
    for err in validator.iter_errors(data):
        for issue in _issues_for(err, str(path)):
            key = (issue.code, issue.location)
            if key not in seen:
                seen.add(key)
                issues.append(issue)
    return issues


def check_problem_schema(data: Any, path: str = "", version: str | None = None) -> list[Issue]:
    """Every violation of the problemSchema of ``data``'s declared version (or of
    ``version`` when given) in ``data`` (a parsed problemDoc) as Issues."""
    return _check("problem", data, path, version)


def check_dataset_schema(data: Any, path: str = "", version: str | None = None) -> list[Issue]:
    """Every violation of the datasetSchema of ``data``'s declared version (or of
    ``version`` when given) in ``data`` (a parsed datasetDoc) as Issues."""
    return _check("dataset", data, path, version)


def check_schema(kind: str, data: Any, path: str = "", version: str | None = None) -> list[Issue]:
    """:func:`check_problem_schema` or :func:`check_dataset_schema` by ``kind``."""
    return _check(_kind(kind), data, path, version)


# --- cerberus ----------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _cerberus_validator_class():
    from cerberus import TypeDefinition, Validator

    class D3MValidator(Validator):
        # as in the JSON Schema check: booleans are neither integers nor floats
        types_mapping = dict(Validator.types_mapping)
        types_mapping["integer"] = TypeDefinition("integer", (int,), (bool,))
        types_mapping["float"] = TypeDefinition("float", (float, int), (bool,))

    return D3MValidator


@lru_cache(maxsize=None)
def _cerberus_validator(kind: str, version: str | None = None):
    from d3mkit.documents.versions import open_objects
    return _cerberus_validator_class()(load_schema(kind, "cerberus", version),
                                       allow_unknown=open_objects(version))


def _flatten(errors: Any, prefix: str) -> list[str]:
    out: list[str] = []
    if isinstance(errors, dict):
        for k, v in errors.items():
            sub = f"{prefix}[{k}]" if isinstance(k, int) else (f"{prefix}.{k}" if prefix else str(k))
            out += _flatten(v, sub)
    elif isinstance(errors, list):
        for e in errors:
            out += _flatten(e, prefix)
    else:
        out.append(f"{prefix}: {errors}" if prefix else str(errors))
    return out


def cerberus_errors(kind: str, data: Any, version: str | None = None) -> list[str]:
    """Violations of the cerberus form of the ``version`` schema (default: the base
    version), as ``"location: message"`` strings (empty when ``data`` is valid). Used to
    check that both schema forms agree."""
    k = _kind(kind)
    if not isinstance(data, dict):
        return [f"document must be an object, got {_json_type(data)}"]
    v = _cerberus_validator(k, version)
    # cerberus' normalisation replaces an explicit null by the field's default; the D3M
    # documents allow no nulls, so collect those from a pass without normalisation and
    # everything else (dependencies on defaulted fields included) from a normalised pass
    nulls = [] if v.validate(data, normalize=False) else \
        [e for e in _flatten(v.errors, "") if e.endswith("null value not allowed")]
    if v.validate(data) and not nulls:
        return []
    return sorted(set(_flatten(v.errors, "") + nulls)) or ["invalid"]
