"""Free answer text (thinkgate.constraint.grammar.free_text): the grammar admits exactly the texts in
which no marker occurs and that do not end in a proper prefix of one, its automaton minimised."""

from __future__ import annotations

import pytest
import xgrammar as xgr
from hypothesis import given, settings
from hypothesis import strategies as st
from xgrammar.testing import _is_grammar_accept_string as accepts

from thinkgate.constraint.grammar.free_text import text_grammar
from thinkgate.formats import get_format

# Formats whose markers are text, each with its own markers' shapes (shared ends, shared starts).
FORMATS = ["kimi_k3", "deepseek_v3_2", "minimax_m2", "glm47"]


def markers_of(name):
    fmt = get_format(name)
    return [str(m) for m in fmt.markers if m != fmt.eos]


def free(text, markers):
    return not any(m in text for m in markers) and not any(text.endswith(m[:k]) for m in markers for k in range(1, len(m)))


def texts(markers):
    """Texts near the markers: their pieces (whole, cut anywhere, joined to each other) and
    characters of theirs and of none."""
    pieces = st.sampled_from(markers).flatmap(lambda m: st.integers(0, len(m)).flatmap(lambda a: st.integers(a, len(m)).map(lambda b: m[a:b])))
    chars = st.sampled_from(sorted({c for m in markers for c in m}) + ["x", " ", "\n", "é"])
    return st.lists(st.one_of(pieces, chars), max_size=8).map("".join)


@pytest.mark.parametrize("name", FORMATS)
def test_the_grammar_admits_exactly_the_free_texts(name):
    markers = markers_of(name)
    grammar = xgr.Grammar.from_ebnf(text_grammar(markers))

    @settings(max_examples=150, deadline=None)
    @given(texts(markers))
    def check(text):
        assert accepts(grammar, text) == free(text, markers), text

    check()


def test_states_with_the_same_future_are_one_rule():
    # Kimi-K3's markers: 120 prefixes, many of them in the same seven-character end of eight
    # markers, which share a future
    assert text_grammar(markers_of("kimi_k3")).count("::=") - 1 == 55
    # one marker: its prefixes, none alike
    assert text_grammar(["<tool_call>"]).count("::=") - 1 == len("<tool_call>")
