"""Mistral's two tool-call layouts.

``mistral`` (Small 3.2, Magistral, Devstral; tokenizer v11 and later): each call is
``[TOOL_CALLS]NAME[ARGS]{…}``, with no end marker: a call ends where its JSON object closes.
``[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]now[ARGS]{}</s>``; a call may carry its
id (``get_weather[CALL_ID]a1b2c3d4e[ARGS]``), which becomes the call's id. Magistral thinks in
``[THINK]…[/THINK]``, opened by the model itself.

``mistral_json`` (Mistral 7B v0.3, Nemo, Small 2409–2501: tokenizers v3 and v7): one
``[TOOL_CALLS]`` followed by a JSON array of call objects,
``[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "now", "arguments": {}}]</s>``
(7B v0.3's sentencepiece tokenizer puts a space before the ``[``);
their templates write each call's id back into its object (``"id": "a1b2c3d4e"``). These models
do not think.

Both families' templates refuse a call id that is not nine letters and digits.
"""

from .base import NO_REASONING, CallObject, ChatFormat, JsonCalls, MarkedCalls, ReasoningFormat, ToolCallFormat

TOOL_CALLS = "[TOOL_CALLS]"
ARGS = "[ARGS]"
CALL_ID = "[CALL_ID]"
THINK_OPEN = "[THINK]"
THINK_CLOSE = "[/THINK]"
EOS = "</s>"

MISTRAL_TOOLS = ToolCallFormat(
    layout=MarkedCalls(),
    call=(TOOL_CALLS, ""),
    sep=ARGS,
    # v11+ tokenizers may write the call's id: NAME[CALL_ID]a1b2c3d4e[ARGS]
    header="{name}{call_id}{sep}",
    id_marker=CALL_ID,
    id_length=9,
)

MISTRAL_JSON_TOOLS = ToolCallFormat(
    # Templates join the objects with ", "; the array's "[" follows the marker directly (tekken:
    # Nemo) or after a space (sentencepiece: 7B v0.3), which readers and the grammar allow.
    layout=JsonCalls(array=("[", "]")),
    arguments=CallObject(id_key="id"),
    section=(TOOL_CALLS, ""),
    separator=", ",
    id_length=9,
)

MISTRAL = ChatFormat(
    name="mistral",
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking="auto"),
    tools=MISTRAL_TOOLS,
    eos=EOS,
    aliases=("magistral", "devstral", "mistral_small"),
    description="Mistral / Magistral / Devstral: [TOOL_CALLS]NAME[ARGS]{JSON} per call, [THINK] reasoning",
)

MISTRAL_JSON = ChatFormat(
    name="mistral_json",
    reasoning=NO_REASONING,
    tools=MISTRAL_JSON_TOOLS,
    eos=EOS,
    aliases=("mistral_v3", "mistral_v7", "mistral_nemo", "mistral_array"),
    description='Mistral 7B v0.3 / Nemo / Small 2409-2501: [TOOL_CALLS] then a JSON array of {"name", "arguments"}, no reasoning',
)

FORMATS = (MISTRAL, MISTRAL_JSON)
