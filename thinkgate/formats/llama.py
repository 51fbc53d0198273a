"""Llama 3.1 / 3.2 / 3.3 with JSON tool calling: the answer *is* the call, a bare JSON object.

``{"name": "get_weather", "parameters": {"city": "Paris"}}<|eot_id|>``. No marker opens a call: an
answer that starts with a JSON object is a call, and one that starts with anything else is text
(Meta's prompt format; vLLM's ``llama3_json`` parser reads it the same way). Several calls are
joined by ``; `` (vLLM's reading; Meta's own template renders one call per turn). The model may
write ``<|python_tag|>`` before a call (it is trained to for its built-in tools), and may end with
``<|eom_id|>`` instead of ``<|eot_id|>``. Llama 3.x does not think.
"""

from .base import NO_REASONING, CallObject, ChatFormat, JsonCalls, PythonArguments, PythonicCalls, ToolCallFormat

PYTHON_TAG = "<|python_tag|>"
EOT = "<|eot_id|>"
EOM = "<|eom_id|>"

LLAMA3_TOOLS = ToolCallFormat(
    layout=JsonCalls(optional_begin=PYTHON_TAG),
    # Models fine-tuned on other formats write "arguments" now and then (SGLang's and vLLM's
    # Llama parsers read it too): read, never written.
    arguments=CallObject(name_key="name", arguments_key="parameters", read_also=("arguments",)),
    separator="; ",
)

LLAMA3_JSON = ChatFormat(
    name="llama3_json",
    reasoning=NO_REASONING,
    tools=LLAMA3_TOOLS,
    eos=EOT,
    stops=(EOM,),
    aliases=("llama3", "llama", "llama3.1", "llama3.2", "llama3.3", "llama3_1", "llama3_2", "llama3_3"),
    description='Llama 3.1 / 3.2 / 3.3: the answer is {"name", "parameters"} objects joined by "; ", no reasoning',
)

# Llama 4 with pythonic tool calling (vLLM's ``llama4_pythonic`` and ``pythonic`` parsers, its
# examples/tool_chat_template_llama4_pythonic.jinja): the answer is a Python list of calls,
# ``[get_weather(city="Paris"), now()]<|eot|>``. The model may write ``<|python_start|>`` before the
# list and ``<|python_end|>`` after it. That template writes every value as a quoted string
# (``"%s" | format(value)``: ``days="3"``); the grammar writes a value as the Python literal its
# schema's type is (``days=3``), which the parser reads back as that type.
PYTHON_START = "<|python_start|>"
PYTHON_END = "<|python_end|>"
EOT4 = "<|eot|>"
EOM4 = "<|eom|>"

LLAMA4_PYTHONIC = ChatFormat(
    name="llama4_pythonic",
    reasoning=NO_REASONING,
    tools=ToolCallFormat(
        layout=PythonicCalls(array=("[", "]"), optional_begin=PYTHON_START, optional_end=PYTHON_END),
        arguments=PythonArguments(quote='"'),
        header="{name}",
        separator=", ",
    ),
    eos=EOT4,
    stops=(EOM4,),
    aliases=("pythonic", "llama4", "llama_4", "llama4_python"),
    description="Llama 4 (and pythonic models: Llama 3.2, ToolACE): the answer is a Python list of calls, [f(a=1), g()], no reasoning",
)

FORMATS = (LLAMA3_JSON, LLAMA4_PYTHONIC)
