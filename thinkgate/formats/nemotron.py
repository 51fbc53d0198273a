"""NVIDIA Nemotron Nano v2: one JSON array of call objects between ``<TOOLCALL>`` tags.

``<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "now", "arguments": {}}]</TOOLCALL>``,
the objects joined by ``, ``. It thinks in ``<think>…</think>``; its template opens
``<think>\\n\\n`` in the prompt unless a system or user message says ``/no_think`` (then the
prompt closes an empty ``<think></think>``), so thinking is switched in the messages, not by a
keyword. Roles are ``<SPECIAL_11>User`` and ``<SPECIAL_11>Assistant``; ``<SPECIAL_12>`` ends a turn.

Nemotron 3 writes Qwen3-Coder's XML calls and is the ``qwen3_5`` format (alias ``nemotron3``).
"""

from .base import CallObject, ChatFormat, JsonCalls, ReasoningFormat, ToolCallFormat

TOOLCALL_BEGIN = "<TOOLCALL>"
TOOLCALL_END = "</TOOLCALL>"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
END_OF_TURN = "<SPECIAL_12>"

NEMOTRON_TOOLS = ToolCallFormat(
    layout=JsonCalls(array=("[", "]")),
    arguments=CallObject(),
    section=(TOOLCALL_BEGIN, TOOLCALL_END),
    separator=", ",
)

NEMOTRON_V2 = ChatFormat(
    name="nemotron_v2",
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking=True),
    tools=NEMOTRON_TOOLS,
    eos=END_OF_TURN,
    aliases=("nemotron", "nemotron_nano_v2", "nemotron-nano-v2", "nemotron_nano_2", "nemotron_json"),
    description='NVIDIA Nemotron Nano v2: <TOOLCALL>[{"name", "arguments"}, …]</TOOLCALL>, <think> opened by the template',
)

FORMATS = (NEMOTRON_V2,)
