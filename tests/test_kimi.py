"""Kimi-K2: the call header is the call's id (``functions.NAME:INDEX``), numbered by the model."""

import json

import jsonschema
import numpy as np
import pytest
import xgrammar as xgr

from helpers import stream_events
from thinkgate import parse
from thinkgate.constraint import ReasonerGrammar, compile_tool_grammar
from thinkgate.formats import KIMI_K2

T = KIMI_K2.tools
WEATHER = '{"city": "Paris"}'
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string", "maxLength": 12}}, "required": ["city"]},
        },
    }
]


def test_call_ids_are_the_headers_the_template_writes_back():
    text = "plan" + KIMI_K2.reasoning.close + "On it." + T.section_text([("get_weather", WEATHER), ("get_weather", '{"city": "Oslo"}')])
    m = parse(text, format="kimi_k2", thinking=True)
    assert [(c.id, c.name, c.arguments) for c in m.tool_calls] == [
        ("functions.get_weather:0", "get_weather", WEATHER),
        ("functions.get_weather:1", "get_weather", '{"city": "Oslo"}'),
    ]
    assert (m.reasoning_content, m.content, m.finish_reason) == ("plan", "On it.", "tool_calls")


def test_a_repeated_header_gets_a_fresh_id():
    call = T.call_text("get_weather", WEATHER, 7)
    m = parse(T.section_begin + call + call + T.section_end, format="kimi_k2", thinking=False)
    ids = [c.id for c in m.tool_calls]
    assert ids[0] == "functions.get_weather:7" and ids[1].startswith("call_") and len(set(ids)) == 2


def test_a_header_without_its_index_is_an_invalid_call():
    broken = T.call_begin + "functions.get_weather:" + T.sep + WEATHER + T.call_end
    text = T.section_begin + broken + T.call_text("get_weather", WEATHER, 1) + T.section_end
    m = parse(text, format="kimi_k2", thinking=False)
    assert [c.id for c in m.tool_calls] == ["functions.get_weather:1"]
    assert "no call index" in m.invalid_tool_calls[0].error
    assert m.invalid_tool_calls[0].text == broken and m.content is None


def test_index_split_across_deltas_is_read_whole():
    text = T.section_text([("get_weather", WEATHER)]).replace(":0", ":1234")
    cut = text.index("1234") + 2
    _, parser = stream_events([text[:cut], text[cut:]], format="kimi_k2", thinking=False)
    assert parser.message.tool_calls[0].id == "functions.get_weather:1234"


@pytest.mark.parametrize("choice", ["required", "auto"])
def test_the_grammar_takes_the_documented_layout_and_numbers_calls(kimi_tokenizer, choice):
    grammar = compile_tool_grammar(kimi_tokenizer, "kimi_k2", TOOLS, choice)
    good = T.section_text([("get_weather", WEATHER), ("get_weather", '{"city": "Rome"}')]).replace(":1", ":12")
    ids = kimi_tokenizer.encode(good, add_special_tokens=False)
    g = ReasonerGrammar(grammar, thinking=False)
    for i in ids:
        assert g.accept_token(i), kimi_tokenizer.decode([i])
    assert g.accept_token(grammar.stop_ids[0]) and g.is_terminated()
    # a header without its index, or a name not among the tools, is refused
    for bad in ("functions.get_weather" + T.sep, "functions.get_time:0" + T.sep):
        g = ReasonerGrammar(grammar, thinking=False)
        bad_ids = kimi_tokenizer.encode(T.section_begin + T.call_begin + bad + WEATHER, add_special_tokens=False)
        assert not all(g.accept_token(i) for i in bad_ids)


def test_guard_bounds_a_string_after_a_numbered_header(kimi_tokenizer):
    """The argument guard finds the tool's schema behind a header whose index it cannot know in
    advance: random tokens among the allowed ones keep the 12-character maxLength."""
    grammar = compile_tool_grammar(kimi_tokenizer, "kimi_k2", TOOLS, "required")
    vocab = len(kimi_tokenizer)
    rng = np.random.default_rng(0)
    prefix = T.section_begin + T.call_begin + "functions.get_weather:42" + T.sep + '{"city": "'
    for seed in range(5):
        g = ReasonerGrammar(grammar, thinking=False)
        assert g.accept_tokens(kimi_tokenizer.encode(prefix, add_special_tokens=False))
        out = []
        while not g.is_terminated() and len(out) < 300:
            bm = xgr.allocate_token_bitmask(1, vocab)
            g.fill_bitmask(bm, 0)
            allowed = np.flatnonzero(np.unpackbits(bm[0].numpy().view(np.uint8), bitorder="little")[:vocab])
            token = int(rng.choice(allowed))
            assert g.accept_token(token)
            out.append(token)
        assert g.is_terminated()
        text = prefix + kimi_tokenizer.decode(out[:-1], skip_special_tokens=False)
        m = parse(text, format="kimi_k2", thinking=False, tools=TOOLS)
        jsonschema.validate(json.loads(m.tool_calls[0].arguments), TOOLS[0]["function"]["parameters"])
        assert m.tool_calls[0].id == "functions.get_weather:42"


def test_a_space_before_the_argument_marker_is_read(kimi_tokenizer):
    # Kimi-K2 writes "functions.NAME:0 <|tool_call_argument_begin|>" now and then (a peer's case:
    # vLLM tests/tool_parsers/test_kimi_k2_tool_parser.py, test_extract_tool_calls_with_space)
    text = "On it." + T.section_text([("get_weather", WEATHER)]).replace(T.sep, " " + T.sep)
    for kw in ({}, {"token_ids": kimi_tokenizer.encode(text, add_special_tokens=False), "tokenizer": kimi_tokenizer}):
        m = parse(text, format="kimi_k2", thinking=False, **kw)
        assert [(c.id, c.arguments) for c in m.tool_calls] == [("functions.get_weather:0", WEATHER)]
        assert m.content == "On it."


@pytest.mark.parametrize("header", ["get_weather:0", "functions.get_weather:0", "fun:0"])
def test_a_header_without_its_functions_namespace_is_read(header):
    # (SGLang test/srt/test_function_call_parser.py, Kimi-K2 calls written without "functions.")
    from helpers import every_split_agrees

    name = header.split(":")[0].removeprefix("functions.")
    text = T.section_begin + T.call_begin + header + T.sep + "{}" + T.call_end + T.section_end
    m = every_split_agrees(text, format="kimi_k2", thinking=False)
    assert [(c.name, c.arguments, c.id) for c in m.tool_calls] == [(name, "{}", f"functions.{name}:0")]
