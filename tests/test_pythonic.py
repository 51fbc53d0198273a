"""Python calls (issue 38, point 1: the PythonicCalls layout, the PythonArguments style) in the
three families that write them: Llama 4, LFM2 / LFM2.5 and OLMo 3.

The grammar writes what the parser reads: each family's calls as its chat template spells them
(``section_text``) are what the grammar admits, token by token with the family's test tokenizer,
and what the parser reads back. The keyword arguments are read as Python writes them, converted
into JSON as they stream (every chunking alike). A schema the style cannot hold is refused by
name. The real templates (shortened here, as tests/test_detect_families.py shortens others) are
detected as their family, with the two-call round trip."""

from __future__ import annotations

import json

import pytest
from helpers import walk
from transformers.utils.chat_template_utils import render_jinja_template

from thinkgate import detect, parse
from thinkgate.constraint import compile_tool_grammar
from thinkgate.formats import get_format
from thinkgate.parsing.python_arguments import PythonArgumentsScanner

PYTHONIC = ["llama4_pythonic", "lfm2", "olmo3"]
S, I = {"type": "string"}, {"type": "integer"}
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {
        "city": S, "days": {"type": "integer", "minimum": 1, "maximum": 14}, "units": {"enum": ["c", "f"]}, "alerts": {"type": "boolean"},
        "tags": {"type": "array", "items": S}, "at": {"type": "object", "properties": {"lat": {"type": "number"}}, "required": ["lat"]}},
        "required": ["city"], "additionalProperties": False}}},
    {"type": "function", "function": {"name": "now", "parameters": {"type": "object", "properties": {}}}},
]
CALLS = [("get_weather", {"city": "São Paulo", "days": 3, "units": "c", "alerts": True, "tags": ["rain", "wind"], "at": {"lat": -23.5}}), ("now", {})]


@pytest.mark.parametrize("name", PYTHONIC)
def test_the_templates_spelling_is_what_the_grammar_admits_and_the_parser_reads(name, tokenizer_for):
    fmt = get_format(name)
    tok = tokenizer_for(name)
    text = fmt.tools.section_text([(n, json.dumps(a, ensure_ascii=False)) for n, a in CALLS])
    grammar = compile_tool_grammar(tok, fmt, TOOLS, "required")
    g, ok = walk(grammar, tok, text + fmt.eos)
    assert ok and g.is_terminated(), text
    message = parse(text, format=fmt, thinking=False, tools=TOOLS)
    assert [(c.name, json.loads(c.arguments)) for c in message.tool_calls] == CALLS
    assert message.content is None and message.finish_reason == "tool_calls"


@pytest.mark.parametrize(("name", "spelling"), [
    ("llama4_pythonic", '[get_weather(city="São Paulo", days=3, units="c", alerts=True, tags=["rain", "wind"], at={"lat": -23.5}), now()]'),
    ("lfm2", "<|tool_call_start|>[get_weather(city='São Paulo', days=3, units='c', alerts=True, tags=['rain', 'wind'], at={\"lat\": -23.5}), now()]<|tool_call_end|>"),
    ("olmo3", '<function_calls>get_weather(city="São Paulo", days=3, units="c", alerts=True, tags=["rain", "wind"], at={"lat": -23.5})\nnow()</function_calls>'),
])
def test_each_family_writes_its_templates_spelling(name, spelling):
    fmt = get_format(name)
    assert fmt.tools.section_text([(n, json.dumps(a, ensure_ascii=False)) for n, a in CALLS]) == spelling


@pytest.mark.parametrize(("text", "arguments"), [
    ('(city="Paris", days=3)', {"city": "Paris", "days": 3}),
    ("(a='it\\'s', b=True, c=None, d=false, e=null, f=(1, 2),)", {"a": "it's", "b": True, "c": None, "d": False, "e": None, "f": [1, 2]}),
    ('(s="""two\nlines "q" """, r=r"\\d+", u="\\u00e9\\x41\\n", t=f"{x}")', {"s": 'two\nlines "q" ', "r": "\\d+", "u": "éA\n", "t": "{x}"}),
    ("(n=1_000, m=.5, p=5., q=-2e3, z=0)", {"n": 1000, "m": 0.5, "p": 5.0, "q": -2e3, "z": 0}),
    ("(tags={'a', 'b'}, d={'k': [1, {'x': None}]}, e={}, l=[])", {"tags": ["a", "b"], "d": {"k": [1, {"x": None}]}, "e": {}, "l": []}),
])
def test_keyword_arguments_are_read_as_python_writes_them(text, arguments):
    for cuts in ([text], list(text)):
        scanner, buf, out = PythonArgumentsScanner(), "", []
        for piece in cuts:
            buf += piece
            q = scanner.feed(buf)
            out.append(scanner.arguments_text(buf, 0, q))
            buf = buf[q:]
        assert scanner.done and json.loads("".join(out)) == arguments, cuts[:3]


@pytest.mark.parametrize(("text", "error"), [
    ('("Paris")', "keyword argument's name"),
    ("(city=Paris)", "no literal"),
    ("(x=1, x=2)", "given twice"),
    ("(x=b'z')", "no literal"),
    ("(x=1e999)", "no literal"),
    ("(x={1: 2})", "expected"),
])
def test_what_is_no_keyword_arguments_fails_with_the_reason(text, error):
    scanner = PythonArgumentsScanner()
    scanner.feed(text)
    assert scanner.failed and error in scanner.error, scanner.error


def test_a_broken_call_spares_the_calls_after_it():
    m = parse("[get_weather(city=Paris), now(), get_weather(city='Oslo')]", format="llama4_pythonic", thinking=False)
    assert [c.name for c in m.tool_calls] == ["now", "get_weather"]
    assert [c.text for c in m.invalid_tool_calls] == ["get_weather(city=Paris)"]


def test_bare_calls_are_read_after_text_and_brackets_of_prose_are_text():
    m = parse('Checking. [get_weather(city="Oslo")] Done.', format="llama4_pythonic", thinking=False)
    assert m.content == "Checking.  Done." and [c.name for c in m.tool_calls] == ["get_weather"]
    m = parse("[1] says so, and [see](link) too", format="llama4_pythonic", thinking=False)
    assert m.content == "[1] says so, and [see](link) too" and m.tool_calls == []


def test_lfm2s_unescaped_quotes_close_a_string_only_where_the_arguments_go_on():
    text = "<|tool_call_start|>[bash(command='sed -n '1,5p' f.py', dry=False)]<|tool_call_end|>"
    m = parse(text, format="lfm2", thinking=False)
    assert [(c.name, json.loads(c.arguments)) for c in m.tool_calls] == [("bash", {"command": "sed -n '1,5p' f.py", "dry": False})]


def test_schemas_the_style_cannot_hold_are_refused_by_name(tokenizer_for):
    tree = {"type": "function", "function": {"name": "tree", "parameters": {"type": "object", "properties": {"n": {"$ref": "#/$defs/n"}},
            "$defs": {"n": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/n"}}}}}}}}
    dashed = {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"my-key": S}}}}
    anything = {"type": "function", "function": {"name": "g", "parameters": {"type": "object", "properties": {"x": {"type": "string", "pattern": "^.*$"}}}}}
    for name, tool, why in [("lfm2", tree, "recursive $ref"), ("olmo3", dashed, "no Python name"), ("lfm2", anything, "may write")]:
        fmt = get_format(name)
        with pytest.raises(ValueError, match="cannot be enforced on Python keyword arguments") as caught:
            compile_tool_grammar(tokenizer_for(name), fmt, [tool], "required")
        assert why in str(caught.value)


def test_a_pattern_that_writes_the_templates_quote_is_written_in_the_other(tokenizer_for):
    """LFM2 writes a string between single quotes; a URI may hold one, so it is written between
    double quotes, which the parser reads alike."""
    fmt = get_format("lfm2")
    tok = tokenizer_for("lfm2")
    site = {"type": "function", "function": {"name": "open", "parameters": {"type": "object", "properties": {"url": {"type": "string", "format": "uri"}}, "required": ["url"]}}}
    grammar = compile_tool_grammar(tok, fmt, [site], "required")
    g, ok = walk(grammar, tok, '<|tool_call_start|>[open(url="https://a.b/it\'s")]<|tool_call_end|>' + fmt.eos)
    assert ok and g.is_terminated()
    _, ok = walk(grammar, tok, "<|tool_call_start|>[open(url='https://a.b/')]")
    assert not ok


# LFM2.5 (from llama.cpp's models/templates/LFM2.5-8B-A1B.jinja, shortened to the roles, the
# reasoning, the calls and the generation prompt): a string '…' as is, a dict with tojson, any
# other value with Jinja's string filter.
LFM25 = (
    "{{- bos_token -}}"
    "{%- macro format_arg_value(arg_value) -%}{%- if arg_value is string -%}{{- \"'\" + arg_value + \"'\" -}}"
    "{%- elif arg_value is mapping -%}{{- arg_value | tojson -}}{%- else -%}{{- arg_value | string -}}{%- endif -%}{%- endmacro -%}"
    "{%- macro render_tool_calls(tool_calls) -%}{%- set tool_calls_ns = namespace(tool_calls=[]) -%}"
    "{%- for tool_call in tool_calls -%}{%- set func_name = tool_call['function']['name'] -%}{%- set func_args = tool_call['function']['arguments'] -%}"
    "{%- set args_ns = namespace(arg_strings=[]) -%}{%- for arg_name, arg_value in func_args.items() -%}"
    "{%- set args_ns.arg_strings = args_ns.arg_strings + [arg_name + '=' + format_arg_value(arg_value)] -%}{%- endfor -%}"
    "{%- set tool_calls_ns.tool_calls = tool_calls_ns.tool_calls + [func_name + '(' + (args_ns.arg_strings | join(', ')) + ')'] -%}{%- endfor -%}"
    "{{- '<|tool_call_start|>[' + (tool_calls_ns.tool_calls | join(', ')) + ']<|tool_call_end|>' -}}{%- endmacro -%}"
    "{%- if tools -%}{{- '<|im_start|>system\\nList of tools: ' + (tools | tojson) + '<|im_end|>\\n' -}}{%- endif -%}"
    "{%- for message in messages -%}{{- '<|im_start|>' + message.role + '\\n' -}}"
    "{%- if message.role == 'assistant' -%}"
    "{%- if message.thinking is defined -%}{{- '<think>' + message.thinking + '</think>' -}}{%- endif -%}"
    "{%- if message.content is defined and message.content -%}{{- message.content -}}{%- endif -%}"
    "{%- if message.tool_calls is defined -%}{{- render_tool_calls(message.tool_calls) -}}{%- endif -%}"
    "{{- '<|im_end|>\\n' -}}"
    "{%- else -%}{%- if message.get('content') -%}{{- message['content'] -}}{%- endif -%}{{- '<|im_end|>\\n' -}}{%- endif -%}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}"
)

# Llama 4 (from vLLM's examples/tool_chat_template_llama4_pythonic.jinja, shortened likewise):
# every value written as a string, "%s" | format(value) between double quotes.
LLAMA4 = (
    "{{- bos_token }}"
    "{%- for message in messages %}"
    "{%- if not (message.role == 'ipython' or message.role == 'tool' or ('tool_calls' in message and message.tool_calls|length != 0)) %}"
    "{{- '<|header_start|>' + message['role'] + '<|header_end|>\\n\\n' }}{{- message['content'] }}{{- '<|eot|>' }}"
    "{%- elif 'tool_calls' in message %}"
    "{{- '<|header_start|>assistant<|header_end|>\\n\\n' -}}{%- if message['content'] is string %}{{- message['content'] }}{%- endif %}"
    "{{- '[' }}{%- for tool_call in message.tool_calls %}{%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}"
    "{{- tool_call.name + '(' -}}{%- for param in tool_call.arguments %}{{- param + '=\"' -}}{{- '%s' | format(tool_call.arguments[param]) -}}{{- '\"' -}}"
    "{% if not loop.last %}, {% endif %}{%- endfor %}{{- ')' -}}{% if not loop.last %}, {% endif %}{%- endfor %}{{- ']<|eot|>' }}"
    "{%- elif message.role == 'tool' or message.role == 'ipython' %}{{- '<|header_start|>ipython<|header_end|>\\n\\n' }}{{- message.content | tojson }}{{- '<|eot|>' }}"
    "{%- endif %}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|header_start|>assistant<|header_end|>\\n\\n' }}{%- endif %}"
)


@pytest.mark.parametrize(("template", "name", "start"), [(LFM25, "lfm2", "<|im_start|>assistant\n"), (LLAMA4, "llama4_pythonic", "<|header_start|>assistant<|header_end|>\n\n")])
def test_the_families_templates_are_detected_with_the_two_call_round_trip(template, name, start):
    fmt = detect(template)
    assert fmt.name == name
    calls = [{"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": a}} for i, (n, a) in enumerate([("get_weather", {"city": "Oslo"}), ("now", {})])]
    rendered = render_jinja_template(conversations=[[{"role": "user", "content": "q"}, {"role": "assistant", "content": "", "tool_calls": calls}]],
                                     tools=TOOLS, chat_template=template, bos_token="")[0][0]
    turn = rendered[rendered.rindex(start) + len(start) :]
    message = parse(turn, format=fmt, thinking=False)
    assert [(c.name, json.loads(c.arguments)) for c in message.tool_calls] == [("get_weather", {"city": "Oslo"}), ("now", {})]
