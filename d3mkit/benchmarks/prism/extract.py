"""Weak supervision strategy 1, *Extraction from Captions* (``d3mkit prism extract``).

What this module owns: reading a caption file (:func:`read_captions`: plain text, one
caption per line; CSV/JSONL with ``id`` and ``caption`` fields; Conceptual Captions TSV;
COCO / VizWiz captions JSON), preprocessing each caption into sentences
(:mod:`.preprocess`), applying the labeling functions enabled by the precision threshold
(:mod:`.labeling`), and writing one record per match:
``caption_id, sentence, action, precondition, label, lf, precision`` (JSON lines or CSV).
Format ``manifest`` writes a CSV manifest for ``d3mkit build prism`` instead (action as
hypothesis, precondition as rationale, the caption record's ``image`` field as premise).

* Sentences are reported after preprocessing (lower case).
* When several labeling functions match one sentence, the one with the **higher
  precision wins** (ties: the earlier one in Table 3); one record per sentence at most.
* Functions whose pattern spans sentences (Table 3's "to understand event statement is
  true") are applied to the caption's preprocessed sentences joined by a space.
* Robustness: a record that cannot be read (bad JSON, missing field, non-text caption) is
  skipped and counted with its line number; a sentence longer than ``max_chars``
  (default 2000) is skipped and counted; each regex is tried only when the literal words
  of its conjunction occur in the sentence.

>>> s = Summary()
>>> rows = list(extract_records([("c1", "Kids wear coats so that they stay warm. A red bus.")], summary=s))
>>> rows[0]["action"], rows[0]["precondition"], rows[0]["label"], rows[0]["lf"]
('they stay warm', 'kids wear coats', 'allow', 'so that')
>>> s.captions, s.sentences, s.matches
(1, 2, 1)
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, TextIO

from d3mkit.benchmarks.prism.labeling import (DEFAULT_THRESHOLD, LabelingFunction, enabled, has_negation,
                                              make_positive, slot_text)
from d3mkit.benchmarks.prism.manifest import jsonl_rows
from d3mkit.benchmarks.prism.preprocess import preprocess_caption
from d3mkit.io.atomic import write_text
from d3mkit.core.errors import D3MKitError, InvalidArgument, UsageError, error
from d3mkit.tables import Unreadable
from d3mkit.tables.dialect import DictRecords

FIELDS = ("caption_id", "sentence", "action", "precondition", "label", "lf", "precision")
MANIFEST_FIELDS = ("hypothesis", "image", "label", "rationale", "strategy", "source", "lf", "precision")
MAX_CHARS = 2000
_STRIP = " ,;:-\"'"


@dataclass
class Summary:
    """Counts of one extraction run (printed to stderr by the CLI)."""

    captions: int = 0
    sentences: int = 0
    matches: int = 0
    too_long: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)   # (where, why)
    by_lf: Counter = field(default_factory=Counter)

    def lines(self) -> list[str]:
        out = [f"captions read: {self.captions}", f"sentences: {self.sentences}",
               f"matches: {self.matches}",
               f"sentences skipped as longer than the limit: {self.too_long}",
               f"records skipped: {len(self.skipped)}"]
        for where, why in self.skipped[:20]:
            out.append(f"  {where}: {why}")
        if len(self.skipped) > 20:
            out.append(f"  ... and {len(self.skipped) - 20} more")
        for lf, n in sorted(self.by_lf.items(), key=lambda kv: (-kv[1], kv[0])):
            out.append(f"  lf {lf!r}: {n}")
        return out


def match_sentence(sentence: str, lfs: list[LabelingFunction], *, strict_slots: bool = True) -> dict | None:
    """The first (highest-precision) function of ``lfs`` matching ``sentence``, as a
    record without ``caption_id``; None when nothing matches. With ``strict_slots`` the
    slots follow PInKS' constraints (:func:`~.labeling.slot_text`); an ``{NP}`` slot must
    carry a negation and is reported made positive (:func:`~.labeling.make_positive`).

    >>> lfs = enabled(0.0)
    >>> match_sentence("the road is dry because it did not rain.", lfs)["lf"]
    'because'
    >>> match_sentence("the road is closed because of snow.", lfs) is None
    True
    >>> match_sentence("a man runs fast as if he is very late.", lfs)["lf"]
    'as if'
    >>> r = match_sentence("unless the sun is out, the children stay inside.", lfs)
    >>> r["lf"], r["action"], r["precondition"]
    ('unless', 'the children stay inside', 'the sun is out')
    >>> r = match_sentence("the dog wants to play but the owner is not at home.", lfs)
    >>> r["lf"], r["precondition"]
    ('but', 'the owner is at home')
    >>> match_sentence("the dog wants to play but the owner is at home.", lfs) is None
    True
    """
    words = None
    for lf in lfs:
        if lf.literals:
            if words is None:
                words = set(sentence.replace(".", " ").replace(",", " ").split())
            if not all(w in words for w in lf.literals):
                continue
        for regex, leading in lf.regexes:
            m = regex.fullmatch(sentence)
            if m is None:
                continue
            gd = m.groupdict()
            a_key = "action" if gd.get("action") is not None else "event"
            action = (gd.get(a_key) or "").strip(_STRIP)
            precondition = (gd.get("precondition") or "").strip(_STRIP)
            if strict_slots:
                action = slot_text(action, leading=leading == a_key, event=a_key == "event")
                precondition = slot_text(precondition, leading=leading == "precondition")
            if not action or not precondition:
                continue
            if lf.negative:
                if not has_negation(precondition):
                    continue
                precondition = make_positive(precondition)
            return {"sentence": sentence, "action": action, "precondition": precondition,
                    "label": lf.label, "lf": lf.conjunction, "precision": lf.precision}
    return None


def extract_records(captions: Iterable[tuple[str, str]], *, threshold: float = DEFAULT_THRESHOLD,
                    lfs: list[LabelingFunction] | None = None, max_chars: int = MAX_CHARS,
                    summary: Summary | None = None, strict_slots: bool = True) -> Iterator[dict]:
    """Match records for ``(caption_id, caption)`` pairs; counts go into ``summary``."""
    summary = summary if summary is not None else Summary()
    chosen = enabled(threshold, lfs)
    single = [lf for lf in chosen if not lf.multi_sentence]
    multi = [lf for lf in chosen if lf.multi_sentence]
    for cid, caption in captions:
        summary.captions += 1
        sentences = preprocess_caption(caption)
        summary.sentences += len(sentences)
        candidates: list[tuple[str, list[LabelingFunction]]] = [(s, single) for s in sentences]
        if multi and len(sentences) > 1:
            candidates.insert(0, (" ".join(sentences), multi))
        for sentence, group in candidates:
            if len(sentence) > max_chars:
                summary.too_long += 1
                continue
            rec = match_sentence(sentence, group, strict_slots=strict_slots)
            if rec is not None:
                summary.matches += 1
                summary.by_lf[rec["lf"]] += 1
                yield {"caption_id": cid, **rec}


# ---------------------------------------------------------------------------------------
# reading caption files
# ---------------------------------------------------------------------------------------
#: caption file formats by extension
FORMATS = {".txt": "text", ".text": "text", ".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl",
           ".tsv": "cc", ".json": "coco"}
FORMAT_NAMES = ("text", "csv", "jsonl", "cc", "coco")


def detect_format(path: Path) -> str:
    """The caption format of ``path`` from its extension; an unknown one is a usage error.

    >>> detect_format(Path("Train_GCC-training.tsv")), detect_format(Path("captions_train2014.json"))
    ('cc', 'coco')
    >>> detect_format(Path("captions.parquet"))
    Traceback (most recent call last):
    ...
    d3mkit.core.errors.InvalidArgument: captions.parquet: error [usage] unknown caption file extension '.parquet': expected .txt (one caption per line), .csv or .jsonl (id and caption fields), .tsv (Conceptual Captions: caption TAB url) or .json (COCO / VizWiz captions); or pass input_format
    """
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise InvalidArgument("input_format",
                              f"unknown caption file extension {path.suffix or '(none)'!r}: expected .txt (one "
                              "caption per line), .csv or .jsonl (id and caption fields), .tsv (Conceptual "
                              "Captions: caption TAB url) or .json (COCO / VizWiz captions); or pass "
                              "{input_format}", str(path))
    return fmt


def read_captions(path: Path | str, fmt: str | None = None, summary: Summary | None = None,
                  text_fields: tuple[str, ...] = ("caption",),
                  images: dict | None = None, what: str = "captions") -> Iterator[tuple[str, str]]:
    """``(caption_id, caption)`` pairs from a caption file, in the formats the paper's
    caption sources come in (``fmt`` from the extension unless given):

    * ``text`` (.txt): one caption per line, the id is the line number;
    * ``csv``/``jsonl``: ``id`` and ``caption`` fields (or the first of ``text_fields``
      present), optional ``image``;
    * ``cc`` (.tsv, Conceptual Captions 3M/12M): ``caption<TAB>url`` per line, no header;
      the id is the line number, the URL the image;
    * ``coco`` (.json, MS-COCO and VizWiz captions): ``{"images": [{"id", "file_name"}],
      "annotations": [{"id", "image_id", "caption"}]}``; the annotation id is the caption
      id, its image's ``file_name`` the image. VizWiz annotations flagged ``is_rejected``
      or ``is_precanned`` (canned "quality issues" texts) are skipped and counted.

    A record that cannot be read is skipped and counted in ``summary`` with its line (or
    annotation) number. A file that cannot be opened, a CSV without the columns or a JSON
    file without ``annotations`` is an error. With ``images`` given, a record's image is
    stored there under its id."""
    p = Path(path)
    summary = summary if summary is not None else Summary()
    if fmt is not None and fmt not in FORMAT_NAMES:
        raise UsageError(f"unknown caption format {fmt!r} ({', '.join(FORMAT_NAMES)})")
    from d3mkit.io.limits import open_regular
    try:                     # a FIFO, a device or an oversize file is refused unopened
        raw = open_regular(p, f"{what} file")
    except D3MKitError as exc:
        if exc.issues[0].code in ("file.missing", "file.unreadable", "file.is_directory"):
            raise UsageError(f"cannot read {what}: {exc.issues[0].message}", str(p)) from None
        raise
    try:
        head = raw.read(8192)
        raw.seek(0)
        fmt = fmt or detect_format(p)
    except BaseException:
        raw.close()
        raise
    fh = io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline="")
    if b"\x00" in head:
        fh.close()
        raise D3MKitError(error("file.binary", "", f"{what} file is binary, not text", str(p)))
    with fh:
        yield from _read_open(fh, fmt, str(p), summary, text_fields, images)


def _read_cc(fh: TextIO, where: str, summary: Summary, images: dict | None) -> Iterator[tuple[str, str]]:
    for n, line in enumerate(fh, start=1):
        line = line.rstrip("\r\n")
        if not line.strip():
            continue
        caption, tab, url = line.partition("\t")
        if not tab:
            summary.skipped.append((f"{where}: line {n}", "no TAB: not a Conceptual Captions line "
                                    "(caption TAB url)"))
            continue
        if not caption.strip():
            summary.skipped.append((f"{where}: line {n}", "empty caption"))
            continue
        if images is not None and url.strip():
            images[str(n)] = url.strip()
        yield str(n), caption


def _read_coco(fh: TextIO, where: str, summary: Summary, images: dict | None) -> Iterator[tuple[str, str]]:
    try:
        data = json.load(fh)
    except json.JSONDecodeError as exc:
        raise D3MKitError(error("json.syntax", "", exc.msg, where, line=exc.lineno, column=exc.colno)) from None
    anns = data.get("annotations") if isinstance(data, dict) else None
    if not isinstance(anns, list):
        raise D3MKitError(error("prism.captions", "", "not a COCO/VizWiz captions file: expected an object "
                                "with an 'annotations' list", where))
    files = {}
    for img in data.get("images") or []:
        if isinstance(img, dict) and "id" in img and isinstance(img.get("file_name"), str):
            files[str(img["id"])] = img["file_name"]
    for n, ann in enumerate(anns):
        at = f"{where}: annotations[{n}]"
        if not isinstance(ann, dict):
            summary.skipped.append((at, "not an object"))
            continue
        if ann.get("is_rejected") or ann.get("is_precanned"):
            summary.skipped.append((at, "VizWiz caption flagged is_rejected or is_precanned"))
            continue
        rec = _record({"id": ann.get("id", n), "caption": ann.get("caption")}, at, summary)
        if rec is None:
            continue
        if images is not None and str(ann.get("image_id")) in files:
            images[rec[0]] = files[str(ann.get("image_id"))]
        yield rec


def _read_open(fh: TextIO, fmt: str, where: str, summary: Summary,
               text_fields: tuple[str, ...], images: dict | None = None) -> Iterator[tuple[str, str]]:
    if fmt == "cc":
        yield from _read_cc(fh, where, summary, images)
        return
    if fmt == "coco":
        yield from _read_coco(fh, where, summary, images)
        return
    if fmt == "text":
        for n, line in enumerate(fh, start=1):
            line = line.rstrip("\r\n")
            if line.strip():
                yield str(n), line
        return
    if fmt == "jsonl":
        for n, obj, problem in jsonl_rows(fh):
            if problem is not None:
                summary.skipped.append((f"{where}: line {n}", problem))
                continue
            rec = _record(obj, f"{where}: line {n}", summary, text_fields, images)
            if rec is not None:
                yield rec
        return
    if fmt == "csv":
        try:
            reader = DictRecords(fh)
        except Unreadable as exc:
            raise D3MKitError(error("prism.captions", "", f"unreadable CSV: {exc.detail}", where, line=1)) from None
        cols = reader.fieldnames or []
        missing = [c for c in ("id",) if c not in cols]
        if not any(f in cols for f in text_fields):
            missing.append(text_fields[0])
        if missing:
            raise D3MKitError(error("prism.captions", "", f"missing column(s) {', '.join(missing)} "
                                    f"(found: {', '.join(cols) or 'none'})", where, line=1))
        try:
            for row in reader:
                rec = _record(row, f"{where}: line {reader.line_num}", summary, text_fields, images)
                if rec is not None:
                    yield rec
        except Unreadable as exc:
            raise D3MKitError(error("prism.captions", "", f"unreadable CSV: {exc.detail}", where,
                                    line=reader.line_num)) from None
        return
    raise UsageError(f"unknown caption format {fmt!r} ({', '.join(FORMAT_NAMES)})")


def _record(obj: dict, where: str, summary: Summary, text_fields: tuple[str, ...] = ("caption",),
            images: dict | None = None) -> tuple[str, str] | None:
    cid = obj.get("id")
    cap = next((obj[f] for f in text_fields if f in obj), None)
    if cid is None or (isinstance(cid, str) and not cid.strip()):
        summary.skipped.append((where, "no id"))
        return None
    if not isinstance(cap, str):
        summary.skipped.append((where, f"no {text_fields[0]} text" if cap is None else
                                f"{text_fields[0]} is a {type(cap).__name__}, not text"))
        return None
    if not cap.strip():
        summary.skipped.append((where, f"empty {text_fields[0]}"))
        return None
    if images is not None and obj.get("image") not in (None, ""):
        images[str(cid)] = str(obj["image"])
    return str(cid), cap


# ---------------------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------------------
def write_records(records: Iterable[dict], out: TextIO, fmt: str = "jsonl") -> int:
    """Write match records as JSON lines or CSV (columns :data:`FIELDS`); returns the count."""
    n = 0
    if fmt == "jsonl":
        for r in records:
            out.write(json.dumps({k: r[k] for k in FIELDS}, ensure_ascii=False) + "\n")
            n += 1
    elif fmt == "csv":
        w = csv.DictWriter(out, fieldnames=list(FIELDS), lineterminator="\n")
        w.writeheader()
        for r in records:
            w.writerow({k: ("" if r[k] is None else r[k]) for k in FIELDS})
            n += 1
    elif fmt == "manifest":
        w = csv.DictWriter(out, fieldnames=list(MANIFEST_FIELDS), lineterminator="\n")
        w.writeheader()
        for r in records:
            w.writerow(manifest_row(r))
            n += 1
    else:
        raise UsageError(f"unknown output format {fmt!r} (jsonl, csv or manifest)")
    return n


def manifest_row(r: dict) -> dict:
    """A match as a ``d3mkit build prism`` manifest record: the action is the hypothesis,
    the precondition the rationale, the caption's image the premise (strategy EC)."""
    return {"hypothesis": r["action"], "image": r["image"], "label": r["label"],
            "rationale": r["precondition"], "strategy": "EC", "source": f"caption {r['caption_id']}",
            "lf": r["lf"], "precision": "" if r["precision"] is None else r["precision"]}


def run_extract(captions: Path, *, threshold: float = DEFAULT_THRESHOLD, fmt: str = "jsonl",
                input_format: str | None = None, output: Path | None = None,
                lfs_path: Path | None = None, max_chars: int = MAX_CHARS,
                stderr: TextIO | None = None, strict_slots: bool = True) -> Summary:
    """The ``d3mkit prism extract`` command: read, match, write (atomically to ``output``
    or to stdout), print the summary to stderr."""
    from d3mkit.benchmarks.prism.labeling import load_labeling_functions
    if not 0.0 <= threshold <= 1.0:
        raise InvalidArgument("threshold", f"must be between 0 and 1, got {threshold}")
    if max_chars < 1:
        raise InvalidArgument("max_chars", f"must be at least 1, got {max_chars}")
    lfs = load_labeling_functions(lfs_path) if lfs_path else None
    summary = Summary()
    images: dict | None = {} if fmt == "manifest" else None
    records = extract_records(read_captions(captions, input_format, summary, images=images),
                              threshold=threshold, lfs=lfs, max_chars=max_chars, summary=summary,
                              strict_slots=strict_slots)
    if images is not None:
        records = _with_images(records, images, summary)
    buf = io.StringIO()
    write_records(records, buf, fmt)
    if summary.captions == 0:
        first = f" (first: {summary.skipped[0][0]}: {summary.skipped[0][1]})" if summary.skipped else ""
        raise D3MKitError(error("prism.captions", "", f"no caption could be read from this file; "
                                f"{len(summary.skipped)} record(s) skipped{first}", str(captions)))
    if output is None:
        sys.stdout.write(buf.getvalue())
    else:
        write_output(Path(output), buf.getvalue())
    for line in summary.lines():
        print(line, file=stderr or sys.stderr)
    return summary


def _with_images(records: Iterable[dict], images: dict, summary: Summary) -> Iterator[dict]:
    for r in records:
        img = images.get(r["caption_id"])
        if img is None:
            summary.skipped.append((f"caption {r['caption_id']}", "match left out of the manifest: "
                                    "the caption record has no image field"))
            continue
        yield {**r, "image": img}


def write_output(path: Path, text: str) -> None:
    """Write ``path`` (the ``output`` argument) atomically; a directory or an unwritable
    place is a usage error."""
    try:
        write_text(path, text)
    except OSError as exc:
        raise InvalidArgument("output", f"cannot be written: {exc.strerror or exc}", str(path),
                              code="output.unusable") from None
