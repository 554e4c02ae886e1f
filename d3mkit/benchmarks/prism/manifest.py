"""Reading PVLI/PVLr record manifests (CSV or JSONL), every problem with its line number.

What this module owns: :func:`read_manifest` — parse a manifest, check every record, and
return the good records plus the issues found. A record is

* ``hypothesis`` — a commonsense statement (required, non-empty);
* ``image`` — the premise image, a path relative to ``--images`` (default: the manifest's
  directory); it must stay inside that directory (an absolute path, a ``..`` or a symlink
  leading out is refused, :mod:`d3mkit.io.paths`), exist and be readable by Pillow;
* ``label`` — ``allow`` or ``prevent`` (case and surrounding spaces ignored);
* ``rationale`` — the precondition text (required for PVLr, optional for PVLI);
* provenance, all optional: ``strategy`` (EC, CQ, IQ or free text), ``source``, ``lf``
  (labeling function), ``precision`` (a number);
* ``split`` — optional: ``train`` or ``test`` (a fixed split), or the paper's PVLI layout
  ``tuning``, ``noisy-test``, ``clean-test`` (weak-supervision data for tuning and a
  noisy test, human-verified records for the clean test; ``build prism`` then writes one
  task root per test set). When one record has it, every record must - except that with
  ``allow_unmarked`` (``build prism --pvli-sizes``) records may be unmarked or
  ``clean-test``.

A missing required column is one error at ``line 1``; a bad record is an error at
``line N`` (its first physical line in the file). The caller decides whether errors stop
the build or the records are skipped and counted.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "m.jsonl").write_text('{"hypothesis": "", "image": "x.png", "label": "maybe"}\\n')
>>> recs, issues = read_manifest(d / "m.jsonl", d, task="pvli", check_images=False)
>>> [i.location for i in issues], [i.message for i in issues][:2]
(['line 1', 'line 1'], ['empty hypothesis', "unknown label 'maybe' (allow or prevent)"])
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from d3mkit.core.errors import Issue, UsageError, error
from d3mkit.io.paths import escape_reason
from d3mkit.tables import Unreadable
from d3mkit.tables.dialect import DictRecords

LABELS = ("allow", "prevent")
REQUIRED = ("hypothesis", "image", "label")
PROVENANCE = ("strategy", "source", "lf", "precision")
#: manifest split values (lower case, spaces/underscores as '-') -> Record.split
SPLIT_VALUES = {"": "", "train": "TRAIN", "test": "TEST", "tuning": "TUNING",
                "noisy-test": "NOISY_TEST", "clean-test": "CLEAN_TEST"}
PVLI_SPLITS = ("TUNING", "NOISY_TEST", "CLEAN_TEST")


@dataclass(frozen=True)
class Record:
    line: int
    hypothesis: str
    image: Path              # resolved path of the premise image
    image_ref: str           # the value as written in the manifest
    label: str
    rationale: str = ""
    provenance: dict = field(default_factory=dict)
    split: str = ""          # "", "TRAIN", "TEST", "TUNING", "NOISY_TEST" or "CLEAN_TEST"


def _rows(path: Path):
    """``(line, dict | None, problem)`` per record; CSV or JSONL by extension."""
    suffix = path.suffix.lower()
    from d3mkit.core.errors import D3MKitError
    import io

    from d3mkit.io.limits import open_regular
    try:                                     # a FIFO or device is refused unopened
        raw = open_regular(path, "manifest")
    except D3MKitError as exc:
        if exc.issues[0].code in ("file.missing", "file.unreadable"):
            raise UsageError(f"cannot read manifest: {exc.issues[0].message}", str(path)) from None
        raise
    fh = io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")
    with fh:
        try:
            if suffix in (".jsonl", ".ndjson", ".json"):
                yield from jsonl_rows(fh)
            elif suffix in (".csv", ".tsv"):
                yield from _csv_rows(fh, "\t" if suffix == ".tsv" else ",")
            else:
                raise UsageError(f"manifest must be .csv or .jsonl, got {path.name!r}", str(path))
        except UnicodeDecodeError as exc:
            yield 0, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})"


def jsonl_rows(fh):
    """``(line, dict | None, problem)`` per non-blank line of a JSON-lines file."""
    from d3mkit.documents.jsonio import parse_json   # strict JSON: duplicate keys, NaN, ... refused
    for n, line in enumerate(fh, start=1):
        if not line.strip():
            continue
        obj, issues = parse_json(line)
        if issues:
            i = issues[0]           # the line is the manifest's: only the column inside it is said
            where = f"column {i.column}" if i.line == 1 and i.column is not None else i.location
            yield n, None, f"not valid JSON ({issues[0].message}{', ' + where if where else ''}) [{issues[0].code}]"
            continue
        if not isinstance(obj, dict):
            yield n, None, "not a JSON object"
            continue
        yield n, obj, None


def _csv_rows(fh, delimiter: str):
    try:
        reader = DictRecords(fh, delimiter)
    except Unreadable as exc:
        yield 1, None, f"unreadable CSV ({exc.detail})"
        return
    fields = reader.fieldnames
    if fields is None:
        yield 1, None, "the manifest is empty"
        return
    yield 1, {"__columns__": [f.strip() for f in fields]}, None
    start = reader.line_num + 1
    try:
        for row in reader:
            if None in row:
                yield start, None, f"{len(fields) + len(row[None])} fields, header has {len(fields)}"
            else:
                yield start, {k.strip(): v for k, v in row.items() if k is not None}, None
            start = reader.line_num + 1
    except Unreadable as exc:
        yield start, None, f"unreadable CSV ({exc.detail})"


def _text(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return str(v).strip()


def read_manifest(path: Path | str, images: Path | str | None, *, task: str = "pvli",
                  check_images: bool = True, allow_unmarked: bool = False,
                  executor=None) -> tuple[list[Record], list[Issue]]:
    """Parse and check a manifest; returns ``(good records, issues)`` (issues are errors
    located at ``line N`` of ``path``). The image checks (:func:`image_problem`, a full
    decode of each distinct image) run on ``executor`` (:mod:`d3mkit.io.executor`; default
    this process) between a first pass that finds the images and a second that reads the
    answers: the result does not depend on the executor."""
    path = Path(path)
    images = Path(images) if images is not None else path.parent
    rows = list(_rows(path))
    if not check_images:
        return _scan(rows, path, images, task, None, allow_unmarked)
    wanted: dict[Path, None] = {}
    records, issues = _scan(rows, path, images, task, lambda p: wanted.setdefault(p), allow_unmarked)
    if any(i.code == "prism.manifest.column" for i in issues):
        return records, issues                     # no record is read: nothing to check
    from d3mkit.io.executor import Executor
    todo = list(wanted)
    answers = dict(zip(todo, (executor or Executor()).map(image_problem, todo, progress=False)))
    return _scan(rows, path, images, task, answers.__getitem__, allow_unmarked)


def _scan(rows: list, path: Path, images: Path, task: str, image_check, allow_unmarked: bool):
    """The records and issues of parsed ``rows``; ``image_check(path)`` says what is wrong
    with an image (None: nothing; no function: images are not checked)."""
    where = str(path)
    records: list[Record] = []
    issues: list[Issue] = []
    required = REQUIRED + (("rationale",) if task == "pvlr" else ())
    columns_checked = False
    n_rows = 0
    for line, row, problem in rows:
        if problem is not None:
            issues.append(error("prism.manifest", "", problem, where, line=line))
            continue
        if "__columns__" in row:                      # CSV header
            missing = [c for c in required if c not in row["__columns__"]]
            if missing:
                issues.append(error("prism.manifest.column", "",
                                    f"missing column(s): {', '.join(missing)} "
                                    f"(found: {', '.join(row['__columns__'])})", where, line=1))
                return [], issues
            columns_checked = True
            continue
        n_rows += 1
        if not columns_checked:                       # JSONL: each record names its fields
            missing = [c for c in required if c not in row]
            if missing:
                issues.append(error("prism.manifest.field", "",
                                    f"missing field(s): {', '.join(missing)}", where, line=line))
                continue
        rec, problems = _check(row, line, images, task, image_check)
        issues.extend(error("prism.manifest.record", "", p, where, line=line) for p in problems)
        if rec is not None:
            records.append(rec)
    if n_rows == 0 and not issues:
        issues.append(error("prism.manifest", "", "the manifest has no records", where))
    with_split = [r for r in records if r.split]
    if allow_unmarked and all(r.split in ("", "CLEAN_TEST") for r in records):
        return records, issues
    if with_split and len(with_split) != len(records):
        first = next(r for r in records if not r.split)
        issues.append(error("prism.manifest.split", "",
                            f"no split value, but {len(with_split)} other record(s) have one "
                            "(give train/test on every record or on none)", where, line=first.line))
    return records, issues


def _check(row: dict, line: int, images: Path, task: str, image_check):
    problems: list[str] = []
    for k in ("hypothesis", "image", "label", "rationale", "split"):
        if isinstance(row.get(k), (list, dict)):   # JSONL: a field of the wrong JSON type
            problems.append(f"{k} must be a string, not a JSON {'array' if isinstance(row[k], list) else 'object'}")
    if problems:
        return None, problems
    hyp = _text(row.get("hypothesis"))
    if not hyp:
        problems.append("empty hypothesis")
    raw_label = _text(row.get("label"))
    label = raw_label.lower()
    if label not in LABELS:
        problems.append(f"unknown label {raw_label!r} (allow or prevent)")
    rationale = _text(row.get("rationale"))
    if task == "pvlr" and not rationale:
        problems.append("empty rationale (PVLr needs one per record)")
    ref = _text(row.get("image"))
    img = None
    if not ref:
        problems.append("no image given")
    else:
        why = escape_reason(images, ref)
        img = images / ref
        if why:
            problems.append(f"image {ref!r} leaves the image directory {images}: {why}")
        elif image_check is not None:
            why = image_check(img)
            if why:
                problems.append(f"image {ref!r}: {why}")
    raw_split = _text(row.get("split"))
    split = SPLIT_VALUES.get(re.sub(r"[\s_]+", "-", raw_split.lower()))
    if split is None:
        problems.append(f"unknown split {raw_split!r} (train or test; or tuning, noisy-test, clean-test)")
    prov = {}
    for k in PROVENANCE:
        v = _text(row.get(k))
        if k == "precision" and v:
            try:
                v = float(v)
            except ValueError:
                problems.append(f"precision {v!r} is not a number")
                continue
        prov[k] = v
    if problems:
        return None, problems
    return Record(line, hyp, img, ref, label, rationale, prov, split), []


def image_problem(path: Path) -> str | None:
    """None when Pillow can read ``path`` as an image, else why not."""
    from d3mkit.io.images import image_issue
    if not path.exists():
        return "file not found"
    issue = image_issue(path)          # regular file, byte and pixel caps, checksums, decodes
    return None if issue is None else f"{issue.message} [{issue.code}]"
