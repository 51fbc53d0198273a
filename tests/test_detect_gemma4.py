"""detect() on a Gemma 4 chat template, written from the official one (llama.cpp
``models/templates/gemma4.jinja``): tools declared in the system turn, each call
``<|tool_call>call:NAME{…}<tool_call|>`` with bare sorted keys and strings between ``<|"|>``,
turns ``<|turn>ROLE\\n…<turn|>\\n``, and with ``enable_thinking`` off (the default) a generation
prompt that closes an empty ``<|channel>thought\\n<channel|>``."""

from test_gemma4 import ARG_MACRO
from thinkgate import detect
from thinkgate.formats import GEMMA4

GEMMA4_TEMPLATE = (
    ARG_MACRO
    + "{{ bos_token }}"
    "{%- if (enable_thinking is defined and enable_thinking) or tools -%}"
    "<|turn>system\n"
    "{%- if enable_thinking is defined and enable_thinking -%}<|think|>{%- endif -%}"
    "{%- for tool in tools or [] -%}<|tool>declaration:{{ tool.function.name }}{{ '{' }}description:<|\"|>{{ tool.function.description or '' }}<|\"|>{{ '}' }}<tool|>{%- endfor -%}"
    "<turn|>\n"
    "{%- endif -%}"
    "{%- for message in messages -%}"
    "{%- set role = 'model' if message.role == 'assistant' else message.role -%}"
    "<|turn>{{ role }}\n"
    "{%- if message.tool_calls -%}{%- for tc in message.tool_calls -%}"
    "<|tool_call>call:{{ tc.function.name }}{{ '{' }}"
    "{%- if tc.function.arguments is mapping -%}{%- for k, v in tc.function.arguments | dictsort -%}{% if not loop.first %},{% endif %}{{ k }}:{{ arg(v) }}{%- endfor -%}"
    "{%- elif tc.function.arguments is string -%}{{ tc.function.arguments }}{%- endif -%}"
    "{{ '}' }}<tool_call|>"
    "{%- endfor -%}{%- endif -%}"
    "{%- if message.content is string -%}{{ message.content | trim }}{%- endif -%}"
    "<turn|>\n"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}<|turn>model\n"
    "{%- if not enable_thinking | default(false) -%}<|channel>thought\n<channel|>{%- endif -%}"
    "{%- endif -%}"
)


def test_detect_names_gemma4_from_its_template():
    found = detect(GEMMA4_TEMPLATE)
    assert found.name == "gemma4"
    assert found.tools == GEMMA4.tools
    assert (found.reasoning.open, found.reasoning.close) == (GEMMA4.reasoning.open, GEMMA4.reasoning.close)
    assert found.reasoning.toggle == "enable_thinking"
