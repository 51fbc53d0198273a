"""Fireworks firefunction-v2 (Llama 3 70B): one JSON array of call objects after ``functools``.

``Let me check. functools[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "now", "arguments": {}}]<|eot_id|>``

Its chat template (llama.cpp ``models/templates/fireworks-ai-llama-3-firefunction-v2.jinja``)
writes an assistant turn's text, then ``' functools['``, the call objects joined by ``, `` (each
``{"name": NAME, "arguments": ARGS}``, the arguments as the string the client gave), then ``]``,
with no closing marker (its system prompt: "prefix function calls with functools marker (no
closing marker required)"). ``functools`` is no special token of Llama 3's tokenizer: the marker
is text. The space the template writes before it is the answer's text (whitespace beside markup
stays with its text; alone before the calls it is framing, dropped). Turns end with
``<|eot_id|>``. The model does not think. (llama.cpp's test-chat.cpp reads
``' functools[{"name": "special_function", "arguments": {"arg1": 1}}]'``; neither vLLM nor
SGLang has a parser for it.)
"""

from .base import NO_REASONING, CallObject, ChatFormat, JsonCalls, Text, ToolCallFormat

FUNCTOOLS = Text("functools")
EOT = "<|eot_id|>"

FIREFUNCTION_V2 = ChatFormat(
    name="firefunction_v2",
    reasoning=NO_REASONING,
    tools=ToolCallFormat(
        layout=JsonCalls(array=("[", "]")),
        arguments=CallObject(),
        section=(FUNCTOOLS, ""),
        separator=", ",
    ),
    eos=EOT,
    aliases=("firefunction", "firefunction-v2", "firefunction2", "fireworks_firefunction"),
    description='Fireworks firefunction-v2: text, then functools[{"name", "arguments"}, …] as text, no reasoning',
)

FORMATS = (FIREFUNCTION_V2,)
