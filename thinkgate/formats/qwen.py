"""Qwen2.5 / Qwen3 / Hermes: each call a JSON object in ``<tool_call>`` tags.

``<tool_call>\\n{"name": "get_weather", "arguments": {"city": "Paris"}}\\n</tool_call>``, calls
separated by a newline; Qwen3 thinks in ``<think>…</think>`` and its template can switch that off
(the prompt then ends in an empty ``<think>\\n\\n</think>\\n\\n``).

Qwen3-Coder writes the same ``<tool_call>`` tags around a call in XML-like parameters, a string
as its bare text, and does not think::

    <tool_call>
    <function=get_weather>
    <parameter=city>
    Paris
    </parameter>
    </function>
    </tool_call>
"""

from .base import NO_REASONING, CallObject, ChatFormat, MarkedCalls, ReasoningFormat, ToolCallFormat, XmlArguments

TOOL_CALL_BEGIN = "<tool_call>"
TOOL_CALL_END = "</tool_call>"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
IM_END = "<|im_end|>"

HERMES = ToolCallFormat(
    layout=MarkedCalls(),
    arguments=CallObject(name_key="name", arguments_key="arguments"),
    call=(TOOL_CALL_BEGIN, TOOL_CALL_END),
    header="\n",
    footer="\n",
    separator="\n",
)

QWEN3 = ChatFormat(
    name="qwen3",
    # Qwen3 opens <think> itself; with thinking off its template closes an empty one in the prompt.
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking="auto", toggle="enable_thinking"),
    tools=HERMES,
    eos=IM_END,
    aliases=("hermes", "qwen", "qwen25", "qwen2_5", "qwen2.5"),
    description="Qwen2.5 / Qwen3 / Hermes: <tool_call>{\"name\", \"arguments\"}</tool_call>, Qwen3 thinking",
)

QWEN3_CODER_TOOLS = ToolCallFormat(
    layout=MarkedCalls(headless=True),  # <function=NAME>… with <tool_call> left out is read too
    arguments=XmlArguments(style="qwen_xml", key_open="<parameter=", key_close=">", value_close="</parameter>", padding="\n"),
    call=(TOOL_CALL_BEGIN, TOOL_CALL_END),
    header="\n<function={name}>\n",
    footer="</function>\n",
    separator="\n",
)

QWEN3_CODER = ChatFormat(
    name="qwen3_coder",
    reasoning=NO_REASONING,
    tools=QWEN3_CODER_TOOLS,
    eos=IM_END,
    aliases=("qwen3coder", "qwen3_xml"),
    description="Qwen3-Coder: <tool_call><function=NAME><parameter=K>V</parameter></function></tool_call>",
)

# Qwen3.5 / Qwen3.6 write Qwen3-Coder's calls and think; their template opens ``<think>\n`` in the
# prompt unless ``enable_thinking=False`` closes an empty one, and they often open <tool_call>
# before closing </think>. NVIDIA's Nemotron 3 writes the same output on the same ChatML markers.
QWEN3_5 = ChatFormat(
    name="qwen3_5",
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking=True, toggle="enable_thinking"),
    tools=QWEN3_CODER_TOOLS,
    eos=IM_END,
    aliases=("qwen3.5", "qwen35", "qwen3_6", "qwen3.6", "qwen36", "nemotron3", "nemotron_3", "nemotron-3", "nemotron3_nano"),
    description="Qwen3.5 / Qwen3.6 / Nemotron 3: Qwen3-Coder's <tool_call><function=NAME><parameter=K>V</parameter> calls, <think> reasoning opened by the template",
)

# Granite 4 and EXAONE 4 write Hermes' <tool_call> JSON calls with their own end of turn; EXAONE
# 4 thinks in <think>, switched by enable_thinking (on: the prompt opens it; off: the model may
# still open it).
GRANITE4 = ChatFormat(
    name="granite4",
    reasoning=NO_REASONING,
    tools=HERMES,
    eos="<|end_of_text|>",
    aliases=("granite-4", "granite_4", "granite4.0"),  # vLLM's "granite" is Granite 3's <|tool_call|> list
    description='Granite 4: <tool_call>{"name", "arguments"}</tool_call>, no reasoning',
)

EXAONE4 = ChatFormat(
    name="exaone4",
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking="auto", toggle="enable_thinking"),
    tools=HERMES,
    eos="[|endofturn|]",
    aliases=("exaone", "exaone-4", "exaone_4", "exaone4.0"),
    description='EXAONE 4: <tool_call>{"name", "arguments"}</tool_call>, <think> reasoning when enable_thinking',
)

FORMATS = (QWEN3, QWEN3_CODER, QWEN3_5, GRANITE4, EXAONE4)
