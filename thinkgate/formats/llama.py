"""Llama 3.1 / 3.2 / 3.3 with JSON tool calling: the answer *is* the call, a bare JSON object.

``{"name": "get_weather", "parameters": {"city": "Paris"}}<|eot_id|>``. No marker opens a call: an
answer that starts with a JSON object is a call, and one that starts with anything else is text
(Meta's prompt format; vLLM's ``llama3_json`` parser reads it the same way). Several calls are
joined by ``; `` (vLLM's reading; Meta's own template renders one call per turn). The model may
write ``<|python_tag|>`` before a call (it is trained to for its built-in tools), and may end with
``<|eom_id|>`` instead of ``<|eot_id|>``. Llama 3.x does not think.
"""

from .base import NO_REASONING, CallObject, ChatFormat, JsonCalls, ToolCallFormat

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

FORMATS = (LLAMA3_JSON,)
