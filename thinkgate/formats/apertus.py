"""Swiss AI Apertus: one JSON array of calls between ``<|tools_prefix|>`` and ``<|tools_suffix|>``,
each call an object whose one key is the tool's name.

``<|tools_prefix|>[{"get_weather": {"city": "Paris"}}, {"now": {}}]<|tools_suffix|>``

Apertus' chat template (llama.cpp ``models/templates/Apertus-8B-Instruct.jinja``, the
Apertus-8B-Instruct-2509 one) writes ``tool_calls_token + '['``, then per call ``'{"' + NAME +
'": ' + ARGS | tojson + '}'`` joined by ``", "``, then ``']' + end_tool_calls_token``; the tool
results follow in the same assistant turn, so the model's generation config ends a turn at
``<|tools_suffix|>`` as well as at ``<|assistant_end|>`` (eos ids 2, 68 and 72): an engine stops
right after the section's end, which the grammar writes, or the grammar has the model write the
end of sequence after it. Text may stand
before and after the block. Apertus thinks between ``<|inner_prefix|>`` and ``<|inner_suffix|>``,
opened by the model itself (the generation prompt ends in ``<|assistant_start|>``); the template's
``enable_thinking`` writes ``Deliberation: enabled`` (or ``disabled``) into the developer message.
Every marker here is one special token (ids 61–72 of its tokenizer). Sources: vLLM
``tool_parsers/apertus_tool_parser.py`` (``apertus``), SGLang
``function_call/apertus2509_detector.py`` (``apertus2509``) and their tests, the template above.
"""

from .base import CallObject, ChatFormat, JsonCalls, ReasoningFormat, ToolCallFormat

TOOLS_PREFIX = "<|tools_prefix|>"
TOOLS_SUFFIX = "<|tools_suffix|>"
INNER_PREFIX = "<|inner_prefix|>"
INNER_SUFFIX = "<|inner_suffix|>"
ASSISTANT_END = "<|assistant_end|>"

APERTUS_TOOLS = ToolCallFormat(
    layout=JsonCalls(array=("[", "]")),
    arguments=CallObject(name_as_key=True),
    section=(TOOLS_PREFIX, TOOLS_SUFFIX),
    separator=", ",
)

APERTUS = ChatFormat(
    name="apertus",
    reasoning=ReasoningFormat(open=INNER_PREFIX, close=INNER_SUFFIX, default_thinking="auto", toggle="enable_thinking"),
    tools=APERTUS_TOOLS,
    eos=ASSISTANT_END,
    aliases=("apertus2509", "apertus_2509", "apertus-8b", "apertus-70b", "swiss_ai_apertus"),
    description='Apertus: <|tools_prefix|>[{"NAME": {…}}, …]<|tools_suffix|>, <|inner_prefix|> reasoning opened by the model',
)

FORMATS = (APERTUS,)
