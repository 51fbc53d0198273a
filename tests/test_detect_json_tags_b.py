"""detect() on the chat templates of firefunction-v2, Hunyuan-A13B, Jamba, xLAM-2 and InternLM 2,
written from the real ones (each shortened to the parts that write the roles, the calls and the
generation prompt, as tests/test_detect_families.py shortens others; firefunction-v2's whole): each
names its registered format, and the two-call round trip is exact: the template's rendering of two
calls holds the format's own spelling of them (where the template writes that spelling) and is
what the format's parser reads back.

Hy3 and Hy4 have no template here: no stored copy of tencent/Hy3's or tencent/Hy4-preview's
chat_template.jinja is at hand (third-party renderers of them are, which hunyuan.py follows)."""

from __future__ import annotations

import json

import pytest
from transformers.utils.chat_template_utils import render_jinja_template

from thinkgate import detect, parse
from thinkgate.formats import get_format

# firefunction-v2: llama.cpp models/templates/fireworks-ai-llama-3-firefunction-v2.jinja, whole. It
# reads two variables no chat API passes (llama.cpp's firefunction handler passes them), set first
# here as llama.cpp renders it. It concatenates the arguments: they must be JSON strings.
FIREFUNCTION_V2 = "{%- set functions = (tools or []) | tojson -%}{%- set datetime = '2024-06-01' -%}" + '{%- set loop_messages = messages -%}\n{%- set message_roles = [\'system\', \'user\', \'assistant\', \'tool\'] -%}\n{%- set system_prompt_suffix -%}\n{%- filter trim -%}\nIn addition to plain text responses, you can chose to call one or more of the provided functions.\n\nUse the following rule to decide when to call a function:\n  * if the response can be generated from your internal knowledge (e.g., as in the case of queries like "What is the capital of Poland?"), do so\n  * if you need external information that can be obtained by calling one or more of the provided functions, generate a function calls\n\nIf you decide to call functions:\n  * prefix function calls with functools marker (no closing marker required)\n  * all function calls should be generated in a single JSON list formatted as functools[{"name": [function name], "arguments": [function arguments as JSON]}, ...]\n  * follow the provided JSON schema. Do not hallucinate arguments or values. Do to blindly copy values from the provided samples\n  * respect the argument type formatting. E.g., if the type if number and format is float, write value 7 as 7.0\n  * make sure you pick the right functions that match the user intent\n\nAvailable functions as JSON spec:\n{%- endfilter -%}\n{%- endset -%}\n{%- set system_prompt_suffix = system_prompt_suffix + "\\n" + functions -%}\n{%- set system_prompt_suffix = system_prompt_suffix + \'\\nToday is \' + datetime + \'.\' -%}\n{%- set ns = namespace(role=\'\', content=\'\') -%}\n{#- Basic consistency checks -#}\n{%- if not loop_messages -%}\n  {{ raise_exception(\'Expected non-empty messages\') }}\n{%- endif -%}\n{%- for message in loop_messages -%}\n  {%- set ns.role = message[\'role\'] | lower -%}\n  {%- if ns.role not in message_roles -%}\n    {%- set message_roles_string = message_roles | join(\', \') -%}\n    {{ raise_exception(\'Invalid role \' + message[\'role\'] + \'. Only \' + message_roles_string + \' are supported.\') }}\n  {%- endif -%}\n  {%- set msg_content = message[\'content\'] | default(\'\', true) | trim -%}\n  {%- if loop.index0 == 0 -%}\n    {%- if ns.role == \'system\' -%}\n      {%- set system_prompt = \'<|start_header_id|>\' + \'system\' + \'<|end_header_id|>\\n\\n\' + message[\'content\'] | trim + \'\\n\' + system_prompt_suffix + \'<|eot_id|>\' -%}\n    {%- else -%}\n      {%- set system_prompt = \'<|start_header_id|>\' + \'system\' + \'<|end_header_id|>\\n\\nYou are a helpful assistant with access to functions.\\n\' + system_prompt_suffix + \'<|eot_id|>\' -%}\n    {%- endif -%}\n    {%- set ns.content = bos_token + system_prompt -%}\n    {{- ns.content -}}\n  {%- endif -%}\n  {%- if loop.index0 > 0 or ns.role != \'system\' -%}\n    {%- set ns.content = \'<|start_header_id|>\' + ns.role + \'<|end_header_id|>\\n\\n\' + msg_content -%}\n    {%- if \'tool_calls\' in message and message[\'tool_calls\'] -%}\n      {%- set tool = namespace(calls=[]) -%}\n      {%- for call in message[\'tool_calls\'] -%}\n        {%- set tool.calls = tool.calls + [\'{"name": "\' + call[\'function\'][\'name\'] + \'", "arguments": \' + call[\'function\'][\'arguments\'] + \'}\'] -%}\n      {%- endfor -%}\n      {%- set ns.content = ns.content + \' functools[\' + tool.calls | join(\', \') + \']\' -%}\n    {%- endif -%}\n    {%- set ns.content = ns.content + \'<|eot_id|>\' -%}\n    {{- ns.content -}}\n  {%- endif -%}\n{%- endfor -%}\n{{- \'<|start_header_id|>assistant<|end_header_id|>\\n\\n\' -}}\n'

# Hunyuan-A13B: vLLM examples/tool_chat_template_hunyuan_a13b.jinja, its long system prompts
# shortened (the calls, the roles and the thinking switch as the template writes them)
A13B = (
    "{% set loop_messages = messages %}"
    "{% if tools %}"
    "{% for message in loop_messages %}"
    "{% if 'content' in message %}{% set content = message['content'] %}{% else %}{% set content = '' %}{% endif %}"
    "{% if loop.index0 == 0 %}"
    "{% set content_tmp = '你是一位函数组合专家。\n' + tools | tojson + '\n' %}"
    "{% if message['role'] == 'system' %}{% set content = '<|startoftext|>' + content_tmp + '\n额外要求：\n' + content + '<|extra_4|>' %}"
    "{% elif message['role'] == 'user' %}{% set content = '<|startoftext|>' + content_tmp + '<|extra_4|>' + '用户：' + content + '<|extra_0|>' %}{% endif %}"
    "{% else %}"
    "{% if message['role'] == 'user' %}{% set content = '用户：' + content + '<|extra_0|>' %}"
    "{% elif message['role'] == 'assistant' %}"
    "{% if 'tool_calls' in message %}"
    "{% set tool_calls = message['tool_calls'] %}{% set ns = namespace(tool_calls=\"[\") %}"
    "{% for tool_call in tool_calls %}"
    "{% set function = tool_call['function'] %}{% set name = function['name'] %}"
    "{% set ns.tool_calls = ns.tool_calls + '{\"name\": \"' + name + '\", '%}"
    "{% set arguments = function['arguments'] %}{% if arguments is not string %}{% set arguments = arguments | tojson %}{% endif %}"
    "{% set ns.tool_calls = ns.tool_calls + '\"arguments\": ' + arguments + '}' %}"
    "{% if not loop.last %}{% set ns.tool_calls = ns.tool_calls + ', '%}{% endif %}"
    "{% endfor %}"
    "{% set ns.tool_calls = ns.tool_calls + ']' %}"
    "{% set content = content + '<tool_calls>' + ns.tool_calls + '</tool_calls>' %}"
    "{% else %}{% set content = '助手：' + content %}{% endif %}"
    "{% set content = content + '<|eos|>' %}"
    "{% elif message['role'] == 'tool' %}{% set content = '<tool_response>' + content + '</tool_response>' + '<|extra_0|>' %}"
    "{% endif %}{% endif %}"
    "{{- content -}}"
    "{% endfor %}"
    "{% else %}"
    "{% for message in loop_messages %}"
    "{% if message['role'] == 'system' %}{{- '<|startoftext|>' + message['content'] + '<|extra_4|>' -}}"
    "{% elif message['role'] == 'user' %}{{- message['content'] + '<|extra_0|>' -}}"
    "{% elif message['role'] == 'assistant' %}{{- message['content'] + '<|eos|>' -}}{% endif %}"
    "{% endfor %}"
    "{% endif %}"
    "{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\\n\\n</think>\\n' }}{%- endif %}"
)

# Jamba Mini 1.7: the r-rojo/rampipe test fixture tests/fixtures/jamba_mini_1_7_chat_template.jinja,
# shortened to its macros for roles and tool calls (their whitespace control as written) and the
# generation prompt
JAMBA = (
    "{% set bom_str = bom_str or \"<|bom|>\" %}{% set eom_str = eom_str or \"<|eom|>\" %}"
    "{% set tool_calls_prefix = \"<tool_calls>\" %}{% set tool_calls_suffix = \"</tool_calls>\" %}"
    "{% set ns = namespace(message_count=0) %}"
    "{% macro handle_role(role, add_space=True) %}{{- \"<|\" + role + \"|>\" -}}{% if add_space %}{{- \" \" -}}{% endif %}{% endmacro %}\n"
    "{% macro handle_tool_calls(tool_calls) %}\n"
    "  {{- tool_calls_prefix + \"[\\n\" -}}\n"
    "  {% for tool_call in tool_calls %}\n"
    "    {% if tool_call.function is defined %}\n"
    "      {%- set tool_call = tool_call.function %}\n"
    "    {%- endif %}\n"
    "    {% set arguments = tool_call.arguments %}\n"
    "    {% if arguments is not string %}\n"
    "      {%- set arguments = arguments|tojson -%}\n"
    "    {%- endif %}\n"
    "    {{ \"{\\\"name\\\": \\\"\" + tool_call.name + \"\\\", \\\"arguments\\\": \" + arguments + \"}\" -}}\n"
    "    {% if not loop.last %}\n"
    "      {{- \",\" }}\n"
    "    {% endif %}\n"
    "  {% endfor %}\n"
    "  {{- \"\\n]\" + tool_calls_suffix -}}\n"
    "{% endmacro %}\n"
    "{{- bos_token -}}"
    "{% if messages[0].role == 'system' %}{{- bom_str + handle_role('system') + messages[0].content -}}{% set ns.message_count = 1 %}{% set loop_messages = messages[1:] %}"
    "{% else %}{% set loop_messages = messages %}{% endif %}"
    "{% for message in loop_messages %}"
    "{% if ns.message_count > 0 %}{{- eom_str -}}{% endif %}"
    "{{- bom_str + handle_role(message.role) + (message.content or '') -}}"
    "{% if message.role == 'assistant' and message.tool_calls is defined and message.tool_calls %}{{- handle_tool_calls(message.tool_calls) -}}{% endif %}"
    "{% set ns.message_count = ns.message_count + 1 %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{% if ns.message_count > 0 %}{{- eom_str -}}{% endif %}{{- bom_str + handle_role('assistant', add_space=False) -}}"
    "{% else %}{% if ns.message_count > 0 %}{{- eom_str -}}{% endif %}{% endif %}"
)
# xLAM-2 on Llama 3.1: vLLM examples/tool_chat_template_xlam_llama.jinja, its system prompt shortened
XLAM_LLAMA = (
    "{{- bos_token }}"
    "{{- \"<|start_header_id|>system<|end_header_id|>\\n\\n\" }}"
    "{%- if messages[0]['role'] == 'system' %}{%- set system_message = messages[0]['content'] | trim %}{%- set messages = messages[1:] %}{{- system_message + \"\\n\" }}{%- endif %}"
    "{%- if tools is defined and tools is not none %}{%- for t in tools %}{{- t | tojson(indent=4) }}{{- \"\\n\\n\" }}{%- endfor %}{%- endif %}"
    "{{- \"<|eot_id|>\" }}"
    "{%- for message in messages %}"
    "{%- if not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message) %}"
    "{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' }}"
    "{%- elif 'tool_calls' in message %}"
    "{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}"
    "{%- if message['tool_calls'] %}{{- \"[\" }}"
    "{%- for tool_call_function in message.tool_calls %}{%- set tool_call = tool_call_function.function %}"
    "{{- '{\"name\": \"' + tool_call.name + '\", ' }}{{- '\"arguments\": ' }}{{- tool_call.arguments | tojson }}{{- \"}\" }}"
    "{%- if not loop.last %}{{- \", \" }}{%- endif %}{%- endfor %}"
    "{{- \"]\" }}{{- \"<|eot_id|>\" }}"
    "{%- elif message['content'] %}{{- message['content'] | trim + '<|eot_id|>' }}{%- else %}{{- \"[]\\n\" + '<|eot_id|>' }}{%- endif %}"
    "{%- elif message.role == \"tool\" or message.role == \"ipython\" %}"
    "{{- \"<|start_header_id|>\" + \"ipython\" + \"<|end_header_id|>\\n\\n\" }}{{- message[\"content\"] }}{{- \"<|eot_id|>\" }}"
    "{%- endif %}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{%- endif %}"
)
# xLAM-2 on Qwen2.5: vLLM examples/tool_chat_template_xlam_qwen.jinja, likewise
XLAM_QWEN = (
    "{{- \"<|im_start|>system\\n\" }}"
    "{%- if messages[0]['role'] == 'system' %}{%- set system_message = messages[0]['content'] | trim %}{%- set messages = messages[1:] %}{{- system_message + \"\\n\" }}{%- endif %}"
    "{%- if tools is defined and tools is not none %}{%- for func in tools %}{{- func | tojson(indent=4) }}{{- \"\\n\\n\" }}{%- endfor %}{%- endif %}"
    "{{- \"<|im_end|>\\n\" }}"
    "{%- for message in messages %}"
    "{%- if message['role'] == 'tool' %}{{- \"<|im_start|>tool\\n\" }}{{- message.content }}{{- \"<|im_end|>\\n\" }}"
    "{%- elif 'tool_calls' in message %}{{- \"<|im_start|>assistant\\n\" }}"
    "{%- if message['tool_calls'] %}{{- \"[\" }}"
    "{%- for tool_call in message.tool_calls %}{%- set out = tool_call.function | tojson %}{{- out }}{%- if not loop.last %}{{- \", \" }}{%- endif %}{%- endfor %}"
    "{{- \"]\"}}"
    "{%- elif message['content'] %}{{- message['content'] | trim }}{%- else %}{{- \"[]\\n\" }}{%- endif %}"
    "{{- \"<|im_end|>\\n\" }}"
    "{%- else %}{{- \"<|im_start|>\" + message['role'] + \"\\n\" + message['content'] | trim + \"<|im_end|>\\n\" }}{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- \"<|im_start|>assistant\\n\" }}{%- endif %}"
)
# InternLM 2: vLLM examples/tool_chat_template_internlm2_tool.jinja (it writes the arguments under
# "arguments", which the format reads; the model's own key is "parameters")
INTERNLM2 = (
    "{%- if messages[0][\"role\"] == \"system\" %}{%- set system_message = messages[0][\"content\"] %}{%- set loop_messages = messages[1:] %}"
    "{%- else %}{%- set loop_messages = messages %}{%- endif %}"
    "{%- if not tools is defined %}{%- set tools = none %}{%- endif %}"
    "{{- bos_token }}"
    "{%- if system_message is defined %}{{- \"<|im_start|>system\\n\" + system_message + \"<|im_end|>\\n\" }}{%- endif %}"
    "{%- if tools is not none %}{{- \"<|im_start|>system name=<|plugin|>\\n[\" }}"
    "{%- for tool in tools %}{{- tool.function|tojson }}{%- if not loop.last %}{{- \", \" }}{%- else %}{{- \"]\" }}{%- endif %}{%- endfor %}"
    "{{- \"<|im_end|>\\n\" }}{%- endif %}"
    "{%- for message in loop_messages %}"
    "{%- if message[\"role\"] == \"user\" %}{{- \"<|im_start|>user\\n\" + message[\"content\"] + \"<|im_end|>\\n\"}}"
    "{%- elif message.tool_calls is defined and message.tool_calls is not none %}"
    "{%- set content = message[\"content\"] if message[\"content\"] else \"\" %}{{- \"<|im_start|>assistant\\n\" + content }}"
    "{%- for tool_call in message.tool_calls %}{%- set function=tool_call.function %}"
    "{{- \"<|action_start|><|plugin|>\\n\" }}{{- '{\"name\": \"' + function.name + '\", '}}{{- '\"arguments\": ' + function.arguments|string + '}' }}{{- \"<|action_end|>\" }}"
    "{%- endfor %}{{- \"<|im_end|>\\n\" }}"
    "{%- elif message[\"role\"] == \"assistant\" %}{{- \"<|im_start|>assistant\\n\" + message[\"content\"] + \"<|im_end|>\\n\"}}"
    "{%- elif message[\"role\"] == \"tool\" %}{{- \"<|im_start|>environment name=<|plugin|>\\n\" + message.content|string + \"<|im_end|>\\n\" }}"
    "{%- endif %}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)

S = {"type": "string"}
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": S}}}},
    {"type": "function", "function": {"name": "now", "parameters": {"type": "object", "properties": {}}}},
]
CALLS = [("get_weather", {"city": "Oslo"}), ("now", {})]
QUESTION = "QUESTION_PROBE_7c2"

CASES = [
    # (template, format, what opens the assistant turn, arguments as JSON strings, spelling exact)
    (FIREFUNCTION_V2, "firefunction_v2", "<|start_header_id|>assistant<|end_header_id|>\n\n", True, True),
    (A13B, "hunyuan_a13b", "<|extra_0|>", False, True),
    (JAMBA, "jamba", "<|bom|><|assistant|> ", False, True),
    (XLAM_LLAMA, "xlam", "<|start_header_id|>assistant<|end_header_id|>\n\n", False, True),
    (XLAM_QWEN, "xlam_qwen", "<|im_start|>assistant\n", False, True),
    (INTERNLM2, "internlm2", "<|im_start|>assistant\n", True, False),
]


@pytest.mark.parametrize(("template", "name", "start", "as_string", "exact"), CASES, ids=[c[1] for c in CASES])
def test_the_families_templates_are_detected_with_the_two_call_round_trip(template, name, start, as_string, exact):
    fmt = detect(template)
    assert fmt.name == name
    assert fmt.tools == get_format(name).tools
    calls = [{"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a) if as_string else a}}
             for i, (n, a) in enumerate(CALLS)]
    rendered = render_jinja_template(conversations=[[{"role": "user", "content": QUESTION}, {"role": "assistant", "content": "", "tool_calls": calls}]],
                                     tools=TOOLS, chat_template=template, bos_token="")[0][0]
    at = rendered.index(start, rendered.index(QUESTION))  # the turn after the question (a template may end in a prompt)
    turn = rendered[at + len(start) :]
    if exact:
        assert fmt.tools.section_text([(n, json.dumps(a)) for n, a in CALLS]) in turn
    message = parse(turn, format=fmt, thinking=False)
    assert [(c.name, json.loads(c.arguments)) for c in message.tool_calls] == CALLS


def test_hunyuan_a13b_thinks_in_text_tags_its_template_switches():
    fmt = detect(A13B)
    assert (fmt.reasoning.open, fmt.reasoning.close, fmt.reasoning.toggle) == ("<think>", "</think>", "enable_thinking")
    assert fmt.text_reasoning and fmt.reasoning.default_thinking == "auto"


def test_intern_s1_is_told_from_internlm2_by_its_reasoning():
    # the same calls; a template that does not think is InternLM 2's
    assert detect(INTERNLM2, formats=["internlm2", "intern_s1"]).name == "internlm2"
