"""ServiceNow Apriel 1.5 / 1.6 Thinker: one JSON array of call objects in ``<tool_calls>`` tags,
after untagged reasoning that ends at ``[BEGIN FINAL RESPONSE]``.

::

    Here are my reasoning steps:
    The user wants the weather.
    [BEGIN FINAL RESPONSE]
    <tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "now", "arguments": {}}]</tool_calls>
    <|end|>

The templates (llama.cpp ``models/templates/unsloth-Apriel-1.5.jinja`` and
``Apriel-1.6-15b-Thinker-fixed.jinja``) write the calls as ``'\\n<tool_calls>[' + '{"name": "' +
NAME + '", "arguments": ' + ARGS + '}'`` joined by ``", "``, then ``']</tool_calls>'``; for turns
before the last they add each call's id to its object (``, "id": "…"``), which a model may write
too and which then becomes the call's id. The tags are text to the tokenizer.

The reasoning has no tags: Apriel 1.6's generation prompt ends in ``<|begin_assistant|>\\nHere are my
reasoning steps:\\n`` (the output starts inside the reasoning), and the reasoning ends at
``\\n[BEGIN FINAL RESPONSE]\\n`` (the template writes ``reasoning_content + '\\n[BEGIN FINAL
RESPONSE]\\n'`` before the answer). Apriel 1.5's prompt ends in ``<|assistant|>\\n`` and its system
prompt asks for the same two phrases, which the model then writes itself (the opening phrase at
the start of a reasoning output is read as its marker); its answer may end in ``[END FINAL
RESPONSE]``, kept verbatim. Both templates always think (no toggle); ``<|end|>`` ends the turn.
"""

from .base import CallObject, ChatFormat, JsonCalls, ReasoningFormat, Text, ToolCallFormat

TOOL_CALLS_BEGIN = Text("<tool_calls>")
TOOL_CALLS_END = Text("</tool_calls>")
REASONING_OPEN = Text("Here are my reasoning steps:\n")
FINAL_RESPONSE = Text("[BEGIN FINAL RESPONSE]\n")
END = "<|end|>"

APRIEL_TOOLS = ToolCallFormat(
    layout=JsonCalls(array=("[", "]")),
    arguments=CallObject(id_key="id"),
    section=(TOOL_CALLS_BEGIN, TOOL_CALLS_END),
    separator=", ",
)

APRIEL = ChatFormat(
    name="apriel",
    reasoning=ReasoningFormat(open=REASONING_OPEN, close=FINAL_RESPONSE, default_thinking=True),
    tools=APRIEL_TOOLS,
    eos=END,
    aliases=("apriel_1_5", "apriel-1.5", "apriel1.5", "apriel_1_6", "apriel-1.6", "apriel1.6", "apriel_thinker"),
    description='Apriel 1.5 / 1.6 Thinker: <tool_calls>[{"name", "arguments"}, …]</tool_calls>, reasoning up to [BEGIN FINAL RESPONSE]',
)

FORMATS = (APRIEL,)
