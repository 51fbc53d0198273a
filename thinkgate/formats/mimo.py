"""Xiaomi MiMo (MiMo-V2-Flash, MiMo-V2.6): Qwen3-Coder's ``<function=NAME>`` parameters in
``<tool_call>`` tags, each value verbatim between its tags.

MiMo-V2-Flash (SGLang's ``mimo`` detector, vLLM's MiMo-V2-Flash tests)::

    <tool_call>
    <function=execute_bash>
    <parameter=command>pwd && ls</parameter>
    </function>
    </tool_call>

MiMo-V2.6 writes the same tags with no newline between them (xgrammar's ``mimo`` structural tag,
from MiMo-V2.6-Pro-RL's chat template)::

    <tool_call><function=execute_bash><parameter=command>pwd && ls</parameter></function></tool_call>

A string value is its text verbatim, with no padding newline (vLLM's ``mimo`` parser keeps the
value's newlines where Qwen3-Coder's trims one on each side), any other value JSON; each call
is its own ``<tool_call>`` block. MiMo thinks in ``<think>…</think>``, opened by the model
itself: with ``enable_thinking`` on the generation prompt ends in ``<|im_start|>assistant\\n``,
with it off the template closes an empty ``<think></think>`` in the prompt. Turns are ChatML's,
ended by ``<|im_end|>``; ``<tool_call>`` and ``</tool_call>`` are tokens, as in Qwen's tokenizer
that MiMo's is built on.

``mimo`` writes MiMo-V2-Flash's spelling and reads both (the newlines are optional whitespace to
its reader); ``mimo_v2_6`` writes V2.6's, with none.
"""

from .base import ChatFormat, MarkedCalls, ReasoningFormat, ToolCallFormat, XmlArguments

TOOL_CALL_BEGIN = "<tool_call>"
TOOL_CALL_END = "</tool_call>"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
IM_END = "<|im_end|>"
FUNCTION = "<function={name}>"
FUNCTION_END = "</function>"
PARAMETER = "<parameter="
PARAMETER_END = "</parameter>"

MIMO_REASONING = ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking="auto", toggle="enable_thinking")

MIMO_TOOLS = ToolCallFormat(
    layout=MarkedCalls(),
    arguments=XmlArguments(style="qwen_xml", key_open=PARAMETER, key_close=">", value_close=PARAMETER_END),
    call=(TOOL_CALL_BEGIN, TOOL_CALL_END),
    header="\n" + FUNCTION + "\n",
    footer=FUNCTION_END + "\n",
    separator="\n",
)

MIMO = ChatFormat(
    name="mimo",
    reasoning=MIMO_REASONING,
    tools=MIMO_TOOLS,
    eos=IM_END,
    aliases=("mimo_v2", "mimo-v2", "mimo_v2_flash", "mimo-v2-flash", "mimov2_flash", "mimo2"),
    description="MiMo-V2-Flash: <tool_call><function=NAME><parameter=K>V</parameter></function></tool_call>, values verbatim, <think> reasoning",
)

MIMO_V2_6_TOOLS = ToolCallFormat(
    layout=MarkedCalls(),
    arguments=XmlArguments(style="qwen_xml", key_open=PARAMETER, key_close=">", value_close=PARAMETER_END, after=""),
    call=(TOOL_CALL_BEGIN, TOOL_CALL_END),
    header=FUNCTION,
    footer=FUNCTION_END,
)

MIMO_V2_6 = ChatFormat(
    name="mimo_v2_6",
    reasoning=MIMO_REASONING,
    tools=MIMO_V2_6_TOOLS,
    eos=IM_END,
    aliases=("mimo_v2.6", "mimo-v2.6", "mimo_v26", "mimo-v2.6-pro", "mimo-v2.6-flash"),
    description="MiMo-V2.6: MiMo's <tool_call><function=NAME><parameter=K>V</parameter></function></tool_call> with no newlines",
)

FORMATS = (MIMO, MIMO_V2_6)
