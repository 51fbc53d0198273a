"""detect() on the real chat template of functionary v3.1 (llama.cpp
``models/templates/meetkai-functionary-medium-v3.1.jinja``, stored here as
tests/data/templates/meetkai-functionary-medium-v3.1.jinja, read from ggerganov/llama.cpp @e884d3d530dc808a59abc9dda1c7219215a2efbb):
each call ``<function=NAME>`` + its arguments as given + ``</function>``, back to back, then
``<|eom_id|>``. It names the registered format, and a turn the template writes with two calls
reads back as those two calls.

LongCat's template is not in reach (the code index holds none of its model repositories): the one
here is written from LongCat-Flash's published chat template reference (``SYSTEM:… [Round N]
USER:… ASSISTANT:…</longcat_s>``, each call ``<longcat_tool_call>{"name": …, "arguments": …}</longcat_tool_call>``).
Trinity's and PLaMo 3's are not in reach either; a Trinity template writes Qwen2.5's calls on
ChatML, which detect reads as ``qwen3`` (the same layout, markers and end of turn)."""

from __future__ import annotations

import json
from pathlib import Path

from transformers.utils.chat_template_utils import render_jinja_template

from thinkgate import detect, parse
from thinkgate.formats import get_format

TEMPLATES = Path(__file__).parent / "data" / "templates"
FUNCTIONARY_V3_1 = (TEMPLATES / "meetkai-functionary-medium-v3.1.jinja").read_text()
START = "<|start_header_id|>assistant<|end_header_id|>\n\n"

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Weather.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "now", "description": "The time.", "parameters": {"type": "object", "properties": {}}}},
]


def test_detect_names_functionary_v3_1_from_its_template():
    found = detect(FUNCTIONARY_V3_1)
    assert found.name == "functionary_v3_1"
    assert found.tools == get_format("functionary_v3_1").tools
    assert not found.reasoning.present


def test_the_two_call_round_trip_is_exact():
    fmt = detect(FUNCTIONARY_V3_1)
    # the template writes each call's arguments as given: the JSON text a client sends back
    calls = [{"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
             for i, (n, a) in enumerate([("get_weather", {"city": "Oslo"}), ("now", {})])]
    rendered = render_jinja_template(conversations=[[{"role": "user", "content": "q"}, {"role": "assistant", "content": "Let me look.", "tool_calls": calls}]],
                                     tools=TOOLS, chat_template=FUNCTIONARY_V3_1, bos_token="")[0][0]
    turn = rendered[rendered.rindex(START) + len(START) :]
    assert turn == 'Let me look.<function=get_weather>{"city": "Oslo"}</function><function=now>{}</function><|eom_id|>'
    assert fmt.tools.section_text([("get_weather", '{"city": "Oslo"}'), ("now", "{}")]) in turn  # thinkgate writes what the template writes
    message = parse(turn, format=fmt, thinking=False)
    assert message.content == "Let me look."
    assert [(c.name, json.loads(c.arguments)) for c in message.tool_calls] == [("get_weather", {"city": "Oslo"}), ("now", {})]
    assert message.finish_reason == "tool_calls"


LONGCAT = (
    "{%- if messages[0].role == 'system' %}{{ 'SYSTEM:' + messages[0].content }}{%- endif %}"
    "{%- set ns = namespace(round=0) %}"
    "{%- for m in messages %}"
    "{%- if m.role == 'user' %}{{ ' [Round ' ~ ns.round ~ '] USER:' + m.content + ' ASSISTANT:' }}{%- set ns.round = ns.round + 1 %}"
    "{%- elif m.role == 'assistant' %}{%- if m.content %}{{ m.content }}{%- endif %}"
    "{%- for tc in m.tool_calls or [] %}{%- if not loop.first %}{{ '\\n' }}{%- endif %}"
    "{{ '<longcat_tool_call>' + {'name': tc.function.name, 'arguments': tc.function.arguments} | tojson + '</longcat_tool_call>' }}{%- endfor %}"
    "{{ '</longcat_s>' }}"
    "{%- elif m.role == 'tool' %}{{ ' [Round ' ~ ns.round ~ '] USER:' + m.content + ' ASSISTANT:' }}{%- endif %}"
    "{%- endfor %}"
)


def test_detect_names_longcat_from_a_template_written_from_its_reference():
    found = detect(LONGCAT)
    assert found.name == "longcat"
    calls = [{"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": a}} for i, (n, a) in enumerate([("get_weather", {"city": "Oslo"}), ("now", {})])]
    rendered = render_jinja_template(conversations=[[{"role": "user", "content": "q"}, {"role": "assistant", "content": "", "tool_calls": calls}]],
                                     tools=TOOLS, chat_template=LONGCAT, bos_token="")[0][0]
    turn = rendered[rendered.rindex(" ASSISTANT:") + len(" ASSISTANT:") :]
    message = parse(turn, format=found, thinking=False)
    assert [(c.name, json.loads(c.arguments)) for c in message.tool_calls] == [("get_weather", {"city": "Oslo"}), ("now", {})]
    assert message.content is None and message.finish_reason == "tool_calls"
