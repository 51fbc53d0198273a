"""The per-token byte facts the guards read (``TokenTables``), computed for a whole vocabulary
at once, against a direct reading of each token's bytes: generated vocabularies (whitespace runs
around quotes, brackets, surrogate bytes, control and empty tokens) and the real DeepSeek one."""

import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from thinkgate.constraint.runtime.vocabulary import TokenTables, pack, vocabulary_for

PIECES = [b" ", b"  ", b"\t", b"\r\n", b"\n\n\n", b'"', b"\\", b"{", b"}", b"]", b"[", b"a", b"\xed", b"\xa0", b"\xbf", b"\xc0", b"\xe6\x9d\xb1", b"\x80"]


def read_token(data):
    """One token's facts, read from its bytes as the definitions say."""
    head = data[: data.index(b'"')] if b'"' in data else data
    runs = re.findall(rb"[ \t\r\n]+", head)
    lead = len(runs[0]) if runs and head[:1] in (b" ", b"\t", b"\r", b"\n") else 0
    return {
        "chars": sum(1 for x in data if x & 0xC0 != 0x80),
        "first_byte": data[0],
        "last_byte": data[-1],
        "ws_lead": lead,
        "ws_inner": max((len(r) for r in runs[1 if lead else 0 :]), default=0),
        "closes": b"}" in head or b"]" in head,
        "special": b'"' in data or b"\\" in data,
        "surrogate": re.search(rb"\xed[\xa0-\xbf]", data) is not None,
    }


def check(token_bytes, controls):
    size = len(token_bytes) + 7  # a padded model vocabulary
    tables = TokenTables(token_bytes, size, frozenset(controls))
    special, surrogate = [], []
    for i, data in enumerate(token_bytes):
        if not data or i in controls:
            assert (tables.chars[i], tables.first_byte[i], tables.last_byte[i], tables.ws_lead[i], tables.ws_inner[i], tables.closes[i]) == (0, -1, -1, 0, 0, False)
            continue
        want = read_token(data)
        got = {k: getattr(tables, k)[i] for k in ("chars", "first_byte", "last_byte", "ws_lead", "ws_inner", "closes")}
        assert got == {k: want[k] for k in got}, (data, got, want)
        special += [i] if want["special"] else []
        surrogate += [i] if want["surrogate"] else []
    assert tables.special_ids.tolist() == special
    assert tables.special_bytes == [token_bytes[i] for i in special]
    assert np.array_equal(tables.surrogate_mask, pack(surrogate, size))
    assert np.array_equal(tables.control_mask, pack(controls, size))
    assert tables.max_chars == max((read_token(b)["chars"] for i, b in enumerate(token_bytes) if b and i not in controls), default=0)
    return tables


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=8).map(b"".join), min_size=1, max_size=40), st.data())
def test_generated_vocabularies_read_as_each_token_says(token_bytes, data):
    controls = data.draw(st.sets(st.integers(0, len(token_bytes) - 1)))
    check(token_bytes, controls)


def test_a_surrogate_split_across_tokens_is_no_token_s_own():
    tables = check([b"a\xed", b"\xa0b", b"\xed\xa0", b"x\xed\xbfy", b"\xed"], set())
    assert np.flatnonzero(np.unpackbits(tables.surrogate_mask.view(np.uint8), bitorder="little")).tolist() == [2, 3]


def test_the_real_vocabulary_reads_as_each_token_says(tokenizer):
    vocab = vocabulary_for(tokenizer)
    tables = check(vocab.token_bytes, vocab.control_ids)
    assert tables.ws_inner.max() > 0 and tables.closes.sum() > 100 and len(tables.special_ids) > 100
