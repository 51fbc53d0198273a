"""Ai2 OLMo 3: Python calls, one a line, between ``<function_calls>`` and ``</function_calls>``.

``<function_calls>get_weather(city="Paris")\nnow()</function_calls>`` (vLLM's ``olmo3`` parser; the
model writes JSON's ``true``, ``false`` and ``null`` in its values as often as Python's, and both
are read). The markers are text. OLMo 3 Think thinks in ``<think>…</think>``; turns are ChatML's,
ended by ``<|im_end|>``. Its chat template renders a message's own ``function_calls`` text, not
OpenAI's ``tool_calls``: no template thinkgate reads writes these calls.
"""

from .base import ChatFormat, PythonArguments, PythonicCalls, ReasoningFormat, Text, ToolCallFormat

FUNCTION_CALLS = Text("<function_calls>")
FUNCTION_CALLS_END = Text("</function_calls>")
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
IM_END = "<|im_end|>"

OLMO3 = ChatFormat(
    name="olmo3",
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking="auto"),
    tools=ToolCallFormat(
        layout=PythonicCalls(array=("", "")),
        arguments=PythonArguments(quote='"'),
        section=(FUNCTION_CALLS, FUNCTION_CALLS_END),
        header="{name}",
        separator="\n",
    ),
    eos=IM_END,
    aliases=("olmo", "olmo_3", "olmo3_pythonic"),
    description="Ai2 OLMo 3: <function_calls>f(a=1)\\ng()</function_calls>, one call a line, <think> opened by the model",
)

FORMATS = (OLMO3,)
