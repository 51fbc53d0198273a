"""Quotes: whether text read so far leaves the next character quoted (a code fence of backticks
or tildes, inline code), the same however the text arrives."""

from hypothesis import given
from hypothesis import strategies as st

from thinkgate.parsing.quotes import Quotes


def quoting(pieces):
    q = Quotes()
    for p in pieces:
        q.feed(p)
    return q.quoting


CASES = [
    ("```xml\n", True), ("```xml\n<a>\n```\n", False), ("~~~xml\n", True), ("~~~xml\n~~~\n", False),
    ("~~~\n```\n", True),  # (only the fence's own character closes it)
    ("```\n~~~\n", True), ("`a", True), ("`a` b", False), ("``a", True), ("a ~ b ~~ c", False),
    ("`~~~", True), ("`~~~` x", False),  # (tildes in inline code are its text)
]


def test_fences_of_backticks_or_tildes_and_inline_code():
    for text, expected in CASES:
        assert quoting([text]) is expected, text


@given(st.sampled_from([t for t, _ in CASES]), st.lists(st.integers(0, 20), max_size=4))
def test_the_same_however_the_text_arrives(text, cuts):
    cuts = sorted({min(c, len(text)) for c in cuts})
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    assert quoting(pieces) == quoting([text])
