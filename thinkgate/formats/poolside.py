"""Poolside v1 (Laguna-XS.2, Laguna-S-2.1): GLM-4.5's calls, the tool's name then key/value tags.

::

    <tool_call>write_file
    <arg_key>path</arg_key>
    <arg_value>a.txt</arg_value>
    <arg_key>mode</arg_key>
    <arg_value>420</arg_value>
    </tool_call>

A string value is its bare text, verbatim (vLLM's ``poolside_v1`` parser keeps a code body's
indent and trailing newline), any other value JSON (SGLang's ``PoolsideV1Detector`` wire format;
Laguna-S-2.1's template writes the same tags with no newline between them, which the reader takes
as well). The markup and its spelling are GLM-4.5's, so the tools are that value. Laguna thinks in
``<think>…</think>`` only when asked: its template's ``enable_thinking`` is off by default (SGLang's
``poolside_v1`` reasoning parser; vLLM's reads reasoning only with thinking on, the template then
opening ``<think>`` in the prompt). A turn is ``<assistant>…</assistant>``: ``</assistant>`` ends the
output (the template's stop; vLLM's reasoning parser looks ``<assistant>`` up as one token), as
does the tokenizer's end of sequence, ``〈|EOS|〉`` (U+3008, ``|EOS|``, U+3009).
"""

from .base import ChatFormat, ReasoningFormat
from .glm import GLM_TOOLS

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
END_OF_ASSISTANT = "</assistant>"
EOS = "\u3008|EOS|\u3009"

POOLSIDE_V1 = ChatFormat(
    name="poolside_v1",
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking=False, toggle="enable_thinking"),
    tools=GLM_TOOLS,
    eos=END_OF_ASSISTANT,
    stops=(EOS,),
    aliases=("poolside", "poolside-v1", "laguna", "laguna_xs2", "laguna-xs.2", "laguna-s-2.1"),
    description="Poolside v1 (Laguna): <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>, <think> when enable_thinking",
)

FORMATS = (POOLSIDE_V1,)
