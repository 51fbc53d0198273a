"""MiniMax-M2: calls written in plain-text XML, a block of ``<invoke>`` elements.

::

    <minimax:tool_call>
    <invoke name="get_weather">
    <parameter name="city">Paris</parameter>
    <parameter name="days">3</parameter>
    </invoke>
    </minimax:tool_call>

A string value is its bare text, any other JSON. The tool markup is text (the model may spell
it with any tokens), so every tool marker is a :class:`~.base.Text`. MiniMax-M2 thinks in
``<think>…</think>``; its template ends the prompt in ``<think>\\n``, so the output starts inside
reasoning. ``[e~[`` ends a turn; roles are written ``]~b]user``, ``]~b]ai``, ``]~b]tool``.
"""

from .base import ChatFormat, MarkedCalls, ReasoningFormat, Text, ToolCallFormat, XmlArguments

TOOL_CALLS_BEGIN = Text("<minimax:tool_call>\n")
TOOL_CALLS_END = Text("</minimax:tool_call>")
INVOKE_BEGIN = Text('<invoke name="')
INVOKE_END = Text("</invoke>\n")
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
END_OF_TURN = "[e~["

MINIMAX_TOOLS = ToolCallFormat(
    layout=MarkedCalls(),
    arguments=XmlArguments(style="minimax_xml", key_open='<parameter name="', key_close='">', value_close="</parameter>"),
    section=(TOOL_CALLS_BEGIN, TOOL_CALLS_END),
    call=(INVOKE_BEGIN, INVOKE_END),
    header='{name}">\n',
)

MINIMAX_M2 = ChatFormat(
    name="minimax_m2",
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking=True),
    tools=MINIMAX_TOOLS,
    eos=END_OF_TURN,
    aliases=("minimax", "minimax-m2", "minimax_m2.5", "minimax-m2.5"),
    description='MiniMax-M2: <minimax:tool_call><invoke name="NAME"><parameter name="K">V</parameter></invoke></minimax:tool_call> as text, forced-open <think>',
)

FORMATS = (MINIMAX_M2,)
