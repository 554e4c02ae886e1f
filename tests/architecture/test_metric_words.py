"""Every metric has a complete one-sentence description for users (issue 32 item 6): what
``d3mkit metrics``, its JSON and every leaderboard show. None is cut mid-sentence, none
speaks of the code (``:func:``, ``the seed's table``)."""

from __future__ import annotations

import pytest

from d3mkit.core.registry import registry


@pytest.mark.parametrize("name", sorted(registry()))
def test_description_is_a_whole_sentence(name):
    text = registry()[name].description
    assert text and text[0].isupper() or text[0] in "(", (name, text)
    assert text.endswith("."), (name, text)
    assert text.count("(") == text.count(")") and text.count('"') % 2 == 0, (name, text)
    for cut in ("(compared as the", "the seed's", ":func:", "``", " the.", " of.", " a.", " as the."):
        assert cut not in text, (name, text)
    assert len(text.split()) >= 6, (name, text)
