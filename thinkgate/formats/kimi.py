"""Kimi-K2 (Instruct and Thinking): calls in a section of special tokens, each header the call's
id ``functions.NAME:INDEX``.

``<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>``
``{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>``. The header is also the call's id:
Kimi's chat template writes ``tool_call.id`` back in that place, so the id must round-trip.
K2-Thinking thinks in ``<think>…</think>``, opened by the model itself.
"""

from .base import ChatFormat, MarkedCalls, ReasoningFormat, ToolCallFormat

TOOL_CALLS_SECTION_BEGIN = "<|tool_calls_section_begin|>"
TOOL_CALLS_SECTION_END = "<|tool_calls_section_end|>"
TOOL_CALL_BEGIN = "<|tool_call_begin|>"
TOOL_CALL_END = "<|tool_call_end|>"
TOOL_CALL_ARGUMENT_BEGIN = "<|tool_call_argument_begin|>"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
IM_END = "<|im_end|>"

KIMI_TOOLS = ToolCallFormat(
    layout=MarkedCalls(optional_name_prefix=True),  # "get_weather:0" without "functions." is read too
    section=(TOOL_CALLS_SECTION_BEGIN, TOOL_CALLS_SECTION_END),
    call=(TOOL_CALL_BEGIN, TOOL_CALL_END),
    sep=TOOL_CALL_ARGUMENT_BEGIN,
    header="functions.{name}:{index}{sep}",
    call_id="functions.{name}:{index}",
)

KIMI_K2 = ChatFormat(
    name="kimi_k2",
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking="auto"),
    tools=KIMI_TOOLS,
    eos=IM_END,
    aliases=("kimi", "kimik2", "kimi-k2", "kimi_k2_thinking"),
    description="Kimi-K2 / K2-Thinking: <|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{JSON} calls",
)

FORMATS = (KIMI_K2,)
