"""detect() on a template written from Kimi-K3's chat template (llama.cpp
``models/templates/Kimi-K3.jinja``): the same elements and attributes for the turns detect()
renders, in a template of our own (no image, thinking-effort or response-format parts)."""

import json

from thinkgate import detect
from thinkgate.formats import KIMI_K3, ReasoningFormat

# Each element <|open|>TAG ATTRS<|sep|> … <|close|>TAG<|sep|>; an attribute escapes & and ".
KIMI_K3_LIKE = r"""
{%- macro attr(v) -%}{{ v|string|replace('&', '&amp;')|replace('"', '&quot;') }}{%- endmacro -%}
{%- macro el_open(tag, attrs=[]) -%}<|open|>{{ tag }}{% for a in attrs %} {{ a[0] }}="{{ attr(a[1]) }}"{% endfor %}<|sep|>{%- endmacro -%}
{%- macro el_close(tag) -%}<|close|>{{ tag }}<|sep|>{%- endmacro -%}
{%- macro type_of(v) -%}
{%- if v is boolean -%}boolean{%- elif v is none -%}null{%- elif v is number -%}number
{%- elif v is string -%}string{%- elif v is mapping -%}object{%- else -%}array{%- endif -%}
{%- endmacro -%}
{%- if thinking is undefined %}{% set thinking = true %}{% endif -%}
{%- if tools -%}
{{ el_open('message', [('role', 'system'), ('type', 'tool-declare')]) }}# Tools
{{ tools|tojson }}{{ el_close('message') }}<|end_of_msg|>
{%- endif -%}
{%- for m in messages -%}
{%- if m.role == 'assistant' -%}
{{ el_open('message', [('role', 'assistant')]) }}
{%- if thinking -%}
{{ el_open('think') }}{{ m.reasoning_content or '' }}{{ el_close('think') }}
{%- endif -%}
{{ el_open('response') }}{{ m.content or '' }}{{ el_close('response') }}
{%- if m.tool_calls -%}
{{ el_open('tools') }}
{%- for tc in m.tool_calls -%}
{%- set fn = tc.function -%}
{{ el_open('call', [('tool', fn.name), ('index', loop.index)]) }}
{%- for k, v in fn.arguments.items() -%}
{{ el_open('argument', [('key', k), ('type', type_of(v))]) }}{{ v if v is string else v|tojson }}{{ el_close('argument') }}
{%- endfor -%}
{{ el_close('call') }}
{%- endfor -%}
{{ el_close('tools') }}
{%- endif -%}
{{ el_close('message') }}<|end_of_msg|>
{%- elif m.role == 'tool' -%}
{{ el_open('message', [('role', 'tool'), ('tool', m.name or 'tool'), ('index', loop.index)]) }}{{ m.content }}{{ el_close('message') }}<|end_of_msg|>
{%- else -%}
{{ el_open('message', [('role', m.role)]) }}{{ m.content }}{{ el_close('message') }}<|end_of_msg|>
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}
{{ el_open('message', [('role', 'assistant')]) }}{{ el_open('think' if thinking else 'response') }}
{%- endif -%}
"""


def _render(**kw):
    from jinja2 import Environment

    return Environment().from_string(KIMI_K3_LIKE).render(**kw)


def test_the_template_renders_the_calls_kimi_k3_writes():
    # the template of this test writes what the format writes (so a failure below is detect's)
    call = {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}}
    text = _render(messages=[{"role": "assistant", "content": "", "tool_calls": [call]}], thinking=False)
    expected = KIMI_K3.tools.section_text([("get_weather", json.dumps({"city": "Paris", "days": 3}))])
    assert expected in text
    assert _render(messages=[], add_generation_prompt=True).endswith(KIMI_K3.reasoning.open)
    assert _render(messages=[], add_generation_prompt=True, thinking=False).endswith(KIMI_K3.answer[0])


def test_detect_names_kimi_k3():
    fmt = detect(KIMI_K3_LIKE)
    assert fmt.tools == KIMI_K3.tools
    assert fmt.reasoning == ReasoningFormat(open=KIMI_K3.reasoning.open, close=KIMI_K3.reasoning.close, default_thinking=True, toggle="thinking")
    assert fmt.name == "kimi_k3"
