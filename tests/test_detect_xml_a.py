"""detect() on the chat templates of GigaChat 3 / 3.1 / 3.5, StepFun 3.7 and MiniCPM 5, each
written from the real one with the parts that render no output left out (the long developer
system prompts, the TypeScript rendering of the tools' schemas, image and file handling): the
messages, the assistant's calls, the reasoning and the generation prompt as the real one
renders them.

Origins: llama.cpp ``models/templates/GigaChat3-10B-A1.8B.jinja`` (@6f9ffbd9),
``models/templates/GigaChat3.5.jinja`` (@44cfbebb), ``models/templates/StepFun3.7-Flash.jinja``
(@ca13f4c0); ``GigaChat3.1-10B-A1.8B.jinja`` and ``openbmb-MiniCPM5-1B.jinja`` as llama.cpp's
forks hold them (acproject/seq2seq_llama.cpp @6626e786, mengqin/llama.cpp @2be97ce9; the latter
added upstream in llama.cpp c818263, "chat : implement minicpm5 parser").

Each is detected as its family, and the calls the template renders are read back exactly
(GigaChat 3 and 3.1 render only a message's first call: one call round-trips there, two
elsewhere)."""

from __future__ import annotations

import json

import pytest
from transformers.utils.chat_template_utils import render_jinja_template

from thinkgate import detect, parse
from thinkgate.formats import get_format

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "now", "parameters": {"type": "object", "properties": {}}}},
]

_GIGACHAT_ROLE = (
    "{%- macro render_role_message(message, role=None) -%}"
    "{%- if not role -%}{%- set role = message['role'] -%}{%- endif -%}"
    "{%- set message_content = message['content'] or '' -%}"
    "{%- if message_content is not string -%}{%- set message_content = message_content | tojson(ensure_ascii=False) -%}{%- endif -%}"
    "{{- role + add_tokens.role_sep + message_content + add_tokens.message_sep -}}"
    "{%- endmacro -%}"
)

# GigaChat 3: the call is a turn of the "function call" role after the assistant's.
GIGACHAT3 = (
    _GIGACHAT_ROLE
    + "{%- macro render_function_call(message) -%}"
    "{%- set call = message['content'] -%}{%- if call.function -%}{%- set call = call.function -%}{%- endif -%}"
    "{%- set arguments = call['arguments'] -%}"
    "{%- if arguments is not string -%}{%- set arguments = arguments| tojson(ensure_ascii=False) -%}{%- endif -%}"
    "{{- render_role_message({'role': 'function call', 'content': '{\"name\": \"' ~ call['name'] ~ '\", \"arguments\": ' ~ arguments ~ '}'}) -}}"
    "{%- endmacro -%}"
    '{%- set add_tokens = namespace(role_sep="<|role_sep|>\\n", message_sep="<|message_sep|>\\n\\n") -%}'
    "{{- bos_token -}}"
    "{{- render_role_message({'role': 'developer system', 'content': 'A dialog will follow below.'}) -}}"
    "{%- if messages and messages[0]['role'] == 'system' -%}{{- render_role_message(messages[0]) -}}{%- set messages = messages[1:] -%}{%- endif -%}"
    "{%- if tools -%}{{- render_role_message({'role': 'function descriptions', 'content': (tools | tojson) + '\\n\\n'}) -}}{%- endif -%}"
    "{%- for message in messages -%}"
    "{%- if message['role'] == 'tool' -%}{{- render_role_message(message, role='function result') -}}"
    "{%- elif message['role'] == 'assistant' -%}"
    "{%- if message.tool_calls is defined and message.tool_calls -%}{%- set function_call = message.tool_calls[0] -%}{%- else -%}{%- set function_call = None -%}{%- endif -%}"
    "{{- render_role_message({'role': 'assistant', 'content': message.content}) -}}"
    "{%- if function_call -%}{{- render_function_call({'role': 'function call', 'content': function_call}) -}}{%- endif -%}"
    "{%- else -%}{{- render_role_message(message) -}}{%- endif -%}"
    "{%- if loop.last and add_generation_prompt and message['role'] != 'assistant' -%}{{- 'assistant' + add_tokens.role_sep -}}{%- endif -%}"
    "{%- endfor -%}"
)

# GigaChat 3.1: the call inside the assistant's turn, after <|function_call|>.
GIGACHAT3_1 = (
    "{%- macro render_function_call(call) -%}"
    "{%- if call.function -%}{%- set call = call.function -%}{%- endif -%}"
    "{%- set arguments = call['arguments'] -%}"
    "{%- if arguments is not string -%}{%- set arguments = arguments| tojson(ensure_ascii=False) -%}{%- endif -%}"
    "{{- '{\"name\": \"' ~ call['name'] ~ '\", \"arguments\": ' ~ arguments ~ '}' -}}"
    "{%- endmacro -%}"
    "{%- macro render_role_message(message, role=None) -%}"
    "{%- if not role -%}{%- set role = message['role'] -%}{%- endif -%}"
    "{%- set message_content = message['content'] or '' -%}"
    "{%- if message_content is not string -%}{%- set message_content = message_content | tojson(ensure_ascii=False) -%}{%- endif -%}"
    "{{- role + add_tokens.role_sep + message_content -}}"
    "{%- if message.tool_calls is defined and message.tool_calls -%}{{- add_tokens.function_call + render_function_call(message.tool_calls[0]) -}}{%- endif -%}"
    "{{- add_tokens.message_sep -}}"
    "{%- endmacro -%}"
    '{%- set add_tokens = namespace(role_sep="<|role_sep|>\\n", message_sep="<|message_sep|>\\n\\n", function_call="<|function_call|>") -%}'
    "{{- bos_token -}}"
    "{{- render_role_message({'role': 'developer system', 'content': 'A dialog will follow below.'}) -}}"
    "{%- if messages and messages[0]['role'] == 'system' -%}{{- render_role_message(messages[0]) -}}{%- set messages = messages[1:] -%}{%- endif -%}"
    "{%- if tools -%}{{- render_role_message({'role': 'function descriptions', 'content': (tools | tojson) + '\\n\\n'}) -}}{%- endif -%}"
    "{%- for message in messages -%}"
    "{%- if message['role'] == 'tool' -%}{{- render_role_message(message, 'function result') -}}"
    "{%- else -%}{{- render_role_message(message) -}}{%- endif -%}"
    "{%- if loop.last and add_generation_prompt and message['role'] != 'assistant' -%}{{- 'assistant' + add_tokens.role_sep -}}{%- endif -%}"
    "{%- endfor -%}"
)

# GigaChat 3.5: GCML calls after the text, <think> when the reasoning keyword is set.
GIGACHAT3_5 = (
    "{%- macro render_role_message(message, role=none, add_message_sep_token=True) -%}"
    "{%- if not role -%}{%- set role = message['role'] -%}{%- endif -%}"
    "{%- set message_content = message['content'] if message['content'] is not none else '' -%}"
    "{%- if message_content is not string -%}{%- set message_content = message_content | tojson(ensure_ascii=False) -%}{%- endif -%}"
    "{{- role + (add_tokens.role_sep if role else '') + message_content + (add_tokens.message_sep if add_message_sep_token else '') -}}"
    "{%- endmacro -%}"
    "{%- macro render_gcml_parameter(name, value) -%}"
    "{%- if value is string -%}{{- '<｜GCML｜parameter name=\"' ~ name ~ '\" string=\"true\">' ~ value ~ '</｜GCML｜parameter>' -}}"
    "{%- else -%}{{- '<｜GCML｜parameter name=\"' ~ name ~ '\" string=\"false\">' ~ (value | tojson(ensure_ascii=False)) ~ '</｜GCML｜parameter>' -}}{%- endif -%}"
    "{%- endmacro -%}"
    "{%- macro render_gcml_invoke(call) -%}"
    "{%- set inner = call -%}{%- if inner.function -%}{%- set inner = inner.function -%}{%- endif -%}"
    "{%- set args = inner.get('arguments', {}) -%}"
    "{{- '<｜GCML｜invoke name=\"' ~ inner['name'] ~ '\">\\n' -}}"
    "{%- if args -%}{%- set ns_params = namespace(lines=[]) -%}"
    "{%- for k, v in args.items() -%}{%- set ns_params.lines = ns_params.lines + [render_gcml_parameter(k, v)] -%}{%- endfor -%}"
    "{{- ns_params.lines | join('\\n') -}}{{- '\\n' -}}{%- endif -%}"
    "{{- '</｜GCML｜invoke>' -}}"
    "{%- endmacro -%}"
    "{%- macro render_gcml_tool_calls(calls) -%}"
    "{%- set ns_inv = namespace(blocks=[]) -%}{%- for call in calls -%}{%- set ns_inv.blocks = ns_inv.blocks + [render_gcml_invoke(call)] -%}{%- endfor -%}"
    "{{- '<｜GCML｜tool_calls>\\n' -}}{{- ns_inv.blocks | join('\\n') -}}{{- '\\n</｜GCML｜tool_calls>' -}}"
    "{%- endmacro -%}"
    '{%- set add_tokens = namespace(role_sep="<|role_sep|>\\n", message_sep="<|message_sep|>\\n\\n") -%}'
    "{%- if reasoning is not defined -%}{%- set reasoning = False -%}{%- endif -%}"
    "{%- set ns_history = namespace(last_user_idx=-1) -%}"
    "{%- for m in messages -%}{%- if m['role'] == 'user' -%}{%- set ns_history.last_user_idx = loop.index0 -%}{%- endif -%}{%- endfor -%}"
    "{{- bos_token -}}"
    "{{- render_role_message({'role': 'developer system', 'content': 'GigaChat.'}) -}}"
    "{%- if messages and messages[0]['role'] == 'system' -%}{{- render_role_message(messages[0]) -}}{%- set messages = messages[1:] -%}"
    "{%- else -%}{{- render_role_message({'role': 'system', 'content': ''}) -}}{%- endif -%}"
    "{%- for message in messages -%}"
    "{%- if message['role'] == 'tool' -%}{{- render_role_message(message, 'function result') -}}"
    "{%- elif message['role'] == 'user' -%}"
    "{%- if tools and loop.first -%}{{- render_role_message({'role': 'function descriptions', 'content': tools | tojson}) -}}{%- endif -%}"
    "{{- render_role_message(message, role='user') -}}"
    "{%- elif message['role'] == 'assistant' -%}"
    "{%- set ns_think = namespace(text='', present=False) -%}"
    "{%- if message.reasoning_content is defined and message.reasoning_content is not none -%}"
    "{%- if loop.index0 < ns_history.last_user_idx -%}{%- else -%}{%- set ns_think.text = message.reasoning_content -%}{%- set ns_think.present = True -%}{%- endif -%}"
    "{%- endif -%}"
    "{%- set ns_parts = namespace(blocks=[]) -%}"
    "{%- if ns_think.present -%}{%- set ns_parts.blocks = ns_parts.blocks + ['<think>' ~ ns_think.text ~ '</think>'] -%}{%- endif -%}"
    "{%- if message.content -%}{%- set ns_parts.blocks = ns_parts.blocks + [message.content] -%}{%- endif -%}"
    "{%- if message.tool_calls -%}{%- set ns_parts.blocks = ns_parts.blocks + [render_gcml_tool_calls(message.tool_calls)] -%}{%- endif -%}"
    "{{- render_role_message({'role': 'assistant', 'content': ns_parts.blocks | join('\\n\\n')}, none, False) -}}"
    "{%- if loop.last and not add_generation_prompt -%}{{- eos_token -}}{%- else -%}{{- add_tokens.message_sep -}}{%- endif -%}"
    "{%- else -%}{{- render_role_message(message) -}}{%- endif -%}"
    "{%- if loop.last and add_generation_prompt and message['role'] != 'assistant' -%}"
    "{%- if reasoning -%}{{- 'assistant' + add_tokens.role_sep + '<think>' -}}{%- else -%}{{- 'assistant' + add_tokens.role_sep -}}{%- endif -%}"
    "{%- endif -%}"
    "{%- endfor -%}"
)

# StepFun 3.7 Flash: Qwen3-Coder's calls after the text, <think>\n always opened.
STEPFUN3_7 = (
    "{% macro render_message_content(message) %}{% if message.content is none %}{{- '' }}{% elif message.content is string %}{{- message.content }}{% endif %}{% endmacro %}"
    "{{bos_token}}{%- if tools %}"
    "{{- '<|im_start|>system\\n' }}"
    "{%- if messages[0].role == 'system' %}{{- render_message_content(messages[0]) + '\\n\\n' }}{%- endif %}"
    '{{- "# Tools\\n\\nYou have access to the following functions in JSONSchema format:\\n\\n<tools>" }}'
    '{%- for tool in tools %}{{- "\\n" }}{{- tool | tojson(ensure_ascii=False) }}{%- endfor %}'
    '{{- "\\n</tools><|im_end|>\\n" }}'
    "{%- else %}{%- if messages[0].role == 'system' %}{{- '<|im_start|>system\\n' + render_message_content(messages[0]) + '<|im_end|>\\n' }}{%- endif %}{%- endif %}"
    "{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}"
    "{%- for message in messages[::-1] %}{%- set index = (messages|length - 1) - loop.index0 %}"
    "{%- if ns.multi_step_tool and message.role == \"user\" and render_message_content(message) is string and not(render_message_content(message).startswith('<tool_response>') and render_message_content(message).endswith('</tool_response>')) %}"
    "{%- set ns.multi_step_tool = false %}{%- set ns.last_query_index = index %}{%- endif %}{%- endfor %}"
    "{%- for message in messages %}{%- set content = render_message_content(message) %}"
    "{%- if (message.role == \"user\") or (message.role == \"system\" and not loop.first) %}"
    "{{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>' + '\\n' }}"
    "{%- elif message.role == \"assistant\" %}"
    "{%- if message.reasoning_content is string %}{%- set reasoning_content = message.reasoning_content %}"
    "{%- else %}{%- if '</think>' in content %}"
    "{%- set reasoning_content = content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') %}"
    "{%- set content = content.split('</think>')[-1].lstrip('\\n') %}"
    "{%- else %}{%- set reasoning_content = '' %}{%- endif %}{%- endif %}"
    "{%- if loop.index0 > ns.last_query_index or (preserve_thinking is defined and preserve_thinking) %}"
    "{{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content + '\\n</think>\\n' + content }}"
    "{%- else %}{{- '<|im_start|>' + message.role + '\\n' + content }}{%- endif %}"
    "{%- if message.tool_calls %}{%- for tool_call in message.tool_calls %}"
    "{%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}"
    "{{- '<tool_call>\\n<function=' + tool_call.name + '>\\n' }}"
    "{%- if tool_call.arguments is defined %}"
    "{%- set arguments = tool_call.arguments | fromjson if tool_call.arguments is string else tool_call.arguments %}"
    "{%- for args_name, args_value in arguments|items %}{{- '<parameter=' + args_name + '>\\n' }}"
    "{%- set args_value = args_value | tojson(ensure_ascii=False) | safe if args_value is mapping or (args_value is sequence and args_value is not string) else args_value | string %}"
    "{{- args_value }}{{- '\\n</parameter>\\n' }}{%- endfor %}{%- endif %}"
    "{{- '</function>\\n</tool_call>' }}{%- endfor %}{%- endif %}"
    "{{- '<|im_end|>\\n' }}"
    "{%- elif message.role == \"tool\" %}"
    "{%- if loop.first or (messages[loop.index0 - 1].role != \"tool\") %}{{- '<|im_start|>tool_response\\n' }}{%- endif %}"
    "{{- '<tool_response>' }}{{- content }}{{- '</tool_response>' }}"
    "{%- if loop.last or (messages[loop.index0 + 1].role != \"tool\") %}{{- '<|im_end|>\\n' }}{%- endif %}"
    "{%- endif %}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n<think>\\n' }}{%- endif %}"
)

# MiniCPM 5: <function name="…"> elements after the text, one a line; its <tool_sep> placement
# of calls inside the text (has_tool_sep) is left out.
_MINICPM5_PARAMS = (
    "{%- for param_name, param_value in args_dict.items() %}"
    "{{- '<param name=\"' ~ param_name ~ '\">' }}"
    "{%- if param_value is string and ('<' in param_value or '&' in param_value or '\\n' in param_value) %}{{- '<![CDATA[' + param_value + ']]>' }}"
    "{%- else %}{{- param_value }}{%- endif %}"
    "{{- '</param>' }}{%- endfor %}"
)
MINICPM5 = (
    "{{- bos_token }}{%- if tools %}"
    "{{- '<|im_start|>system\\n' }}{%- if messages[0].role == 'system' %}{{- messages[0].content + '\\n\\n' }}{%- endif %}"
    '{{- "# Tools\\n\\n<tools>" }}{%- for tool in tools %}{{- "\\n" }}{{- tool | tojson(ensure_ascii=False) }}{%- endfor %}'
    "{{- '\\n</tools>\\n\\nWhen calling a function, return an XML object within <function ... </function> using:\\n<function name=\"function-name\"><param name=\"param-name\">param-value</param></function>' }}"
    "{{- '<|im_end|>\\n' }}"
    "{%- else %}{%- if messages[0].role == 'system' %}{{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}{%- endif %}{%- endif %}"
    "{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}"
    "{%- for message in messages[::-1] %}{%- set index = (messages|length - 1) - loop.index0 %}"
    "{%- if ns.multi_step_tool and message.role == \"user\" and message.content is string and not(message.content.startswith('<tool_response>') and message.content.endswith('</tool_response>')) %}"
    "{%- set ns.multi_step_tool = false %}{%- set ns.last_query_index = index %}{%- endif %}{%- endfor %}"
    "{%- for message in messages %}"
    "{%- if message.content is string %}{%- set content = message.content %}{%- else %}{%- set content = '' %}{%- endif %}"
    "{%- if (message.role == \"user\") or (message.role == \"system\" and not loop.first) %}"
    "{{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>' + '\\n' }}"
    "{%- elif message.role == \"assistant\" %}"
    "{%- set reasoning_content = '' %}"
    "{%- if message.reasoning_content is string %}{%- set reasoning_content = message.reasoning_content %}"
    "{%- else %}{%- if '</think>' in content %}"
    "{%- set reasoning_content = content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') %}"
    "{%- set content = content.split('</think>')[-1].lstrip('\\n') %}{%- endif %}{%- endif %}"
    "{%- if loop.index0 > ns.last_query_index %}"
    "{%- if reasoning_content %}{{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}"
    "{%- else %}{{- '<|im_start|>' + message.role + '\\n' + content }}{%- endif %}"
    "{%- else %}{{- '<|im_start|>' + message.role + '\\n' + content }}{%- endif %}"
    "{%- if message.tool_calls %}{%- for tool_call in message.tool_calls %}"
    "{%- if (loop.first and content) or (not loop.first) %}{{- '\\n' }}{%- endif %}"
    "{%- if tool_call.function %}{%- set tool_call = tool_call.function %}{%- endif %}"
    "{{- '<function name=\"' ~ tool_call.name ~ '\">' }}"
    "{%- if tool_call.arguments %}{%- set args_dict = tool_call.arguments %}" + _MINICPM5_PARAMS + "{%- endif %}"
    "{{- '</function>' }}{%- endfor %}{%- endif %}"
    "{{- '<|im_end|>\\n' }}"
    "{%- elif message.role == \"tool\" %}"
    "{%- if loop.first or (messages[loop.index0 - 1].role != \"tool\") %}{{- '<|im_start|>user' }}{%- endif %}"
    "{{- '\\n<tool_response>\\n' }}{{- content }}{{- '\\n</tool_response>' }}"
    "{%- if loop.last or (messages[loop.index0 + 1].role != \"tool\") %}{{- '<|im_end|>\\n' }}{%- endif %}"
    "{%- endif %}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}"
    "{%- if enable_thinking is defined %}{%- if enable_thinking is false %}{{- '<think>\\n\\n</think>\\n\\n' }}"
    "{%- elif enable_thinking is true %}{{- '<think>\\n' }}{%- endif %}{%- endif %}{%- endif %}"
)

CASES = [
    # (template, expected format, where the assistant's turn starts, how many calls it renders)
    (GIGACHAT3, "gigachat3", "assistant<|role_sep|>\n", 1),
    (GIGACHAT3_1, "gigachat3_1", "assistant<|role_sep|>\n", 1),
    (GIGACHAT3_5, "gigachat3_5", "assistant<|role_sep|>\n", 2),
    # (its assistant turn opens the reasoning, as its generation prompt does)
    (STEPFUN3_7, "step3_5", "<|im_start|>assistant\n<think>\n", 2),
    (MINICPM5, "minicpm5", "<|im_start|>assistant\n", 2),
]
IDS = [name for _, name, _, _ in CASES]


@pytest.mark.parametrize(("template", "name", "start", "count"), CASES, ids=IDS)
def test_the_template_is_detected_as_its_family(template, name, start, count):
    found = detect(template)
    fmt = get_format(name)
    assert found.name == name
    assert found.tools == fmt.tools
    assert (found.reasoning.open, found.reasoning.close, found.reasoning.toggle) == (fmt.reasoning.open, fmt.reasoning.close, fmt.reasoning.toggle)


@pytest.mark.parametrize(("template", "name", "start", "count"), CASES, ids=IDS)
def test_the_calls_the_template_renders_round_trip(template, name, start, count):
    written = [("get_weather", {"city": "Oslo <north>\nside"}), ("now", {})][:count]
    calls = [{"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": a}} for i, (n, a) in enumerate(written)]
    conversation = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "Let me look.", "tool_calls": calls}]
    rendered = render_jinja_template(conversations=[conversation], tools=TOOLS, chat_template=template, bos_token="", eos_token="")[0][0]
    turn = rendered[rendered.rindex(start) + len(start) :]
    fmt = get_format(name)
    for end in (fmt.eos, "<|im_end|>\n"):  # the turn's end, which a generation stops at
        turn = turn[: -len(end)] if turn.endswith(end) else turn
    message = parse(turn, format=fmt, thinking=start.endswith("<think>\n"))
    assert [(c.name, json.loads(c.arguments)) for c in message.tool_calls] == written
    assert message.content.strip() == "Let me look."
    assert not message.invalid_tool_calls
