"""GLM-4.5 / GLM-4.6 (Zhipu): a call is the tool's name, then its parameters as key/value tags.

``<tool_call>get_weather\\n<arg_key>city</arg_key>\\n<arg_value>Paris</arg_value>\\n</tool_call>``,
a string value as its bare text, any other as JSON; calls separated by a newline. GLM thinks in
``<think>…</think>`` and opens it itself; its template's ``enable_thinking=False`` closes an empty
one in the prompt. A turn ends with ``<|user|>`` or, after tool calls, ``<|observation|>``.
"""

from .base import ChatFormat, MarkedCalls, ReasoningFormat, ToolCallFormat, XmlArguments

TOOL_CALL_BEGIN = "<tool_call>"
TOOL_CALL_END = "</tool_call>"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
END_OF_TEXT = "<|endoftext|>"
USER = "<|user|>"
OBSERVATION = "<|observation|>"

GLM_TOOLS = ToolCallFormat(
    layout=MarkedCalls(),
    call=(TOOL_CALL_BEGIN, TOOL_CALL_END),
    header="{name}\n",
    separator="\n",
    arguments=XmlArguments(style="glm_xml", key_open="<arg_key>", key_close="</arg_key>", value_open="<arg_value>", value_close="</arg_value>", between="\n"),
)

GLM45 = ChatFormat(
    name="glm45",
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking="auto", toggle="enable_thinking"),
    tools=GLM_TOOLS,
    eos=END_OF_TEXT,
    stops=(USER, OBSERVATION),
    aliases=("glm", "glm4", "glm4.5", "glm4.6", "glm4_5", "glm4_6", "glm46", "glm4_moe"),
    description="GLM-4.5 / 4.6: <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>, <think> reasoning",
)

# GLM-4.7 / GLM-5 write the same tags with no newline anywhere: ``<tool_call>NAME<arg_key>K</arg_key>
# <arg_value>V</arg_value></tool_call>`` (``<tool_call>NAME</tool_call>`` without arguments), calls
# back to back. Their template opens ``<think>`` in the prompt unless enable_thinking is false, and
# GLM-5 opens <tool_call> while thinking.
GLM47_TOOLS = ToolCallFormat(
    layout=MarkedCalls(),
    call=(TOOL_CALL_BEGIN, TOOL_CALL_END),
    header="{name}",
    arguments=XmlArguments(style="glm_xml", key_open="<arg_key>", key_close="</arg_key>", value_open="<arg_value>", value_close="</arg_value>", after=""),
)

GLM47 = ChatFormat(
    name="glm47",
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking=True, toggle="enable_thinking"),
    tools=GLM47_TOOLS,
    eos=END_OF_TEXT,
    stops=(USER, OBSERVATION),
    aliases=("glm4.7", "glm4_7", "glm-4.7", "glm47_moe", "glm5", "glm-5", "glm_5", "glm5_moe"),
    description="GLM-4.7 / GLM-5: <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call> without newlines, <think> opened by the template",
)

FORMATS = (GLM45, GLM47)
