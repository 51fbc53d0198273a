"""MiniCPM 5 (OpenBMB): each call an XML element, its parameters elements named by attribute.

As its chat template writes them (llama.cpp ``models/templates/openbmb-MiniCPM5-1B.jinja``;
vLLM's and SGLang's ``minicpm5`` parsers), one after the answer's text and a newline, the next
after a newline::

    Let me check.
    <function name="get_weather"><param name="city">Paris</param><param name="days">3</param></function>

There is no block around the calls, and the tags are text. A string value is its bare text,
wrapped in ``<![CDATA[…]]>`` where it holds ``<``, ``&`` or a newline (read as the markup around
the value: ``cdata``); any other value as the template renders it (JSON, or Python's
``True``/``None``, which thinkgate reads too); the grammar writes strings bare and the rest as
JSON. MiniCPM 5 thinks in ``<think>…</think>``: ``enable_thinking`` true ends the prompt in
``<think>\\n``, false in an empty ``<think>\\n\\n</think>\\n\\n``, and unset leaves it to the model.
Turns are ChatML's, ending in ``<|im_end|>``.
"""

from .base import ChatFormat, MarkedCalls, ReasoningFormat, Text, ToolCallFormat, XmlArguments

FUNCTION_BEGIN = Text('<function name="')
FUNCTION_END = Text("</function>")
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
IM_END = "<|im_end|>"

MINICPM5_TOOLS = ToolCallFormat(
    layout=MarkedCalls(),
    arguments=XmlArguments(
        style="minimax_xml",  # MiniMax-M2's <parameter name="K">, its tags respelled <param name="K">
        key_open='<param name="',
        key_close='">',
        value_close="</param>",
        after="",
        cdata=("<![CDATA[", "]]>"),
    ),
    call=(FUNCTION_BEGIN, FUNCTION_END),
    header='{name}">',
    separator="\n",
)

MINICPM5 = ChatFormat(
    name="minicpm5",
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking="auto", toggle="enable_thinking"),
    tools=MINICPM5_TOOLS,
    eos=IM_END,
    aliases=("minicpm-5", "minicpm_5", "minicpm5xml", "minicpm5_xml"),
    description='MiniCPM 5: <function name="NAME"><param name="K">V</param></function> as text, one a line, <think> reasoning',
)

FORMATS = (MINICPM5,)
