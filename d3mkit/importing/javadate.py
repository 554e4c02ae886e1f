"""The date format of an ARFF ``DATE`` attribute (a Java ``SimpleDateFormat`` pattern) read
into ISO 8601 text, for ``d3mkit import arff``.

What this module owns: turning a pattern such as ``"dd-MM-yyyy HH:mm"`` into a strict
parser (:func:`compile_pattern`) whose :meth:`DatePattern.iso` gives each value as ISO 8601
(``2021-03-04T17:05:00``; a date alone when the pattern has no time of day; the offset when
it has a zone), or None for a value that does not match. Weka and OpenML write ARFF dates
with these patterns; liac-arff hands the cells over as text.

The letters read (English names; everything else outside quotes must be matched as is;
``'text'`` is literal text and ``''`` a single quote):

=========  ==================================================================
``y``      year; ``yy`` with exactly two digits is taken within 80 years before
           and 20 years after today, as Java does; otherwise the number as written
``M``      month: ``M``/``MM`` a number, ``MMM`` or more a name (``Mar`` or ``March``)
``d``      day of the month
``H k``    hour 0-23, 1-24 (24 is midnight)
``h K``    hour 1-12, 0-11, with ``a`` (AM/PM)
``m s S``  minute, second, millisecond
``E``      day of the week (``Mon``, ``Monday``): read, and must agree with the date
``a``      AM/PM marker
``z Z X``  zone: ``Z``, ``UTC``/``GMT``, ``+hh:mm``, ``+hhmm``, ``+hh``, ``GMT+hh:mm``
=========  ==================================================================

Other letters (week numbers, day of the year, era, ...) are refused with ValueError naming
them. A pattern may leave fields out, as Java's does (``yyyy``, ``yyyy-MM``, ``HH:mm``): a
missing year is 1970, a missing month January, a missing day the 1st (Java's defaults). Numbers take as many digits as are written unless the next field is a number too
(``yyyyMMdd``): then each takes exactly its count of letters. Values are checked strictly:
month 1-12, a day that exists in its month, hours, minutes and seconds in range.

>>> p = compile_pattern("dd-MM-yyyy")
>>> p.iso("04-03-2021"), p.iso("31-02-2021"), p.iso("2021-03-04")
('2021-03-04', None, None)
>>> compile_pattern("yyyy-MM-dd'T'HH:mm:ss").iso("2020-01-02T03:04:05")
'2020-01-02T03:04:05'
>>> compile_pattern("EEE, d MMM yyyy hh:mm a Z").iso("Thu, 4 Mar 2021 05:07 PM +0100")
'2021-03-04T17:07:00+01:00'
>>> compile_pattern("yyyyMMddHHmmss.SSS").iso("20210304170700.250")
'2021-03-04T17:07:00.250'
>>> compile_pattern("yyyy").iso("2011"), compile_pattern("yyyy-MM").iso("2011-07")
('2011-01-01', '2011-07-01')
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass

_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december"]
_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_NUMERIC = set("yMdHkKhmsS")
_KNOWN = _NUMERIC | set("Eaz ZX")
_ZONE = r"(?:Z|(?:UTC|GMT)(?:[+-]\d{1,2}(?::?\d{2})?)?|[+-]\d{2}(?::?\d{2})?)"


@dataclass
class DatePattern:
    """A compiled ``SimpleDateFormat`` pattern (:func:`compile_pattern`)."""

    pattern: str
    regex: re.Pattern
    fields: list[tuple[str, int]]      # (letter, count) of each capture group, in order

    @property
    def has_time(self) -> bool:
        return any(letter in "HkKhmsSa" for letter, _ in self.fields)

    def iso(self, value: str) -> str | None:
        """``value`` as ISO 8601 text, or None when it does not match the pattern or names a
        date or time that does not exist."""
        m = self.regex.fullmatch(value.strip())
        if m is None:
            return None
        year, month, day, hour, minute, second, milli = None, None, None, 0, 0, 0, None
        pm, hour12, weekday, zone = None, None, None, None
        for (letter, count), text in zip(self.fields, m.groups()):
            if letter == "y":
                year = int(text)
                if count == 2 and len(text) == 2:
                    year = _two_digit_year(year)
            elif letter == "M":
                month = int(text) if count <= 2 else _name_index(text, _MONTHS) + 1
            elif letter == "d":
                day = int(text)
            elif letter == "H":
                hour = int(text)
                if hour > 23:
                    return None
            elif letter == "k":
                hour = int(text)
                if not 1 <= hour <= 24:
                    return None
                hour %= 24
            elif letter in "hK":
                hour12 = int(text)
                if not (1 <= hour12 <= 12 if letter == "h" else 0 <= hour12 <= 11):
                    return None
                hour12 %= 12
            elif letter == "m":
                minute = int(text)
            elif letter == "s":
                second = int(text)
            elif letter == "S":
                milli = int(text)
                if milli > 999:
                    return None
            elif letter == "a":
                pm = text.lower() == "pm"
            elif letter == "E":
                weekday = _name_index(text, _DAYS)
            else:
                zone = _offset(text)
                if zone is None:
                    return None
        if hour12 is not None:
            hour = hour12 + (12 if pm else 0)
        if minute > 59 or second > 59:
            return None
        # a field the pattern leaves out takes Java's default: 1970, January, the 1st
        year, month, day = 1970 if year is None else year, month or 1, day or 1
        try:
            when = _dt.datetime(year, month, day, hour, minute, second)
        except ValueError:
            return None
        if weekday is not None and when.weekday() != weekday:
            return None
        if not self.has_time:
            return f"{year:04d}-{month:02d}-{day:02d}"
        text = f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}"
        if milli is not None:
            text += f".{milli:03d}"
        return text + (zone or "")


def _name_index(text: str, names: list[str]) -> int:
    t = text.lower()
    return next(i for i, n in enumerate(names) if n == t or n[:3] == t)


def _two_digit_year(yy: int, today: _dt.date | None = None) -> int:
    """Java's rule for ``yy``: the year within 80 years before and 20 years after today.

    >>> _two_digit_year(5, _dt.date(2026, 1, 1)), _two_digit_year(70, _dt.date(2026, 1, 1))
    (2005, 1970)
    """
    today = today or _dt.date.today()
    start = today.year - 80
    year = start - start % 100 + yy
    return year + 100 if year < start else year


def _offset(text: str) -> str | None:
    """A zone as ``+hh:mm`` (``Z`` for UTC written ``Z``), or None when out of range."""
    if text == "Z":
        return "Z"
    t = text[3:] if text[:3] in ("UTC", "GMT") else text
    if t == "":
        return "+00:00"
    m = re.fullmatch(r"([+-])(\d{1,2})(?::?(\d{2}))?", t)
    if m is None:
        return None
    hours, minutes = int(m.group(2)), int(m.group(3) or 0)
    if hours > 18 or minutes > 59:
        return None
    return f"{m.group(1)}{hours:02d}:{minutes:02d}"


def _tokens(pattern: str) -> list[tuple[str, object]]:
    """``("field", (letter, count))`` and ``("text", str)`` pieces of a pattern."""
    out: list[tuple[str, object]] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "'":
            if pattern[i + 1:i + 2] == "'":
                out.append(("text", "'"))
                i += 2
                continue
            end = pattern.find("'", i + 1)
            while end >= 0 and pattern[end + 1:end + 2] == "'":     # '' inside quotes
                end = pattern.find("'", end + 2)
            if end < 0:
                raise ValueError(f"unterminated quote in date format {pattern!r}")
            out.append(("text", pattern[i + 1:end].replace("''", "'")))
            i = end + 1
        elif c.isascii() and c.isalpha():
            j = i
            while j < len(pattern) and pattern[j] == c:
                j += 1
            if c not in _KNOWN:
                raise ValueError(f"date format {pattern!r}: the letter {c!r} is not one d3mkit reads "
                                 f"(y M d H k K h m s S E a z Z X)")
            out.append(("field", (c, j - i)))
            i = j
        else:
            out.append(("text", c))
            i += 1
    return out


def compile_pattern(pattern: str) -> DatePattern:
    """A :class:`DatePattern` for a ``SimpleDateFormat`` pattern; ValueError for a letter it
    does not read, an unterminated quote, or a pattern without year, month and day."""
    tokens = _tokens(pattern)
    parts: list[str] = []
    fields: list[tuple[str, int]] = []
    for k, (kind, what) in enumerate(tokens):
        if kind == "text":
            parts.append(re.escape(what))
            continue
        letter, count = what
        nxt = tokens[k + 1] if k + 1 < len(tokens) else None
        adjacent = nxt is not None and nxt[0] == "field" and nxt[1][0] in _NUMERIC and \
            not (nxt[1][0] == "M" and nxt[1][1] > 2)
        if letter in _NUMERIC and not (letter == "M" and count > 2):
            parts.append(f"(\\d{{{count}}})" if adjacent else "(\\d+)")
        elif letter in "ME":        # a full or a short name, whatever the count (as Java parses)
            names = _MONTHS if letter == "M" else _DAYS
            parts.append("(" + "|".join(names + [n[:3] for n in names]) + ")")
        elif letter == "a":
            parts.append("(am|pm)")
        else:
            parts.append(f"({_ZONE})")
        fields.append((letter, count))
    if not fields:
        raise ValueError(f"date format {pattern!r} has no date or time field")
    return DatePattern(pattern, re.compile("".join(parts), re.IGNORECASE), fields)
