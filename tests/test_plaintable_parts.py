"""A large plain CSV file is read in two parts side by side (:mod:`d3mkit.validation.plaintable`):
whichever newline the file is cut at, the joined columns are those of one part, value for
value, the text columns' codes and distinct values included."""

from __future__ import annotations

import numpy as np
import pytest

from d3mkit.validation import plaintable
from d3mkit.validation.tablecols import Ints, Texts

HEADER = ["d3mIndex", "x", "k", "when", "label", "name"]
NUMERIC = {"d3mIndex": "integer", "x": "real", "k": "integer"}


def _rows(n: int) -> list[str]:
    rng = np.random.default_rng(7)
    out = []
    for i in range(n):
        x = ["1.5", "-0.25", "3", "1e-3", "", "12345.678"][i % 6]
        k = "" if i % 11 == 3 else str(int(rng.integers(-300, 300)) * (1000 if i == n - 2 else 1))
        when = f"2020-0{1 + i % 9}-1{i % 10}"
        label = ["a", "b", "", "caf\u00e9", "a-much-longer-label-of-forty-bytes-long-xx"][i % 5]
        name = f"item{i}.png" if i % 4 else ""
        out.append(",".join([str(i), x, k, when, label, name]))
    return out


def _columns(d: dict) -> list:
    out = []
    for j in sorted(d):
        c = d[j]
        if isinstance(c, Ints):
            out.append(("int", c.values.tolist(), None if c.na is None else c.na.tolist()))
        elif isinstance(c, Texts):
            out.append(("text", [c.at(r) if c.at(r) == c.at(r) else None for r in range(len(c))]))
        else:
            out.append(("float", [None if v != v else v for v in c.values.tolist()]))
    return out


def _read(path, cut=None):
    positions = list(range(len(HEADER)))
    kinds = {j: NUMERIC.get(HEADER[j]) for j in positions}
    if cut is None:
        return plaintable.read_plain_columns(path, HEADER, positions, NUMERIC)
    size = path.stat().st_size
    with open(path, "rb") as a, open(path, "rb") as b:
        parts = [plaintable._scan(plaintable.Span(a, 0, cut), cut, len(HEADER), kinds, True),
                 plaintable._scan(plaintable.Span(b, cut, size), size - cut, len(HEADER), kinds, False)]
    return plaintable._join(parts, kinds)


@pytest.mark.parametrize("final_newline", [True, False])
def test_every_cut_gives_the_columns_of_one_part(tmp_path, final_newline):
    path = tmp_path / "t.csv"
    text = "\n".join([",".join(HEADER)] + _rows(40)) + ("\n" if final_newline else "")
    path.write_bytes(text.encode("utf-8"))
    whole = _columns(_read(path))
    data = path.read_bytes()
    cuts = [i + 1 for i, b in enumerate(data) if b == 10 and i + 1 < len(data)][1:]
    assert len(cuts) >= 38
    for cut in cuts:
        assert _columns(_read(path, cut)) == whole, cut


def test_a_large_file_is_read_in_two_parts_alike(tmp_path, monkeypatch):
    """read_plain_columns itself cuts a file of PARTS_FROM bytes or more at its middle."""
    path = tmp_path / "t.csv"
    path.write_text("\n".join([",".join(HEADER)] + _rows(3000)) + "\n", encoding="utf-8")
    whole = _columns(_read(path))
    spans = []
    real = plaintable.Span

    def spy(fh, start, stop):
        spans.append((start, stop))
        return real(fh, start, stop)
    monkeypatch.setattr(plaintable, "Span", spy)
    monkeypatch.setattr(plaintable, "PARTS_FROM", 0)
    monkeypatch.setattr(plaintable, "cpu_count", lambda: 2)
    assert _columns(_read(path)) == whole
    size = path.stat().st_size
    (a0, cut), (b0, b1) = sorted(spans)
    assert (a0, b0, b1) == (0, cut, size) and abs(cut - size // 2) < 100
    assert path.read_bytes()[cut - 1:cut] == b"\n"


def test_a_part_that_is_not_plain_sends_the_file_back(tmp_path, monkeypatch):
    """A quote, a ragged row or a blank line in either part: None (the general reader reads it)."""
    monkeypatch.setattr(plaintable, "PARTS_FROM", 0)
    monkeypatch.setattr(plaintable, "cpu_count", lambda: 2)
    rows = _rows(200)
    for at in (10, 190):
        for bad in ('1,"x",3,2020-01-01,a,b', "1,2", ""):
            edited = rows[:at] + [bad] + rows[at + 1:]
            path = tmp_path / "t.csv"
            path.write_text("\n".join([",".join(HEADER)] + edited) + "\n", encoding="utf-8")
            assert _read(path) is None, (at, bad)
