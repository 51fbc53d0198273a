"""Kimi-K3: XTML elements (``<|open|>TAG ATTRS<|sep|>`` … ``<|close|>TAG<|sep|>``), typed
arguments, the answer in a ``response`` element. The texts below are what Kimi-K3's chat template
(llama.cpp ``models/templates/Kimi-K3.jinja``) writes for an assistant turn after its generation
prompt ``<|open|>message role="assistant"<|sep|><|open|>think<|sep|>``: written out by hand from
its macros (``open_tag``, ``close_tag``, ``xtml_type``, ``xtml_value``: a string bare, any other
value ``tojson``), calls numbered by ``loop.index``."""

import json

import pytest
import xgrammar as xgr

from helpers import detokenize_stream, every_split_agrees, group, normalise, stream_events
from thinkgate import parse
from thinkgate.constraint import ReasonerGrammar, build_structural_tag, compile_tool_grammar
from thinkgate.formats import KIMI_K3
from thinkgate.formats.tokens import thinking_from_prompt

RUN_CODE = "if a < b:\n    print('<|x|>')\n\n"  # '<', newlines and a trailing blank line, verbatim
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "run",
            "parameters": {
                "type": "object",
                "properties": {
                    "code": {"type": "string"},
                    "opts": {"type": "object"},
                    "dry": {"type": "boolean"},
                    "note": {"type": ["string", "null"]},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["code"],
            },
        },
    },
]

# The template's text of two calls: arguments.items() in order, each typed from its value.
TWO_CALLS = (
    "<|open|>tools<|sep|>"
    '<|open|>call tool="get_weather" index="1"<|sep|>'
    '<|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>'
    '<|open|>argument key="days" type="number"<|sep|>3<|close|>argument<|sep|>'
    "<|close|>call<|sep|>"
    '<|open|>call tool="run" index="2"<|sep|>'
    '<|open|>argument key="code" type="string"<|sep|>' + RUN_CODE + "<|close|>argument<|sep|>"
    '<|open|>argument key="opts" type="object"<|sep|>{"x": [1, 2.5], "y": "<a>"}<|close|>argument<|sep|>'
    '<|open|>argument key="dry" type="boolean"<|sep|>true<|close|>argument<|sep|>'
    '<|open|>argument key="note" type="null"<|sep|>null<|close|>argument<|sep|>'
    '<|open|>argument key="tags" type="array"<|sep|>["a", "b"]<|close|>argument<|sep|>'
    "<|close|>call<|sep|>"
    "<|close|>tools<|sep|>"
)
# The model's output after the prompt: its thinking's close, the response, the calls, the turn's end.
OUTPUT = (
    "The user wants weather.\nThen run code."
    "<|close|>think<|sep|><|open|>response<|sep|>Let me check.\n<|close|>response<|sep|>" + TWO_CALLS + "<|close|>message<|sep|>"
)
CALLS = [
    ("get_weather", {"city": "Paris", "days": 3}),
    ("run", {"code": RUN_CODE, "opts": {"x": [1, 2.5], "y": "<a>"}, "dry": True, "note": None, "tags": ["a", "b"]}),
]


def _calls(m):
    return [(c.name, json.loads(c.arguments)) for c in m.tool_calls]


def test_the_format_writes_the_templates_call_text():
    calls = [(name, json.dumps(args, ensure_ascii=False)) for name, args in CALLS]
    assert KIMI_K3.tools.section_text(calls) == TWO_CALLS


@pytest.mark.parametrize("tools", [TOOLS, None], ids=["with schemas", "without"])
def test_the_templates_turn_parses_exactly(tools):
    # the type attribute decides a value's reading: the schema is not needed
    m = every_split_agrees(OUTPUT, format="kimi_k3", thinking=True, tools=tools)
    assert m.reasoning_content == "The user wants weather.\nThen run code."
    assert m.content == "Let me check.\n"
    assert _calls(m) == CALLS
    assert m.invalid_tool_calls == [] and m.finish_reason == "tool_calls"
    # a string value is returned as written, '<' and newlines included
    assert json.loads(m.tool_calls[1].arguments)["code"] == RUN_CODE


def test_a_turn_without_thinking_or_calls():
    # thinking off: the prompt ends in <|open|>response<|sep|>, the output inside the response
    m = every_split_agrees("Hello <b>there</b>.<|close|>response<|sep|><|close|>message<|sep|>", format="kimi_k3", thinking=False)
    assert (m.reasoning_content, m.content, m.tool_calls, m.finish_reason) == (None, "Hello <b>there</b>.", [], "stop")


def test_a_string_typed_value_stays_a_string_and_a_typed_one_is_json():
    call = (
        '<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|>'
        '<|open|>argument key="a" type="string"<|sep|>42<|close|>argument<|sep|>'
        '<|open|>argument key="b" type="number"<|sep|>42<|close|>argument<|sep|>'
        '<|open|>argument key="c" type="string"<|sep|>true<|close|>argument<|sep|>'
        "<|close|>call<|sep|><|close|>tools<|sep|>"
    )
    m = parse(call, format="kimi_k3", thinking=False)
    assert _calls(m) == [("f", {"a": "42", "b": 42, "c": "true"})]


def test_an_unknown_type_is_an_invalid_call_that_spares_the_next():
    bad = '<|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="text"<|sep|>x<|close|>argument<|sep|><|close|>call<|sep|>'
    good = '<|open|>call tool="f" index="2"<|sep|><|open|>argument key="a" type="string"<|sep|>y<|close|>argument<|sep|><|close|>call<|sep|>'
    m = parse("<|close|>response<|sep|><|open|>tools<|sep|>" + bad + good + "<|close|>tools<|sep|>", format="kimi_k3", thinking=False)
    assert _calls(m) == [("f", {"a": "y"})]
    assert "unknown type 'text'" in m.invalid_tool_calls[0].error and m.invalid_tool_calls[0].text == bad


def test_streamed_by_token_ids_equals_whole(tokenizer_for):
    tok = tokenizer_for("kimi_k3")
    # <|open|>, <|close|>, <|sep|> are special tokens of Kimi-K3's tokenizer (and of this stand-in)
    assert all(len(tok.encode(t, add_special_tokens=False)) == 1 for t in KIMI_K3.text_tokens)
    ids = tok.encode(OUTPUT, add_special_tokens=False)
    assert tok.decode(ids, skip_special_tokens=False) == OUTPUT
    whole = parse(OUTPUT, format="kimi_k3", thinking=True, tools=TOOLS, token_ids=ids, tokenizer=tok)
    assert _calls(whole) == CALLS and whole.content == "Let me check.\n"
    ref = None
    for size in (1, 2, 5):
        events, parser = stream_events(group(detokenize_stream(tok, ids), size), format="kimi_k3", thinking=True, tools=TOOLS, tokenizer=tok)
        assert _calls(parser.message) == CALLS and parser.message.content == whole.content
        ref = ref or normalise(events)
        assert normalise(events) == ref


def test_the_thinking_stage_is_read_from_the_prompt(tokenizer_for):
    tok = tokenizer_for("kimi_k3")
    head = '<|open|>message role="user"<|sep|>Hi<|close|>message<|sep|><|end_of_msg|><|open|>message role="assistant"<|sep|>'
    think = tok.encode(head + "<|open|>think<|sep|>", add_special_tokens=False)
    answer = tok.encode(head + "<|open|>response<|sep|>", add_special_tokens=False)
    assert thinking_from_prompt(think, tok, "kimi_k3") is True
    assert thinking_from_prompt(answer, tok, "kimi_k3") is False


def _matcher(tok, choice, thinking):
    grammar = compile_tool_grammar(tok, "kimi_k3", TOOLS, choice)
    return ReasonerGrammar(grammar, thinking=thinking)


@pytest.mark.parametrize("choice", ["auto", "required"])
def test_the_grammar_admits_the_templates_turn(tokenizer_for, choice):
    tok = tokenizer_for("kimi_k3")
    g = _matcher(tok, choice, True)
    text = OUTPUT if choice == "auto" else OUTPUT.replace("Let me check.\n", "")
    assert g.accept_tokens(tok.encode(text, add_special_tokens=False)), g.error
    assert g.accept_token(tok.convert_tokens_to_ids("<|end_of_msg|>")) and g.is_terminated()


def test_the_grammar_writes_each_values_type_from_the_schema(tokenizer_for):
    tok = tokenizer_for("kimi_k3")
    wrong = OUTPUT.replace('key="days" type="number"', 'key="days" type="string"')
    g = _matcher(tok, "auto", True)
    assert not g.accept_tokens(tok.encode(wrong, add_special_tokens=False))


def test_the_grammar_closes_the_answer_before_the_calls_and_ends_the_turn(tokenizer_for):
    tok = tokenizer_for("kimi_k3")
    eos = tok.convert_tokens_to_ids("<|end_of_msg|>")
    # no end of sequence before the response's close and the message's
    g = _matcher(tok, "none", False)
    assert g.accept_tokens(tok.encode("Hi.", add_special_tokens=False)) and not g.accept_token(eos)
    g = _matcher(tok, "none", False)
    assert g.accept_tokens(tok.encode("Hi.<|close|>response<|sep|><|close|>message<|sep|>", add_special_tokens=False))
    assert g.accept_token(eos) and g.is_terminated()
    # the tools element right after the answer's text is refused: the response closes first
    g = _matcher(tok, "auto", False)
    assert not g.accept_tokens(tok.encode("Hi." + TWO_CALLS, add_special_tokens=False))


def test_a_parameter_name_the_template_would_escape_is_refused_by_the_grammar():
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a&b": {"type": "string"}}}}}]
    with pytest.raises(ValueError, match="cannot be a parameter's name"):
        build_structural_tag("kimi_k3", tools, "required")


def test_without_a_tokenizer_the_tag_compiles_and_admits_the_turn(tokenizer):
    info = xgr.TokenizerInfo.from_huggingface(tokenizer, vocab_size=len(tokenizer), stop_token_ids=[1])
    grammar = xgr.GrammarCompiler(info).compile_grammar(xgr.Grammar.from_structural_tag(build_structural_tag("kimi_k3", TOOLS, "required")))
    matcher = xgr.GrammarMatcher(grammar)
    assert matcher.accept_string("<|close|>response<|sep|>" + TWO_CALLS + "<|close|>message<|sep|>")


# The cases of vLLM's Kimi-K3 tests (tool parser, reasoning parser, composed parser): the
# output, the thinking stage its request was in, and what the message must hold.
_O, _C, _S = "<|open|>", "<|close|>", "<|sep|>"
PEER_CASES = [
    ("Hello" + _C + "message" + _S, False, None, "Hello", []),
    ("." + _C + "think" + _S + _O + "response" + _S + "天地玄黄", True, ".", "天地玄黄", []),
    ("分析最后一句。" + _C + "think" + _S + _O + "response" + _S + "天地玄黄，宇宙洪荒。" + _C + "response" + _S + _C + "message" + _S, True, "分析最后一句。", "天地玄黄，宇宙洪荒。", []),
    (
        "分析。" + _C + "think" + _S + _O + "response" + _S + "先查。" + _C + "response" + _S + _O + "tools" + _S
        + _O + 'call tool="search" index="1"' + _S + _O + 'argument key="q" type="string"' + _S + "天气" + _C + "argument" + _S
        + _C + "call" + _S + _C + "tools" + _S + _C + "message" + _S,
        True, "分析。", "先查。", [("search", {"q": "天气"})],
    ),
    (_O + "think" + _S + "step" + _C + "think" + _S + _O + "response" + _S + "answer", "auto", "step", "answer", []),
    ("step" + _C + "think" + _S + _O + "response" + _S + "answer", True, "step", "answer", []),
    ("unfinished reasoning", True, "unfinished reasoning", None, []),
    ("answer", False, None, "answer", []),
    (_O + "response" + _S + "answer", False, None, "answer", []),
    ("OK" + _C + "response" + _S, False, None, "OK", []),
]


@pytest.mark.parametrize(("text", "thinking", "reasoning", "content", "calls"), PEER_CASES)
def test_the_peers_cases(text, thinking, reasoning, content, calls):
    m = every_split_agrees(text, format="kimi_k3", thinking=thinking)
    assert (m.reasoning_content, m.content, _calls(m)) == (reasoning, content, calls)


# Names in attributes: the template escapes "&" and '"' there (vLLM's and SGLang's Kimi-K3 parsers
# decode &amp; and &quot;); values are raw text and stay as written.
def _k3_call(tool: str, *arguments: tuple[str, str, str]) -> str:
    args = "".join(_O + f'argument key="{k}" type="{t}"' + _S + v + _C + "argument" + _S for k, t, v in arguments)
    return _O + "tools" + _S + _O + f'call tool="{tool}" index="1"' + _S + args + _C + "call" + _S + _C + "tools" + _S


def _tool(name: str, properties: dict) -> dict:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": properties}}}


def test_references_in_tool_and_argument_names_are_decoded_and_values_stay_raw():
    # SGLang test/registered/unit/function_call/test_kimik3_detector.py (commit 5c57d4c3),
    # test_attr_unescaping_and_raw_string_args: the tool a&amp;b is a&b, the value keeps &quot;
    text = _k3_call("a&amp;b", ("q", "string", "say &quot;hi&quot;"))
    m = every_split_agrees(text, format="kimi_k3", thinking=False, tools=[_tool("a&b", {"q": {"type": "string"}})])
    assert _calls(m) == [("a&b", {"q": "say &quot;hi&quot;"})] and not m.invalid_tool_calls
    # a key: &amp;, &quot;, a numeric reference; a raw "<" (which the template does not escape)
    text = _k3_call("bash", ("a&amp;b", "string", "x &amp; y"), ("say&quot;x&quot;", "number", "1"), ("c&#38;d<e", "boolean", "true"))
    m = every_split_agrees(text, format="kimi_k3", thinking=False)
    assert _calls(m) == [("bash", {"a&b": "x &amp; y", 'say"x"': 1, "c&d<e": True})]


def test_a_key_a_schema_without_properties_does_not_list_is_free():
    # "properties": {} lists nothing and JSON Schema leaves other keys free: each argument is read
    # (SGLang's test_non_string_arg_json_decoding: a value no JSON is its text)
    text = _k3_call("python", ("n", "number", "42"), ("flag", "boolean", "true"), ("bad", "object", "{not json"))
    m = every_split_agrees(text, format="kimi_k3", thinking=False, tools=[_tool("python", {})])
    assert _calls(m) == [("python", {"n": 42, "flag": True, "bad": "{not json"})] and not m.invalid_tool_calls


def test_a_key_the_schema_does_not_list_after_a_listed_one_is_the_values_text():
    # SGLang's test_detect_and_parse_single_call reads "opts", which the tool's schema (listing
    # "code" only) does not list. Where a schema lists keys, a closing tag followed by a key it
    # does not list is read as the value's text (a file that holds the call markup, as for every
    # format of parameters): the value never closes, and the call is reported with its text.
    text = _k3_call("python", ("code", "string", "print(1)"), ("opts", "object", '{"a": 1}'))
    m = every_split_agrees(text, format="kimi_k3", thinking=False, tools=[_tool("python", {"code": {"type": "string"}})])
    assert _calls(m) == [] and len(m.invalid_tool_calls) == 1 and "'opts'" in m.invalid_tool_calls[0].error
