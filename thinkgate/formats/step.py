"""StepFun Step 3, Step 3.5 / 3.7 and Step 5: two tool markups.

Step 3 (vLLM's and SGLang's ``step3`` parsers) writes DeepSeek-style special tokens around each
call, ``function<｜tool_sep｜>`` as its header, and the call itself in StepTML, XML-like tags that
are text, a string value as its bare text and any other as JSON::

    <｜tool_calls_begin｜>
    <｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather">
    <steptml:parameter name="city">Paris</steptml:parameter>
    <steptml:parameter name="days">3</steptml:parameter>
    </steptml:invoke><｜tool_call_end｜>
    <｜tool_calls_end｜>

(the layout as SGLang's tests write it: a newline inside the section around the calls, between
them, and after each parameter). Step 3 thinks in ``<think>…</think>`` and its output starts
inside the reasoning (vLLM's ``step3`` reasoning parser reads everything before ``</think>`` as
reasoning). Its turns end with ``<|EOT|>``, StepFun's end of turn (no Step 3 chat template was at
hand to confirm it: the peers' tests write none).

Step 3.5 and 3.7 (llama.cpp ``models/templates/StepFun3.7-Flash.jinja``; vLLM's ``step3p5``
parser, SGLang's ``step3p5``, which is its ``qwen3_coder``) write Qwen3-Coder's calls on ChatML
turns, a call straight after the answer's text and the next straight after it::

    Let me check.<tool_call>
    <function=get_weather>
    <parameter=city>
    Paris
    </parameter>
    </function>
    </tool_call>

Their template always ends the prompt in ``<think>\\n`` and has no switch to turn thinking off.
Step 5 (vLLM's ``step5`` parser: the Qwen3-Coder grammar; its ``step5`` reasoning parser is
DeepSeek-R1's, reasoning up to ``</think>`` with no opening needed) writes the same output, so it
is this format too (its own chat template was not at hand).
"""

from .base import ChatFormat, MarkedCalls, ReasoningFormat, ToolCallFormat, XmlArguments
from .qwen import IM_END, QWEN3_CODER_TOOLS

TOOL_CALLS_BEGIN = "<｜tool_calls_begin｜>"
TOOL_CALLS_END = "<｜tool_calls_end｜>"
TOOL_CALL_BEGIN = "<｜tool_call_begin｜>"
TOOL_CALL_END = "<｜tool_call_end｜>"
TOOL_SEP = "<｜tool_sep｜>"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
END_OF_TURN = "<|EOT|>"

STEPTML_TOOLS = ToolCallFormat(
    layout=MarkedCalls(),
    arguments=XmlArguments(
        style="minimax_xml",  # MiniMax-M2's <parameter name="K">, its tags respelled in StepTML
        key_open='<steptml:parameter name="',
        key_close='">',
        value_close="</steptml:parameter>",
    ),
    section=(TOOL_CALLS_BEGIN, TOOL_CALLS_END),
    call=(TOOL_CALL_BEGIN, TOOL_CALL_END),
    sep=TOOL_SEP,
    header='function{sep}<steptml:invoke name="{name}">\n',
    footer="</steptml:invoke>",
    separator="\n",
)

STEP3 = ChatFormat(
    name="step3",
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking=True),
    tools=STEPTML_TOOLS,
    eos=END_OF_TURN,
    aliases=("step-3", "step_3", "steptml"),
    description='Step 3: <｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="NAME"><steptml:parameter name="K">V</steptml:parameter>…, forced-open <think>',
)

STEP3_5 = ChatFormat(
    name="step3_5",
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking=True),
    # Qwen3-Coder's calls, written straight after the text and after each other
    tools=ToolCallFormat(
        layout=QWEN3_CODER_TOOLS.layout,
        arguments=QWEN3_CODER_TOOLS.arguments,
        call=QWEN3_CODER_TOOLS.call,
        header=QWEN3_CODER_TOOLS.header,
        footer=QWEN3_CODER_TOOLS.footer,
    ),
    eos=IM_END,
    aliases=("step3p5", "step3.5", "step-3.5", "step3_5_flash", "step3p7", "step3.7", "step3_7", "step-3.7", "step5", "step-5", "step_5"),
    description="Step 3.5 / 3.7 / 5: Qwen3-Coder's <tool_call><function=NAME><parameter=K>V</parameter> calls back to back, forced-open <think>",
)

FORMATS = (STEP3, STEP3_5)
