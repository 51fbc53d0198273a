"""build_structural_tag and the compiled tool grammar, checked token by token with the real
DeepSeek tokenizer."""

import json
import os
import threading

import pytest
import xgrammar as xgr

from format_matrix import formats_under_test
from schemas import GET_WEATHER, REALISTIC
from thinkgate.constraint import ReasonerGrammar, build_structural_tag, compile_tool_grammar, grammar_cache
from thinkgate.formats import DEEPSEEK_R1, DEEPSEEK_V3_1

WEATHER_ARGS = '{"city": "Zürich", "days": 3}'


def _ids(tok, text):
    return tok.encode(text, add_special_tokens=False)


def _spelled(tok, marker):
    """The marker's text as ordinary tokens (its first character split off)."""
    return _ids(tok, marker[0]) + _ids(tok, marker[1:])


def _matcher(tok, fmt, tools, choice, **kw):
    return xgr.GrammarMatcher(compile_tool_grammar(tok, fmt, tools, choice, **kw).compiled)


def _accepts(matcher, ids, end=True):
    for t in ids:
        if not matcher.accept_token(t):
            return False
    return matcher.accept_token(1) and matcher.is_terminated() if end else True


@pytest.mark.parametrize("fmt", [DEEPSEEK_R1, DEEPSEEK_V3_1], ids=lambda f: f.name)
def test_required_accepts_the_canonical_output_with_leading_whitespace(tokenizer, fmt):
    text = "\n\n" + fmt.tools.section_text([("get_weather", WEATHER_ARGS), ("book_flight", json.dumps({"origin": "ZRH", "destination": "NRT", "depart_at": "2025-03-01T10:00:00Z", "passengers": [{"name": "Ana", "age": 30}]}))])
    assert _accepts(_matcher(tokenizer, fmt, REALISTIC, "required"), _ids(tokenizer, text))


@pytest.mark.parametrize("fmt", [DEEPSEEK_R1, DEEPSEEK_V3_1], ids=lambda f: f.name)
def test_markers_must_be_the_special_token(tokenizer, fmt):
    t = fmt.tools
    m = _matcher(tokenizer, fmt, [GET_WEATHER], "required")
    assert not m.accept_token(_spelled(tokenizer, t.section_begin)[0])
    # and inside a call: the separator spelled out
    m = _matcher(tokenizer, fmt, [GET_WEATHER], "required")
    head = t.section_begin + t.call_begin
    ok = _accepts(m, _ids(tokenizer, head), end=False)
    assert ok
    rest = ("function" if fmt is DEEPSEEK_R1 else "get_weather")
    assert _accepts(m, _ids(tokenizer, rest), end=False)
    assert not m.accept_token(_spelled(tokenizer, t.sep)[0])


@pytest.mark.parametrize("marker", ["call_end", "section_end", "call_begin", "sep"])
def test_no_marker_or_think_token_inside_arguments(tokenizer, marker):
    t = DEEPSEEK_V3_1.tools
    for token_text in (getattr(t, marker), DEEPSEEK_V3_1.reasoning.open, DEEPSEEK_V3_1.reasoning.close):
        m = _matcher(tokenizer, "deepseek_v3_1", [GET_WEATHER], "required")
        prefix = t.section_begin + t.call_begin + "get_weather" + t.sep + '{"city": "Par'
        assert _accepts(m, _ids(tokenizer, prefix), end=False)
        assert not m.accept_token(tokenizer.convert_tokens_to_ids(token_text)), token_text


def test_named_allows_exactly_one_call_of_that_tool(tokenizer):
    t = DEEPSEEK_R1.tools
    named = {"type": "function", "function": {"name": "get_weather"}}
    one = t.section_text([("get_weather", WEATHER_ARGS)])
    assert _accepts(_matcher(tokenizer, "deepseek_r1", REALISTIC, named), _ids(tokenizer, one))
    two = t.section_text([("get_weather", WEATHER_ARGS)] * 2)
    assert not _accepts(_matcher(tokenizer, "deepseek_r1", REALISTIC, named), _ids(tokenizer, two))
    other = t.section_text([("set_alarm", '{"time": "07:30"}')])
    assert not _accepts(_matcher(tokenizer, "deepseek_r1", REALISTIC, named), _ids(tokenizer, other))


def test_parallel_tool_calls_false_allows_one_call(tokenizer):
    t = DEEPSEEK_V3_1.tools
    two = t.section_text([("get_weather", WEATHER_ARGS)] * 2)
    assert _accepts(_matcher(tokenizer, "deepseek_v3_1", [GET_WEATHER], "required"), _ids(tokenizer, two))
    assert not _accepts(_matcher(tokenizer, "deepseek_v3_1", [GET_WEATHER], "required", parallel_tool_calls=False), _ids(tokenizer, two))


def test_required_refuses_text_and_an_empty_answer(tokenizer):
    m = _matcher(tokenizer, "deepseek_r1", [GET_WEATHER], "required")
    assert not m.accept_token(_ids(tokenizer, "Sure")[0])
    m = _matcher(tokenizer, "deepseek_r1", [GET_WEATHER], "required")
    assert not m.accept_token(1)


def test_auto_allows_text_then_one_section_and_nothing_after(tokenizer):
    t = DEEPSEEK_R1.tools
    text = "Let me check. " + t.section_text([("get_weather", WEATHER_ARGS)])
    assert _accepts(_matcher(tokenizer, "deepseek_r1", REALISTIC, "auto"), _ids(tokenizer, text))
    assert _accepts(_matcher(tokenizer, "deepseek_r1", REALISTIC, "auto"), _ids(tokenizer, "Just text."))
    m = _matcher(tokenizer, "deepseek_r1", REALISTIC, "auto")
    assert _accepts(m, _ids(tokenizer, text), end=False)
    assert not m.accept_token(_ids(tokenizer, "More")[0])
    # no control token in the text: not a bare call marker, not </think>
    for marker in (t.call_begin, DEEPSEEK_R1.reasoning.close):
        m = _matcher(tokenizer, "deepseek_r1", REALISTIC, "auto")
        assert _accepts(m, _ids(tokenizer, "Hi "), end=False)
        assert not m.accept_token(tokenizer.convert_tokens_to_ids(marker))


def test_none_allows_text_only(tokenizer):
    t = DEEPSEEK_R1.tools
    m = _matcher(tokenizer, "deepseek_r1", REALISTIC, "none")
    assert _accepts(m, _ids(tokenizer, "No tools today."))
    m = _matcher(tokenizer, "deepseek_r1", REALISTIC, "none")
    assert not m.accept_token(tokenizer.convert_tokens_to_ids(t.section_begin))


def test_allowed_tools(tokenizer):
    t = DEEPSEEK_V3_1.tools
    choice = {"type": "allowed_tools", "allowed_tools": {"mode": "required", "tools": [{"type": "function", "function": {"name": "get_weather"}}]}}
    ok = t.section_text([("get_weather", WEATHER_ARGS)])
    assert _accepts(_matcher(tokenizer, "deepseek_v3_1", REALISTIC, choice), _ids(tokenizer, ok))
    bad = t.section_text([("set_alarm", '{"time": "07:30"}')])
    assert not _accepts(_matcher(tokenizer, "deepseek_v3_1", REALISTIC, choice), _ids(tokenizer, bad))
    auto = dict(choice, allowed_tools=dict(choice["allowed_tools"], mode="auto"))
    assert _accepts(_matcher(tokenizer, "deepseek_v3_1", REALISTIC, auto), _ids(tokenizer, "text"))


@pytest.mark.parametrize(
    "tools, choice, message",
    [
        ([GET_WEATHER], {"type": "function", "function": {"name": "nope"}}, "'nope', which is not among the tools"),
        ([], "required", "needs at least one tool"),
        ([GET_WEATHER], "sometimes", "unknown tool_choice 'sometimes'"),
        ([{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "strin"}}}}}], "auto", "tool 'f': invalid JSON schema at #/properties/a/type"),
        ([{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"not": {"type": "string"}}}}}}], "auto", "keyword 'not' at #/properties/a"),
        ([{"type": "function", "function": {"name": "bad name"}}], "auto", "invalid name 'bad name'"),
        ([GET_WEATHER, GET_WEATHER], "auto", "given twice"),
        ([{"type": "function", "function": {"name": "f", "parameters": {"type": "array"}}}], "auto", "must describe an object"),
        ([GET_WEATHER], {"type": "allowed_tools", "allowed_tools": {"mode": "required", "tools": [{"type": "function", "function": {"name": "x"}}]}}, "allowed_tools names the function 'x'"),
    ],
)
def test_bad_requests_raise_value_errors_that_name_the_problem(tokenizer, tools, choice, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("[", r"\[")):
        build_structural_tag("deepseek_r1", tools, choice, tokenizer=tokenizer)


def test_unsupported_keyword_can_be_relaxed_explicitly(tokenizer, caplog):
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "integer", "not": {"const": 3}}}}}}
    tag = build_structural_tag("deepseek_r1", [tool], "required", tokenizer=tokenizer, unsupported="relax")
    assert "not enforced" in caplog.text
    assert '"not"' not in json.dumps(tag)


def test_without_a_tokenizer_markers_are_text():
    tag = build_structural_tag("deepseek_r1", [GET_WEATHER], "required")
    dumped = json.dumps(tag, ensure_ascii=False)
    assert DEEPSEEK_R1.tools.section_begin in dumped and '"token"' not in dumped


def test_cache_hits_for_reordered_tools_and_compiles_once_under_threads(tokenizer):
    cache = grammar_cache(tokenizer)
    a = {"type": "function", "function": {"name": "cache_probe", "parameters": {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "boolean"}}}}}
    b = json.loads(json.dumps(a))
    b["function"]["parameters"]["properties"] = {"y": {"type": "boolean"}, "x": {"type": "integer"}}
    misses = cache.misses
    results = []
    threads = [threading.Thread(target=lambda: results.append(cache.get("deepseek_r1", [a], "required"))) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert cache.misses == misses + 1
    assert all(r is results[0] for r in results)
    assert cache.get("deepseek_r1", [b], "required") is results[0]
    assert cache.get("deepseek_r1", json.dumps([b], indent=4), "required") is results[0]
    assert cache.get("deepseek_r1", [a], "auto") is not results[0]


def test_grammars_compiled_one_after_another_keep_their_own_markers(tokenizer):
    """xgrammar 0.2.8's compile cache confuses the token elements of two structural tags: an
    'auto' tag compiled after a 'required' one expected the section marker where the separator
    belongs. thinkgate compiles without that cache."""
    t = DEEPSEEK_R1.tools
    compile_tool_grammar(tokenizer, "deepseek_r1", REALISTIC + [{"type": "function", "function": {"name": "order_probe"}}], "required")
    m = _matcher(tokenizer, "deepseek_r1", REALISTIC + [{"type": "function", "function": {"name": "order_probe"}}], "auto")
    assert _accepts(m, _ids(tokenizer, "It" + t.section_begin + t.call_begin + "function"), end=False)
    assert m.accept_token(tokenizer.convert_tokens_to_ids(t.sep))


@pytest.mark.parametrize("name", formats_under_test())
def test_without_a_tokenizer_every_format_gives_a_tag_with_markers_as_text(tokenizer, name):
    # (xgrammar refuses a triggered tag of unbounded content with no end text: the JSON array's
    # calls end at its "]")
    from thinkgate.formats import get_format

    fmt = get_format(name)
    # (the DeepSeek tokenizer sets no eos: <｜end▁of▁sentence｜> is id 1)
    info = xgr.TokenizerInfo.from_huggingface(tokenizer, vocab_size=len(tokenizer), stop_token_ids=[1])
    # required, checked on the call text, and auto or none in turn (the default run's budget)
    names = __import__("thinkgate.formats", fromlist=["names"]).names()
    for choice in ("required", ("auto", "none")[names.index(name) % 2]):
        grammar = xgr.GrammarCompiler(info).compile_grammar(xgr.Grammar.from_structural_tag(build_structural_tag(name, [GET_WEATHER], choice)))
        if choice == "required" and fmt.tools.messages is None:
            matcher = xgr.GrammarMatcher(grammar)
            # (the answer's close before the calls and the turn's end after them, where the format writes those)
            assert matcher.accept_string(fmt.answer[1] + fmt.tools.section_text([("get_weather", WEATHER_ARGS)]) + fmt.turn_end)


@pytest.mark.parametrize("name", ["llama3_json", "minimax_m2", "qwen3", "kimi_k3"])
def test_free_answer_text_holds_no_control_token(tokenizer_for, name):
    # xgrammar's free text with excludes admits any token's bytes; where the tag names no token
    # (calls with no markers, text markers) thinkgate clears the control tokens itself, and where
    # it names them by id the grammar keeps the others out.
    import torch

    from thinkgate.constraint.runtime.vocabulary import vocabulary_for

    tokenizer = tokenizer_for(name)
    vocab = vocabulary_for(tokenizer)
    grammar = compile_tool_grammar(tokenizer, name, [GET_WEATHER], "auto")
    g = ReasonerGrammar(grammar, thinking=False)
    assert g.accept_tokens(tokenizer.encode("Hello there", add_special_tokens=False))
    bitmask = torch.full((1, (vocab.size + 31) // 32), -1, dtype=torch.int32)
    assert g.fill_bitmask(bitmask, 0)
    bits = bitmask[0].numpy().view("uint32")
    allowed = {i for i in vocab.control_ids if bits[i >> 5] >> (i & 31) & 1}
    # the tool markup's own trigger is the one control token the answer may write
    trigger = vocab.token_id(grammar.format.tools.trigger) if grammar.format.tools.trigger else None
    assert allowed <= {trigger}, sorted(allowed)[:5]


def test_compile_threads_come_from_the_environment_or_the_cores(monkeypatch):
    from thinkgate.constraint.runtime.vocabulary import compile_threads

    monkeypatch.setenv("THINKGATE_COMPILE_THREADS", "3")
    assert compile_threads() == 3
    monkeypatch.delenv("THINKGATE_COMPILE_THREADS")
    assert compile_threads() == max(1, min(8, os.cpu_count() or 1))
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv("THINKGATE_COMPILE_THREADS", bad)
        with pytest.raises(ValueError, match=f"THINKGATE_COMPILE_THREADS must be a positive integer, not '{bad}'"):
            compile_threads()


def test_a_tokenizer_loaded_again_shares_the_vocabulary_and_its_grammars():
    """A server that loads its tokenizer per request (or a model directory read again) pays for
    xgrammar's view of the vocabulary and for every tool set's compile once, not per object; a
    tokenizer with one more token is another vocabulary, and a tokenizer dropped is not kept."""
    import gc
    import weakref

    from thinkgate.constraint.runtime.vocabulary import vocabulary_for
    from thinkgate.tokenizers import deepseek_tokenizer as load_deepseek_tokenizer

    first, again = load_deepseek_tokenizer(), load_deepseek_tokenizer()
    assert first is not again
    grammar = compile_tool_grammar(first, "deepseek_r1", [GET_WEATHER], "required")
    assert vocabulary_for(again) is vocabulary_for(first)
    assert compile_tool_grammar(again, "deepseek_r1", [GET_WEATHER], "required") is grammar
    # the EOS sets the default stop ids: another EOS is another vocabulary to the constraint
    other_eos = load_deepseek_tokenizer()
    other_eos.eos_token = DEEPSEEK_R1.eos
    assert vocabulary_for(other_eos).stop_token_ids == (1,)
    assert vocabulary_for(other_eos) is not vocabulary_for(first)
    more = load_deepseek_tokenizer()
    more.add_special_tokens({"additional_special_tokens": ["<|not_in_deepseek|>"]})
    assert vocabulary_for(more) is not vocabulary_for(first)
    assert vocabulary_for(more).token_id("<|not_in_deepseek|>") == len(more) - 1
    dropped = weakref.ref(again)
    del again
    gc.collect()
    assert dropped() is None
    # and nothing is left of it in the cache by object
    from thinkgate.constraint.runtime.vocabulary import _BY_OBJECT, _referent

    assert all(_referent(ref) is not None for ref, _ in _BY_OBJECT.values())
