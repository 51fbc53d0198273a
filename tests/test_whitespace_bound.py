"""JSON's whitespace runs are bounded by the run-time guard, not by the grammar: xgrammar fills a
grammar whose whitespace runs free about three times faster than one with ``max_whitespace_cnt``
(see ``guard``). The rows thinkgate gives must be the rows of the grammar with the bound in it:
checked along random walks that seek out whitespace, against the same tools compiled with the
bound in xgrammar's JSON (as ``build_structural_tag`` writes it for an engine's own use)."""

import re

import numpy as np
import pytest
import xgrammar as xgr

from schemas import GET_WEATHER, REALISTIC
from thinkgate.constraint import ReasonerGrammar, compile_tool_grammar
from thinkgate.constraint.grammar import compiled as compiled_module
from thinkgate.constraint.grammar.compiled import GrammarCache
from thinkgate.constraint.runtime.vocabulary import vocabulary_for
from test_text_markers import TEXT_HERMES
from thinkgate.formats import DEEPSEEK_V3_1

BOUND = 2
ANSWER = {"type": "json_schema", "json_schema": {"name": "a", "schema": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "array", "items": {"type": "integer"}}}, "required": ["city"]}}}


def _bounded_in_grammar(tok, fmt, tools, choice, monkeypatch, **options):
    """The grammar as it was before the guard took the bound over: the bound in xgrammar's JSON,
    the guard without it (a cache of its own, so that neither grammar is the other's entry)."""
    build = compiled_module.build_spec
    with monkeypatch.context() as m:
        m.setattr(compiled_module, "build_spec", lambda *a, **k: build(*a, **{**k, "guard_whitespace": False}))
        grammar = GrammarCache(vocabulary_for(tok)).get(fmt, tools, choice, **options)
    assert grammar.spec.whitespace_bound is None
    return grammar


def _row(g, bitmask):
    if not g.needs_bitmask:
        return None
    g.fill_bitmask(bitmask, 0)
    return bitmask[0].clone()


CASES = [
    ("deepseek_r1", "tokenizer", REALISTIC, "required", {}),
    ("deepseek_v3_1", "tokenizer", REALISTIC, "auto", {}),
    ("qwen3", "qwen_tokenizer", REALISTIC, "required", {}),  # call objects, markers as tokens
    (TEXT_HERMES, "llama_tokenizer", REALISTIC, "required", {}),  # ... and as text (the guard reads bytes)
    ("llama3_json", "llama_tokenizer", REALISTIC, "required", {}),  # bare JSON calls
    ("gpt_oss", "harmony_tokenizer", REALISTIC, "required", {}),
    ("deepseek_r1", "tokenizer", [], "none", {"response_format": ANSWER}),  # a JSON answer
    ("llama3_json", "llama_tokenizer", REALISTIC, "required", {"max_whitespace": 1}),  # one space at most
]


@pytest.mark.parametrize("fmt, tokenizer_name, tools, choice, options", CASES, ids=lambda v: v if isinstance(v, str) else getattr(v, "name", ""))
def test_the_guard_bounds_whitespace_as_the_grammar_did(request, monkeypatch, fmt, tokenizer_name, tools, choice, options):
    tok = request.getfixturevalue(tokenizer_name)
    options = {"max_whitespace": BOUND, **options}
    bound = options["max_whitespace"]
    guarded = compile_tool_grammar(tok, fmt, tools, choice, **options)
    assert guarded.spec.whitespace_bound == bound
    bounded = _bounded_in_grammar(tok, fmt, tools, choice, monkeypatch, **options)
    vocab = vocabulary_for(tok)
    bitmask = xgr.allocate_token_bitmask(1, vocab.size)
    spaced = np.array([i for i, b in enumerate(vocab.token_bytes) if re.search(rb"[ \t\r\n]", b) and i not in vocab.control_ids])
    closers = np.array(sorted({*guarded.stop_ids, *(i for i, b in enumerate(vocab.token_bytes) if b and not b.strip(b'"}]'))}))
    rng = np.random.default_rng(sum(map(ord, guarded.format.name + tokenizer_name + choice)))
    trigger = vocab.token_id(guarded.format.tools.trigger)  # under "auto": the calls opened at once
    at_bound = 0
    for _ in range(4):
        a, b = ReasonerGrammar(guarded, thinking=False), ReasonerGrammar(bounded, thinking=False)
        ids = []
        for step in range(160):
            row = _row(a, bitmask)
            old = _row(b, bitmask)
            assert (row is None) == (old is None)
            allowed = np.arange(vocab.size) if row is None else np.flatnonzero(np.unpackbits(row.numpy().view(np.uint8), bitorder="little")[: vocab.size])
            if row is not None:
                assert bool((row == old).all()), f"{tok.decode(ids)!r} step {step}: the rows differ on {sorted(set(np.flatnonzero(np.unpackbits((row ^ old).numpy().view(np.uint8), bitorder='little'))))[:8]}"
                cursor = a._guard.cursor if a._guard is not None else None
                at_bound += cursor is not None and cursor.ws == bound
            pool = np.intersect1d(allowed, closers) if step >= 100 else np.intersect1d(allowed, spaced) if rng.random() < 0.6 else allowed
            tid = int(rng.choice(pool if len(pool) else allowed))
            if choice == "auto" and step == 0:
                assert trigger in allowed
                tid = trigger
            ids.append(tid)
            assert a.accept_token(tid), a.error
            assert b.accept_token(tid), b.error
            if a.is_terminated():
                break
    assert at_bound, "no walk reached the bound"


def test_whitespace_inside_arguments_is_bounded(tokenizer):
    """After four spaces of a bound of four, no token with leading whitespace is allowed; after
    the next token that is not whitespace, a run may start again."""
    t = DEEPSEEK_V3_1.tools
    grammar = compile_tool_grammar(tokenizer, "deepseek_v3_1", [GET_WEATHER], "required", max_whitespace=4)
    g = ReasonerGrammar(grammar, thinking=False)
    bitmask = xgr.allocate_token_bitmask(1, grammar.vocab.size)
    ids = tokenizer.encode(t.section_begin + t.call_begin + "get_weather" + t.sep + "{  ", add_special_tokens=False)
    space, two, quote = (tokenizer.encode(s, add_special_tokens=False) for s in (" ", "  ", '"'))
    assert len(space) == len(two) == len(quote) == 1

    def allows(tid):
        g.fill_bitmask(bitmask, 0)
        return bool(bitmask[0, tid >> 5].item() >> (tid & 31) & 1)

    for tid in ids:
        assert g.accept_token(tid)
    assert allows(two[0]) and allows(quote[0])
    assert g.accept_token(two[0])  # four
    assert not allows(space[0]) and allows(quote[0])
    assert g.accept_token(quote[0])
    assert allows(space[0]) is False  # a space right after a key's opening quote is the key's
    for tid in tokenizer.encode('city":', add_special_tokens=False):
        assert g.accept_token(tid)
    assert allows(space[0]) and allows(two[0])  # a new run
