"""LiquidAI LFM2 / LFM2.5: a Python list of calls between ``<|tool_call_start|>`` and
``<|tool_call_end|>``.

``<|tool_call_start|>[get_weather(city='Paris', days=3)]<|tool_call_end|>``, after any answer text,
the calls joined by ``, `` (LFM2.5's chat template: a string written as ``'`` + its text + ``'``, a
dict with ``tojson``, any other value with Jinja's ``string``: ``True``, ``None``, a list as
Python's ``repr`` writes it). LFM2.5's thinking models think in ``<think>…</think>``, opened by
the model itself. Turns are ChatML's, ended by ``<|im_end|>``.
"""

from .base import ChatFormat, PythonArguments, PythonicCalls, ReasoningFormat, ToolCallFormat

TOOL_CALL_START = "<|tool_call_start|>"
TOOL_CALL_END = "<|tool_call_end|>"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
IM_END = "<|im_end|>"

LFM2 = ChatFormat(
    name="lfm2",
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking="auto"),
    tools=ToolCallFormat(
        layout=PythonicCalls(array=("[", "]")),
        arguments=PythonArguments(quote="'", escaped=False, dicts="json"),
        section=(TOOL_CALL_START, TOOL_CALL_END),
        header="{name}",
        separator=", ",
    ),
    eos=IM_END,
    # a <|tool_call_start|> written while thinking is the reasoning's text (llama.cpp's LFM2.5
    # thinking test reads it so): the calls come after </think>
    calls_in_reasoning=False,
    aliases=("lfm2.5", "lfm2_5", "lfm", "liquid"),
    description="LiquidAI LFM2 / LFM2.5: <|tool_call_start|>[f(a='x'), g()]<|tool_call_end|>, <think> opened by the model",
)

FORMATS = (LFM2,)
