"""Meituan LongCat-Flash: Hermes' JSON call objects in LongCat's own ``<longcat_tool_call>`` tags.

::

    <longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</longcat_tool_call>
    <longcat_tool_call>{"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}</longcat_tool_call>

one call object per pair of tags, nothing between the tags and the object, calls one a line (as
vLLM's tests write two). ``<longcat_tool_call>`` and ``</longcat_tool_call>`` are special tokens
of LongCat's tokenizer (vLLM's ``longcat`` parser, a Hermes parser on these tags, looks them up
in the vocabulary). Turns are ``[Round N] USER:… ASSISTANT:…</longcat_s>`` (LongCat-Flash's
published template), so ``</longcat_s>`` ends the answer. LongCat-Flash-Chat does not think.

Facts from vLLM's ``tool_parsers/longcat_tool_parser.py`` and its structural tag (Hermes-style
tags around a JSON call object), and the LongCat-Flash chat template reference (the tool call
envelope ``<longcat_tool_call>{"name": <function-name>, "arguments": <args-dict>}</longcat_tool_call>``).
"""

from .base import NO_REASONING, CallObject, ChatFormat, MarkedCalls, ToolCallFormat

TOOL_CALL_BEGIN = "<longcat_tool_call>"
TOOL_CALL_END = "</longcat_tool_call>"
EOS = "</longcat_s>"

LONGCAT_TOOLS = ToolCallFormat(
    layout=MarkedCalls(),
    arguments=CallObject(name_key="name", arguments_key="arguments"),
    call=(TOOL_CALL_BEGIN, TOOL_CALL_END),
    separator="\n",
)

LONGCAT = ChatFormat(
    name="longcat",
    reasoning=NO_REASONING,
    tools=LONGCAT_TOOLS,
    eos=EOS,
    aliases=("longcat_flash", "longcat-flash", "longcat_flash_chat"),
    description='Meituan LongCat-Flash: <longcat_tool_call>{"name", "arguments"}</longcat_tool_call>, no reasoning',
)

FORMATS = (LONGCAT,)
