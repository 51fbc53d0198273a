"""AI21 Jamba 1.5 / 1.6 / 1.7: one JSON array of call objects between ``<tool_calls>`` tokens.

::

     Let me check.<tool_calls>[
        {"name": "get_weather", "arguments": {"city": "Paris"}},
        {"name": "now", "arguments": {}}
    ]</tool_calls><|eom|>

Its chat template (Jamba Mini 1.7's, as the ``r-rojo/rampipe`` test fixture
``jamba_mini_1_7_chat_template.jinja`` holds it) opens an assistant turn ``<|bom|><|assistant|>``
and a space (its generation prompt stops before the space: the model writes it, as the outputs
of vLLM's ``jamba`` tests begin), writes the turn's text, then ``<tool_calls>[`` and a newline,
each call object ``{"name": NAME, "arguments": ARGS}`` on a line of its own indented four spaces, the lines
joined by ``,``, then a newline and ``]</tool_calls>``; ``<|eom|>`` ends the message
(``<|endoftext|>`` the text). ``<tool_calls>`` and ``</tool_calls>`` are special tokens of
Jamba's tokenizer (vLLM's ``jamba`` parser refuses a tokenizer without them). Jamba does not
think.
"""

from .base import NO_REASONING, CallObject, ChatFormat, JsonCalls, ToolCallFormat

TOOL_CALLS_BEGIN = "<tool_calls>"
TOOL_CALLS_END = "</tool_calls>"
EOM = "<|eom|>"
END_OF_TEXT = "<|endoftext|>"

JAMBA = ChatFormat(
    name="jamba",
    reasoning=NO_REASONING,
    tools=ToolCallFormat(
        # the array and its items as the template lays them out: one call a line, indented
        layout=JsonCalls(array=("[\n    ", "\n]")),
        arguments=CallObject(),
        section=(TOOL_CALLS_BEGIN, TOOL_CALLS_END),
        separator=",\n    ",
    ),
    eos=EOM,
    stops=(END_OF_TEXT,),
    aliases=("jamba1.5", "jamba_1_5", "jamba1.7", "jamba-1.5", "ai21_jamba"),
    description='AI21 Jamba 1.5-1.7: <tool_calls>[{"name", "arguments"}, …]</tool_calls>, one call a line, no reasoning',
)

FORMATS = (JAMBA,)
