"""detect() on templates written from the chat templates of Seed-OSS, Nemotron Nano v2, GLM-4.7
and Qwen3.5: each names its registered format, with the thinking toggle the template honours."""

import pytest

from thinkgate import detect

# ByteDance Seed-OSS (its template, shortened to the parts that write roles, reasoning, calls and
# the generation prompt): each call its own <seed:tool_call> block after a newline, values
# written bare; a zero thinking budget opens <seed:think> in the prompt.
SEED_OSS = (
    "{%- set bos_token = '<seed:bos>' -%}{%- set eos_token = '<seed:eos>' -%}"
    "{%- if not thinking_budget is defined %}{%- set thinking_budget = -1 -%}{%- endif -%}"
    "{%- for message in messages %}"
    "{%- if message.role == 'assistant' and message.tool_calls is defined and message.tool_calls is iterable and message.tool_calls | length > 0 %}"
    "{{ bos_token + message.role }}"
    "{%- if message.reasoning_content is defined and message.reasoning_content is string and message.reasoning_content | trim | length > 0 %}"
    "{{ '\\n' + '<seed:think>' + message.reasoning_content | trim + '</seed:think>' }}{%- endif %}"
    "{%- if message.content is defined and message.content is string and message.content | trim | length > 0 %}"
    "{{ '\\n' + message.content | trim + '\\n' }}{%- endif %}"
    "{%- for tool_call in message.tool_calls %}"
    "{%- if tool_call.function is defined %}{% set tool_call = tool_call.function %}{% endif %}"
    "{{ '\\n' + '<seed:tool_call>' + '\\n<function=' + tool_call.name + '>\\n' }}"
    "{%- if tool_call.arguments is defined %}{%- for arg_name, arg_value in tool_call.arguments | items %}"
    "{{ '<parameter=' + arg_name + '>' }}{%- set arg_value = arg_value if arg_value is string else arg_value | string %}"
    "{{ arg_value + '</parameter>\\n' }}{%- endfor %}{%- endif %}"
    "{{ '</function>\\n' + '</seed:tool_call>' }}{%- endfor %}{{ eos_token }}"
    "{%- elif message.role in ['user', 'system'] %}{{ bos_token + message.role + '\\n' + message.content + eos_token }}"
    "{%- elif message.role == 'assistant' %}{{ bos_token + message.role }}"
    "{%- if message.reasoning_content is defined and message.reasoning_content is string and message.reasoning_content | trim | length > 0 %}"
    "{{ '\\n' + '<seed:think>' + message.reasoning_content | trim + '</seed:think>' }}{%- endif %}"
    "{%- if message.content is defined and message.content is string and message.content | trim | length > 0 %}"
    "{{ '\\n' + message.content | trim + eos_token }}{%- endif %}"
    "{%- else %}{{ bos_token + message.role + '\\n' + message.content + eos_token }}{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{ bos_token + 'assistant\\n' }}"
    "{%- if thinking_budget == 0 %}{{ '<seed:think>' + '<seed:cot_budget_reflect>' }}{%- endif %}{%- endif %}"
)

# NVIDIA Nemotron Nano v2 (shortened): thinking is switched by /think and /no_think in the
# messages; the calls are one JSON array in <TOOLCALL> tags.
NEMOTRON_V2 = (
    "{%- set ns = namespace(enable_thinking=true) -%}"
    "{%- for message in messages -%}{%- set content = message['content'] -%}"
    "{%- if message['role'] == 'user' or message['role'] == 'system' -%}"
    "{%- if '/think' in content -%}{%- set ns.enable_thinking = true -%}"
    "{%- elif '/no_think' in content -%}{%- set ns.enable_thinking = false -%}{%- endif -%}{%- endif -%}{%- endfor -%}"
    "{{- '<SPECIAL_10>System\\n' -}}{{- '\\n\\n' -}}"
    "{%- set messages = messages[1:] if messages[0]['role'] == 'system' else messages -%}"
    "{%- for message in messages %}{%- set content = message['content'] %}"
    "{%- if message['role'] == 'user' -%}"
    "{{- '<SPECIAL_11>User\\n' + (content | default('', true)).replace('/think', '').replace('/no_think', '').strip() + '\\n' }}"
    "{%- elif message['role'] == 'tool' -%}"
    "{%- if loop.first or (messages[loop.index0 - 1].role != 'tool') -%}{{- '<SPECIAL_11>User\\n' + '<TOOL_RESPONSE>[' }}{%- endif -%}"
    "{{- message['content'] -}}{{- ', ' if not loop.last and (messages[loop.index0 + 1].role == 'tool') else '' -}}"
    "{%- if loop.last or (messages[loop.index0 + 1].role != 'tool') -%}{{- ']</TOOL_RESPONSE>\\n\\n' -}}{%- endif -%}"
    "{%- elif message['role'] == 'assistant' -%}"
    "{%- if content and '</think>' in content -%}{%- set content = (content.split('</think>')[1] | default('', true)).strip() %}{%- endif -%}"
    "{{- '<SPECIAL_11>Assistant\\n' + ((content | default('', true)).strip() if content is not none else '') }}"
    "{%- if message.tool_calls -%}{%- if (content | default('', true)).strip() != '' -%}{{- '\\n\\n' -}}{%- endif -%}"
    "{{- '<TOOLCALL>[' -}}{%- for call in message.tool_calls -%}{%- set fn = call.function if call.function is defined else call -%}"
    "{{- '{\"name\": \"' + fn.name + '\", \"arguments\": ' -}}"
    "{%- if fn.arguments is string -%}{{- fn.arguments -}}{%- else -%}{{- fn.arguments | tojson -}}{%- endif -%}"
    "{{- '}' + (', ' if not loop.last else '') -}}{%- endfor -%}{{- ']</TOOLCALL>' -}}{%- endif -%}"
    "{{- '\\n<SPECIAL_12>\\n\\n' -}}{%- endif -%}{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<SPECIAL_11>Assistant\\n' -}}"
    "{%- if ns.enable_thinking is defined and ns.enable_thinking is false -%}{{- '<think></think>' -}}{%- else -%}{{- '<think>\\n\\n' -}}{%- endif -%}{%- endif -%}"
)

# GLM-4.7 (shortened): no newline anywhere in a call; the generation prompt opens <think>
# unless enable_thinking is false; earlier reasoning is dropped for a bare </think>.
GLM47 = (
    "[gMASK]<sop>"
    "{%- for m in messages %}"
    "{%- if m.role == 'user' -%}<|user|>{{ m.content }}"
    "{%- elif m.role == 'system' -%}<|system|>{{ m.content }}"
    "{%- elif m.role == 'assistant' -%}<|assistant|>"
    "{%- if m.reasoning_content -%}{{ '<think>' + m.reasoning_content.strip() + '</think>' }}{%- else -%}{{ '</think>' }}{%- endif -%}"
    "{%- if m.content and m.content.strip() -%}{{ m.content.strip() }}{%- endif -%}"
    "{%- if m.tool_calls -%}{%- for tc in m.tool_calls -%}{%- if tc.function %}{%- set tc = tc.function %}{%- endif %}"
    "{{- '<tool_call>' + tc.name -}}"
    "{%- set _args = tc.arguments -%}{%- for k, v in _args.items() -%}<arg_key>{{ k }}</arg_key><arg_value>{{ v | tojson(ensure_ascii=False) if v is not string else v }}</arg_value>{%- endfor -%}"
    "</tool_call>{%- endfor -%}{%- endif -%}"
    "{%- elif m.role == 'tool' -%}<|observation|><tool_response>{{ m.content }}</tool_response>"
    "{%- endif -%}{%- endfor -%}"
    "{%- if add_generation_prompt -%}<|assistant|>{{- '</think>' if (enable_thinking is defined and not enable_thinking) else '<think>' -}}{%- endif -%}"
)

# Qwen3.5 (shortened): Qwen3-Coder's calls, reasoning kept after the last user turn, the
# generation prompt opening <think>\n unless enable_thinking is false.
QWEN3_5 = (
    "{%- for message in messages %}"
    "{%- if message.role == 'user' or message.role == 'system' %}{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}"
    "{%- elif message.role == 'assistant' %}"
    "{%- set content = message.content if message.content is string else '' %}"
    "{%- if message.reasoning_content is string and message.reasoning_content %}"
    "{{- '<|im_start|>' + message.role + '\\n<think>\\n' + message.reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}"
    "{%- else %}{{- '<|im_start|>' + message.role + '\\n' + content }}{%- endif %}"
    "{%- if message.tool_calls %}{%- for tool_call in message.tool_calls %}"
    "{%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}"
    "{%- if loop.first %}{%- if content|trim %}{{- '\\n\\n<tool_call>\\n<function=' + tool_call.name + '>\\n' }}"
    "{%- else %}{{- '<tool_call>\\n<function=' + tool_call.name + '>\\n' }}{%- endif %}"
    "{%- else %}{{- '\\n<tool_call>\\n<function=' + tool_call.name + '>\\n' }}{%- endif %}"
    "{%- if tool_call.arguments is defined %}{%- for args_name, args_value in tool_call.arguments|items %}"
    "{{- '<parameter=' + args_name + '>\\n' }}"
    "{%- set args_value = args_value | tojson | safe if args_value is mapping or (args_value is sequence and args_value is not string) else args_value | string %}"
    "{{- args_value }}{{- '\\n</parameter>\\n' }}{%- endfor %}{%- endif %}"
    "{{- '</function>\\n</tool_call>' }}{%- endfor %}{%- endif %}"
    "{{- '<|im_end|>\\n' }}"
    "{%- elif message.role == 'tool' %}{{- '<|im_start|>user\\n<tool_response>\\n' + message.content + '\\n</tool_response><|im_end|>\\n' }}"
    "{%- endif %}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}"
    "{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\\n\\n</think>\\n\\n' }}{%- else %}{{- '<think>\\n' }}{%- endif %}{%- endif %}"
)


@pytest.mark.parametrize(
    ("template", "name", "default_thinking", "toggle"),
    [
        (SEED_OSS, "seed_oss", "auto", ""),
        (NEMOTRON_V2, "nemotron_v2", True, ""),
        (GLM47, "glm47", True, "enable_thinking"),
        (QWEN3_5, "qwen3_5", True, "enable_thinking"),
    ],
)
def test_detect_names_the_family(template, name, default_thinking, toggle):
    fmt = detect(template)
    assert fmt.name == name
    assert (fmt.reasoning.default_thinking, fmt.reasoning.toggle) == (default_thinking, toggle)


@pytest.mark.parametrize(("eos", "name"), [("<|im_end|>", "qwen3"), ("<|end_of_text|>", "granite4"), ("[|endofturn|]", "exaone4")])
def test_formats_sharing_hermes_calls_are_told_apart_by_their_end_of_turn(eos, name):
    from test_detect import QWEN25_HERMES

    assert "<|im_end|>" in QWEN25_HERMES
    assert detect(QWEN25_HERMES.replace("<|im_end|>", eos)).name == name


# Templates written for llama.cpp's Jinja engine, which Hugging Face's immutable sandbox refuses:
# Kimi-K2's queues its call ids with list.append (its tool results pop them); llama.cpp's own R1
# template serialises map()'s generator with tojson. Written here in the same shape, shortened.
KIMI_K2_QUEUE = (
    "{%- set queue = namespace(ids=[]) -%}{%- set counter = namespace(value=0) -%}"
    "{%- if tools -%}<|im_system|>tool_declare<|im_middle|>{{ tools | tojson }}<|im_end|>{%- endif -%}"
    "{%- for message in messages -%}"
    "{%- if message['role'] == 'assistant' -%}<|im_assistant|>assistant<|im_middle|>"
    "{%- elif message['role'] == 'user' -%}<|im_user|>user<|im_middle|>"
    "{%- else -%}<|im_system|>{{ message['role'] }}<|im_middle|>{%- endif -%}"
    "{%- if message['role'] == 'assistant' and message.get('tool_calls') -%}"
    "{{ message.get('content') or '' }}<|tool_calls_section_begin|>"
    "{%- for call in message['tool_calls'] -%}"
    "{%- set id = 'functions.' + call['function']['name'] + ':' + (counter.value | string) -%}"
    "{%- set counter.value = counter.value + 1 -%}{%- set _ = queue.ids.append(id) -%}"
    "<|tool_call_begin|>{{ id }}<|tool_call_argument_begin|>"
    "{% if call['function']['arguments'] is string %}{{ call['function']['arguments'] }}{% else %}{{ call['function']['arguments'] | tojson }}{% endif %}"
    "<|tool_call_end|>{%- endfor -%}<|tool_calls_section_end|>"
    "{%- elif message['role'] == 'tool' -%}## Return of {{ queue.ids.pop(0) if queue.ids else 'unknown' }}\n{{ message['content'] }}"
    "{%- else -%}{{ message['content'] }}{%- endif -%}<|im_end|>"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}<|im_assistant|>assistant<|im_middle|>{%- endif -%}"
)
R1_MAPPED_TOOLS = (
    "{%- if tools %}Tools: {{ tools | map(attribute='function') | tojson(indent=2) }}{%- endif %}"
    "{%- for message in messages -%}"
    "{%- if message['role'] == 'user' -%}<｜User｜>{{ message['content'] }}"
    "{%- elif message['role'] == 'assistant' and message.get('tool_calls') -%}<｜Assistant｜><｜tool▁calls▁begin｜>"
    "{%- for call in message['tool_calls'] -%}"
    "<｜tool▁call▁begin｜>function<｜tool▁sep｜>{{ call['function']['name'] }}\n```json\n{{ call['function']['arguments'] | tojson }}\n```<｜tool▁call▁end｜>"
    "{%- endfor -%}<｜tool▁calls▁end｜><｜end▁of▁sentence｜>"
    "{%- elif message['role'] == 'assistant' -%}<｜Assistant｜>{{ message['content'] }}<｜end▁of▁sentence｜>"
    "{%- elif message['role'] == 'tool' -%}<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>{{ message['content'] }}<｜tool▁output▁end｜><｜tool▁outputs▁end｜>"
    "{%- endif -%}{%- endfor -%}"
    "{%- if add_generation_prompt %}<｜Assistant｜><think>\n{%- endif %}"
)


@pytest.mark.parametrize(("template", "name"), [(KIMI_K2_QUEUE, "kimi_k2"), (R1_MAPPED_TOOLS, "deepseek_r1")])
def test_templates_written_for_llama_cpps_engine_are_detected(template, name):
    from transformers.utils.chat_template_utils import render_jinja_template

    with pytest.raises(Exception):  # Hugging Face's own rendering refuses them...
        render_jinja_template(
            conversations=[[{"role": "user", "content": "q"}, {"role": "assistant", "content": "", "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": {"x": 1}}}]}]],
            tools=[{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
            chat_template=template,
        )
    assert detect(template).name == name  # ...but what they write is still the model's format
