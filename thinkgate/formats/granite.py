"""IBM Granite 3.x and Granite 20B FunctionCalling: JSON call objects after a marker.

Granite 3.0 – 3.3 (``granite3``): ``<|tool_call|>`` then one JSON array of call objects::

    <|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "now", "arguments": {}}]<|end_of_text|>

``<|tool_call|>`` is one special token of Granite 3's tokenizer (with ``<|start_of_role|>`` and
``<|end_of_role|>``, the three tokens past its 49,152); the calls end with the array, no end marker.
The models often put a space or a newline before the ``[`` (vLLM's tests write ``<|tool_call|> [``),
which is read. Granite's chat templates say the markup in their system prompt ("respond only with
<|tool_call|> followed by a JSON list of tools used") and write no calls back into a turn, so the
separator is the JSON list's ``", "``. Granite 3.2 / 3.3 think when the template's ``thinking``
keyword is on (the template then asks for it in the system prompt; the prompt opens nothing): 3.3
writes ``<think>…</think>`` then its answer in ``<response>…</response>`` (kept verbatim in the
answer), 3.2 ``Here is my thought process:`` … ``Here is my response:`` (read as the same markers;
vLLM's granite reasoning parser takes ``Here's`` too). The reasoning markers are text in the
tokenizer. Granite 4 writes Hermes' ``<tool_call>`` tags and is ``granite4`` (``qwen.py``).
Sources: vLLM's tool parser ``granite`` (``tool_parsers/granite_tool_parser.py`` and its tests),
its reasoning parser ``granite``, llama.cpp's ``models/templates/ibm-granite-granite-3.3-2B-Instruct.jinja``.

Granite 20B FunctionCalling (``granite_20b_fc``): each call its own ``<function_call>``, a space,
then the call object, with no end marker and no section around the calls; text may come first::

    <function_call> {"name": "get_weather", "arguments": {"city": "Paris"}}
    <function_call> {"name": "now", "arguments": {}}<|endoftext|>

``<function_call>`` is text to its (StarCoder) tokenizer. vLLM's template
(``examples/tool_chat_template_granite_20b_fc.jinja``) writes ``'<function_call> ' + {name,
arguments} | tojson`` per call, each on its own line, then ``<|endoftext|>``. It does not think.
Source: vLLM's tool parser ``granite-20b-fc`` (``tool_parsers/granite_20b_fc_tool_parser.py``).
"""

from .base import NO_REASONING, CallObject, ChatFormat, JsonCalls, MarkedCalls, ReasoningFormat, Text, ToolCallFormat

TOOL_CALL = "<|tool_call|>"
END_OF_TEXT = "<|end_of_text|>"
THINK_OPEN = Text("<think>", read_also=("Here is my thought process:", "Here's my thought process:"))
THINK_CLOSE = Text("</think>", read_also=("Here is my response:", "Here's my response:"))

FUNCTION_CALL = Text("<function_call> ")
ENDOFTEXT = "<|endoftext|>"

GRANITE3_TOOLS = ToolCallFormat(
    layout=JsonCalls(array=("[", "]")),
    arguments=CallObject(),
    section=(TOOL_CALL, ""),
    separator=", ",
)

GRANITE3 = ChatFormat(
    name="granite3",
    # Granite 3.2 / 3.3 think when the template's thinking keyword asks them to; the model
    # opens the reasoning itself.
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking="auto", toggle="thinking"),
    tools=GRANITE3_TOOLS,
    eos=END_OF_TEXT,
    aliases=("granite", "granite-3", "granite_3", "granite3.0", "granite3.1", "granite3.2", "granite3.3", "granite_json"),
    description='Granite 3.x: <|tool_call|>[{"name", "arguments"}, …], <think> reasoning when the template\'s thinking is on',
)

GRANITE_20B_FC_TOOLS = ToolCallFormat(
    layout=MarkedCalls(),
    arguments=CallObject(),
    call=(FUNCTION_CALL, ""),
    separator="\n",
)

GRANITE_20B_FC = ChatFormat(
    name="granite_20b_fc",
    reasoning=NO_REASONING,
    tools=GRANITE_20B_FC_TOOLS,
    eos=ENDOFTEXT,
    aliases=("granite-20b-fc", "granite_20b", "granite-20b-functioncalling", "granite_20b_functioncalling"),
    description='Granite 20B FunctionCalling: <function_call> {"name", "arguments"} per call, no end marker',
)

FORMATS = (GRANITE3, GRANITE_20B_FC)
