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
from thinkgate import parse
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
    # a tag with no type attribute, then a parameter never closed before the next
    for bad in (
        f'<{DSML}invoke name="get_weather">\n<{DSML}parameter name="city">Rome</{DSML}parameter>\n' + fmt.tools.call_end,
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
