"""Microsoft Phi-4-mini: ``functools`` then one JSON array of call objects, no end marker.

``functools[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "now", "arguments": {}}]<|end|>``

vLLM's template for it (``examples/tool_chat_template_phi4_mini.jinja``) spells the markup in its
system prompt: "prefix function calls with functools marker (no closing marker required)", "all
function calls should be generated in a single JSON list formatted as functools[{"name": …,
"arguments": …}, …]". ``functools`` is ordinary text to the tokenizer; the turn ends with
``<|end|>``. vLLM's parser (``phi4_mini_json``) also takes the arguments under ``"parameters"``.
Phi-4-mini does not think. (llama.cpp's own template for it,
``models/templates/llama-cpp-microsoft-Phi-4-mini-instruct.jinja``, asks for
``<|tool_call|>{…}<|/tool_call|>`` instead: a Hermes-style layout that ``detect`` derives from it.)
Source: vLLM ``tool_parsers/phi4mini_tool_parser.py`` and its tests.
"""

from .base import NO_REASONING, CallObject, ChatFormat, JsonCalls, Text, ToolCallFormat

FUNCTOOLS = Text("functools")
END = "<|end|>"

PHI4_MINI_TOOLS = ToolCallFormat(
    layout=JsonCalls(array=("[", "]")),
    arguments=CallObject(read_also=("parameters",)),
    section=(FUNCTOOLS, ""),
    separator=", ",
)

PHI4_MINI = ChatFormat(
    name="phi4_mini",
    reasoning=NO_REASONING,
    tools=PHI4_MINI_TOOLS,
    eos=END,
    aliases=("phi4_mini_json", "phi4mini", "phi-4-mini", "phi4-mini", "phi_4_mini"),
    description='Phi-4-mini: functools[{"name", "arguments"}, …], no end marker, no reasoning',
)

FORMATS = (PHI4_MINI,)
