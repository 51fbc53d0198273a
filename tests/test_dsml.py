"""DeepSeek V3.2 and V4: calls in DSML, XML-like tags that are text (``｜DSML｜`` is an ordinary
token of DeepSeek's tokenizer), each parameter typed by its tag: ``string="true"`` a string
written verbatim, ``string="false"`` JSON. V4 writes V3.2's calls inside ``<｜DSML｜tool_calls>``.

The call text is rendered here by a chat template written from DeepSeek V3.2's (llama.cpp's
``models/templates/DeepSeek-V3.2.jinja``: its assistant turn, tool-call block, parameter macro,
thinking toggle and generation prompt, which write the same bytes), through Hugging Face's
``apply_chat_template``; V4's block as vLLM's V4 encoding writes it."""

import json

import pytest

from helpers import detokenize_stream, every_split_agrees, group, normalise, seq_ids, stream_events, walk
from thinkgate import StreamParser, parse
from thinkgate.constraint import compile_tool_grammar
from thinkgate.formats import DEEPSEEK_V3_2, DEEPSEEK_V4, get_format

DSML = "｜DSML｜"

# DeepSeek V3.2's chat template, written from llama.cpp's copy (tools' preamble shortened: it is
# prompt text, not the output this file parses). Parameters are joined by a newline, each call
# is "\n<invoke …>\n{params}\n</invoke>", the block "\n\n<function_calls>{calls}\n</function_calls>"
# after the content; enable_thinking (on unless set) ends the prompt in <think> or </think>.
DEEPSEEK_V3_2_TEMPLATE = (
    "{%- set enable_thinking = enable_thinking | default(true) -%}"
    "{%- set dsml = '" + DSML + "' -%}"
    "{%- macro params(arguments) -%}"
    "{%- if arguments is mapping -%}{%- for key, value in arguments.items() -%}"
    "{%- if not loop.first -%}{{ '\\n' }}{%- endif -%}"
    "<{{ dsml }}parameter name=\"{{ key }}\" string=\"{{ 'true' if value is string else 'false' }}\">"
    "{{ value if value is string else (value | tojson(ensure_ascii=False)) }}</{{ dsml }}parameter>"
    "{%- endfor -%}{%- endif -%}"
    "{%- endmacro -%}"
    "{%- set last_user = namespace(i=-1) -%}"
    "{%- for m in messages -%}{%- if m.role in ['user', 'developer'] -%}{%- set last_user.i = loop.index0 -%}{%- endif -%}{%- endfor -%}"
    "{{ '<｜begin▁of▁sentence｜>' }}"
    "{%- set has_system = messages | length > 0 and messages[0].role == 'system' -%}"
    "{%- if has_system -%}{{ messages[0].content }}{%- endif -%}"
    "{%- if tools -%}"
    "{{ ('\\n\\n' if has_system else '') + '## Tools\\n\\nYou can invoke functions by writing a \"<' + dsml + 'function_calls>\" block:\\n"
    "<' + dsml + 'function_calls>\\n<' + dsml + 'invoke name=\"$FUNCTION_NAME\">\\n<' + dsml + 'parameter name=\"$PARAMETER_NAME\" string=\"true|false\">$PARAMETER_VALUE</' + dsml + 'parameter>\\n...\\n</' + dsml + 'invoke>\\n</' + dsml + 'function_calls>\\n\\n"
    "Here are the functions available in JSONSchema format:\\n<functions>' }}"
    "{%- for tool in tools -%}{{ '\\n' }}{{ (tool.function if tool.function is defined else tool) | tojson(ensure_ascii=False) }}{%- endfor -%}"
    "{{ '\\n</functions>\\n' }}"
    "{%- endif -%}"
    "{%- for m in messages[(1 if has_system else 0):] -%}"
    "{%- set i = loop.index0 + (1 if has_system else 0) -%}"
    "{%- if m.role == 'user' -%}"
    "<｜User｜>{{ m.content }}<｜Assistant｜>{{ '<think>' if i == last_user.i and enable_thinking else '</think>' }}"
    "{%- elif m.role == 'tool' -%}"
    "{%- set prev = namespace(i=-1) -%}"
    "{%- for j in range(i - 1, -1, -1) -%}{%- if messages[j].role != 'tool' and prev.i == -1 -%}{%- set prev.i = j -%}{%- endif -%}{%- endfor -%}"
    "{%- if i - prev.i == 1 -%}{{ '\\n\\n<function_results>' }}{%- endif -%}"
    "{{ '\\n<result>' + m.content + '</result>' }}"
    "{%- if i - prev.i == (messages[prev.i].tool_calls | length) -%}"
    "{{ '\\n</function_results>\\n\\n' + ('<think>' if i >= last_user.i and enable_thinking else '</think>') }}"
    "{%- endif -%}"
    "{%- elif m.role == 'assistant' -%}"
    "{%- if enable_thinking and i > last_user.i -%}{{ m.reasoning_content or '' }}</think>{%- endif -%}"
    "{{ m.content or '' }}"
    "{%- if m.tool_calls -%}"
    "{{ '\\n\\n<' + dsml + 'function_calls>' }}"
    "{%- for c in m.tool_calls -%}"
    "{{ '\\n<' + dsml + 'invoke name=\"' + c.function.name + '\">\\n' }}{{ params(c.function.arguments) }}{{ '\\n</' + dsml + 'invoke>' }}"
    "{%- endfor -%}"
    "{{ '\\n</' + dsml + 'function_calls>' }}"
    "{%- endif -%}"
    "{{ '<｜end▁of▁sentence｜>' }}"
    "{%- endif -%}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}<｜User｜>{{ '\\n' }}<｜Assistant｜>{{ '<think>' if enable_thinking else '</think>' }}{%- endif -%}"
)

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "zip": {"type": "string"},
        "days": {"type": "integer"},
        "hourly": {"type": "boolean"},
        "at": {"type": "array", "items": {"type": "number"}},
        "units": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    },
    "required": ["city"],
}
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER}},
    {"type": "function", "function": {"name": "now", "parameters": {"type": "object", "properties": {}}}},
]
# "42" and "true" are strings: the tag says so, whatever they look like
ARGS = {"city": "São Paulo", "zip": "42", "days": 3, "hourly": True, "at": [1.5, 2], "units": None}
CODE = {"city": "a < b && <｜DSML｜x>\n  </tag>\n\n", "zip": "true"}


def _render(tokenizer, calls, content="Let me check.", reasoning="The user wants the weather."):
    """The model's output for one assistant turn, as the template renders it back."""
    messages = [
        {"role": "user", "content": "Weather?"},
        {
            "role": "assistant",
            "reasoning_content": reasoning,
            "content": content,
            "tool_calls": [{"type": "function", "function": {"name": n, "arguments": a}} for n, a in calls],
        },
    ]
    text = tokenizer.apply_chat_template(messages, tools=TOOLS, tokenize=False, chat_template=DEEPSEEK_V3_2_TEMPLATE)
    prompt, _, output = text.partition("<｜Assistant｜><think>")
    assert prompt.startswith("<｜begin▁of▁sentence｜>## Tools") and output.endswith(DEEPSEEK_V3_2.eos)
    return output[: -len(DEEPSEEK_V3_2.eos)]


def test_the_names_serving_engines_use():
    # vLLM's tool and reasoning parsers: deepseek_v32, deepseek_v4
    assert get_format("deepseek_v32") is DEEPSEEK_V3_2 and get_format("deepseek-v3.2") is DEEPSEEK_V3_2
    assert get_format("deepseek_v4") is DEEPSEEK_V4 and get_format("deepseekv4") is DEEPSEEK_V4


def test_the_template_writes_the_format_call_text_and_it_parses_exactly(tokenizer):
    calls = [("get_weather", ARGS), ("get_weather", CODE)]
    output = _render(tokenizer, calls)
    block = DEEPSEEK_V3_2.tools.section_text([(n, json.dumps(a)) for n, a in calls])
    assert output == "The user wants the weather.</think>Let me check.\n\n" + block
    assert (
        f'<{DSML}parameter name="zip" string="true">42</{DSML}parameter>\n'
        f'<{DSML}parameter name="days" string="false">3</{DSML}parameter>\n'
    ) in block
    for tools in (TOOLS, None):  # the tag types each value: the schema changes nothing here
        m = every_split_agrees(output, format=DEEPSEEK_V3_2, tools=tools, thinking=True)
        assert m.reasoning_content == "The user wants the weather."
        assert m.content == "Let me check.\n\n"  # the text's own newlines stay with it
        assert [(c.name, json.loads(c.arguments)) for c in m.tool_calls] == calls
        assert m.tool_calls[1].arguments == json.dumps(CODE, ensure_ascii=False)  # verbatim, "<" and newlines kept
        assert m.finish_reason == "tool_calls" and not m.invalid_tool_calls


def test_a_call_without_arguments_as_the_template_writes_it(tokenizer):
    # the template writes "\n\n" between the invoke's tags where thinkgate writes one newline
    output = _render(tokenizer, [("now", {}), ("get_weather", {"city": "Lyon"})], content="", reasoning="")
    assert f'<{DSML}invoke name="now">\n\n</{DSML}invoke>\n<{DSML}invoke' in output
    m = every_split_agrees(output, format=DEEPSEEK_V3_2, tools=TOOLS, thinking=True)
    assert [(c.name, c.arguments) for c in m.tool_calls] == [("now", "{}"), ("get_weather", '{"city": "Lyon"}')]
    assert m.content is None or m.content == ""


def test_v4_writes_the_same_calls_inside_its_tool_calls_block():
    # vLLM's V4 encoding: "\n\n" + "<｜DSML｜tool_calls>\n" + calls joined by "\n" + "\n</｜DSML｜tool_calls>"
    invoke = (
        f'<{DSML}invoke name="get_weather">\n'
        f'<{DSML}parameter name="city" string="true">Paris</{DSML}parameter>\n'
        f'<{DSML}parameter name="at" string="false">[1.5, 2]</{DSML}parameter>\n'
        f"</{DSML}invoke>"
    )
    output = f"Plan.</think>On it.\n\n<{DSML}tool_calls>\n{invoke}\n{invoke}\n</{DSML}tool_calls>"
    assert DEEPSEEK_V4.tools.section_text([("get_weather", '{"city": "Paris", "at": [1.5, 2]}')] * 2) == output.partition("\n\n")[2]
    m = every_split_agrees(output, format=DEEPSEEK_V4, tools=TOOLS, thinking=True)
    assert (m.reasoning_content, m.content) == ("Plan.", "On it.\n\n")
    assert [json.loads(c.arguments) for c in m.tool_calls] == [{"city": "Paris", "at": [1.5, 2]}] * 2
    # (an <invoke> outside the block is read as a call too, as vLLM reads it: V3.2's block
    # around V4's calls leaves its own tags in the content)
    other = parse(output.replace("tool_calls>", "function_calls>"), format=DEEPSEEK_V4, thinking=True)
    assert other.content.startswith(f"On it.\n\n<{DSML}function_calls>") and len(other.tool_calls) == 2


@pytest.mark.parametrize("fmt", [DEEPSEEK_V3_2, DEEPSEEK_V4], ids=lambda f: f.name)
def test_string_and_json_values_by_their_tag(fmt):
    p = lambda k, s, v: f'<{DSML}parameter name="{k}" string="{s}">{v}</{DSML}parameter>\n'
    body = p("city", "true", "null") + p("zip", "true", "75001") + p("days", "false", "7") + p("hourly", "false", "false") + p("units", "false", "null")
    text = fmt.tools.section_begin + f'<{DSML}invoke name="get_weather">\n' + body + fmt.tools.call_end + fmt.tools.section_end
    want = {"city": "null", "zip": "75001", "days": 7, "hourly": False, "units": None}
    for tools in (TOOLS, None):
        m = every_split_agrees(text, format=fmt, tools=tools, thinking=False)
        assert json.loads(m.tool_calls[0].arguments) == want
    # where the tag and the schema disagree (no grammar held the model): the schema's type where
    # the value reads as one, else the text as written, and a call off its schema is invalid
    body = p("days", "true", "42") + p("city", "false", "null") + p("zip", "false", "abc")
    call = f'<{DSML}invoke name="get_weather">\n' + body + fmt.tools.call_end
    m = every_split_agrees(fmt.tools.section_begin + call + fmt.tools.section_end, format=fmt, tools=TOOLS, thinking=False)
    assert json.loads(m.tool_calls[0].arguments) == {"days": 42, "city": "null", "zip": "abc"}
    call = call.replace(fmt.tools.call_end, p("hourly", "false", "yes") + fmt.tools.call_end)
    m = every_split_agrees(fmt.tools.section_begin + call + fmt.tools.section_end, format=fmt, tools=TOOLS, thinking=False)
    assert not m.tool_calls and "'yes' is not of type 'boolean'" in m.invalid_tool_calls[0].error


@pytest.mark.parametrize("fmt", [DEEPSEEK_V3_2, DEEPSEEK_V4], ids=lambda f: f.name)
def test_a_broken_parameter_makes_its_call_invalid_and_spares_the_next(fmt):
    good = fmt.tools.call_text("get_weather", '{"city": "Oslo"}')
    # a parameter never closed before the next (a tag with no type attribute is read: see below)
    for bad in (
        f'<{DSML}invoke name="get_weather">\n<{DSML}parameter name="city" string="true">Rome\n<{DSML}parameter name="zip" string="true">1</{DSML}parameter>\n' + fmt.tools.call_end,
    ):
        text = fmt.tools.section_begin + bad + good + fmt.tools.section_end
        m = every_split_agrees(text, format=fmt, tools=TOOLS, thinking=False)
        assert [json.loads(c.arguments) for c in m.tool_calls] == [{"city": "Oslo"}]
        assert len(m.invalid_tool_calls) == 1 and "Rome" in m.invalid_tool_calls[0].text


@pytest.mark.parametrize("fmt", [DEEPSEEK_V3_2, DEEPSEEK_V4], ids=lambda f: f.name)
def test_every_token_chunking_gives_the_text_result(tokenizer, fmt):
    # the real DeepSeek tokenizer: <think> and </think> are tokens, "｜DSML｜" an ordinary one
    assert tokenizer.convert_ids_to_tokens(tokenizer.encode(fmt.tools.call_begin, add_special_tokens=False))[:2] == ["<", DSML]
    text = "Weather, 😀 São Paulo.</think>\n\nSure.\n" + fmt.tools.section_text([("get_weather", json.dumps(ARGS)), ("get_weather", json.dumps(CODE)), ("now", "{}")])
    ids = tokenizer.encode(text, add_special_tokens=False)
    assert tokenizer.decode(ids, skip_special_tokens=False, clean_up_tokenization_spaces=False) == text
    per_token = detokenize_stream(tokenizer, ids)
    expected = parse(text, format=fmt, thinking=True, tools=TOOLS, call_id=seq_ids)
    assert [json.loads(c.arguments) for c in expected.tool_calls] == [ARGS, CODE, {}]
    ref = None
    for deltas in (per_token, group(per_token, 3), group(per_token, 8), [(text, ids)]):
        events, parser = stream_events(deltas, format=fmt, thinking=True, tools=TOOLS, tokenizer=tokenizer)
        assert parser.message == expected
        ref = ref or normalise(events)
        assert normalise(events) == ref


@pytest.mark.parametrize("fmt", [DEEPSEEK_V3_2, DEEPSEEK_V4], ids=lambda f: f.name)
def test_the_grammar_takes_the_template_call_text_and_no_mistyped_value(tokenizer, fmt):
    grammar = compile_tool_grammar(tokenizer, fmt, TOOLS, "required")
    good = "\n\n" + fmt.tools.section_text([("get_weather", json.dumps(ARGS)), ("get_weather", json.dumps(CODE))])
    g, ok = walk(grammar, tokenizer, good)
    assert ok and g.accept_token(grammar.stop_ids[0]) and g.is_terminated()
    # a string written as JSON, whitespace around a JSON value, an integer tagged a string
    text = fmt.tools.section_text([("get_weather", '{"city": "Oslo", "days": 3}')])
    for variant in (text.replace('string="true">Oslo', 'string="false">"Oslo"'), text.replace(">3<", "> 3<"), text.replace('string="false">3', 'string="true">3')):
        assert variant != text
        _, ok = walk(grammar, tokenizer, variant)
        assert not ok, variant


# --- vLLM's own test inputs for its DeepSeek V3.2 tool parser ------------------------------------
# tests/tool_parsers/test_deepseekv32_tool_parser.py in vllm-project/vllm: 49 tests, their model
# outputs rebuilt here from the facts they state (markers, parameters, schemas). Each is parsed
# whole, char by char and in 3-char pieces (every_split_agrees), which covers their streaming
# variants (by lines, by 1/5/7/10-character chunks, a fresh parser per stream).

FC, INV, PAR = f"<{DSML}function_calls>\n", f'<{DSML}invoke name="', f'<{DSML}parameter name="'
END_PAR, END_INV, END_FC = f"</{DSML}parameter>", f"</{DSML}invoke>\n", f"</{DSML}function_calls>"


def _invoke(name, *params):
    """vLLM's calls: parameters back to back, ``(key, string_attr, value)``."""
    return INV + name + '">\n' + "".join(f'{PAR}{k}" string="{s}">{v}{END_PAR}' for k, s, v in params) + "\n" + END_INV


def _tool(name, properties):
    return [{"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": properties}}}]


_TIMER = {
    "wait": {"anyOf": [{"type": "object", "properties": {"type": {"const": "until"}, "date": {"type": "string"}}}, {"type": "object", "properties": {"type": {"const": "for"}, "minutes": {"type": "number"}}}]},
    "patches": {"oneOf": [{"type": "array", "items": {"type": "object"}}, {"type": "null"}]},
}
_PATCH = '[{"op":"replace","path":"/schedule","value":"quiet"}]'
_WAIT = '{"type":"for","minutes":2880}'
_FALLBACKS = {"union_value": {"type": ["null", "string"]}, "bad_int": {"type": "integer"}, "nullable_string": {"type": ["null", "string"]}, "null_string": {"type": "string"}, "whole_number": {"type": "number"}}
_FALLBACK_CALL = _invoke("coerce", ("union_value", "false", "hello"), ("bad_int", "false", "abc"), ("nullable_string", "false", "null"), ("null_string", "false", "null"), ("whole_number", "false", "3.0"))

# (case, output, tools, content, calls as (name, arguments)); where thinkgate reads an input
# otherwise than vLLM's test expects, the case's name says "differs" and the comment why.
VLLM_V32_CASES = [
    ("no_tool_call", "just some text", None, "just some text", []),
    ("single_tool_no_params", FC + INV + 'get_time">\n' + END_INV + END_FC, None, None, [("get_time", {})]),
    ("single_tool_with_params", FC + _invoke("get_weather", ("location", "true", "SF"), ("date", "true", "2024-01-16")) + END_FC, None, None, [("get_weather", {"location": "SF", "date": "2024-01-16"})]),
    ("content_before_tool_call", "Sure, let me check! " + FC + _invoke("get_weather", ("location", "true", "NYC")) + END_FC, None, "Sure, let me check! ", [("get_weather", {"location": "NYC"})]),
    ("multiple_tools", FC + _invoke("get_weather", ("location", "true", "SF")) + _invoke("get_weather", ("location", "true", "NYC")) + END_FC, None, None, [("get_weather", {"location": "SF"}), ("get_weather", {"location": "NYC"})]),
    ("type_conversion", FC + _invoke("toggle", ("enabled", "false", "true"), ("count", "false", "42")) + END_FC, _tool("toggle", {"enabled": {"type": "boolean"}, "count": {"type": "integer"}}), None, [("toggle", {"enabled": True, "count": 42})]),
    ("string_attr_true_coerced_by_schema", FC + _invoke("score", ("value", "true", "42")) + END_FC, _tool("score", {"value": {"type": "integer"}}), None, [("score", {"value": 42})]),
    ("string_attr_false_schema_conversion", FC + _invoke("score", ("value", "false", "42")) + END_FC, _tool("score", {"value": {"type": "integer"}}), None, [("score", {"value": 42})]),
    ("composed_schema_object_and_array", FC + _invoke("set_timer", ("wait", "false", _WAIT), ("patches", "false", _PATCH)) + END_FC, _tool("set_timer", _TIMER), None, [("set_timer", {"wait": json.loads(_WAIT), "patches": json.loads(_PATCH)})]),
    ("string_attr_true_coerced_by_composed_schema", FC + _invoke("set_timer", ("wait", "true", _WAIT)) + END_FC, _tool("set_timer", {"wait": {"anyOf": [{"type": "object"}, {"type": "null"}]}}), None, [("set_timer", {"wait": json.loads(_WAIT)})]),
    # differs: vLLM unwraps a lone "arguments"/"input" parameter the schema lacks; thinkgate
    # returns the parameters the model wrote (an open schema takes them; a grammar never writes them)
    ("arguments_wrapper_differs", FC + _invoke("get_weather", ("arguments", "false", '{"location":"Beijing"}')) + END_FC, _tool("get_weather", {"location": {"type": "string"}}), None, [("get_weather", {"arguments": {"location": "Beijing"}})]),
    ("input_wrapper_differs", FC + _invoke("get_weather", ("input", "true", '{"location":"Beijing"}')) + END_FC, _tool("get_weather", {"location": {"type": "string"}}), None, [("get_weather", {"input": '{"location":"Beijing"}'})]),
    ("object_and_array_params", FC + _invoke("update", ("tags", "false", '["a", "b"]'), ("meta", "false", '{"k": 1}')) + END_FC, _tool("update", {"tags": {"type": "array"}, "meta": {"type": "object"}}), None, [("update", {"tags": ["a", "b"], "meta": {"k": 1}})]),
    # differs: vLLM turns 5.0 into the int 5; thinkgate keeps the number as written (5.0)
    ("number_param_differs", FC + _invoke("measure", ("ratio", "false", "3.14"), ("whole", "false", "5.0")) + END_FC, _tool("measure", {"ratio": {"type": "number"}, "whole": {"type": "number"}}), None, [("measure", {"ratio": 3.14, "whole": 5.0})]),
    ("multi_typed_schema", FC + _invoke("set_val", ("count", "false", "42"), ("label", "false", "hello")) + END_FC, _tool("set_val", {"count": {"type": ["integer", "null"]}, "label": {"type": ["string", "null"]}}), None, [("set_val", {"count": 42, "label": "hello"})]),
    ("multi_typed_null_value", FC + _invoke("clear", ("value", "false", "null")) + END_FC, _tool("clear", {"value": {"type": ["integer", "null"]}}), None, [("clear", {"value": None})]),
    ("null_coerced_back_to_string", FC + _invoke("echo", ("text", "false", "null")) + END_FC, _tool("echo", {"text": {"type": "string"}}), None, [("echo", {"text": "null"})]),
    ("no_schema_parses_json", FC + _invoke("unknown_fn", ("count", "false", "42"), ("flag", "false", "true")) + END_FC, None, None, [("unknown_fn", {"count": 42, "flag": True})]),
    ("plain_content_streaming", "Hello, world!", None, "Hello, world!", []),
    ("tool_name_streaming", FC + _invoke("my_func", ("x", "true", "1")) + END_FC, None, None, [("my_func", {"x": "1"})]),
    ("content_before_streaming", "Thinking... " + FC + _invoke("fn", ("a", "true", "b")) + END_FC, None, "Thinking... ", [("fn", {"a": "b"})]),
    ("type_conversion_streaming", FC + _invoke("add", ("x", "false", "3"), ("y", "false", "4")) + END_FC, _tool("add", {"x": {"type": "integer"}, "y": {"type": "integer"}}), None, [("add", {"x": 3, "y": 4})]),
    ("multiple_tools_streaming", FC + _invoke("func_a", ("p", "true", "v1")) + _invoke("func_b", ("q", "true", "v2")) + END_FC, None, None, [("func_a", {"p": "v1"}), ("func_b", {"q": "v2"})]),
    ("false_partial_marker", "<｜DSM some regular text", None, "<｜DSM some regular text", []),
    ("delimiter_preserved_with_prefix", "Here is the weather: " + FC + _invoke("get_weather", ("location", "true", "Tokyo")) + END_FC, None, "Here is the weather: ", [("get_weather", {"location": "Tokyo"})]),
    ("skip_special_tokens_false_search", FC + _invoke("search", ("query", "true", "vllm documentation")) + END_FC, _tool("search", {"query": {"type": "string"}}), None, [("search", {"query": "vllm documentation"})]),
]


@pytest.mark.parametrize(("case", "output", "tools", "content", "calls"), VLLM_V32_CASES, ids=[c[0] for c in VLLM_V32_CASES])
def test_vllm_deepseek_v32_parser_cases(case, output, tools, content, calls):
    m = every_split_agrees(output, format=DEEPSEEK_V3_2, tools=tools, thinking=False)
    assert m.content == content
    assert [(c.name, json.loads(c.arguments)) for c in m.tool_calls] == calls
    assert not m.invalid_tool_calls
    assert all(type(v) is type(w) for c, (_, want) in zip(m.tool_calls, calls) for v, w in zip(json.loads(c.arguments).values(), want.values()))


def test_vllm_deepseek_v32_conversion_fallbacks():
    # differs: vLLM returns bad_int as the text "abc" and 3.0 as 3; thinkgate holds a call to its
    # tool's schema (strict level 2, the default): "abc" is no integer, so the call is invalid,
    # its text kept; at strict level 1 the call stands, with "abc" as written and 3.0 kept so
    text = FC + _FALLBACK_CALL + END_FC
    tools = _tool("coerce", _FALLBACKS)
    m = every_split_agrees(text, format=DEEPSEEK_V3_2, tools=tools, thinking=False)
    assert not m.tool_calls and "'abc' is not of type 'integer'" in m.invalid_tool_calls[0].error
    m = every_split_agrees(text, format=DEEPSEEK_V3_2, tools=tools, thinking=False, strict=1)
    assert json.loads(m.tool_calls[0].arguments) == {"union_value": "hello", "bad_int": "abc", "nullable_string": None, "null_string": "null", "whole_number": 3.0}


def test_vllm_deepseek_v32_streaming_cases():
    # arguments stream before the invoke closes (a parameter at a time, once the next tag shows
    # that its value closed: a closing tag followed by anything else is part of the value);
    # differs: a long string value comes whole at its close, not in pieces before it (vLLM #52846)
    partial = FC + INV + 'fn">\n' + f'{PAR}k" string="true">val{END_PAR}\n'
    events, _ = stream_events(list(partial), format=DEEPSEEK_V3_2, thinking=False)
    assert not "".join(e.text for e in events if type(e).__name__ == "ToolCallArgumentsDelta")
    events, _ = stream_events(list(partial + f'{PAR}j" string="true">'), format=DEEPSEEK_V3_2, thinking=False)
    args = "".join(e.text for e in events if type(e).__name__ == "ToolCallArgumentsDelta")
    assert args.startswith('{"k": "val"')
    # no marker fragment leaks into the content, however the block is cut; ids are distinct
    text = "Hello!" + FC + _invoke("fn", ("k", "true", "v")) + _invoke("fn", ("k", "true", "w")) + END_FC
    for size in range(1, len(FC) + 2):
        parser = StreamParser(DEEPSEEK_V3_2, thinking=False)
        for i in range(0, len(text), size):
            parser.feed_events(text[i : i + size])
        parser.finish_events()
        assert parser.message.content == "Hello!" and len({c.id for c in parser.message.tool_calls}) == 2


def test_a_parameter_tag_without_its_string_attribute_is_read_as_the_schema_says():
    """Models sometimes drop ``string="…"`` (vLLM reads such a value as JSON where it parses,
    else as text); thinkgate reads it as the tool's schema says, and as vLLM where no schema
    does. No grammar writes it."""
    text = FC + INV + 'fn">\n' + f'{PAR}n">5{END_PAR}\n{PAR}s">5{END_PAR}\n{PAR}free">[1, 2]{END_PAR}\n{PAR}word">hello{END_PAR}\n' + END_INV + END_FC
    tools = _tool("fn", {"n": {"type": "integer"}, "s": {"type": "string"}, "free": {}, "word": {}})
    m = every_split_agrees(text, format=DEEPSEEK_V3_2, tools=tools, thinking=False)
    assert not m.invalid_tool_calls and json.loads(m.tool_calls[0].arguments) == {"n": 5, "s": "5", "free": [1, 2], "word": "hello"}
    m = every_split_agrees(text, format=DEEPSEEK_V3_2, thinking=False)  # no tools: JSON where it parses
    assert json.loads(m.tool_calls[0].arguments) == {"n": 5, "s": 5, "free": [1, 2], "word": "hello"}
    # with and without the attribute in one call; V4's wrapper reads it alike
    mixed = f'<{DSML}tool_calls>\n' + INV + 'fn">\n' + f'{PAR}s" string="true">5{END_PAR}\n{PAR}n">7{END_PAR}\n' + END_INV + f'</{DSML}tool_calls>'
    m = every_split_agrees(mixed, format=DEEPSEEK_V4, tools=tools, thinking=False)
    assert json.loads(m.tool_calls[0].arguments) == {"s": "5", "n": 7}
