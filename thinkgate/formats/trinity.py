"""Arcee Trinity (Trinity Mini, Nano): Qwen2.5 / Hermes' JSON calls, ``<think>`` reasoning, and
calls written while thinking.

::

    <think>The user wants the weather.
    <tool_call>
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    </tool_call></think>

A call is one JSON object in ``<tool_call>`` tags, calls one a line, on Qwen2.5's ChatML turns
(``<|im_end|>`` ends one). Trinity opens ``<think>`` itself and often writes its calls before
closing it: the ``<tool_call>`` token there ends the reasoning and opens the calls
(``calls_in_reasoning``), so they are read and constrained as any others.

Facts from SGLang's ``function_call/trinity_detector.py`` (Qwen2.5's detector, whose reference
is Qwen2.5's chat template, reading calls inside ``<think>``) and its tests
(``test/registered/unit/function_call/test_trinity_detector.py``). Trinity-Large-Thinking writes
Qwen3-Coder's XML calls instead (vLLM's recipe serves it with ``qwen3_coder``): that is the
``qwen3_5`` format.
"""

from .base import ChatFormat, ReasoningFormat
from .qwen import HERMES, IM_END, THINK_CLOSE, THINK_OPEN

TRINITY = ChatFormat(
    name="trinity",
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking="auto"),
    tools=HERMES,
    eos=IM_END,
    aliases=("arcee_trinity", "trinity_mini", "trinity-mini"),
    description='Arcee Trinity: <tool_call>{"name", "arguments"}</tool_call>, <think> reasoning opened by the model, calls while thinking',
)

FORMATS = (TRINITY,)
