"""PLaMo 3 (Preferred Networks): calls in a block of ``<|plamo:…:plamo|>`` tags, JSON arguments.

::

    <|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>
    <|plamo:begin_tool_name:plamo|>get_weather<|plamo:end_tool_name:plamo|>
    <|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{"city": "Tokyo"}<|plamo:end_tool_arguments:plamo|>
    <|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|><|plamo:tag|>

(one line, here broken for reading): one block of requests after the answer's text, each request
the tool's name between name tags, then its JSON arguments, requests back to back. Every
``<|plamo:begin_NAME:plamo|>`` tag is several tokens: the special tokens ``<|plamo:begin_`` (or
``<|plamo:end_``) and ``:plamo|>`` around the tag's name in ordinary tokens, so the tags are text
(:class:`~.base.Text`) written with the special tokens ``text_tokens`` names; ``<|plamo:constrain|>``
and ``<|plamo:msg|>`` are tokens of their own, and ``<|plamo:tag|>``, one token, ends the turn.
PLaMo 3 thinks in ``<|plamo:begin_think:plamo|>…<|plamo:end_think:plamo|>``: the output starts
inside its reasoning (the template may write the open tag, or the model does) unless
``enable_thinking`` is false.

Facts from vLLM's ``parser/plamo3.py`` (the tags, their tokenization, the reasoning and its toggle,
EOT), its structural tag ``plamo3`` (requests back to back, no separator) and its tests
(``tests/parser/engine/test_plamo3.py``, ``tests/tool_parsers/test_plamo3_tool_parser.py``).
"""

from .base import ChatFormat, MarkedCalls, ReasoningFormat, Text, ToolCallFormat

TAG_BEGIN = "<|plamo:begin_"
TAG_END = "<|plamo:end_"
TAG_CLOSE = ":plamo|>"
CONSTRAIN = "<|plamo:constrain|>"
MSG = "<|plamo:msg|>"
EOT = "<|plamo:tag|>"
JSON = "json"

# The special tokens the tags are written with: a model may write whitespace beside them.
PLAMO_JOINTS = (TAG_BEGIN, TAG_END, TAG_CLOSE, CONSTRAIN, MSG)


def _opened(tag: str) -> str:
    return TAG_BEGIN + tag + TAG_CLOSE


def _closed(tag: str) -> str:
    return TAG_END + tag + TAG_CLOSE


def _tag(text: str) -> Text:
    return Text(text, joints=PLAMO_JOINTS)


PLAMO_TOOLS = ToolCallFormat(
    layout=MarkedCalls(),
    section=(_tag(_opened("tool_requests")), _tag(_closed("tool_requests"))),
    call=(_tag(_opened("tool_request")), _tag(_closed("tool_request"))),
    header=_opened("tool_name") + "{name}" + _closed("tool_name") + _opened("tool_arguments") + CONSTRAIN + JSON + MSG,
    footer=_closed("tool_arguments"),
)

PLAMO3 = ChatFormat(
    name="plamo3",
    reasoning=ReasoningFormat(open=_tag(_opened("think")), close=_tag(_closed("think")), default_thinking=True, toggle="enable_thinking"),
    tools=PLAMO_TOOLS,
    eos=EOT,
    text_tokens=PLAMO_JOINTS,
    text_calls_in_reasoning=True,
    aliases=("plamo", "plamo-3", "plamo_3"),
    description="PLaMo 3: <|plamo:begin_tool_requests:plamo|> requests of a <|plamo:begin_tool_name:plamo|>NAME and JSON arguments, as text; <|plamo:begin_think:plamo|> reasoning",
)

FORMATS = (PLAMO3,)
