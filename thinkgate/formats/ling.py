"""Ling 3 (inclusionAI): GLM-4.7's tool calls, thinking on by default.

vLLM's ``ling3`` parsers are its GLM-4.7 ones (the tool parser's structural tag is ``glm_4_7``);
SGLang's ``ling3`` detector is its GLM-4.5 one, reading a newline after the tool's name or
none. The calls, as vLLM's tests write them::

    <tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>
    <tool_call>ping</tool_call>

a string value as its bare text, any other as JSON (thinkgate reads the newlines GLM-4.5 writes
there too). Reasoning is ``<think>…</think>``, on unless ``thinking`` or ``enable_thinking`` is
false: the output starts inside it (an opening ``<think>`` the model writes is read as framing),
and GLM's reasoning parser ends it at ``<tool_call>``. The end of a turn is Ling 2's
``<|role_end|>``: no Ling 3 chat template was found to say otherwise.
"""

from .base import ChatFormat, ReasoningFormat
from .glm import GLM47_TOOLS

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
ROLE_END = "<|role_end|>"

LING3 = ChatFormat(
    name="ling3",
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking=True, toggle="enable_thinking"),
    tools=GLM47_TOOLS,
    eos=ROLE_END,
    aliases=("ling-3", "ling_3", "ling3_moe"),
    description="Ling 3: GLM-4.7's <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>, <think> on by default",
)

FORMATS = (LING3,)
