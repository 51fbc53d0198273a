"""detect(): a chat format inferred from a chat template by rendering it.

The templates below are written from each model family's documentation and published chat
templates, keeping the quirks real templates have: a generation prompt that forces ``<think>\\n``
open, a section end left out after a single call, ``None`` written for empty content, reasoning
dropped from history, arguments always passed through ``tojson``.
"""

import dataclasses
import json
import types

import pytest

from thinkgate.formats import (
    DEEPSEEK_R1,
    DEEPSEEK_V3,
    DEEPSEEK_V3_1,
    GLM45,
    GPT_OSS,
    KIMI_K2,
    LLAMA3_JSON,
    MISTRAL,
    MISTRAL_JSON,
    QWEN3,
    QWEN3_CODER,
    ChatFormat,
    ReasoningFormat,
    is_text,
)
from thinkgate import detect
from thinkgate.formats.templates import chat_template

# DeepSeek-R1 (the January 2025 template): the prompt ends in "<｜Assistant｜><think>\n"; the first
# call writes the section begin and the section end is written only after each further call, so a
# single call leaves it out; the content is written as is before the calls (None for no content);
# earlier answers keep only what follows </think>, reasoning_content is never written.
R1_OFFICIAL = (
    "{% if not add_generation_prompt is defined %}{% set add_generation_prompt = false %}{% endif %}"
    "{% set ns = namespace(is_first=false, is_tool=false, is_output_first=true, system_prompt='') %}"
    "{%- for message in messages %}{%- if message['role'] == 'system' %}{% set ns.system_prompt = message['content'] %}{%- endif %}{%- endfor %}"
    "{{ bos_token }}{{ ns.system_prompt }}"
    "{%- for message in messages %}"
    "{%- if message['role'] == 'user' %}{%- set ns.is_tool = false -%}{{ '<｜User｜>' + message['content'] }}{%- endif %}"
    "{%- if message['role'] == 'assistant' and message['tool_calls'] %}{%- set ns.is_tool = false -%}"
    "{%- for tool in message['tool_calls'] %}"
    "{%- if not ns.is_first %}"
    "{{ '<｜Assistant｜>' }}{{ message['content'] }}"
    "{{ '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n```json\\n' + tool['function']['arguments'] + '\\n```<｜tool▁call▁end｜>' }}"
    "{%- set ns.is_first = true -%}"
    "{%- else %}"
    "{{ '\\n<｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n```json\\n' + tool['function']['arguments'] + '\\n```<｜tool▁call▁end｜>' }}"
    "{{ '<｜tool▁calls▁end｜><｜end▁of▁sentence｜>' }}"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- endif %}"
    "{%- if message['role'] == 'assistant' and not message['tool_calls'] %}"
    "{% set content = message['content'] %}{% if '</think>' in content %}{% set content = content.split('</think>')[-1] %}{% endif %}"
    "{%- if ns.is_tool %}{{ '<｜tool▁outputs▁end｜>' + content + '<｜end▁of▁sentence｜>' }}{%- set ns.is_tool = false -%}"
    "{%- else %}{{ '<｜Assistant｜>' + content + '<｜end▁of▁sentence｜>' }}{%- endif %}"
    "{%- endif %}"
    "{%- if message['role'] == 'tool' %}{%- set ns.is_tool = true -%}"
    "{%- if ns.is_output_first %}{{ '<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>' }}{%- set ns.is_output_first = false %}"
    "{%- else %}{{ '\\n<｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>' }}{%- endif %}"
    "{%- endif %}"
    "{%- endfor -%}"
    "{% if ns.is_tool %}{{ '<｜tool▁outputs▁end｜>' }}{% endif %}"
    "{% if add_generation_prompt and not ns.is_tool %}{{ '<｜Assistant｜><think>\\n' }}{% endif %}"
)

# DeepSeek-V3-0324: the same template, but the user turn writes "<｜Assistant｜>" and the prompt
# opens nothing (the model thinks only if it writes <think> itself).
V3_0324 = R1_OFFICIAL.replace("{{ '<｜User｜>' + message['content'] }}", "{{ '<｜User｜>' + message['content'] + '<｜Assistant｜>' }}").replace(
    "{{ '<｜Assistant｜><think>\\n' }}", "{{ '' }}"
)

# DeepSeek-V3.1: the prompt ends in "<think>" (thinking) or "</think>" (not, the default); calls
# are NAME<｜tool▁sep｜>ARGS back to back; answers in history keep only what follows </think>.
V3_1_OFFICIAL = (
    "{% if not add_generation_prompt is defined %}{% set add_generation_prompt = false %}{% endif %}"
    "{% if not thinking is defined %}{% set thinking = false %}{% endif %}"
    "{% set ns = namespace(is_first=false, is_tool=false, system_prompt='', is_first_sp=true, is_last_user=false) %}"
    "{%- for message in messages %}{%- if message['role'] == 'system' %}"
    "{%- if ns.is_first_sp %}{% set ns.system_prompt = ns.system_prompt + message['content'] %}{% set ns.is_first_sp = false %}"
    "{%- else %}{% set ns.system_prompt = ns.system_prompt + '\\n\\n' + message['content'] %}{%- endif %}"
    "{%- endif %}{%- endfor %}"
    "{{ bos_token }}{{ ns.system_prompt }}"
    "{%- for message in messages %}"
    "{%- if message['role'] == 'user' %}{%- set ns.is_tool = false -%}{%- set ns.is_first = false -%}{%- set ns.is_last_user = true -%}"
    "{{ '<｜User｜>' + message['content'] }}{%- endif %}"
    "{%- if message['role'] == 'assistant' and message['tool_calls'] is defined and message['tool_calls'] is not none %}"
    "{%- if ns.is_last_user %}{{ '<｜Assistant｜></think>' }}{%- endif %}"
    "{%- set ns.is_last_user = false -%}{%- set ns.is_first = false %}{%- set ns.is_tool = false -%}"
    "{%- for tool in message['tool_calls'] %}"
    "{%- if not ns.is_first %}"
    "{%- if message['content'] is none %}{{ '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['function']['name'] + '<｜tool▁sep｜>' + tool['function']['arguments'] + '<｜tool▁call▁end｜>' }}"
    "{%- else %}{{ message['content'] + '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['function']['name'] + '<｜tool▁sep｜>' + tool['function']['arguments'] + '<｜tool▁call▁end｜>' }}"
    "{%- endif %}{%- set ns.is_first = true -%}"
    "{%- else %}{{ '<｜tool▁call▁begin｜>' + tool['function']['name'] + '<｜tool▁sep｜>' + tool['function']['arguments'] + '<｜tool▁call▁end｜>' }}"
    "{%- endif %}"
    "{%- endfor %}"
    "{{ '<｜tool▁calls▁end｜><｜end▁of▁sentence｜>' }}"
    "{%- endif %}"
    "{%- if message['role'] == 'assistant' and (message['tool_calls'] is not defined or message['tool_calls'] is none) %}"
    "{%- if ns.is_last_user %}{{ '<｜Assistant｜></think>' }}{%- endif %}"
    "{%- set ns.is_last_user = false -%}"
    "{%- set content = message['content'] -%}{%- if '</think>' in content %}{%- set content = content.split('</think>', 1)[1] -%}{%- endif %}"
    "{{ content + '<｜end▁of▁sentence｜>' }}"
    "{%- endif %}"
    "{%- if message['role'] == 'tool' %}{%- set ns.is_last_user = false -%}{%- set ns.is_tool = true -%}"
    "{{ '<｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>' }}{%- endif %}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt and ns.is_last_user and not ns.is_tool %}{{ '<｜Assistant｜>' }}"
    "{%- if not thinking %}{{ '</think>' }}{%- else %}{{ '<think>' }}{%- endif %}{% endif %}"
)

# Qwen3: ChatML; the prompt is "<|im_start|>assistant\n", with enable_thinking=False followed by
# an empty "<think>\n\n</think>\n\n"; reasoning is written only for turns after the last user
# query (dropped from earlier history); calls are <tool_call>\n{"name": …, "arguments": …}\n</tool_call>
# separated by "\n".
QWEN3_OFFICIAL = """
{%- if tools %}
    {{- '<|im_start|>system\\n' }}
    {%- if messages[0].role == 'system' %}
        {{- messages[0].content + '\\n\\n' }}
    {%- endif %}
    {{- "# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>" }}
    {%- for tool in tools %}
        {{- "\\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\\n</tool_call><|im_end|>\\n" }}
{%- else %}
    {%- if messages[0].role == 'system' %}
        {{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}
    {%- endif %}
{%- endif %}
{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}
{%- for message in messages[::-1] %}
    {%- set index = (messages|length - 1) - loop.index0 %}
    {%- if ns.multi_step_tool and message.role == "user" and message.content is string and not(message.content.startswith('<tool_response>') and message.content.endswith('</tool_response>')) %}
        {%- set ns.multi_step_tool = false %}
        {%- set ns.last_query_index = index %}
    {%- endif %}
{%- endfor %}
{%- for message in messages %}
    {%- if message.content is string %}
        {%- set content = message.content %}
    {%- else %}
        {%- set content = '' %}
    {%- endif %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) %}
        {{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>' + '\\n' }}
    {%- elif message.role == "assistant" %}
        {%- set reasoning_content = '' %}
        {%- if message.reasoning_content is string %}
            {%- set reasoning_content = message.reasoning_content %}
        {%- else %}
            {%- if '</think>' in content %}
                {%- set reasoning_content = content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') %}
                {%- set content = content.split('</think>')[-1].lstrip('\\n') %}
            {%- endif %}
        {%- endif %}
        {%- if loop.index0 > ns.last_query_index %}
            {%- if loop.last or (not loop.last and reasoning_content) %}
                {{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}
            {%- else %}
                {{- '<|im_start|>' + message.role + '\\n' + content }}
            {%- endif %}
        {%- else %}
            {{- '<|im_start|>' + message.role + '\\n' + content }}
        {%- endif %}
        {%- if message.tool_calls %}
            {%- for tool_call in message.tool_calls %}
                {%- if (loop.first and content) or (not loop.first) %}
                    {{- '\\n' }}
                {%- endif %}
                {%- if tool_call.function %}
                    {%- set tool_call = tool_call.function %}
                {%- endif %}
                {{- '<tool_call>\\n{"name": "' }}
                {{- tool_call.name }}
                {{- '", "arguments": ' }}
                {%- if tool_call.arguments is string %}
                    {{- tool_call.arguments }}
                {%- else %}
                    {{- tool_call.arguments | tojson }}
                {%- endif %}
                {{- '}\\n</tool_call>' }}
            {%- endfor %}
        {%- endif %}
        {{- '<|im_end|>\\n' }}
    {%- elif message.role == "tool" %}
        {%- if loop.first or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\\n<tool_response>\\n' }}
        {{- content }}
        {{- '\\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
    {%- if enable_thinking is defined and enable_thinking is false %}
        {{- '<think>\\n\\n</think>\\n\\n' }}
    {%- endif %}
{%- endif %}
"""

# Qwen2.5 / Hermes: the same call layout, no reasoning at all, and the arguments always passed
# through tojson (a string argument would be written as a JSON string).
QWEN25_HERMES = """
{%- if tools %}
    {{- '<|im_start|>system\\n' }}
    {%- if messages[0]['role'] == 'system' %}{{- messages[0]['content'] }}{%- else %}{{- 'You are a helpful assistant.' }}{%- endif %}
    {{- "\\n\\n# Tools\\n\\n<tools>" }}
    {%- for tool in tools %}{{- "\\n" }}{{- tool | tojson }}{%- endfor %}
    {{- "\\n</tools>\\n\\nReturn each call within <tool_call></tool_call> XML tags.<|im_end|>\\n" }}
{%- elif messages[0]['role'] == 'system' %}
    {{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}{{- '\\n' + message.content }}{%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}
            {{- '\\n<tool_call>\\n{"name": "' }}{{- tool_call.name }}{{- '", "arguments": ' }}{{- tool_call.arguments | tojson }}{{- '}\\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}{{- '<|im_start|>user' }}{%- endif %}
        {{- '\\n<tool_response>\\n' }}{{- message.content }}{{- '\\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}{{- '<|im_end|>\\n' }}{%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}
"""

# A plain ChatML template with no tool support: tool_calls are never written.
NO_TOOLS = (
    "{% for m in messages %}{{ '<|im_start|>' + m.role + '\\n' }}{{ m.content }}{{ '<|im_end|>\\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)

# Tool calls in a layout no registered format describes: the arguments before the name (functionary v3.1's
# <function=NAME>{…}</function>, once this test's example, is a registered format now).
FUNCTION_TAGS = (
    "{% for m in messages %}{{ '<|start|>' + m.role + '\\n' }}"
    "{% if m.tool_calls %}{% for tc in m.tool_calls %}"
    "{{ '<call args=' + (tc.function.arguments if tc.function.arguments is string else tc.function.arguments | tojson) + ' name=' + tc.function.name + '/>' }}"
    "{% endfor %}{% elif m.content %}{{ m.content }}{% endif %}{{ '<|end|>' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start|>assistant\\n' }}{% endif %}"
)

# Kimi-K2: the call header is the call's id, functions.NAME:INDEX, written back from tool_call.id.
KIMI_K2_LIKE = (
    "{%- for message in messages -%}"
    "{%- if message['role'] == 'assistant' -%}<|im_assistant|>assistant<|im_middle|>"
    "{%- if message.get('tool_calls') -%}<|tool_calls_section_begin|>"
    "{%- for tool_call in message['tool_calls'] -%}<|tool_call_begin|>{{ tool_call['id'] }}<|tool_call_argument_begin|>"
    "{%- if tool_call['function']['arguments'] is string -%}{{ tool_call['function']['arguments'] }}{%- else -%}{{ tool_call['function']['arguments'] | tojson }}{%- endif -%}"
    "<|tool_call_end|>{%- endfor -%}<|tool_calls_section_end|>"
    "{%- else -%}{{ message['content'] }}{%- endif -%}<|im_end|>"
    "{%- elif message['role'] == 'tool' -%}<|im_system|>tool<|im_middle|>## Return of {{ message['tool_call_id'] }}\\n{{ message['content'] }}<|im_end|>"
    "{%- else -%}<|im_{{ message['role'] }}|>{{ message['role'] }}<|im_middle|>{{ message['content'] }}<|im_end|>"
    "{%- endif -%}{%- endfor -%}"
    "{%- if add_generation_prompt -%}<|im_assistant|>assistant<|im_middle|>{%- endif -%}"
)

# Mistral (tokenizer v11+): [TOOL_CALLS]NAME[ARGS]{...} per call; reasoning in [THINK]...[/THINK]
# kept in history; no generation prompt (the model continues after [/INST]).
MISTRAL_LIKE = (
    "{{- bos_token -}}{%- for message in messages -%}"
    "{%- if message['role'] == 'user' -%}[INST]{{ message['content'] }}[/INST]"
    "{%- elif message['role'] == 'system' -%}[SYSTEM_PROMPT]{{ message['content'] }}[/SYSTEM_PROMPT]"
    "{%- elif message['role'] == 'assistant' -%}"
    "{%- if message.get('reasoning_content') -%}[THINK]{{ message['reasoning_content'] }}[/THINK]{%- endif -%}"
    "{%- if message['content'] -%}{{ message['content'] }}{%- endif -%}"
    "{%- for tc in message.get('tool_calls') or [] -%}[TOOL_CALLS]{{ tc['function']['name'] }}[ARGS]"
    "{%- if tc['function']['arguments'] is string -%}{{ tc['function']['arguments'] }}{%- else -%}{{ tc['function']['arguments'] | tojson }}{%- endif -%}"
    "{%- endfor -%}{{- eos_token -}}"
    "{%- elif message['role'] == 'tool' -%}[TOOL_RESULTS]{{ message['content'] }}[/TOOL_RESULTS]"
    "{%- endif -%}{%- endfor -%}"
)


# Mistral 7B v0.3 (tokenizer v3), after its published chat template: one [TOOL_CALLS] then a JSON
# array of the calls, each object written through tojson with its last brace cut off to add the
# call's id (which must be nine characters, or the template raises); roles must alternate, tool
# turns aside (so a user turn after the tool results raises); no reasoning.
MISTRAL_JSON_LIKE = (
    "{%- if messages[0]['role'] == 'system' %}{%- set system_message = messages[0]['content'] %}{%- set loop_messages = messages[1:] %}"
    "{%- else %}{%- set loop_messages = messages %}{%- endif %}"
    "{%- if not tools is defined %}{%- set tools = none %}{%- endif %}"
    "{%- set user_messages = loop_messages | selectattr('role', 'equalto', 'user') | list %}"
    "{%- set ns = namespace() %}{%- set ns.index = 0 %}"
    "{%- for message in loop_messages %}"
    "{%- if not (message.role == 'tool' or message.role == 'tool_results' or (message.tool_calls is defined and message.tool_calls is not none)) %}"
    "{%- if (message['role'] == 'user') != (ns.index % 2 == 0) %}"
    "{{- raise_exception('After the optional system message, conversation roles must alternate user/assistant/user/assistant/...') }}"
    "{%- endif %}{%- set ns.index = ns.index + 1 %}{%- endif %}{%- endfor %}"
    "{{- bos_token }}"
    "{%- for message in loop_messages %}"
    "{%- if message['role'] == 'user' %}"
    "{%- if tools is not none and (message == user_messages[-1]) %}{{- '[AVAILABLE_TOOLS] [' }}"
    "{%- for tool in tools %}{{- '{\"type\": \"function\", \"function\": ' + tool.function | tojson + '}' }}"
    "{%- if not loop.last %}{{- ', ' }}{%- else %}{{- ']' }}{%- endif %}{%- endfor %}{{- '[/AVAILABLE_TOOLS]' }}{%- endif %}"
    "{%- if loop.last and system_message is defined %}{{- '[INST] ' + system_message + '\\n\\n' + message['content'] + '[/INST]' }}"
    "{%- else %}{{- '[INST] ' + message['content'] + '[/INST]' }}{%- endif %}"
    "{%- elif message.tool_calls is defined and message.tool_calls is not none %}{{- '[TOOL_CALLS] [' }}"
    "{%- for tool_call in message.tool_calls %}{%- set out = tool_call.function | tojson %}{{- out[:-1] }}"
    "{%- if not tool_call.id is defined or tool_call.id | length != 9 %}{{- raise_exception('Tool call IDs should be alphanumeric strings with length 9!') }}{%- endif %}"
    "{{- ', \"id\": \"' + tool_call.id + '\"}' }}"
    "{%- if not loop.last %}{{- ', ' }}{%- else %}{{- ']' + eos_token }}{%- endif %}{%- endfor %}"
    "{%- elif message['role'] == 'assistant' %}{{- ' ' + message['content'] | trim + eos_token }}"
    "{%- elif message['role'] == 'tool_results' or message['role'] == 'tool' %}"
    "{{- '[TOOL_RESULTS] {\"content\": ' + message.content | string + ', ' }}"
    "{%- if not message.tool_call_id is defined or message.tool_call_id | length != 9 %}{{- raise_exception('Tool call IDs should be alphanumeric strings with length 9!') }}{%- endif %}"
    "{{- '\"call_id\": \"' + message.tool_call_id + '\"}[/TOOL_RESULTS]' }}"
    "{%- else %}{{- raise_exception('Only user and assistant roles are supported, with the exception of an initial optional system message!') }}"
    "{%- endif %}{%- endfor %}"
)

# gpt-oss (harmony), after its published chat template: a system message with the tools as a
# TypeScript-like namespace, each turn <|start|>ROLE<|message|>…<|end|>; an assistant call written
# recipient first (to=functions.NAME<|channel|>commentary json), only the first call of a turn,
# arguments through tojson; the thinking of a call turn in an analysis message; tool results from
# functions.NAME to=assistant; the generation prompt <|start|>assistant.
GPT_OSS_LIKE = (
    "{{- '<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\\n"
    "Reasoning: medium\\n\\n# Valid channels: analysis, commentary, final. Channel must be included for every message.' }}"
    "{%- if tools %}{{- '\\nCalls to these tools must go to the commentary channel: \\'functions\\'.' }}{%- endif %}"
    "{{- '<|end|>' }}"
    "{%- if tools %}{{- '<|start|>developer<|message|># Tools\\n\\n## functions\\n\\nnamespace functions {\\n' }}"
    "{%- for tool in tools %}{{- '\\ntype ' + tool.function.name + ' = (_: ' + (tool.function.parameters | tojson) + ') => any;\\n' }}{%- endfor %}"
    "{{- '\\n} // namespace functions<|end|>' }}{%- endif %}"
    "{%- set last_tool_call = namespace(name=none) %}"
    "{%- for message in messages -%}"
    "{%- if message.role == 'assistant' -%}"
    "{%- if message.tool_calls %}"
    "{%- set tool_call = message.tool_calls[0] %}{%- if tool_call.function %}{%- set tool_call = tool_call.function %}{%- endif %}"
    "{%- if message.thinking %}{{- '<|start|>assistant<|channel|>analysis<|message|>' + message.thinking + '<|end|>' }}{%- endif %}"
    "{{- '<|start|>assistant to=' }}{{- 'functions.' + tool_call.name + '<|channel|>commentary ' }}"
    "{{- (tool_call.content_type if tool_call.content_type is defined else 'json') + '<|message|>' }}"
    "{{- tool_call.arguments | tojson }}{{- '<|call|>' }}"
    "{%- set last_tool_call.name = tool_call.name %}"
    "{%- else %}{{- '<|start|>assistant<|channel|>final<|message|>' + (message.content or '') + '<|end|>' }}{%- endif %}"
    "{%- elif message.role == 'tool' -%}"
    "{{- '<|start|>functions.' + last_tool_call.name + ' to=assistant<|channel|>commentary<|message|>' + (message.content | tojson) + '<|end|>' }}"
    "{%- elif message.role == 'user' -%}{{- '<|start|>user<|message|>' + message.content + '<|end|>' }}"
    "{%- endif -%}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}<|start|>assistant{%- endif -%}"
)


# Llama 3.1 (after Meta's prompt-format page and the template its models ship): tools in the first
# user message, a call written as {"name": …, "parameters": …} and nothing else, one call per turn
# (two raise), tool results in an ipython turn, every turn ended by <|eot_id|>.
LLAMA31_LIKE = (
    "{{- bos_token }}"
    "{%- if messages[0]['role'] == 'system' %}{%- set system_message = messages[0]['content']|trim %}{%- set messages = messages[1:] %}"
    "{%- else %}{%- set system_message = '' %}{%- endif %}"
    "{{- '<|start_header_id|>system<|end_header_id|>\n\n' }}"
    "{%- if tools is not none %}{{- 'Environment: ipython\n' }}{%- endif %}"
    "{{- 'Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n' }}"
    "{{- system_message }}{{- '<|eot_id|>' }}"
    "{%- if tools is not none %}"
    "{%- set first_user_message = messages[0]['content']|trim %}{%- set messages = messages[1:] %}"
    "{{- '<|start_header_id|>user<|end_header_id|>\n\n' -}}"
    "{{- 'Given the following functions, please respond with a JSON for a function call with its proper arguments that best answers the given prompt.\n\n' }}"
    "{{- 'Respond in the format {\"name\": function name, \"parameters\": dictionary of argument name and its value}.' }}"
    "{{- 'Do not use variables.\n\n' }}"
    "{%- for t in tools %}{{- t | tojson(indent=4) }}{{- '\n\n' }}{%- endfor %}"
    "{{- first_user_message + '<|eot_id|>'}}"
    "{%- endif %}"
    "{%- for message in messages %}"
    "{%- if not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message) %}"
    "{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' }}"
    "{%- elif 'tool_calls' in message %}"
    "{%- if not message.tool_calls|length == 1 %}{{- raise_exception('This model only supports single tool-calls at once!') }}{%- endif %}"
    "{%- set tool_call = message.tool_calls[0].function %}"
    "{{- '<|start_header_id|>assistant<|end_header_id|>\n\n' -}}"
    "{{- '{\"name\": \"' + tool_call.name + '\", ' }}{{- '\"parameters\": ' }}{{- tool_call.arguments | tojson }}{{- '}' }}"
    "{{- '<|eot_id|>' }}"
    "{%- elif message.role == 'tool' or message.role == 'ipython' %}"
    "{{- '<|start_header_id|>ipython<|end_header_id|>\n\n' }}"
    "{%- if message.content is mapping or message.content is iterable %}{{- message.content | tojson }}{%- else %}{{- message.content }}{%- endif %}"
    "{{- '<|eot_id|>' }}"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{%- endif %}"
)


def test_llama31_template_is_llama3_json_though_it_refuses_two_calls():
    # Its arguments go through tojson (a string argument would be quoted twice), it raises on two
    # calls in a turn, and nothing in it thinks.
    assert detect(LLAMA31_LIKE) is LLAMA3_JSON


def test_gpt_oss_template_is_harmony():
    # The calls are read with the harmony parser (recipient before the channel, one call a turn);
    # the prompt ends in <|start|>assistant, and the model opens the analysis channel itself.
    assert detect(GPT_OSS_LIKE) is GPT_OSS


@pytest.mark.parametrize("fmt", [DEEPSEEK_R1, DEEPSEEK_V3, DEEPSEEK_V3_1])
def test_the_default_templates_give_their_own_format(fmt):
    assert detect(chat_template(fmt)) is fmt


def test_r1_official_template_forced_open_with_its_quirks():
    # A single call leaves out <｜tool▁calls▁end｜>, the call is preceded by "None", reasoning is
    # never written: the tool layout is the code block one, the forced-open prompt makes it R1.
    assert detect(R1_OFFICIAL) is DEEPSEEK_R1


def test_v3_0324_template_is_v3_not_r1():
    # The same tool layout as R1; nothing forces <think> open.
    assert detect(V3_0324) is DEEPSEEK_V3
    assert detect(R1_OFFICIAL.replace("<think>\\n' }}{% endif %}", "' }}{% endif %}")) is DEEPSEEK_V3


def test_v3_1_official_template_with_its_thinking_toggle():
    assert detect(V3_1_OFFICIAL) is DEEPSEEK_V3_1
    assert DEEPSEEK_V3_1.reasoning.toggle == "thinking"


def test_the_thinking_toggle_is_read_by_its_keyword():
    # The V3.1 layout read under Qwen3's keyword: the same prompts, another toggle.
    fmt = detect(V3_1_OFFICIAL.replace("thinking", "enable_thinking"))
    assert fmt.name == "deepseek_v3_1:detected"
    assert fmt.reasoning == dataclasses.replace(DEEPSEEK_V3_1.reasoning, toggle="enable_thinking")
    # A toggle that changes nothing in the prompt is no toggle: the format's own stands.
    assert detect(QWEN3_OFFICIAL).reasoning.toggle == "enable_thinking"
    assert _toggle_of(QWEN3_OFFICIAL.replace("enable_thinking is defined and enable_thinking is false", "false")) is None


def _toggle_of(template):
    from thinkgate.detection import _renderer, _toggle, _TOGGLES, _user_turn

    render = _renderer(template, {"bos_token": "", "eos_token": ""})
    prompts = {t: render(_user_turn(), add_generation_prompt=True, **kw) for t, kw in _TOGGLES.items()}
    return _toggle(render, prompts)


def test_v3_1_layout_forced_open_gives_a_derived_format():
    # A V3.1-layout template whose prompt always ends in <think>: the registered V3.1 would start
    # such an output in the answer, so detect derives a format that starts it inside reasoning.
    forced = V3_1_OFFICIAL.replace("{%- if not thinking %}{{ '</think>' }}{%- else %}{{ '<think>' }}{%- endif %}", "{{ '<think>' }}")
    fmt = detect(forced)
    assert fmt.name == "deepseek_v3_1:detected"
    # The template ignores the toggle: no evidence against V3.1's own, which stands.
    assert fmt.reasoning == ReasoningFormat("<think>", "</think>", default_thinking=True, toggle="thinking")
    assert fmt.tools == DEEPSEEK_V3_1.tools and fmt.eos == DEEPSEEK_V3_1.eos
    assert fmt == dataclasses.replace(DEEPSEEK_V3_1, name=fmt.name, reasoning=fmt.reasoning, aliases=(), description=fmt.description)


def test_markers_are_read_from_the_template_not_assumed():
    # The V3.1 layout with <reasoning>…</reasoning> markers, found from the toggle's prompts.
    renamed = V3_1_OFFICIAL.replace("think>", "reasoning>")
    fmt = detect(renamed)
    assert fmt.name == "deepseek_v3_1:detected"
    assert fmt.reasoning == ReasoningFormat("<reasoning>", "</reasoning>", default_thinking="auto", toggle="thinking")


def test_qwen3_template():
    assert detect(QWEN3_OFFICIAL) is QWEN3


def test_qwen3_markers_come_from_the_rendered_reasoning():
    # No thinking toggle: the markers are read around the reasoning the template writes.
    no_toggle = QWEN3_OFFICIAL.replace("enable_thinking is defined and enable_thinking is false", "false")
    assert detect(no_toggle) is QWEN3
    renamed = no_toggle.replace("<think>", "<thought>").replace("</think>", "</thought>")
    assert detect(renamed).reasoning == ReasoningFormat("<thought>", "</thought>", "auto", toggle="enable_thinking")


def test_hermes_qwen25_template_without_thinking_is_qwen3():
    # No reasoning evidence at all: qwen3's reasoning ("auto": the output starts in the answer
    # unless the model opens <think>, which a model without reasoning never does) describes it.
    assert detect(QWEN25_HERMES) is QWEN3


def test_a_role_tag_the_prompt_ends_in_is_not_taken_for_reasoning():
    # The prompt ends in <assistant>, whose twin </assistant> the template spells, as R1's ends in
    # <think> and spells </think>; but </assistant> closes every assistant turn: it is a role.
    xml_roles = (
        "{% for m in messages %}"
        "{% if m.role == 'assistant' %}{{ '<assistant>' }}{{ m.content if m.content is string else '' }}"
        "{% for tc in m.tool_calls or [] %}{{ '\\n<tool_call>\\n' + ({'name': tc.function.name, 'arguments': tc.function.arguments} | tojson) + '\\n</tool_call>' }}{% endfor %}"
        "{{ '</assistant>' }}{% else %}{{ '<' + m.role + '>' + m.content + '</' + m.role + '>' }}{% endif %}"
        "{% endfor %}{% if add_generation_prompt %}{{ '<assistant>\\n' }}{% endif %}"
    )
    assert detect(xml_roles) is QWEN3


def test_kimi_like_template_with_call_ids_in_the_header():
    assert detect(KIMI_K2_LIKE) is KIMI_K2


def test_mistral_like_template_with_bracket_markers():
    assert detect(MISTRAL_LIKE) is MISTRAL


def test_mistral_v3_template_with_a_json_array_and_ids_in_the_objects():
    assert detect(MISTRAL_JSON_LIKE) is MISTRAL_JSON
    # Nemo's template writes the array right after the marker
    assert detect(MISTRAL_JSON_LIKE.replace("[TOOL_CALLS] [", "[TOOL_CALLS][")) is MISTRAL_JSON
    # the two Mistral layouts are not mistaken for each other
    assert detect(MISTRAL_LIKE) is not MISTRAL_JSON


def test_a_template_without_tool_calls_is_an_error_naming_it():
    with pytest.raises(ValueError, match=r"tool-call format.*renders no tool calls.*deepseek_r1.*qwen3"):
        detect(NO_TOOLS)


def test_tool_calls_in_an_unknown_layout_are_an_error_showing_them():
    with pytest.raises(ValueError, match=r"layout no candidate matches \(formats tried: deepseek_r1.*\); a call renders as .*<call args=.* name=probe_lookup/>"):
        detect(FUNCTION_TAGS)


def test_a_template_that_does_not_compile_is_an_error():
    with pytest.raises(ValueError, match="does not compile"):
        detect("{% for m in messages %}")


def test_candidates_can_be_narrowed_or_extended():
    # Only the candidates given are tried.
    with pytest.raises(ValueError, match=r"formats tried: deepseek_v3_1\)"):
        detect(R1_OFFICIAL, formats=["deepseek_v3_1"])
    # A format not in the registry is a candidate like any other.
    custom = ChatFormat("custom_r1", DEEPSEEK_R1.reasoning, DEEPSEEK_R1.tools, DEEPSEEK_R1.eos)
    assert detect(R1_OFFICIAL, formats=[custom, "deepseek_v3"]) is custom
    with pytest.raises(ValueError, match="no candidate"):
        detect(R1_OFFICIAL, formats=[])


@pytest.fixture(scope="module")
def fresh_tokenizer():
    # Not the session fixture: these tests set chat_template on it.
    from thinkgate.demo import deepseek_tokenizer

    return deepseek_tokenizer()


def test_a_real_tokenizer_with_and_without_a_template(fresh_tokenizer):
    tok = fresh_tokenizer
    tok.chat_template = None
    with pytest.raises(ValueError, match="has no chat template"):
        detect(tok)
    tok.chat_template = R1_OFFICIAL
    assert detect(tok) is DEEPSEEK_R1
    tok.chat_template = V3_1_OFFICIAL
    assert detect(tok) is DEEPSEEK_V3_1
    # It renders what apply_chat_template renders.
    text = tok.apply_chat_template([{"role": "user", "content": "hi"}], add_generation_prompt=True, tokenize=False, thinking=True)
    assert text.endswith("<｜Assistant｜><think>")


def test_named_templates_prefer_tool_use():
    tok = types.SimpleNamespace(chat_template={"default": NO_TOOLS, "tool_use": QWEN3_OFFICIAL}, bos_token=None, eos_token="<|im_end|>")
    assert detect(tok) is QWEN3
    tok.chat_template = {"default": V3_1_OFFICIAL, "rag": NO_TOOLS}
    assert detect(tok) is DEEPSEEK_V3_1
    with pytest.raises(TypeError):
        detect(3)


def test_without_transformers_rendering_the_same_jinja_setup_is_used(monkeypatch):
    # A transformers without its chat-template helpers: detect falls back to the same Jinja setup
    # (sandbox, trim_blocks/lstrip_blocks, loopcontrols, a tojson that keeps non-ASCII text).
    import sys

    monkeypatch.setitem(sys.modules, "transformers.utils.chat_template_utils", types.ModuleType("stripped"))
    assert detect(R1_OFFICIAL) is DEEPSEEK_R1
    assert detect(QWEN25_HERMES) is QWEN3
    assert detect(V3_1_OFFICIAL) is DEEPSEEK_V3_1
    looped = "{% for m in messages %}{% if m.role == 'system' %}{% continue %}{% endif %}{{ m.content }}{% endfor %}"
    with pytest.raises(ValueError, match="renders no tool calls"):
        detect(looped)


def test_apply_chat_template_switches_thinking_by_the_formats_keyword(qwen_tokenizer):
    from thinkgate.formats.templates import apply_chat_template

    # Qwen3's template reads enable_thinking only; off, it closes an empty reasoning block.
    turn = [{"role": "user", "content": "hi"}]
    off = qwen_tokenizer.decode(apply_chat_template(qwen_tokenizer, turn, QWEN3, thinking=False, template=QWEN3_OFFICIAL))
    on = qwen_tokenizer.decode(apply_chat_template(qwen_tokenizer, turn, QWEN3, thinking=True, template=QWEN3_OFFICIAL))
    assert off.endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    assert on.endswith("<|im_start|>assistant\n")


# Qwen3-Coder, after the template its models ship: each call "\n<tool_call>\n<function=NAME>\n",
# a parameter per argument (a mapping or list through tojson, anything else through |string),
# "</function>\n</tool_call>"; no reasoning; the generation prompt <|im_start|>assistant\n.
QWEN3_CODER_LIKE = """
{%- for message in messages %}
    {%- if message.role == "system" or message.role == "user" %}
        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role + '\\n' + (message.content if message.content is string else '') }}
        {%- if message.tool_calls is defined and message.tool_calls %}
            {%- for tool_call in message.tool_calls %}
                {%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}
                {{- '\\n<tool_call>\\n<function=' + tool_call.name + '>\\n' }}
                {%- if tool_call.arguments is defined %}
                    {%- for args_name, args_value in tool_call.arguments|items %}
                        {{- '<parameter=' + args_name + '>\\n' }}
                        {%- set args_value = args_value | tojson | safe if args_value is mapping or (args_value is sequence and args_value is not string) else args_value | string %}
                        {{- args_value }}
                        {{- '\\n</parameter>\\n' }}
                    {%- endfor %}
                {%- endif %}
                {{- '</function>\\n</tool_call>' }}
            {%- endfor %}
        {%- endif %}
        {{- '<|im_end|>\\n' }}
    {%- elif message.role == "tool" %}
        {{- '<|im_start|>user\\n<tool_response>\\n' + message.content + '\\n</tool_response><|im_end|>\\n' }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}
"""

# GLM-4.5, after the template its models ship (rendered with trim_blocks and lstrip_blocks):
# reasoning kept only after the last user turn, an empty <think></think> otherwise and in the
# prompt when enable_thinking is false; each call "\n<tool_call>NAME", a key/value pair per
# argument (a string bare, anything else through tojson), "</tool_call>"; no end-of-turn marker.
GLM45_LIKE = """[gMASK]<sop>
{%- if tools -%}<|system|>
# Tools
{% for tool in tools %}{{ tool | tojson(ensure_ascii=False) }}
{% endfor %}
{%- endif -%}
{%- set ns = namespace(last_user_index=-1) %}
{%- for m in messages %}{%- if m.role == 'user' %}{% set ns.last_user_index = loop.index0 -%}{%- endif %}{%- endfor %}
{% for m in messages %}
{%- if m.role == 'user' -%}<|user|>
{{ m.content }}{{- '/nothink' if (enable_thinking is defined and not enable_thinking and not m.content.endswith("/nothink")) else '' -}}
{%- elif m.role == 'assistant' -%}
<|assistant|>
{%- set reasoning_content = m.reasoning_content if m.reasoning_content is string else '' %}
{%- set content = m.content if m.content is string else '' %}
{%- if loop.index0 > ns.last_user_index and reasoning_content -%}
{{ '\\n<think>' + reasoning_content.strip() + '</think>'}}
{%- else -%}
{{ '\\n<think></think>' }}
{%- endif -%}
{%- if content.strip() -%}
{{ '\\n' + content.strip() }}
{%- endif -%}
{% if m.tool_calls %}
{% for tc in m.tool_calls %}
{%- if tc.function %}
    {%- set tc = tc.function %}
{%- endif %}
{{ '\\n<tool_call>' + tc.name }}
{% set _args = tc.arguments %}
{% for k, v in _args.items() %}
<arg_key>{{ k }}</arg_key>
<arg_value>{{ v | tojson(ensure_ascii=False) if v is not string else v }}</arg_value>
{% endfor %}
</tool_call>{% endfor %}
{% endif %}
{%- elif m.role == 'tool' -%}
<|observation|>
<tool_response>
{{ m.content }}
</tool_response>
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}
<|assistant|>{{- '\\n<think></think>' if (enable_thinking is defined and not enable_thinking) else '' -}}
{%- endif -%}
"""


def test_qwen3_coder_template_is_parameters_in_function_tags():
    assert detect(QWEN3_CODER_LIKE) is QWEN3_CODER


def test_glm45_template_is_key_value_tags_with_its_thinking_toggle():
    assert detect(GLM45_LIKE) is GLM45


# MiniMax-M2's chat format as its model card documents it: ]~b]ROLE turns ended by [e~[, the
# calls as a <minimax:tool_call> block of <invoke> elements (a string parameter bare, any other
# value as JSON), reasoning written <think>\nR\n</think>\n\n before the answer, and a generation
# prompt that opens <think> (so the output starts inside reasoning). Written here from those facts.
MINIMAX_M2_LIKE = (
    "{{- ']~!b[]~b]system\n' }}"
    "{%- if tools %}{{- 'You may call tools:\n' }}{%- for t in tools %}{{- t.function | tojson }}{%- endfor %}{%- endif %}"
    "{{- '[e~[\n' }}"
    "{%- for m in messages %}"
    "{%- if m.role == 'user' %}{{- ']~b]user\n' + m.content + '[e~[\n' }}"
    "{%- elif m.role == 'assistant' %}"
    "{{- ']~b]ai\n' }}"
    "{%- if m.reasoning_content %}{{- '<think>\n' + m.reasoning_content + '\n</think>\n\n' }}{%- endif %}"
    "{%- if m.content %}{{- m.content }}{%- endif %}"
    "{%- if m.tool_calls %}{{- '\n<minimax:tool_call>\n' }}"
    "{%- for c in m.tool_calls %}{{- '<invoke name=\"' + c.function.name + '\">\n' }}"
    "{%- for k, v in c.function.arguments | items %}"
    "{{- '<parameter name=\"' + k + '\">' }}{%- if v is string %}{{- v }}{%- else %}{{- v | tojson }}{%- endif %}{{- '</parameter>\n' }}"
    "{%- endfor %}{{- '</invoke>\n' }}{%- endfor %}{{- '</minimax:tool_call>' }}{%- endif %}"
    "{{- '[e~[\n' }}"
    "{%- elif m.role == 'tool' %}{{- ']~b]tool\n<response>' + m.content + '</response>[e~[\n' }}"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- ']~b]ai\n<think>\n' }}{%- endif %}"
)


def test_minimax_m2_template_is_minimax_m2():
    # Its tool markup is text, found in the rendered calls like any marker; the prompt ends in
    # "<think>\n": the output starts inside reasoning.
    from thinkgate.formats import MINIMAX_M2

    assert detect(MINIMAX_M2_LIKE) is MINIMAX_M2


# --- the layout, not the bytes (issue 18) ----------------------------------------------------------
#
# vLLM's example tool templates are written one statement a line; under trim_blocks and
# lstrip_blocks the indentation before a {{ … }} stays, so their calls come out indented.

# After vLLM's examples/tool_chat_template_deepseekr1.jinja: an instruction in the system prompt
# that spells a call, the user turn ending in <｜Assistant｜> (no <think> opened), the arguments
# through tojson, every call indented, the section closed after any number of calls.
R1_VLLM_LIKE = """{% set ns = namespace(is_first=false, is_last_user=false) %}
{%- if tools is defined and tools is not none %}
    {{- 'Use this format:\\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>FUNCTION_NAME\\n```json\\n{"param1": "value1"}\\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>\\n' }}
{%- endif %}
{%- for message in messages %}
    {% set content = message['content'] %}
    {%- if message['role'] == 'user' %}
        {%- set ns.is_first = false -%}
        {%- set ns.is_last_user = true -%}
        {{'<｜User｜>' + content + '<｜Assistant｜>'}}
    {%- endif %}
    {%- if message['role'] == 'assistant' and message['tool_calls'] is defined and message['tool_calls'] is not none %}
        {%- set ns.is_last_user = false -%}
        {%- for tool in message['tool_calls'] %}
            {%- if not ns.is_first %}
                {%- if content is none %}
                    {{'<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n' + '```json' + '\\n' + tool['function']['arguments']|tojson + '\\n' + '```' + '<｜tool▁call▁end｜>'}}
                {%- else %}
                    {{content + '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n' + '```json' + '\\n' + tool['function']['arguments']|tojson + '\\n' + '```' + '<｜tool▁call▁end｜>'}}
                {%- endif %}
                {%- set ns.is_first = true -%}
            {%- else %}
                {{'\\n' + '<｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n' + '```json' + '\\n' + tool['function']['arguments']|tojson + '\\n' + '```' + '<｜tool▁call▁end｜>'}}
            {%- endif %}
        {%- endfor %}
        {{'<｜tool▁calls▁end｜><｜end▁of▁sentence｜>'}}
    {%- endif %}
    {%- if message['role'] == 'assistant' and (message['tool_calls'] is not defined or message['tool_calls'] is none) %}
        {%- set ns.is_last_user = false -%}
        {{- content + '<｜end▁of▁sentence｜>'}}
    {%- endif %}
    {%- if message['role'] == 'tool' %}
        {%- set ns.is_last_user = false -%}
        {{'<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>' + content + '<｜tool▁output▁end｜><｜tool▁outputs▁end｜>'}}
    {%- endif %}
{%- endfor -%}
{% if add_generation_prompt and not ns.is_last_user %}
    {{- '<｜Assistant｜>'}}
{%- endif %}"""

# After vLLM's examples/tool_chat_template_deepseekv31.jinja: V3.1's layout and thinking toggle,
# indented calls and an indented generation prompt ("  <｜Assistant｜>    </think>").
V3_1_VLLM_LIKE = """{% if not thinking is defined %}
  {% set thinking = false %}
{% endif %}
{% set ns = namespace(is_first=false, is_tool=false, is_last_user=false) %}
{%- for message in messages %}
  {%- if message['role'] == 'user' %}
    {%- set ns.is_tool = false -%}
    {%- set ns.is_first = false -%}
    {%- set ns.is_last_user = true -%}
    {{'<｜User｜>' + message['content']}}
  {%- endif %}
  {%- if message['role'] == 'assistant' and message['tool_calls'] is defined and message['tool_calls'] is not none %}
    {%- if ns.is_last_user %}
      {{'<｜Assistant｜></think>'}}
    {%- endif %}
    {%- set ns.is_last_user = false -%}
    {%- for tool in message['tool_calls'] %}
      {%- if not ns.is_first %}
        {%- if message['content'] is none %}
          {{'<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>'+ tool['function']['name'] + '<｜tool▁sep｜>' + tool['function']['arguments'] + '<｜tool▁call▁end｜>'}}
        {%- else %}
          {{message['content'] + '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['function']['name'] + '<｜tool▁sep｜>' + tool['function']['arguments'] + '<｜tool▁call▁end｜>'}}
        {%- endif %}
        {%- set ns.is_first = true -%}
      {%- else %}
        {{'<｜tool▁call▁begin｜>'+ tool['function']['name'] + '<｜tool▁sep｜>' + tool['function']['arguments'] + '<｜tool▁call▁end｜>'}}
      {%- endif %}
    {%- endfor %}
    {{'<｜tool▁calls▁end｜><｜end▁of▁sentence｜>'}}
  {%- endif %}
  {%- if message['role'] == 'tool' %}
    {%- set ns.is_last_user = false -%}
    {%- set ns.is_tool = true -%}
    {{'<｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>'}}
  {%- endif %}
{%- endfor -%}
{%- if add_generation_prompt and ns.is_last_user and not ns.is_tool %}
  {{'<｜Assistant｜>'}}
  {%- if not thinking %}
    {{'</think>'}}
  {%- else %}
    {{'<think>'}}
  {%- endif %}
{% endif %}
"""

# After vLLM's examples/tool_chat_template_hermes.jinja: "arguments" written before "name", the
# object opened with "{ ", each call closed by "</tool_call> " (a trailing space).
HERMES_VLLM_LIKE = """{{- bos_token }}
{%- if tools is iterable and tools | length > 0 %}
    {{- 'You are a function calling AI model. <tools> ' }}
    {%- for tool in tools %}{{- tool.function | tojson }}{%- endfor %}
    {{- ' </tools> For each function call return a json object within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{"name": <function-name>, "arguments": <args-dict>}\\n</tool_call><|im_end|>' }}
{%- endif %}
{%- for message in messages %}
    {%- if message.role == "user" or message.role == "system" or (message.role == "assistant" and message.tool_calls is not defined) %}
        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- for tool_call in message.tool_calls %}
            {{- '\\n<tool_call>\\n' }}
            {%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}
            {{- '{ ' }}
            {%- if tool_call.arguments is defined %}{{- '"arguments": ' }}{{- tool_call.arguments|tojson }}{{- ', ' }}{%- endif %}
            {{- '"name": "' }}{{- tool_call.name }}{{- '"}' }}
            {{- '\\n</tool_call> ' }}
        {%- endfor %}
        {{- '<|im_end|>\\n' }}
    {%- elif message.role == "tool" %}
        {{- '<|im_start|>' + message.role + '\\n<tool_response>\\n' + message.content + '\\n</tool_response> <|im_end|>\\n' }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}
"""

# GLM-4.7-Flash: GLM-4.5's conversation, but a call written with no newline anywhere:
# <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>.
_GLM45_CALL = """{{ '\\n<tool_call>' + tc.name }}
{% set _args = tc.arguments %}
{% for k, v in _args.items() %}
<arg_key>{{ k }}</arg_key>
<arg_value>{{ v | tojson(ensure_ascii=False) if v is not string else v }}</arg_value>
{% endfor %}
</tool_call>"""
assert _GLM45_CALL in GLM45_LIKE
GLM47_FLASH_LIKE = GLM45_LIKE.replace(
    _GLM45_CALL,
    "{{ '<tool_call>' + tc.name }}{% for k, v in tc.arguments.items() %}<arg_key>{{ k }}</arg_key>"
    "<arg_value>{{ v | tojson(ensure_ascii=False) if v is not string else v }}</arg_value>{% endfor %}</tool_call>",
)


def test_vllm_r1_template_with_indented_calls_is_r1s_layout():
    # The exact call text is nowhere (indentation between the calls, none of the variants without
    # tojson); R1's parser reads the probe calls. Its prompt opens no <think>: V3-0324's reading.
    assert detect(R1_VLLM_LIKE) is DEEPSEEK_V3
    # The call spelled in the system prompt's instruction is not taken for the probe calls.
    with pytest.raises(ValueError, match="layout no candidate matches"):
        detect(R1_VLLM_LIKE.replace("+ tool['function']['name'] +", "+ 'other' +"), formats=["deepseek_r1"])


def test_vllm_v3_1_template_with_indented_calls_and_prompt():
    assert detect(V3_1_VLLM_LIKE) is DEEPSEEK_V3_1


def test_hermes_template_writing_arguments_before_the_name_is_qwen3():
    assert detect(HERMES_VLLM_LIKE) is QWEN3


def test_glm47_flash_template_without_newlines_is_glm_layout():
    fmt = detect(GLM47_FLASH_LIKE)
    assert fmt.tools.xml.style == "glm_xml" and fmt.tools.call == GLM45.tools.call
    assert fmt.reasoning.toggle == "enable_thinking"


# GLM-4.7's spelling as a candidate: no newline after the name or between key and value.
GLM47_TEST = dataclasses.replace(
    GLM45, name="glm47_test", aliases=(), tools=dataclasses.replace(GLM45.tools, header="{name}", arguments=dataclasses.replace(GLM45.tools.xml, between=""))
)


def test_an_exact_match_wins_over_a_tolerant_one_and_the_closest_spelling_wins():
    # GLM-4.5's template is GLM-4.5's exact text, which GLM-4.7's parser reads as well.
    assert detect(GLM45_LIKE, formats=[GLM47_TEST, GLM45]) is GLM45
    # A template writing GLM-4.7's exact text is GLM-4.7's, whichever candidate comes first.
    glm47_exact = GLM47_FLASH_LIKE.replace("</arg_value>{% endfor %}", "</arg_value>{{ '\\n' }}{% endfor %}")
    assert detect(glm47_exact, formats=[GLM45, GLM47_TEST]) is GLM47_TEST
    # Neither exact (no newline after a value either): both parsers read it, GLM-4.7's is closer.
    assert detect(GLM47_FLASH_LIKE, formats=[GLM45, GLM47_TEST]) is GLM47_TEST
    # Indent GLM-4.5's text: still closer to GLM-4.5's.
    indented = GLM45_LIKE.replace("<arg_key>{{ k }}", "    <arg_key>{{ k }}")
    assert detect(indented, formats=[GLM47_TEST, GLM45]) is GLM45


# Mistral Small 3.2: each call [TOOL_CALLS]NAME[CALL_ID]id[ARGS]{…}, the arguments through tojson,
# the id nine letters and digits or the template raises.
MISTRAL_SMALL_32_LIKE = MISTRAL_LIKE.replace(
    "[TOOL_CALLS]{{ tc['function']['name'] }}[ARGS]",
    "[TOOL_CALLS]{{ tc['function']['name'] }}"
    "{%- if tc.id is not string or tc.id|length != 9 %}{{ raise_exception('Tool call IDs should be alphanumeric strings with length 9!') }}{%- endif %}"
    "[CALL_ID]{{ tc.id }}[ARGS]",
)
assert MISTRAL_SMALL_32_LIKE != MISTRAL_LIKE


def test_mistral_small_3_2_template_with_call_ids_is_mistral():
    from thinkgate.detection import _renderer, _section_length, _tool_conversations, _TOOLS

    assert detect(MISTRAL_SMALL_32_LIKE) is MISTRAL
    # by its exact call text, ids written after [CALL_ID]
    render = _renderer(MISTRAL_SMALL_32_LIKE, {"bos_token": "", "eos_token": ""})
    texts = [t for t in (render(c, tools=_TOOLS) for c in _tool_conversations(2, "")) if t]
    assert any("[CALL_ID]probe0001[ARGS]" in t and _section_length(MISTRAL.tools, t, 2) for t in texts)


# --- a derived format keeps the template's thinking toggle ----------------------------------------

# Qwen3.5, after its published template: Qwen3-Coder's calls, reasoning written before the answer,
# a generation prompt that opens <think>\n, or closes an empty one when enable_thinking is false.
QWEN35_LIKE = QWEN3_CODER_LIKE.replace(
    "{{- '<|im_start|>' + message.role + '\\n' + (message.content if message.content is string else '') }}",
    "{{- '<|im_start|>' + message.role + '\\n' }}"
    "{%- if message.reasoning_content is string %}{{- '<think>\\n' + message.reasoning_content + '\\n</think>\\n\\n' }}{%- endif %}"
    "{{- message.content if message.content is string else '' }}",
).replace(
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}",
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}"
    "{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\\n\\n</think>\\n\\n' }}{%- else %}{{- '<think>\\n' }}{%- endif %}{%- endif %}",
)
assert QWEN35_LIKE.count("<think>") == 3

# Nemotron 3 (Nano), after its template: Qwen3-Coder's calls; thinking on unless enable_thinking is
# false, the prompt then ending in an empty <think></think>.
NEMOTRON3_LIKE = QWEN3_CODER_LIKE.replace(
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}",
    "{%- set enable_thinking = enable_thinking if enable_thinking is defined else true %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}"
    "{%- if enable_thinking %}{{- '<think>\\n' }}{%- else %}{{- '<think></think>' }}{%- endif %}{%- endif %}",
)
assert NEMOTRON3_LIKE != QWEN3_CODER_LIKE


@pytest.mark.parametrize("template", [QWEN35_LIKE, NEMOTRON3_LIKE], ids=["qwen3.5", "nemotron3"])
def test_a_derived_format_keeps_the_thinking_toggle(template):
    fmt = detect(template)
    assert fmt.tools.call == QWEN3_CODER.tools.call and fmt.tools.arguments == QWEN3_CODER.tools.arguments
    # forced open (the prompt ends in <think>\n unless thinking is off), switched by enable_thinking
    assert fmt.reasoning == ReasoningFormat("<think>", "</think>", default_thinking=True, toggle="enable_thinking")


def test_a_format_without_a_toggle_is_not_derived_for_one():
    # thinkgate's own R1 template adds a toggle; R1 has none and still fits (no derived format).
    assert detect(chat_template(DEEPSEEK_R1)) is DEEPSEEK_R1
    # Likewise a template that neither thinks nor toggles stays the format that does neither.
    assert detect(QWEN3_CODER_LIKE) is QWEN3_CODER


# --- a registered layout with new markers ----------------------------------------------------------

# Hermes' layout in <function_call> tags; GLM's layout in <invoke> tags.
FUNCTION_CALL_TAGS_LIKE = QWEN25_HERMES.replace("<tool_call>", "<function_call>").replace("</tool_call>", "</function_call>")
GLM_INVOKE_LIKE = GLM45_LIKE.replace("<tool_call>", "<invoke>").replace("</tool_call>", "</invoke>")


def test_hermes_layout_with_other_tags_gives_a_derived_format():
    from thinkgate.formats import Text

    fmt = detect(FUNCTION_CALL_TAGS_LIKE)
    assert fmt.name == "qwen3:detected"
    assert fmt.tools == dataclasses.replace(QWEN3.tools, call=(Text("<function_call>"), Text("</function_call>")))
    assert all(type(m) is Text for m in fmt.tools.markers)
    assert fmt.eos == "<|im_end|>" and fmt.reasoning == QWEN3.reasoning
    glm = detect(GLM_INVOKE_LIKE)
    assert glm.name == "glm45:detected" and glm.tools.call == (Text("<invoke>"), Text("</invoke>"))
    assert glm.tools.arguments == GLM45.tools.arguments and glm.reasoning == GLM45.reasoning


def test_a_tag_the_tokenizer_has_as_one_token_is_a_token_marker(tokenizer):
    # Hermes' layout between DeepSeek's call tokens: with the DeepSeek tokenizer they are tokens.
    template = QWEN25_HERMES.replace("<tool_call>", "<｜tool▁call▁begin｜>").replace("</tool_call>", "<｜tool▁call▁end｜>")
    as_text = detect(template)
    assert as_text.tools.call == ("<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>") and all(is_text(m) for m in as_text.tools.call)
    tok = types.SimpleNamespace(chat_template=template, bos_token=None, eos_token="<｜end▁of▁sentence｜>", encode=tokenizer.encode)
    as_tokens = detect(tok)
    assert as_tokens.tools.call == as_text.tools.call and not any(is_text(m) for m in as_tokens.tools.call)
    # <|im_end|> is no token of this vocabulary: the tokenizer's end of sequence ends the output
    assert as_tokens.eos == "<｜end▁of▁sentence｜>"


def test_an_xml_arguments_tag_is_not_derived():
    # xgrammar's glm_xml style spells <arg_key>: a template with other argument tags has no
    # format that could constrain it.
    with pytest.raises(ValueError, match="layout no candidate matches"):
        detect(GLM45_LIKE.replace("arg_key>", "key>"))


@pytest.mark.parametrize(("template", "choice"), [(FUNCTION_CALL_TAGS_LIKE, "auto"), (GLM_INVOKE_LIKE, "required")], ids=["function_call", "invoke"])
def test_a_derived_format_parses_the_template_and_constrains_sampling(tokenizer, template, choice):
    from test_constraint_sampling import check, sample_batch
    from thinkgate.detection import _renderer, _tool_conversations, _TOOLS
    from thinkgate.parsing import parse

    tok = types.SimpleNamespace(chat_template=template, bos_token=None, eos_token="<｜end▁of▁sentence｜>", encode=tokenizer.encode)
    fmt = detect(tok)
    assert fmt.name.endswith(":detected") and all(is_text(m) for m in fmt.tools.markers)
    # It reads the template's own rendering of two calls (the arguments given as objects).
    render = _renderer(template, {"bos_token": "", "eos_token": ""})
    probes = [("probe_lookup", '{"city": "Qzxville"}'), ("probe_convert", '{"amount": 7, "unit": "kg"}')]
    texts = [t for t in (render(c, tools=_TOOLS) for c in _tool_conversations(2, "")) if t]
    read = [[(c.name, c.arguments) for c in parse(t[t.index("Question?") :], format=fmt, thinking=False).tool_calls] for t in texts]
    # (no schema types a parameter written as text: each value compared as its text)
    as_text = lambda calls: [(n, {k: v if isinstance(v, str) else json.dumps(v) for k, v in json.loads(a).items()}) for n, a in calls]  # noqa: E731
    assert as_text(probes) in [as_text(r) for r in read]
    # Its grammar holds random walks to valid calls, with the DeepSeek vocabulary.
    samples = sample_batch(tokenizer, fmt, choice, "off", n=4, seed=5)
    verdicts = check(tokenizer, fmt, choice, "off", samples)
    assert set(verdicts) <= {"valid", "unterminated"} and verdicts["valid"] >= 3, verdicts


# --- templates read from files ---------------------------------------------------------------------


def test_detect_reads_chat_template_json_tokenizer_config_and_directories(tmp_path):
    import json
    from pathlib import Path

    from thinkgate.detection import read_chat_template

    model = tmp_path / "model"
    model.mkdir()
    (model / "chat_template.json").write_text(json.dumps({"chat_template": QWEN3_OFFICIAL}))
    assert detect(model) is QWEN3
    assert detect(model / "chat_template.json") is QWEN3
    # chat_template.jinja is read first, then chat_template.json, then tokenizer_config.json
    (model / "tokenizer_config.json").write_text(json.dumps({"chat_template": [{"name": "default", "template": NO_TOOLS}, {"name": "tool_use", "template": V3_1_OFFICIAL}]}))
    assert detect(model) is QWEN3
    assert detect(model / "tokenizer_config.json") is DEEPSEEK_V3_1
    assert read_chat_template(model / "tokenizer_config.json") == {"default": NO_TOOLS, "tool_use": V3_1_OFFICIAL}
    (model / "chat_template.jinja").write_text(R1_OFFICIAL)
    assert detect(Path(model)) is DEEPSEEK_R1
    # errors name the file
    with pytest.raises(ValueError, match=r"nope\.json does not exist"):
        detect(tmp_path / "nope.json")
    with pytest.raises(ValueError, match=r"holds no chat template \(none of chat_template\.jinja, chat_template\.json, tokenizer_config\.json\)"):
        detect(tmp_path / "empty" if (tmp_path / "empty").mkdir() is None else None)
    (tmp_path / "config.json").write_text(json.dumps({"eos_token": "</s>"}))
    with pytest.raises(ValueError, match=r"config\.json has no chat_template"):
        detect(tmp_path / "config.json")
    (tmp_path / "broken.json").write_text("{oops")
    with pytest.raises(ValueError, match=r"broken\.json is not JSON"):
        detect(tmp_path / "broken.json")


# Nemotron Nano v2, after its template: the calls as one JSON array in <TOOLCALL>…</TOOLCALL>,
# earlier answers cut after </think>, a generation prompt that opens <think>.
NANO_V2_LIKE = (
    "{%- for message in messages %}"
    "{%- if message.role == 'user' %}{{- '<SPECIAL_11>User\\n' + message.content + '\\n' }}"
    "{%- elif message.role == 'assistant' %}{{- '<SPECIAL_11>Assistant\\n' }}"
    "{%- if message.content %}{{- message.content.split('</think>')[-1] }}{%- endif %}"
    "{%- if message.tool_calls %}{{- '<TOOLCALL>[' }}{%- for tc in message.tool_calls %}"
    "{{- '{\"name\": \"' + tc.function.name + '\", \"arguments\": ' + (tc.function.arguments if tc.function.arguments is string else tc.function.arguments | tojson) + '}' }}"
    "{%- if not loop.last %}{{- ', ' }}{%- endif %}{%- endfor %}{{- ']</TOOLCALL>' }}{%- endif %}"
    "{{- '<SPECIAL_12>\\n' }}"
    "{%- elif message.role == 'tool' %}{{- '<SPECIAL_11>Tool\\n<TOOL_RESPONSE>' + message.content + '</TOOL_RESPONSE>\\n' }}"
    "{%- endif %}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<SPECIAL_11>Assistant\\n<think>\\n' }}{%- endif %}"
)


def test_an_array_in_new_tags_takes_the_closing_twin():
    from thinkgate.formats import JsonCalls, Text, names
    from thinkgate.parsing import parse

    # (nemotron_v2 is registered: it is named; without it, a layout is derived)
    assert detect(NANO_V2_LIKE).name == "nemotron_v2"
    fmt = detect(NANO_V2_LIKE, formats=[n for n in names() if n != "nemotron_v2"])
    # a JSON array's layout (Mistral's, Granite 3's, …: which candidate lends it is not the point),
    # its begin marker the template's, closed by the begin's twin
    assert fmt.name.endswith(":detected") and fmt.tools.layout == JsonCalls(array=("[", "]"))
    assert fmt.tools.section == ("<TOOLCALL>", "</TOOLCALL>") and all(type(m) is Text for m in fmt.tools.section)
    assert fmt.reasoning.open == "<think>" and fmt.reasoning.default_thinking is True
    text = 'Hm.</think><TOOLCALL>[{"name": "f", "arguments": {"x": 1}}, {"name": "g", "arguments": {}}]</TOOLCALL>'
    assert [(c.name, c.arguments) for c in parse(text, format=fmt).tool_calls] == [("f", '{"x": 1}'), ("g", "{}")]
