"""Preprocessing of statements and captions, as the PRISM paper's appendix A.1 describes.

What this module owns:

* :func:`replace_people` — person identifiers to ordinal phrases: the fixed identifiers of
  ATOMIC/ANION (``PersonX``, ``PersonY``, ``PersonZ``) and Alice/Bob-style fixed names
  become "the person", "another person", "a third person"; further names given by the
  caller are numbered in order of first appearance. (The paper finds names in WINOVENTI
  with a Flair NER model; d3mkit ships no NER model, so such names must be passed in.)
* :func:`replace_person_tags` — ``<PERSON>`` tags (Conceptual Captions) by occurrence:
  the first "the person", the second "another person", ...
* :func:`split_sentences` — captions split into sentences and on newlines. The paper uses
  NLTK's punkt tokenizer; this is a small rule-based splitter (terminal ``.!?`` followed by
  whitespace and a capital letter (any script), digit or quote, common abbreviations kept whole).
* :func:`normalize` — Unicode NFKC, curly quotes to straight ones, lower case, whitespace
  fixed, "the person's" to "their".
* :func:`preprocess_statement` — a PNLI statement: people replaced, normalized;
* :func:`preprocess_caption` — one caption in, its clean sentences out: split, ``<PERSON>``
  tags replaced, normalized (names are not replaced in captions).

Every function is linear in the length of its input (no regex here can backtrack
catastrophically), so a 100 KB caption is handled in milliseconds.

>>> preprocess_statement("Alice helps Bob.  PersonX's dog barks!")
'the person helps another person. their dog barks!'
>>> preprocess_caption("Alice helps Bob.  The Person's dog barks!")
['alice helps bob.', 'their dog barks!']
>>> preprocess_caption("<PERSON> and <PERSON> at the premiere of the film")
['the person and another person at the premiere of the film']
"""

from __future__ import annotations

import re
import unicodedata
from typing import Iterable

ORDINALS = ("the person", "another person", "a third person", "a fourth person",
            "a fifth person", "a sixth person")

# fixed identifiers -> ordinal position (0 = "the person")
FIXED_IDENTIFIERS = {
    "personx": 0, "persony": 1, "personz": 2,
    "alice": 0, "bob": 1, "charlie": 2, "carol": 2,
}

_FIXED_RE = re.compile(r"\b(PersonX|PersonY|PersonZ|Person X|Person Y|Person Z|Alice|Bob|Charlie|Carol)\b",
                       re.IGNORECASE)
_TAG_RE = re.compile(r"<\s*person\s*>", re.IGNORECASE)
_WS_RE = re.compile(r"\s+")
_SPACE_BEFORE_PUNCT = re.compile(r" ([.,;:!?])")
_POSSESSIVE_RE = re.compile(r"\bthe person's\b")
# a sentence ends at . ! ? (possibly repeated, possibly followed by a closing quote or
# bracket), before whitespace and the start of a new sentence
_BOUNDARY_RE = re.compile(r"([.!?]+[\"')\]]?)\s+(?=\S)")
ABBREVIATIONS = frozenset({"mr", "mrs", "ms", "dr", "st", "prof", "jr", "sr", "vs", "etc",
                           "e.g", "i.e", "no", "fig", "approx", "inc", "ltd", "co", "mt"})

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'",
                         "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"',
                         "\u00ab": '"', "\u00bb": '"', "\u2032": "'", "\u2033": '"'})


def _ordinal(i: int) -> str:
    return ORDINALS[i] if i < len(ORDINALS) else f"person number {i + 1}"


def replace_people(text: str, names: Iterable[str] = ()) -> str:
    """Person identifiers to "the person", "another person", "a third person", ...

    Fixed identifiers keep a fixed position (PersonX and Alice are always "the person");
    the extra ``names`` are numbered after them in order of first appearance.

    >>> replace_people("PersonX gives PersonY a book")
    'the person gives another person a book'
    >>> replace_people("Tom thanks Ann, then Ann leaves", names=["Tom", "Ann"])
    'the person thanks another person, then another person leaves'
    """
    def fixed(m: re.Match) -> str:
        return _ordinal(FIXED_IDENTIFIERS[m.group(1).lower().replace(" ", "")])

    out = _FIXED_RE.sub(fixed, text)
    names = [n for n in names if n and n.strip()]
    if names:
        used = {FIXED_IDENTIFIERS[m.group(1).lower().replace(" ", "")] for m in _FIXED_RE.finditer(text)}
        alt = "|".join(re.escape(n.strip()) for n in sorted(set(names), key=len, reverse=True))
        pattern = re.compile(rf"\b({alt})\b")
        order: dict[str, int] = {}

        def named(m: re.Match) -> str:
            key = m.group(1)
            if key not in order:
                pos = 0
                while pos in used:
                    pos += 1
                used.add(pos)
                order[key] = pos
            return _ordinal(order[key])

        out = pattern.sub(named, out)
    return out


def replace_person_tags(text: str) -> str:
    """``<PERSON>`` tags by occurrence: "the person", "another person", ...

    >>> replace_person_tags("<PERSON> greets <person> and <PERSON>")
    'the person greets another person and a third person'
    """
    count = iter(range(1 << 30))
    return _TAG_RE.sub(lambda m: _ordinal(next(count)), text)


def split_sentences(text: str) -> list[str]:
    """Split on newlines, then at sentence boundaries; empty pieces dropped.

    >>> split_sentences("A dog runs. It is happy!\\nDr. Smith waves.  Then he sits.")
    ['A dog runs.', 'It is happy!', 'Dr. Smith waves.', 'Then he sits.']
    >>> split_sentences("prices rose 3.5 percent. Fine")
    ['prices rose 3.5 percent.', 'Fine']
    """
    out: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        start = 0
        for m in _BOUNDARY_RE.finditer(line):
            nxt = line[m.end()]
            if not (nxt.isupper() or nxt.isdigit() or nxt in "\"'([" or (nxt.isalpha() and not nxt.islower())):
                continue
            # the word before the boundary: an abbreviation or a single letter does not end it
            cut = max(line.rfind(" ", start, m.start()) + 1, start)
            word = line[cut:m.start()].lower().rstrip(".")
            if m.group(1) == "." and (word in ABBREVIATIONS or (len(word) == 1 and word.isalpha())):
                continue
            piece = line[start:m.end(1)].strip()
            if piece:
                out.append(piece)
            start = m.end()
        piece = line[start:].strip()
        if piece:
            out.append(piece)
    return out


def normalize(text: str) -> str:
    """NFKC, straight quotes, lower case, single spaces, "the person's" to "their".

    >>> normalize("  The Person\u2019s   cup  is  EMPTY .")
    'their cup is empty.'
    """
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES).lower()
    text = _WS_RE.sub(" ", text).strip()
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    return _POSSESSIVE_RE.sub("their", text)


def preprocess_statement(text: str, names: Iterable[str] = ()) -> str:
    """A PNLI statement (premise or hypothesis): people replaced, then normalized.

    >>> preprocess_statement("PersonX wants to drink water")
    'the person wants to drink water'
    """
    return normalize(replace_person_tags(replace_people(text, names)))


def preprocess_caption(caption: str) -> list[str]:
    """One caption to its clean sentences: split first (on the original capitals), then
    ``<PERSON>`` tags replaced and the text normalized, sentence by sentence. Names are
    never replaced in captions (a caption's "Bob Dylan" is a person's name, not a PNLI
    placeholder): :func:`replace_people` applies to PNLI statements only.

    >>> preprocess_caption("Bob Dylan performs with Alice Cooper. Then <PERSON> waves.")
    ['bob dylan performs with alice cooper.', 'then the person waves.']
    """
    out = []
    for piece in split_sentences(caption):
        s = normalize(replace_person_tags(piece))
        if s:
            out.append(s)
    return out
