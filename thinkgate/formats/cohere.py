"""Cohere Command R7B / Command A / Command 4: a plan in ``<|START_THINKING|>``, then either a
text answer in ``<|START_RESPONSE|>`` or one JSON array of actions in ``<|START_ACTION|>``.

::

    <|START_THINKING|>I will look up the weather.<|END_THINKING|><|START_ACTION|>[
        {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}},
        {"tool_call_id": "1", "tool_name": "now", "parameters": {}}
    ]<|END_ACTION|><|END_OF_TURN_TOKEN|>

    <|START_RESPONSE|>It is sunny in Paris.<|END_RESPONSE|><|END_OF_TURN_TOKEN|>

Command R7B's chat template (llama.cpp
``models/templates/CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja``) writes a turn with calls
as ``<|START_THINKING|>`` + reasoning + ``<|END_THINKING|><|START_ACTION|>[``, each action on its
own indented line (``{"tool_call_id": "N", "tool_name": NAME, "parameters": ARGS}``, joined by
``,``), then ``\\n]<|END_ACTION|>``; any other turn as ``<|START_RESPONSE|>`` + content +
``<|END_RESPONSE|>``; every turn ends with ``<|END_OF_TURN_TOKEN|>``. A turn with calls has no
response text. ``tool_call_id`` counts the calls across the conversation (the template maps each
earlier call's id to its number): it is framing here, written by the grammar as digits, and the
calls get thinkgate's ids. The model opens its plan itself (the generation prompt ends in
``<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>``) and may leave it out. Every marker is one special token
of Cohere's tokenizer. Text in the answer keeps its citations (``<co>…</co: 0:[1]>``) verbatim.
Sources: vLLM ``cohere_command3`` / ``cohere_command4`` (``tool_parsers/cohere_command_tool_parser.py``,
``reasoning/cohere_command_reasoning_parser.py``), SGLang ``cohere_command4``
(``function_call/cohere_command4_detector.py``), llama.cpp's template above and its
``COMMON_CHAT_FORMAT_COMMAND_R7B`` tests.
"""

from .base import CallObject, ChatFormat, JsonCalls, ReasoningFormat, ToolCallFormat

START_ACTION = "<|START_ACTION|>"
END_ACTION = "<|END_ACTION|>"
START_THINKING = "<|START_THINKING|>"
END_THINKING = "<|END_THINKING|>"
START_RESPONSE = "<|START_RESPONSE|>"
END_RESPONSE = "<|END_RESPONSE|>"
END_OF_TURN = "<|END_OF_TURN_TOKEN|>"

COHERE_TOOLS = ToolCallFormat(
    # the template's indent: "[\n    " before the first action, ",\n    " between, "\n]" after
    layout=JsonCalls(array=("[\n    ", "\n]")),
    arguments=CallObject(name_key="tool_name", arguments_key="parameters", index_key="tool_call_id"),
    section=(START_ACTION, END_ACTION),
    separator=",\n    ",
)

COHERE_COMMAND = ChatFormat(
    name="cohere_command",
    reasoning=ReasoningFormat(open=START_THINKING, close=END_THINKING, default_thinking="auto"),
    tools=COHERE_TOOLS,
    eos=END_OF_TURN,
    response=(START_RESPONSE, END_RESPONSE),
    aliases=("cohere_command3", "cohere_command4", "command_r7b", "command-r7b", "command_a", "command-a", "cohere", "command_r7b_12_2024"),
    description="Cohere Command R7B / A / 4: <|START_ACTION|>[{\"tool_call_id\", \"tool_name\", \"parameters\"}, …]<|END_ACTION|> or <|START_RESPONSE|>text<|END_RESPONSE|>, <|START_THINKING|> plan",
)

FORMATS = (COHERE_COMMAND,)
