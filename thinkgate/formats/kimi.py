"""Kimi-K2 (Instruct and Thinking): calls in a section of special tokens, each header the call's
id ``functions.NAME:INDEX``.

``<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>``
``{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>``. The header is also the call's id:
Kimi's chat template writes ``tool_call.id`` back in that place, so the id must round-trip.
K2-Thinking thinks in ``<think>…</think>``, opened by the model itself.

Kimi-K3 writes its turn in XTML elements, each opened ``<|open|>TAG ATTRS<|sep|>`` and closed
``<|close|>TAG<|sep|>`` (the three are special tokens, the tag names and attributes text): its
thinking, then its answer in a ``response`` element, then its calls in a ``tools`` element, one
``call`` each (numbered from 1, back to back), one typed ``argument`` per key, a string as its
bare text and any other value as JSON::

    <|open|>think<|sep|>…<|close|>think<|sep|><|open|>response<|sep|>Let me look.<|close|>response<|sep|>
    <|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|>
    <|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>
    <|open|>argument key="days" type="number"<|sep|>3<|close|>argument<|sep|>
    <|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>

(one line, here broken for reading). Its chat template thinks unless ``thinking`` is false, and
ends the prompt in ``<|open|>think<|sep|>``, or in ``<|open|>response<|sep|>`` when not thinking.
Its markers are several tokens each, so they are text (:class:`~.base.Text`) here, written with
the special tokens ``text_tokens`` names. The template escapes ``&`` and ``"`` in a tag's
attributes: parameter names here hold neither.
"""

from .base import ChatFormat, MarkedCalls, ReasoningFormat, Text, ToolCallFormat, XmlArguments

TOOL_CALLS_SECTION_BEGIN = "<|tool_calls_section_begin|>"
TOOL_CALLS_SECTION_END = "<|tool_calls_section_end|>"
TOOL_CALL_BEGIN = "<|tool_call_begin|>"
TOOL_CALL_END = "<|tool_call_end|>"
TOOL_CALL_ARGUMENT_BEGIN = "<|tool_call_argument_begin|>"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
IM_END = "<|im_end|>"

KIMI_TOOLS = ToolCallFormat(
    layout=MarkedCalls(optional_name_prefix=True),  # "get_weather:0" without "functions." is read too
    section=(TOOL_CALLS_SECTION_BEGIN, TOOL_CALLS_SECTION_END),
    call=(TOOL_CALL_BEGIN, TOOL_CALL_END),
    sep=TOOL_CALL_ARGUMENT_BEGIN,
    header="functions.{name}:{index}{sep}",
    call_id="functions.{name}:{index}",
)

KIMI_K2 = ChatFormat(
    name="kimi_k2",
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking="auto"),
    tools=KIMI_TOOLS,
    eos=IM_END,
    aliases=("kimi", "kimik2", "kimi-k2", "kimi_k2_thinking"),
    description="Kimi-K2 / K2-Thinking: <|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{JSON} calls",
)

# Kimi-K3 (XTML)
XTML_OPEN = "<|open|>"
XTML_CLOSE = "<|close|>"
XTML_SEP = "<|sep|>"
END_OF_MSG = "<|end_of_msg|>"


# Models write whitespace beside the special tokens a marker is made of (``<|open|> tools
# <|sep|>``); the parser reads it there, as vLLM's Kimi-K3 parser does.
XTML_JOINTS = (XTML_OPEN, XTML_CLOSE, XTML_SEP)


def _opened(tag: str) -> Text:
    return Text(XTML_OPEN + tag + XTML_SEP, joints=XTML_JOINTS)


def _closed(tag: str) -> Text:
    return Text(XTML_CLOSE + tag + XTML_SEP, joints=XTML_JOINTS)


KIMI_K3_TOOLS = ToolCallFormat(
    layout=MarkedCalls(),
    arguments=XmlArguments(
        style="kimi_k3_xml",
        key_open=XTML_OPEN + 'argument key="',
        key_close='" type="{type}"' + XTML_SEP,
        value_close=_closed("argument"),
        after="",
        name_pattern=r"[^\s<>\"'/=&|]+",
    ),
    section=(_opened("tools"), _closed("tools")),
    call=(Text(XTML_OPEN + 'call tool="', joints=XTML_JOINTS), _closed("call")),
    header='{name}" index="{index}"' + XTML_SEP,
    first_index=1,
)

KIMI_K3 = ChatFormat(
    name="kimi_k3",
    reasoning=ReasoningFormat(open=_opened("think"), close=_closed("think"), default_thinking=True, toggle="thinking"),
    tools=KIMI_K3_TOOLS,
    eos=END_OF_MSG,
    answer=(_opened("response"), _closed("response")),
    turn_end=_closed("message"),
    text_tokens=XTML_JOINTS,
    aliases=("kimik3", "kimi-k3", "kimi_k3_xtml"),
    description='Kimi-K3: <|open|>call tool="NAME" index="1"<|sep|><|open|>argument key="K" type="T"<|sep|>V<|close|>argument<|sep|>… XTML calls, <|open|>think<|sep|> reasoning',
)

FORMATS = (KIMI_K2, KIMI_K3)
