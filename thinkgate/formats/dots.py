"""rednote dots (dots.llm): MiniMax-M2's ``<invoke>`` elements inside ``<dots_function_call>``.

::

    <dots_function_call>
    <invoke name="search">
    <parameter name="query">weather in Shanghai</parameter>
    </invoke>
    </dots_function_call>

One block holding one ``<invoke>`` per call (the canonical body of vLLM's ``dots`` tool parser and
SGLang's ``DotsToolDetector``; a dots model served live writes ``<dots_function_call>\\n<invoke
name="…">\\n<parameter name="…">…``); a string value is its bare text, any other JSON (both
peers convert a value by the tool's schema). The peers also read a JSON call object
(``{"name", "arguments"}``) in the block as a fallback; thinkgate reads the XML body only. The
markup is matched as text, as MiniMax-M2's is, whatever tokens spell it. Reasoning is
``<think>…</think>``, opened by the model itself (SGLang's ``dots`` reasoning parser is its Qwen3
one). Turns are dots.llm1's ``<|userprompt|>…<|endofuserprompt|><|response|>…<|endofresponse|>``:
``<|endofresponse|>`` ends the output.
"""

from .base import ChatFormat, MarkedCalls, ReasoningFormat, Text, ToolCallFormat, XmlArguments

FUNCTION_CALL_BEGIN = Text("<dots_function_call>\n")
FUNCTION_CALL_END = Text("</dots_function_call>")
INVOKE_BEGIN = Text('<invoke name="')
INVOKE_END = Text("</invoke>\n")
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
END_OF_RESPONSE = "<|endofresponse|>"

DOTS_TOOLS = ToolCallFormat(
    layout=MarkedCalls(),
    arguments=XmlArguments(style="minimax_xml", key_open='<parameter name="', key_close='">', value_close="</parameter>"),
    section=(FUNCTION_CALL_BEGIN, FUNCTION_CALL_END),
    call=(INVOKE_BEGIN, INVOKE_END),
    header='{name}">\n',
)

DOTS = ChatFormat(
    name="dots",
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking="auto"),
    tools=DOTS_TOOLS,
    eos=END_OF_RESPONSE,
    aliases=("dots_llm", "dots.llm", "dots-llm", "dots1", "dots_function_call"),
    description='dots: <dots_function_call><invoke name="NAME"><parameter name="K">V</parameter></invoke></dots_function_call> as text, <think> reasoning',
)

FORMATS = (DOTS,)
