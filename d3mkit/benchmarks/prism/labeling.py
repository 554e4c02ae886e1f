"""The labeling functions of the PRISM paper's Table 3, kept as data, compiled to regexes.

What this module owns: :data:`TABLE3` (one record per labeling function: label,
conjunction, precision, pattern template), reading user-supplied records from JSON
(:func:`load_labeling_functions`), checking them, and compiling a template into an
anchored regex (:func:`compile_pattern`).

A template is written over preprocessed (lower-case) sentences with slots ``{A}``
(action), ``{P}`` (precondition), ``{E}`` (event) and ``{NP}`` (negative precondition,
reported as the precondition), plus ordinary regex syntax for the negative lookaheads. A
slot used twice must repeat the same text (a backreference). The compiled regex must
match the whole sentence (trailing ``.!?`` allowed).

Label vocabulary: Table 3 says *enables*/*disables*; the records store the PVLI labels
``allow``/``prevent`` and keep the paper's word in ``paper_label``.

Precision ``None`` means the paper gives none ("—": no example in the annotated sample);
such functions are enabled only by a threshold of 0 or below. ``starred`` marks the
paper's asterisk (fewer than 20 examples in the corpora).

Deviations from the printed table (the PDF text lost some characters), each recorded in
the record's ``note``:

* ``unless``: the pattern column is missing in the extracted table; we use
  ``{A} unless {P}``, the form section 2 quotes ("{action} unless {precondition}").
* ``if`` / ``if not``: the printed ``{A}(?!\\bas) if`` places a *lookahead* right before a
  space, where ``\\bas`` can never match; the intent (do not fire on "as if") needs a
  lookbehind, so we use ``(?<!\\bas)``.
* ``if not``: ``(?!(more most many all)\\b)`` lost its ``|`` separators; we use
  ``(?!(?:more|most|many|all)\\b)``.
* The paper confirms some conjunctions with part-of-speech tagging (Flair); the bold
  marking is lost in the text and d3mkit ships no tagger, so no POS filter is applied.
* ``unless`` also has PInKS' sentence-initial form "Unless P, A" (``also``: further
  patterns of the same function; PInKS' ``^{any_word} unless {precondition}, {action}``,
  where ``any_word`` is at most one short word such as "but").

PInKS rules the paper adopts (it extracts "with the approach described in PInKS"), as the
PInKS code (``PatternsLookup/Patterns.py``) applies them; :mod:`.extract` enforces them
unless asked not to (``--loose-slots``):

* slot text (:func:`slot_text`) is PInKS' ``FACT_REGEX``: at least 10 characters of
  letters, digits, spaces and ``_-\\/+*'"’%`` - no commas, periods or other punctuation
  (events may hold periods). A slot that opens the sentence starts after its last
  disallowed character (PInKS' unanchored search finds the match there); any other slot
  holding one is no match;
* ``{NP}`` (negative precondition): the match is kept only when the slot carries a
  negation (:data:`NEGATIVE_WORDS`, PInKS' list) and the precondition reported is the slot
  made positive (:func:`make_positive`: "is not wet" -> "is wet", "cannot see" -> "can see").

Catastrophic backtracking: the first slot is lazy, the others greedy, and the regex is
anchored at both ends, so a match attempt costs O(n) per occurrence of the conjunction;
:mod:`.extract` also skips the regex when a conjunction's literal words are absent and
skips over-long sentences (counted in the summary).

>>> lf = by_conjunction()["unless"]
>>> lf.label, lf.precision
('prevent', 0.75)
>>> m = lf.regex.fullmatch("swimming pools have cold water in the winter unless they are heated.")
>>> m.group("action"), m.group("precondition")
('swimming pools have cold water in the winter', 'they are heated')
>>> [f.conjunction for f in enabled(0.6)]
['unless', 'so that', 'in order to', 'because']
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from d3mkit.core.errors import D3MKitError, error

SLOTS = {"A": "action", "P": "precondition", "E": "event", "NP": "precondition"}
_SLOT_RE = re.compile(r"\{(A|P|E|NP)\}")
LABELS = {"allow": "allow", "enables": "allow", "prevent": "prevent", "disables": "prevent"}
DEFAULT_THRESHOLD = 0.6

# Table 3 of the PRISM paper, in its order. precision None = "—" in the paper.
TABLE3: list[dict] = [
    # label "enables" -> allow
    {"label": "allow", "conjunction": "so that", "precision": 0.689, "pattern": "{P} so that {A}"},
    {"label": "allow", "conjunction": "in order to", "precision": 0.650, "pattern": "{P} in order to {A}"},
    {"label": "allow", "conjunction": "because", "precision": 0.625, "pattern": r"{A} because (?!of\b){P}"},
    {"label": "allow", "conjunction": "due to", "precision": 0.550, "pattern": "{A} due to {P}"},
    {"label": "allow", "conjunction": "in case", "precision": 0.475, "pattern": r"{A} in case (?!of\b){P}"},
    {"label": "allow", "conjunction": "as if", "precision": 0.400, "pattern": "{A} as if {P}"},
    {"label": "allow", "conjunction": "as long as", "precision": 0.375, "pattern": "{A} as long as {P}"},
    {"label": "allow", "conjunction": "if", "precision": 0.150, "pattern": r"{A}(?<!\bas) if (?!not\b){P}",
     "note": "printed (?!\\bas) lookahead can never match before a space; lookbehind used"},
    {"label": "allow", "conjunction": "in the event", "precision": 0.100, "pattern": "{A} in the event {P}"},
    {"label": "allow", "conjunction": "on condition", "precision": 0.045,
     "pattern": r"{A} on condition (?!of anonymity\b){P}"},
    {"label": "allow", "conjunction": "supposing", "precision": 0.0, "starred": True,
     "pattern": "{A} supposing {P}"},
    {"label": "allow", "conjunction": "on the assumption", "precision": 0.0, "starred": True,
     "pattern": "{A} on the assumption {P}"},
    {"label": "allow", "conjunction": "in the case that", "precision": 0.0, "starred": True,
     "pattern": "{A} in the case that {P}"},
    {"label": "allow", "conjunction": "contingent upon", "precision": 0.0, "starred": True,
     "pattern": "{A} contingent upon {P}"},
    {"label": "allow", "conjunction": "with the proviso", "precision": None, "pattern": "{A} with the proviso {P}"},
    {"label": "allow", "conjunction": "to understand event statement is true", "precision": None,
     "pattern": r'to understand the event "{E}", it is important to know that {P}\. '
                r'the statement "{E}" is true because {P}\.'},
    {"label": "allow", "conjunction": "only if", "precision": None, "pattern": "{A} only if {P}"},
    {"label": "allow", "conjunction": "on these terms", "precision": None, "pattern": "{A} on these terms {P}"},
    {"label": "allow", "conjunction": "makes possible", "precision": None, "pattern": r"{P} makes {A} possible\."},
    # label "disables" -> prevent
    {"label": "prevent", "conjunction": "unless", "precision": 0.750, "pattern": "{A} unless {P}",
     "also": [r"(?:[^ \[]{1,10} )?unless {P}, {A}"],
     "note": "pattern missing in the extracted table; section 2's '{action} unless {precondition}'; "
             "PInKS' sentence-initial 'unless P, A' as a second pattern"},
    {"label": "prevent", "conjunction": "even though", "precision": 0.550, "pattern": "{A} even though {P}"},
    {"label": "prevent", "conjunction": "despite", "precision": 0.475, "pattern": "{A} despite {P}"},
    {"label": "prevent", "conjunction": "if not", "precision": 0.300,
     "pattern": r"{A}(?<!\bas) if not (?!(?:more|most|many|all)\b){P}",
     "note": "lost '|' separators restored; lookbehind for the printed lookahead"},
    {"label": "prevent", "conjunction": "without", "precision": 0.257, "pattern": "{A} without {P}"},
    {"label": "prevent", "conjunction": "but", "precision": 0.175, "pattern": "{A} but {NP}"},
    {"label": "prevent", "conjunction": "except", "precision": 0.075, "pattern": "{A} except {P}"},
    {"label": "prevent", "conjunction": "lest", "precision": 0.045, "starred": True, "pattern": "{A} lest {P}"},
    {"label": "prevent", "conjunction": "excepting that", "precision": None, "pattern": "{A} excepting that {P}"},
    {"label": "prevent", "conjunction": "except for", "precision": None, "pattern": "{A} except for {P}"},
]


#: PInKS' negation words (``PatternUtils.NEGATIVE_WORDS``; its two escaped-unicode entries
#: can never match text and are written here as the curly-apostrophe forms they meant)
NEGATIVE_WORDS = (" not ", " cannot ", "n't ", " don’t ", " doesn’t ")
_POSITIVE = ((" can't ", " can "), (" won't ", " will "), (" cannot ", " can "), (" not ", " "),
             ("n't ", " "), (" don’t ", " do "), (" doesn’t ", " does "))
#: PInKS' FACT_REGEX / EVENT_REGEX character classes and minimum length
SLOT_CHARS = r"a-zA-Z0-9_\-\\/+* '\"’%"
MIN_SLOT_CHARS = 10
_SLOT_OK = re.compile(f"[{SLOT_CHARS}]+")
_EVENT_OK = re.compile(f"[{SLOT_CHARS}.]+")
_SLOT_BAD = re.compile(f"[^{SLOT_CHARS}]")
_EVENT_BAD = re.compile(f"[^{SLOT_CHARS}.]")


def has_negation(text: str) -> bool:
    """True when ``text`` holds one of PInKS' negation words.

    >>> has_negation("the road is not wet"), has_negation("it isn't raining"), has_negation("nothing")
    (True, True, False)
    """
    padded = f" {text} "
    return any(w in padded for w in NEGATIVE_WORDS)


def make_positive(text: str) -> str:
    """PInKS' ``make_sentence_positive``: drop the negation (``can't``/``won't`` mapped to
    ``can``/``will``, which PInKS would have turned into "ca"/"wo").

    >>> make_positive("the road is not wet"), make_positive("it doesn't rain"), make_positive("we can't see")
    ('the road is wet', 'it does rain', 'we can see')
    """
    padded = f" {text} "
    for neg, pos in _POSITIVE:
        padded = padded.replace(neg, pos)
    return re.sub(r"\s+", " ", padded).strip()


def slot_text(text: str, *, leading: bool = False, event: bool = False) -> str | None:
    """The slot text PInKS' slot regex would capture, or None when it captures nothing:
    at least :data:`MIN_SLOT_CHARS` allowed characters; a ``leading`` slot (the one opening
    the sentence) is cut after its last disallowed character.

    >>> slot_text("on a cold day, kids wear coats", leading=True)
    'kids wear coats'
    >>> slot_text("they stay warm, dry"), slot_text("it rains"), slot_text("the u.s. team", event=True)
    (None, None, 'the u.s. team')
    """
    bad = _EVENT_BAD if event else _SLOT_BAD
    if leading:
        last = None
        for last in bad.finditer(text):
            pass
        if last is not None:
            text = text[last.end():]
    text = text.strip(" ")
    ok = _EVENT_OK if event else _SLOT_OK
    if len(text) < MIN_SLOT_CHARS or not ok.fullmatch(text):
        return None
    return text


def compile_pattern(template: str) -> re.Pattern:
    """A template to an anchored regex with named groups ``action``/``precondition``/``event``.

    >>> compile_pattern("{P} so that {A}").pattern
    '(?P<precondition>.+?) so that (?P<action>.+?)[.!?]*'
    >>> compile_pattern('x "{E}" y {P} and "{E}"').fullmatch('x "a b" y c and "a b"').group("event")
    'a b'
    """
    parts: list[str] = []
    seen: set[str] = set()
    pos = 0
    slots = list(_SLOT_RE.finditer(template))
    if not slots:
        raise ValueError("the pattern has no {A}/{P}/{E}/{NP} slot")
    for m in slots:
        parts.append(template[pos:m.start()])
        group = SLOTS[m.group(1)]
        if group in seen:
            parts.append(f"(?P={group})")
        else:
            seen.add(group)
            parts.append(f"(?P<{group}>.+?)")
        pos = m.end()
    tail = template[pos:]
    parts.append(tail)
    if tail == "":           # the template ends with a slot: let trailing punctuation go
        parts.append("[.!?]*")
    if not ({"action", "event"} & seen) or "precondition" not in seen:
        raise ValueError("the pattern needs an action ({A} or {E}) and a precondition ({P} or {NP})")
    return re.compile("".join(parts), re.DOTALL)


def _literals(template: str) -> tuple[str, ...]:
    """Plain words of the template outside slots and regex groups, for a quick pre-check.

    >>> _literals(r"{A} because (?!of\\b){P}")
    ('because',)
    """
    text = _SLOT_RE.sub(" ", template)
    text = re.sub(r"\(\?[^()]*(?:\([^()]*\)[^()]*)*\)", " ", text)   # drop (?...) groups
    text = re.sub(r"\\.", " ", text)
    return tuple(w for w in re.findall(r"[a-z]+", text.lower()))


@dataclass(frozen=True)
class LabelingFunction:
    label: str                    # allow | prevent
    conjunction: str              # the LF's name in outputs ("lf")
    precision: float | None
    pattern: str
    starred: bool = False
    note: str = ""
    extra: dict = field(default_factory=dict, compare=False)
    also: tuple[str, ...] = ()            # further patterns of the same function

    @cached_property
    def regex(self) -> re.Pattern:
        return compile_pattern(self.pattern)

    @cached_property
    def regexes(self) -> tuple[tuple[re.Pattern, str | None], ...]:
        """``(regex, leading slot group or None)`` for the pattern and each ``also`` one."""
        out = []
        for template in (self.pattern, *self.also):
            m = _SLOT_RE.match(template)
            out.append((compile_pattern(template), SLOTS[m.group(1)] if m else None))
        return tuple(out)

    @property
    def negative(self) -> bool:
        """True when the precondition slot is ``{NP}`` (kept only when negated, then flipped)."""
        return "{NP}" in self.pattern

    @cached_property
    def literals(self) -> tuple[str, ...]:
        return _literals(self.pattern)

    @property
    def paper_label(self) -> str:
        return "enables" if self.label == "allow" else "disables"

    @property
    def multi_sentence(self) -> bool:
        """True when the pattern spans sentences (matched against the whole caption)."""
        return bool(re.search(r"\\\. ", self.pattern))

    def is_enabled(self, threshold: float) -> bool:
        if self.precision is None:
            return threshold <= 0
        return self.precision >= threshold

    def to_dict(self) -> dict:
        d = {"label": self.label, "conjunction": self.conjunction, "precision": self.precision,
             "pattern": self.pattern}
        if self.also:
            d["also"] = list(self.also)
        if self.starred:
            d["starred"] = True
        if self.note:
            d["note"] = self.note
        return d


def _from_record(rec, where: str, path: str) -> LabelingFunction:
    if not isinstance(rec, dict):
        raise D3MKitError(error("prism.lf", where, "a labeling function must be a JSON object", path))
    missing = [k for k in ("label", "conjunction", "pattern") if k not in rec]
    if missing:
        raise D3MKitError(error("prism.lf", where, f"missing field(s): {', '.join(missing)}", path))
    label = LABELS.get(str(rec["label"]).lower())
    if label is None:
        raise D3MKitError(error("prism.lf", f"{where}.label", f"unknown label {rec['label']!r} "
                                "(allow/enables or prevent/disables)", path))
    prec = rec.get("precision")
    if prec is not None:
        try:
            prec = float(prec)
        except (TypeError, ValueError):
            raise D3MKitError(error("prism.lf", f"{where}.precision",
                                    f"precision must be a number or null, got {prec!r}", path)) from None
    also = rec.get("also", [])
    if not isinstance(also, list) or not all(isinstance(a, str) for a in also):
        raise D3MKitError(error("prism.lf", f"{where}.also", "also must be a list of pattern strings", path))
    lf = LabelingFunction(label, str(rec["conjunction"]), prec, str(rec["pattern"]),
                          bool(rec.get("starred", False)), str(rec.get("note", "")), also=tuple(also))
    try:
        lf.regexes
    except (re.error, ValueError) as exc:
        raise D3MKitError(error("prism.lf", f"{where}.pattern", f"bad pattern {lf.pattern!r}: {exc}", path)) from None
    return lf


def default_labeling_functions() -> list[LabelingFunction]:
    """The Table 3 functions, in the paper's order."""
    return [_from_record(r, f"TABLE3[{i}]", "d3mkit") for i, r in enumerate(TABLE3)]


def load_labeling_functions(path: Path | str) -> list[LabelingFunction]:
    """Labeling functions from a JSON file: a list of records like :data:`TABLE3`'s."""
    from d3mkit.documents.jsonio import load_json   # strict JSON, regular files only, size cap
    p = Path(path)
    data = load_json(p)
    if not isinstance(data, list) or not data:
        raise D3MKitError(error("prism.lf", "", "expected a non-empty JSON list of labeling functions", str(p)))
    return [_from_record(r, f"[{i}]", str(p)) for i, r in enumerate(data)]


def by_conjunction(lfs: list[LabelingFunction] | None = None) -> dict[str, LabelingFunction]:
    return {lf.conjunction: lf for lf in (lfs if lfs is not None else default_labeling_functions())}


def enabled(threshold: float = DEFAULT_THRESHOLD,
            lfs: list[LabelingFunction] | None = None) -> list[LabelingFunction]:
    """The functions whose precision is at or above ``threshold``, highest precision first
    (ties keep table order) — the order in which :mod:`.extract` tries them."""
    lfs = lfs if lfs is not None else default_labeling_functions()
    chosen = [lf for lf in lfs if lf.is_enabled(threshold)]
    return sorted(chosen, key=lambda lf: -(lf.precision if lf.precision is not None else -1.0))
