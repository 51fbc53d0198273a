"""Mistral (Small 3.2, Magistral, Devstral; tokenizer v11 and later): each call is
``[TOOL_CALLS]NAME[ARGS]{…}``, with no end marker: a call ends where its JSON object closes.

``[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]now[ARGS]{}</s>``; a call may carry its
id (``get_weather[CALL_ID]a1b2c3d4e[ARGS]``), which becomes the call's id. Magistral thinks in
``[THINK]…[/THINK]``, opened by the model itself. (Older Mistral tokenizers write one
``[TOOL_CALLS]`` followed by a JSON array of ``{"name", "arguments"}`` objects; that layout is
not described here.)
"""

from .base import ChatFormat, ReasoningFormat, ToolCallFormat

TOOL_CALLS = "[TOOL_CALLS]"
ARGS = "[ARGS]"
CALL_ID = "[CALL_ID]"
THINK_OPEN = "[THINK]"
THINK_CLOSE = "[/THINK]"
EOS = "</s>"

MISTRAL_TOOLS = ToolCallFormat(
    layout="tagged_json",
    section=("", ""),
    call=(TOOL_CALLS, ""),
    sep=ARGS,
    # v11+ tokenizers may write the call's id: NAME[CALL_ID]a1b2c3d4e[ARGS]
    header="{name}{call_id}{sep}",
    id_marker=CALL_ID,
)

MISTRAL = ChatFormat(
    name="mistral",
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking="auto"),
    tools=MISTRAL_TOOLS,
    eos=EOS,
    aliases=("magistral", "devstral", "mistral_small"),
    description="Mistral / Magistral / Devstral: [TOOL_CALLS]NAME[ARGS]{JSON} per call, [THINK] reasoning",
)

FORMATS = (MISTRAL,)
