"""detect() on the chat templates of this group's families that could be found: MiMo-V2.6's
(written from its ``chat_template.jinja``) names ``mimo_v2_6`` with the two-call round trip exact;
SmolLM3-3B's renders no tool calls (its assistant turns are their content only), so detect says so.

ERNIE 4.5, dots and Poolside v1 have no chat template in the sources searched (llama.cpp's copies
of Laguna's are Git LFS pointers), so detect is not tested on them here."""

import json
import pathlib

import pytest
from transformers.utils.chat_template_utils import render_jinja_template

from thinkgate import detect, parse
from thinkgate.formats import get_format

TEMPLATES = pathlib.Path(__file__).parent / "data" / "templates"

# MiMo-V2.6 (XiaomiMiMo's chat_template.jinja as MiMo-V2.6-Distill-Qwen-9B ships it, sha256
# 59a64ebb…, shortened here to the parts that write roles, reasoning, calls and the generation
# prompt): the assistant macro and the generation prompt as the template writes them, the call
# macro writing what it renders, <tool_call><function=f><parameter=x>1</parameter></function>
# </tool_call> (a string bare, any other value as JSON), and no newline after <|im_end|>.
MIMO_V2_6 = (
    "{%- macro render_content(content) -%}{%- if content is string -%}{{- content -}}{%- elif content is iterable -%}"
    "{%- for part in content -%}{%- if part.type == 'text' -%}{{- part.text -}}{%- endif -%}{%- endfor -%}{%- endif -%}{%- endmacro -%}"
    "{%- macro render_tool_calls(tool_calls) -%}{%- for tool_call in tool_calls -%}"
    "{%- if tool_call.function is defined -%}{%- set tool_call = tool_call.function -%}{%- endif -%}"
    "{{- '<tool_call><function=' ~ tool_call.name ~ '>' -}}"
    "{%- for args_name, args_value in tool_call.arguments | items -%}"
    "{{- '<parameter=' ~ args_name ~ '>' -}}{{- args_value if args_value is string else args_value | tojson(ensure_ascii=False) -}}{{- '</parameter>' -}}"
    "{%- endfor -%}{{- '</function></tool_call>' -}}{%- endfor -%}{%- endmacro -%}"
    "{%- macro render_assistant_message(message) -%}"
    "{%- set content = render_content(message.content) -%}"
    "{%- set reasoning = message.reasoning_content if message.reasoning_content is string else '' -%}"
    "{{- '<|im_start|>assistant\\n<think>' ~ reasoning ~ '</think>' ~ content -}}"
    "{%- if message.tool_calls is defined and message.tool_calls is iterable and message.tool_calls | length > 0 -%}"
    "{{- render_tool_calls(message.tool_calls) -}}{%- endif -%}{{- '<|im_end|>' -}}{%- endmacro -%}"
    "{%- if tools -%}{{- '<|im_start|>system\\nYou are provided with the following tools:\\n\\n<tools>\\n' -}}"
    "{%- for tool in tools -%}{{- tool | tojson(ensure_ascii=False) ~ '\\n' -}}{%- endfor -%}{{- '</tools><|im_end|>' -}}{%- endif -%}"
    "{%- for message in messages -%}{%- if message.role == 'assistant' -%}{{- render_assistant_message(message) -}}"
    "{%- else -%}{%- set body = render_content(message.content) -%}{{- '<|im_start|>' ~ message.role ~ '\\n' ~ body -}}{{- '<|im_end|>' -}}"
    "{%- endif -%}{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- if enable_thinking is false -%}{{- '<think></think>' -}}{%- endif -%}{%- endif -%}"
)

S, I = {"type": "string"}, {"type": "integer"}
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": S, "days": I}}}},
    {"type": "function", "function": {"name": "now", "parameters": {"type": "object", "properties": {}}}},
]
CALLS = [("get_weather", {"city": "Oslo", "days": 3}), ("now", {})]


def _turn(template: str, start: str) -> str:
    calls = [{"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": a}} for i, (n, a) in enumerate(CALLS)]
    rendered = render_jinja_template(conversations=[[{"role": "user", "content": "q"}, {"role": "assistant", "content": "", "tool_calls": calls}]],
                                     tools=TOOLS, chat_template=template)[0][0]
    return rendered[rendered.rindex(start) + len(start) :]


def test_detect_names_mimo_v2_6_from_its_template_with_the_two_call_round_trip():
    fmt = detect(MIMO_V2_6)
    assert fmt.name == "mimo_v2_6"
    assert fmt.reasoning == get_format("mimo_v2_6").reasoning  # <think> opened by the model, switched by enable_thinking
    turn = _turn(MIMO_V2_6, "<|im_start|>assistant\n<think></think>")
    # the grammar writes what the template writes
    assert turn == fmt.tools.section_text([(n, json.dumps(a)) for n, a in CALLS]) + fmt.eos
    message = parse(turn, format=fmt, thinking=False, tools=TOOLS)
    assert [(c.name, json.loads(c.arguments)) for c in message.tool_calls] == CALLS
    assert message.content is None


def test_mimo_reads_mimo_v2_6s_spelling_too():
    turn = _turn(MIMO_V2_6, "<|im_start|>assistant\n<think></think>")
    message = parse(turn, format="mimo", thinking=False, tools=TOOLS)
    assert [(c.name, json.loads(c.arguments)) for c in message.tool_calls] == CALLS


def test_smollm3s_template_renders_no_tool_calls_and_detect_says_so():
    # llama.cpp's models/templates/HuggingFaceTB-SmolLM3-3B.jinja (sha256 19eacf64…, Unsloth's
    # edit of the model's own; the model's writes only the content of an assistant turn too)
    template = (TEMPLATES / "HuggingFaceTB-SmolLM3-3B.jinja").read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="renders no tool calls"):
        detect(template)
    # its generation prompts are the ones the smollm3 format starts from
    on = render_jinja_template(conversations=[[{"role": "user", "content": "q"}]], chat_template=template, add_generation_prompt=True)[0][0]
    off = render_jinja_template(conversations=[[{"role": "user", "content": "q"}]], chat_template=template, add_generation_prompt=True,
                                enable_thinking=False)[0][0]
    assert on.endswith("<|im_start|>assistant\n") and off.endswith("<think>\n\n</think>\n")
    fmt = get_format("smollm3")
    assert (fmt.reasoning.open, fmt.reasoning.close, fmt.reasoning.default_thinking, fmt.reasoning.toggle) == ("<think>", "</think>", "auto", "enable_thinking")
