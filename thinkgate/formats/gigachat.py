"""GigaChat 3, 3.1 and 3.5 (Sber): three ways of writing a call, one per generation.

Every turn is ``ROLE<|role_sep|>\\nTEXT<|message_sep|>\\n\\n`` (the templates' ``add_tokens``);
the special tokens ``<|role_sep|>`` and ``<|message_sep|>`` end a role's name and a message.

GigaChat 3 (llama.cpp ``models/templates/GigaChat3-10B-A1.8B.jinja``) writes the call as a turn
of its own, the ``function call`` role, right after the assistant's text; its body is one JSON
call object, one call a turn::

    Let me check.<|message_sep|>

    function call<|role_sep|>
    {"name": "get_weather", "arguments": {"city": "Paris"}}

so the call's opening is text written with those two tokens (a :class:`~.base.Text` whose
joints they are), and the ``<|message_sep|>`` that ends the answer or the call is framing
(``turn_end``). vLLM's and SGLang's ``gigachat3`` parsers read this.

GigaChat 3.1 (llama.cpp's ``GigaChat3.1-10B-A1.8B.jinja``) writes the same call object inside
the assistant's turn after the special token ``<|function_call|>``, and ends the turn with
``<|message_sep|>``: ``Let me check.<|function_call|>{"name": …, "arguments": {…}}``. The same
``gigachat3`` parsers read it. The ``<|message_sep|>`` that ends a generation of any of the three
is framing (``turn_end``), not a stop: GigaChat 3 writes its calls after one, and all three end
a generation with ``</s>``.

GigaChat 3.5 (llama.cpp's ``GigaChat3.5.jinja``, SGLang's ``gigachat35`` detector) writes calls
in GCML, DeepSeek V4's DSML with ``｜GCML｜`` for ``｜DSML｜``, after the text and ``\\n\\n``::

    <｜GCML｜tool_calls>
    <｜GCML｜invoke name="get_weather">
    <｜GCML｜parameter name="city" string="true">Paris</｜GCML｜parameter>
    </｜GCML｜invoke>
    </｜GCML｜tool_calls>

(a call without arguments ``<｜GCML｜invoke name="NAME">\\n</｜GCML｜invoke>``), GCML tags as text
as DSML's are. It thinks in ``<think>…</think>``: its template's ``reasoning`` keyword (off by
default) ends the prompt in ``assistant<|role_sep|>\\n<think>``; a turn ends with
``<|message_sep|>``, or the end of sequence ``</s>`` after the conversation's last one. None of
the three GigaChat 3 templates writes reasoning but 3.5's.
"""

from .base import NO_REASONING, CallObject, ChatFormat, MarkedCalls, ReasoningFormat, Text, ToolCallFormat, XmlArguments
from .deepseek import STRING_WORDS

ROLE_SEP = "<|role_sep|>"
MESSAGE_SEP = "<|message_sep|>"
FUNCTION_CALL = "<|function_call|>"
EOS = "</s>"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
GIGACHAT_JOINTS = (MESSAGE_SEP, ROLE_SEP)

# GigaChat 3: the answer's message ends, the function call role's begins
FUNCTION_CALL_TURN = Text(f"{MESSAGE_SEP}\n\nfunction call{ROLE_SEP}\n", joints=GIGACHAT_JOINTS)
MESSAGE_END = Text(MESSAGE_SEP, joints=GIGACHAT_JOINTS)  # (the newlines after it, if any, are framing too)

GIGACHAT3 = ChatFormat(
    name="gigachat3",
    reasoning=NO_REASONING,
    tools=ToolCallFormat(layout=MarkedCalls(), arguments=CallObject(), call=(FUNCTION_CALL_TURN, "")),
    eos=EOS,
    turn_end=MESSAGE_END,
    text_tokens=GIGACHAT_JOINTS,
    aliases=("gigachat", "gigachat-3", "gigachat_3", "gigachat3_10b"),
    description='GigaChat 3: TEXT<|message_sep|>\\n\\nfunction call<|role_sep|>\\n{"name", "arguments"}, one call, no reasoning',
)

GIGACHAT3_1 = ChatFormat(
    name="gigachat3_1",
    reasoning=NO_REASONING,
    # <|function_call|> is a special token, matched as its text so that the message's end can be
    # read as framing (turn_end) as GigaChat 3's is
    tools=ToolCallFormat(layout=MarkedCalls(), arguments=CallObject(), call=(Text(FUNCTION_CALL), "")),
    eos=EOS,
    turn_end=MESSAGE_END,
    text_tokens=(*GIGACHAT_JOINTS, FUNCTION_CALL),
    aliases=("gigachat31", "gigachat3.1", "gigachat-3.1", "gigachat_3_1"),
    description='GigaChat 3.1: TEXT<|function_call|>{"name", "arguments"}, one call, no reasoning',
)

GCML = "｜GCML｜"
GCML_TOOLS = ToolCallFormat(
    layout=MarkedCalls(),
    arguments=XmlArguments(
        style="deepseek_xml",  # DSML's, its tags respelled with GCML (see XmlArguments.style)
        key_open=f'<{GCML}parameter name="',
        key_close='" string="{type}">',
        type_words=STRING_WORDS,
        value_close=f"</{GCML}parameter>",
    ),
    section=(Text(f"<{GCML}tool_calls>\n"), Text(f"</{GCML}tool_calls>")),
    call=(Text(f'<{GCML}invoke name="'), Text(f"</{GCML}invoke>\n")),
    header='{name}">\n',
)

GIGACHAT3_5 = ChatFormat(
    name="gigachat3_5",
    # the template's reasoning=True ends the prompt in <think>; off, the answer starts at once
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking="auto", toggle="reasoning"),
    tools=GCML_TOOLS,
    eos=EOS,
    turn_end=MESSAGE_END,
    text_tokens=GIGACHAT_JOINTS,
    aliases=("gigachat35", "gigachat3.5", "gigachat-3.5", "gigachat_3_5", "gigachat_gcml"),
    description='GigaChat 3.5: GCML <｜GCML｜tool_calls><｜GCML｜invoke name="NAME"><｜GCML｜parameter name="K" string="true|false">V… as text, <think> when reasoning',
)

FORMATS = (GIGACHAT3, GIGACHAT3_1, GIGACHAT3_5)
