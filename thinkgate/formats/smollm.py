"""Hugging Face SmolLM3: Hermes' JSON call objects in ``<tool_call>`` tags, ChatML turns,
``<think>`` reasoning switched by ``/think`` and ``/no_think``.

``<tool_call>\\n{"name": "get_weather", "arguments": {"city": "Paris"}}\\n</tool_call>``: the
system prompt SmolLM3-3B's chat template writes for ``xml_tools`` asks for "a json object with
function name and arguments within <tool_call></tool_call> XML tags" (BFCL's SmolLM3 handler
fills in the example ``<tool_call>\\n{"name": …, "arguments": …}\\n</tool_call>``); the template
renders an assistant turn's content only, so earlier calls come back as the model wrote them.
Reasoning is ``<think>…</think>``, opened by the model itself: with ``enable_thinking`` on (the
default; ``/think`` in the system message) the generation prompt ends in
``<|im_start|>assistant\\n``, with it off (``/no_think``) in an empty ``<think>\\n\\n</think>\\n``.
Turns end with ``<|im_end|>``. (llama.cpp's copy of the template,
``models/templates/HuggingFaceTB-SmolLM3-3B.jinja``, is Unsloth's, with the tools left out.)

The markup, the reasoning and the end of turn are Qwen3's, so the value is Qwen3's under
SmolLM3's name; SmolLM3's tokenizer has ``<think>``, ``</think>``, ``<tool_call>`` and
``</tool_call>`` as added tokens.
"""

import dataclasses

from .qwen import QWEN3

SMOLLM3 = dataclasses.replace(
    QWEN3,
    name="smollm3",
    aliases=("smollm", "smollm-3", "smol_lm3", "smollm3-3b"),
    description='SmolLM3: <tool_call>{"name", "arguments"}</tool_call>, <think> reasoning switched by /think and /no_think',
)

FORMATS = (SMOLLM3,)
