"""Gemma 4: calls written as object literals, strings between the ``<|"|>`` token.

The call text below is what Gemma 4's chat template (llama.cpp ``models/templates/gemma4.jinja``)
renders for a call: ``<|tool_call>call:NAME{`` then the arguments' keys sorted and bare, strings
between ``<|"|>``, other values as the template's ``format_argument`` writes them, ``}<tool_call|>``,
calls back to back. The parser gives the arguments back as JSON, strings verbatim.
"""

import json

import jinja2
import pytest

from helpers import seq_ids, stream_deltas, stream_events
from thinkgate import parse
from thinkgate.formats import GEMMA4
from thinkgate.parsing import StreamParser, accumulate

Q = '<|"|>'

# The template's call writing, as its macros do it: keys sorted, nested keys bare, a string
# between the delimiter, a boolean as true/false, a mapping in braces, a list in brackets,
# anything else as Jinja prints it.
ARG_MACRO = (
    "{%- macro arg(v) -%}"
    "{%- if v is string -%}{{ '<|\"|>' + v + '<|\"|>' }}"
    "{%- elif v is boolean -%}{{ 'true' if v else 'false' }}"
    "{%- elif v is mapping -%}{{ '{' }}{%- for k, x in v | dictsort -%}{% if not loop.first %},{% endif %}{{ k }}:{{ arg(x) }}{%- endfor -%}{{ '}' }}"
    "{%- elif v is sequence -%}[{%- for x in v -%}{{ arg(x) }}{% if not loop.last %},{% endif %}{%- endfor -%}]"
    "{%- else -%}{{ v }}{%- endif -%}"
    "{%- endmacro -%}"
)
CALL_TEMPLATE = (
    ARG_MACRO
    + "{%- for c in calls -%}<|tool_call>call:{{ c.name }}{{ '{' }}"
    "{%- for k, v in c.arguments | dictsort -%}{% if not loop.first %},{% endif %}{{ k }}:{{ arg(v) }}{%- endfor -%}"
    "}<tool_call|>{%- endfor -%}"
)

ARGS = {
    "city": 'He said "hi", {then} left,\nfor good',
    "days": 3,
    "ratio": -2.5,
    "ok": True,
    "place": {"lat": 48.85, "tags": ["a", "b,c"], "inner": {"deep": False}},
    "list": [1, "two", [3], {"k": "v"}],
    "empty": {},
    "none": [],
}


def rendered(calls):
    return jinja2.Environment().from_string(CALL_TEMPLATE).render(calls=[{"name": n, "arguments": a} for n, a in calls])


def test_the_templates_call_text_parses_exactly():
    text = rendered([("get_weather", ARGS), ("now", {})])
    assert text.startswith('<|tool_call>call:get_weather{city:<|"|>He said "hi", {then} left,\nfor good<|"|>,days:3,empty:{},')
    m = parse(text + "<|tool_response>", format="gemma4", thinking=False)
    assert [c.name for c in m.tool_calls] == ["get_weather", "now"]
    assert json.loads(m.tool_calls[0].arguments) == ARGS
    # the JSON text: JSON's default separators, keys in the model's order, strings verbatim
    assert m.tool_calls[0].arguments == json.dumps(dict(sorted(ARGS.items())), ensure_ascii=False).replace('"lat": 48.85, "tags": ["a", "b,c"], "inner": {"deep": false}', '"inner": {"deep": false}, "lat": 48.85, "tags": ["a", "b,c"]')
    assert m.tool_calls[1].arguments == "{}"
    assert m.content is None and m.finish_reason == "tool_calls"
    # what the format writes is what the template writes: keys sorted as dictsort sorts them
    assert GEMMA4.tools.call_text("get_weather", json.dumps(ARGS)) + GEMMA4.tools.call_text("now", "{}") == text


def test_reasoning_on_its_channel_drops_the_thought_label():
    text = f"<|channel>thought\nPlan: call it.<channel|>On it.<|tool_call>call:f{{a:{Q}x{Q}}}<tool_call|><|tool_response>"
    m = parse(text, format="gemma4", thinking="auto")
    assert m.reasoning_content == "Plan: call it."
    assert m.content == "On it."
    assert [(c.name, c.arguments) for c in m.tool_calls] == [("f", '{"a": "x"}')]
    # a reasoning that does not start with the label keeps all its text
    assert parse("<|channel>thoughts\n<channel|>x", format="gemma4", thinking="auto").reasoning_content == "thoughts\n"


def _split_invariant(text, **kw):
    whole_events, whole = stream_events([text], **kw)
    for size in (1, 2, 3, 5, 8):
        chunks = [text[i : i + size] for i in range(0, len(text), size)]
        events, parser = stream_events(chunks, **kw)
        assert parser.message == whole.message, size
        deltas, _ = stream_deltas(chunks, **kw)
        assert accumulate(deltas) == whole.message.to_openai(), size
    return whole.message


def test_streamed_by_text_any_cut_gives_the_same_calls():
    text = "Let me look.\n" + rendered([("get_weather", ARGS), ("now", {"x": None and 1 or 2})]) + "<|tool_response>"
    m = _split_invariant(text, format="gemma4", thinking=False)
    assert json.loads(m.tool_calls[0].arguments) == ARGS
    assert m.content == "Let me look.\n"


def test_streamed_by_token_ids(tokenizer_for):
    tok = tokenizer_for("gemma4")
    text = rendered([("get_weather", ARGS)]) + "<|tool_response>"
    ids = tok.encode(text, add_special_tokens=False)
    quote_id = tok.convert_tokens_to_ids(Q)
    assert ids.count(quote_id) == text.count(Q) == 10  # every delimiter is its one token
    whole = parse(text, format="gemma4", thinking=False)
    p = StreamParser("gemma4", thinking=False, tokenizer=tok, call_id=seq_ids)
    for i, t in enumerate(ids):
        p.feed(tok.decode([t], skip_special_tokens=False, clean_up_tokenization_spaces=False), [t])
    p.finish()
    assert [(c.name, c.arguments) for c in p.message.tool_calls] == [(c.name, c.arguments) for c in whole.tool_calls]


def test_with_token_ids_the_delimiters_text_in_ordinary_tokens_is_string_text(tokenizer_for):
    tok = tokenizer_for("gemma4")
    head = tok.encode(f"<|tool_call>call:f{{a:{Q}", add_special_tokens=False)
    spelled = [i for ch in Q for i in tok.encode(ch, add_special_tokens=False)]  # "<", "|", '"', ...
    tail = tok.encode(f"{Q}}}<tool_call|>", add_special_tokens=False)
    ids = head + spelled + tail
    text = tok.decode(ids, skip_special_tokens=False, clean_up_tokenization_spaces=False)
    m = parse(text, format="gemma4", thinking=False, tokenizer=tok, token_ids=ids)
    assert [(c.name, c.arguments) for c in m.tool_calls] == [("f", json.dumps({"a": Q}))]


@pytest.mark.parametrize(
    "body, error",
    [
        ('{a:"x"}', "is no number"),  # a JSON quote is no string delimiter
        ("{a:1,a:2}", "given twice"),
        ("{a:1", "closed"),
        ("{a 1}", "expected ':'"),
        ("{a:nope}", "is no number"),
        ("{,}", "expected a key"),
    ],
)
def test_bad_literals_are_invalid_calls_naming_the_problem(body, error):
    m = parse(f"<|tool_call>call:f{body}<tool_call|>", format="gemma4", thinking=False)
    assert m.tool_calls == []
    assert len(m.invalid_tool_calls) == 1 and error in m.invalid_tool_calls[0].error, m.invalid_tool_calls


# The peers' own cases for Gemma 4 (vLLM tests/tool_parsers/test_gemma4_tool_parser.py): the
# arguments inside the braces and what they mean.
PEER_ARGUMENTS = [
    (f"location:{Q}Paris{Q}", {"location": "Paris"}),
    (f"location:{Q}Paris, France{Q}", {"location": "Paris, France"}),
    (f"location:{Q}San Francisco{Q},unit:{Q}celsius{Q}", {"location": "San Francisco", "unit": "celsius"}),
    ("count:42", {"count": 42}),
    ("score:3.14", {"score": 3.14}),
    ("flag:true", {"flag": True}),
    ("flag:false", {"flag": False}),
    ("param:null", {"param": None}),
    (f"name:{Q}test{Q},count:42,active:true,score:3.14", {"name": "test", "count": 42, "active": True, "score": 3.14}),
    (f"nested:{{inner:{Q}value{Q}}}", {"nested": {"inner": "value"}}),
    (f"record_map:{{{Q}3{Q}:{Q}new text{Q}}}", {"record_map": {"3": "new text"}}),
    (f"outer:{{inner:{{{Q}3{Q}:{Q}new text{Q}}}}}", {"outer": {"inner": {"3": "new text"}}}),
    (f"items:[{Q}a{Q},{Q}b{Q}]", {"items": ["a", "b"]}),
    ("items:[42,true,3.14]", {"items": [42, True, 3.14]}),
    (f"x:[[{Q}a]b{Q},{Q}c{Q}],{Q}tail{Q}]", {"x": [["a]b", "c"], "tail"]}),
    (f"nested:{{inner:{Q}value{Q}}},list:[{Q}a{Q},{Q}b{Q}]", {"nested": {"inner": "value"}, "list": ["a", "b"]}),
    ("is_active:true,count:42,score:3.14", {"is_active": True, "count": 42, "score": 3.14}),
    ("", {}),
    ("input:{all:true}", {"input": {"all": True}}),
    (f"content:{Q}Buy milk{Q}", {"content": "Buy milk"}),
    (
        f'path:{Q}index.html{Q},content:{Q}<!DOCTYPE html>\n<html lang="zh-CN">\n<head>\n    <meta charset="UTF-8">\n{Q}',
        {"path": "index.html", "content": '<!DOCTYPE html>\n<html lang="zh-CN">\n<head>\n    <meta charset="UTF-8">\n'},
    ),
    (f"file_path:{Q}src/env.py{Q},old_string:{Q}old_val{Q},new_string:{Q}new_val{Q},replace_all:false", {"file_path": "src/env.py", "old_string": "old_val", "new_string": "new_val", "replace_all": False}),
]
PEER_NAMES = ["get_weather", "get-weather", "weather.get", "get_status"]


@pytest.mark.parametrize("inner, expected", PEER_ARGUMENTS)
def test_the_peers_cases_parse_whole_and_streamed(inner, expected):
    text = f"Let me check.<|tool_call>call:get_weather{{{inner}}}<tool_call|>"
    m = _split_invariant(text, format="gemma4", thinking=False)
    assert [c.name for c in m.tool_calls] == ["get_weather"]
    assert json.loads(m.tool_calls[0].arguments) == expected
    assert m.content == "Let me check."


@pytest.mark.parametrize("name", PEER_NAMES)
def test_the_peers_tool_names(name):
    m = parse(f"<|tool_call>call:{name}{{location:{Q}London{Q}}}<tool_call|>", format="gemma4", thinking=False)
    assert [c.name for c in m.tool_calls] == [name]


def test_a_call_cut_off_is_no_call():
    m = parse(f"<|tool_call>call:get_weather{{location:{Q}London", format="gemma4", thinking=False)
    assert m.tool_calls == [] and m.finish_reason == "length"


def test_text_after_a_call_is_kept():
    m = _split_invariant(f"<|tool_call>call:get_weather{{location:{Q}Paris{Q}}}<tool_call|><div>", format="gemma4", thinking=False)
    assert m.content == "<div>"


def _tool(parameters):
    return [{"type": "function", "function": {"name": "f", "parameters": parameters}}]


@pytest.mark.parametrize(
    "parameters, error",
    [
        ({"type": "object", "properties": {"a": {"type": "string", "pattern": "^a.b$"}}}, "a 'pattern' that may write '<'"),
        ({"type": "object", "properties": {"a": {"type": "string", "pattern": "^[^x]+$"}}}, "negated character class"),
        ({"type": "object", "properties": {"a b": {"type": "string"}}}, "no bare key"),
        ({"type": "object", "$defs": {"n": {"type": "object", "properties": {"k": {"$ref": "#/$defs/n"}}}}, "properties": {"a": {"$ref": "#/$defs/n"}}}, "recursive $ref"),
        ({"type": "object", "properties": {"a": {"type": "object", "minProperties": 1}}}, "'minProperties'"),
    ],
)
def test_what_the_grammar_cannot_hold_is_refused(parameters, error):
    from thinkgate.constraint import build_structural_tag

    with pytest.raises(ValueError, match="object literal in format 'gemma4'") as e:
        build_structural_tag("gemma4", _tool(parameters), "required")
    assert error in str(e.value)


def test_the_grammar_accepts_the_templates_call_and_no_json_quote(tokenizer_for):
    """The grammar holds the template's text: keys sorted as the template sorts them, strings
    between the delimiter token; a JSON quote where a string opens is refused."""
    import xgrammar as xgr

    from thinkgate.constraint import compile_tool_grammar
    from thinkgate.constraint.runtime.vocabulary import vocabulary_for

    tok = tokenizer_for("gemma4")
    schema = {
        "type": "object",
        "properties": {"zeta": {"type": "integer"}, "Alpha": {"type": "string"}, "mid": {"type": "array", "items": {"type": "boolean"}}},
        "required": ["zeta", "Alpha"],
        "additionalProperties": False,
    }
    grammar = compile_tool_grammar(tok, "gemma4", _tool(schema), "required")
    call = rendered([("f", {"zeta": 3, "Alpha": "x\n\"y\"", "mid": [True, False]})])
    assert call.index("Alpha") < call.index("mid") < call.index("zeta")

    def accepts(text):
        m = xgr.GrammarMatcher(grammar.compiled)
        return all(m.accept_token(t) for t in tok.encode(text, add_special_tokens=False))

    assert vocabulary_for(tok).token_id(Q) is not None
    assert accepts(call + "<|tool_response>")
    assert not accepts('<|tool_call>call:f{Alpha:"x"')


@pytest.mark.parametrize("size", [1, 2, 3, 7, 100])
def test_text_held_as_a_delimiters_start_before_a_marker_is_kept(size):
    """Text mode: a string's ``<`` (a delimiter may begin there) right before marker text is the
    string's when the string closes, and the invalid call's text when the call breaks there."""
    text = f"<|tool_call>call:f{{a:{Q}x<<tool_call|>y<|{Q}}}<tool_call|>"
    m = _split_invariant(text, format="gemma4", thinking=False)
    assert [json.loads(c.arguments) for c in m.tool_calls] == [{"a": "x<<tool_call|>y<|"}]
    broken = "<|tool_call>call:f{a:<<tool_call|>after"
    chunks = [broken[i : i + size] for i in range(0, len(broken), size)]
    _, parser = stream_events(chunks, format="gemma4", thinking=False)
    assert [c.text for c in parser.message.invalid_tool_calls] == ["<|tool_call>call:f{a:<<tool_call|>"]
    assert parser.message.content == "after"
