"""The run-time guard agrees, token for token, with reading each candidate through exactly."""

import json

import numpy as np
import xgrammar as xgr

from schemas import BOOK_FLIGHT, SET_ALARM
from thinkgate.constraint import ReasonerGrammar, compile_tool_grammar
from thinkgate.constraint.runtime.guard import ARGS, Cursor
from thinkgate.constraint.schemas.schema_nodes import build_nodes
from thinkgate.formats import DEEPSEEK_V3_1

V = 129280


def _bits(row):
    return np.unpackbits(row.view(np.uint8), bitorder="little")[:V].astype(bool)


def test_guard_masks_exactly_the_tokens_that_break_a_string(tokenizer):
    tool = {
        "type": "function",
        "function": {
            "name": "f",
            "parameters": {
                "type": "object",
                "properties": {
                    "short": {"type": "string", "minLength": 2, "maxLength": 5},
                    "any": {"type": "string"},
                    "list": {"type": "array", "items": {"type": "string", "maxLength": 3}, "maxItems": 3},
                },
                "required": ["short", "any", "list"],
                "additionalProperties": False,
            },
        },
    }
    g = compile_tool_grammar(tokenizer, "deepseek_v3_1", [tool], "required")
    t = DEEPSEEK_V3_1.tools
    # a walk that visits escapes, surrogate pairs, multi-byte characters and bounded strings
    args = '{"short": "\\u00e9\\ud83d\\ude00", "any": "x\\n\\"y 東京 \\ud83d\\ude00", "list": ["ab", "\\t", ""]}'
    ids = tokenizer.encode(t.section_begin + t.call_begin + "f" + t.sep + args + t.call_end + t.section_end, add_special_tokens=False)
    rg = ReasonerGrammar(g, thinking=False)
    rng = np.random.default_rng(0)
    token_bytes = g.vocab.token_bytes
    checked = 0
    for tid in ids:
        guard = rg._guard
        if guard is not None and guard.mode == ARGS:
            plain = xgr.allocate_token_bitmask(1, V)
            rg._matcher.fill_next_token_bitmask(plain, 0)
            by_grammar = _bits(plain[0].numpy())
            guarded = plain[0].numpy().copy()
            guard.restrict(guarded)
            kept = _bits(guarded)
            assert not (kept & ~by_grammar).any()  # the guard only ever removes
            allowed = np.flatnonzero(by_grammar)
            sample = np.union1d(rng.choice(allowed, size=min(3000, len(allowed)), replace=False), np.intersect1d(allowed, g.masks.tables.special_ids))
            for cand in sample:
                ok = guard.cursor.copy().read(token_bytes[cand], check=True) >= 0
                assert kept[cand] == ok, (tokenizer.decode([int(cand)]), guard.cursor.state())
            checked += len(sample)
        assert rg.accept_token(tid), rg.error
    assert checked > 20000


def test_cursor_reads_lengths_as_json_schema_counts_them():
    nodes = build_nodes({"type": "object", "properties": {"s": {"type": "string", "maxLength": 3}}})
    for text, length in [('"abc"', 3), ('"é東😀"', 3), ('"\\n\\u00e9\\ud83d\\ude00"', 3), ('"\\\\\\""', 2)]:
        c = Cursor(nodes)
        c.read(b'{"s": ')
        c.read(text[:-1].encode())
        assert c.count == length == len(json.loads(text))
        assert c.read(b'"}', check=True) > 0


def test_cursor_refuses_surrogates_and_overruns():
    nodes = build_nodes({"type": "object", "properties": {"s": {"type": "string", "minLength": 1, "maxLength": 2}}})
    def check(*pieces):
        c = Cursor(nodes)
        c.read(b'{"s": "')
        return all(c.read(p, check=True) >= 0 for p in pieces)
    assert check(b"ab", b'"')
    assert not check(b"abc")
    assert not check(b'"')  # shorter than minLength
    assert not check(b"\\ud800", b"x")  # a high surrogate not followed by its low half
    assert not check(b"\\udc00")  # a lone low surrogate
    assert check(b"\\ud83d", b"\\ude00", b'"')
    assert not check(b"\xed\xa0\x80")  # the UTF-8 bytes of a surrogate
    assert not check(b"\xed", b"\xa0\x80")
    assert check("é".encode(), b"x", b'"')


def test_guard_agrees_with_exact_reading_along_random_walks(tokenizer):
    tools = [BOOK_FLIGHT, SET_ALARM]
    g = compile_tool_grammar(tokenizer, "deepseek_r1", tools, "required")
    rng = np.random.default_rng(3)
    token_bytes = g.vocab.token_bytes
    special = g.masks.tables.special_ids
    steps = 0
    for walk in range(4):
        rg = ReasonerGrammar(g, thinking=False)
        for _ in range(150):
            if rg.is_terminated():
                break
            plain = xgr.allocate_token_bitmask(1, V)
            rg._matcher.fill_next_token_bitmask(plain, 0)
            by_grammar = _bits(plain[0].numpy())
            guarded = plain[0].numpy().copy()
            guard = rg._guard
            if guard.restrict(guarded):
                kept = _bits(guarded)
                allowed = np.flatnonzero(by_grammar)
                sample = np.union1d(rng.choice(allowed, size=min(1500, len(allowed)), replace=False), np.intersect1d(allowed, special))
                for cand in sample:
                    ok = guard.cursor.copy().read(token_bytes[cand], check=True) >= 0
                    assert kept[cand] == ok, (tokenizer.decode([int(cand)]), guard.cursor.state())
                steps += 1
            else:
                kept = by_grammar
            choices = np.flatnonzero(kept)
            # lean towards quotes and escapes, where the guard has work to do
            interesting = np.intersect1d(choices, special)
            pick = rng.choice(interesting) if len(interesting) and rng.random() < 0.3 else rng.choice(choices)
            assert rg.accept_token(int(pick)), rg.error
    assert steps > 50


def test_an_object_never_gets_the_same_key_twice(tokenizer):
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "additionalProperties": {"type": "integer"}}}}
    g = compile_tool_grammar(tokenizer, "deepseek_v3_1", [tool], "required")
    t = DEEPSEEK_V3_1.tools
    rg = ReasonerGrammar(g, thinking=False)
    prefix = t.section_begin + t.call_begin + "f" + t.sep + '{"ab": 1, "a'
    assert rg.accept_tokens(tokenizer.encode(prefix, add_special_tokens=False))
    bm = xgr.allocate_token_bitmask(1, V)
    rg.fill_bitmask(bm, 0)
    allowed = _bits(bm[0].numpy())
    for text in ('b"', 'b":', 'b":"'):
        ids = tokenizer.encode(text, add_special_tokens=False)
        if len(ids) == 1:
            assert not allowed[ids[0]], text
    assert allowed[tokenizer.encode("c", add_special_tokens=False)[0]]
    c = Cursor(build_nodes({"type": "object"}))
    c.read(b'{"ab": 1, "a')
    assert c.copy().read(b'b"', check=True) < 0
    assert c.copy().read(b'c"', check=True) > 0


def test_a_surrogate_escape_is_refused_as_soon_as_it_cannot_end_well():
    nodes = build_nodes({"type": "object", "properties": {"s": {"type": "string"}}})
    c = Cursor(nodes)
    c.read(b'{"s": "\\ud83d\\u')
    assert c.copy().read(b"e", check=True) < 0  # a low half must start with d
    assert c.copy().read(b"d9", check=True) < 0  # ... and then c-f
    assert c.copy().read(b"de0", check=True) > 0
    c = Cursor(nodes)
    c.read(b'{"s": "\\u')
    assert c.copy().read(b"dc", check=True) < 0  # a lone low half can never end well
    assert c.copy().read(b"d8", check=True) > 0


def test_bounds_past_the_longest_token_mask_like_any_other(tokenizer):
    """maxLength 129 and more (200, 256, 500 are common): the guard indexed a table of 129
    entries with a room of 129 and raised IndexError as the string began, which took vLLM's
    engine down. Every bound works; walks keep within it."""
    from schema_fuzz import Walker

    from thinkgate.constraint.runtime.vocabulary import vocabulary_for

    walker = Walker(tokenizer, vocabulary_for(tokenizer))
    for lo, hi in ((129, 129), (130, 200), (0, 256), (300, 10**6)):
        tool = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"s": {"type": "string", "minLength": lo, "maxLength": hi}}, "required": ["s"]}}}]
        g = compile_tool_grammar(tokenizer, "deepseek_v3_1", tool, "required")
        done = 0
        for seed in range(4):
            ids, rg = walker.walk(g, np.random.default_rng(seed), max_tokens=1200)
            assert rg.error is None
            if rg.is_terminated():
                s = json.loads(walker.arguments("deepseek_v3_1", ids, tool).tool_calls[0].arguments)["s"]
                assert lo <= len(s) <= hi
                done += 1
        assert done
