"""DeepSeek R1, V3-0324, V3.1, V3.2, V4 and V4.1: the markers and layouts, as a table.

Up to V3.1 every DeepSeek marker is a single special token of the DeepSeek tokenizer; ``｜``
(U+FF5C) and ``▁`` (U+2581) are part of the marker text.

V3.2 and V4 write their calls in DSML, XML-like tags that are text (the tokenizer has ``｜DSML｜``
as one ordinary token, the rest of each tag as word pieces), so those markers are
:class:`~.base.Text`. As V3.2's chat template writes a call (V4's is the same inside
``<｜DSML｜tool_calls>``)::

    <｜DSML｜function_calls>
    <｜DSML｜invoke name="get_weather">
    <｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>
    <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
    </｜DSML｜invoke>
    </｜DSML｜function_calls>

A string value is its text verbatim (``string="true"``), any other value JSON (``string="false"``).
The template writes the block after the answer's text and ``\n\n``; a call without arguments
as ``<｜DSML｜invoke name="NAME">\n\n</｜DSML｜invoke>`` (thinkgate writes one newline there;
it reads both). Reasoning is ``<think>…</think>``: the prompt ends in ``<think>`` (thinking, the
templates' default) or ``</think>``.

V4.1 writes the same DSML with a space after ``｜DSML｜`` in every tag name and its block named
`` calls`` (the reference encoder's ``tool_calls_block_name``, as vLLM's ``deepseek_v41_encoding``
and SGLang's ``DeepSeekV41Detector`` spell it)::

    <｜DSML｜ calls>
    <｜DSML｜ invoke name="get_weather">
    <｜DSML｜ parameter name="city" string="true">Paris</｜DSML｜ parameter>
    </｜DSML｜ invoke>
    </｜DSML｜ calls>

after the answer's text and ``\n\n``; its thinking is V4's (on unless the request turns it off).
"""

from .base import TYPE_NAMES, ChatFormat, ChatMarkers, MarkedCalls, ReasoningFormat, Text, ToolCallFormat, XmlArguments

TOOL_CALLS_BEGIN = "<｜tool▁calls▁begin｜>"
TOOL_CALLS_END = "<｜tool▁calls▁end｜>"
TOOL_CALL_BEGIN = "<｜tool▁call▁begin｜>"
TOOL_CALL_END = "<｜tool▁call▁end｜>"
TOOL_SEP = "<｜tool▁sep｜>"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
END_OF_SENTENCE = "<｜end▁of▁sentence｜>"
BEGIN_OF_SENTENCE = "<｜begin▁of▁sentence｜>"
USER = "<｜User｜>"
ASSISTANT = "<｜Assistant｜>"
TOOL_OUTPUTS_BEGIN = "<｜tool▁outputs▁begin｜>"
TOOL_OUTPUTS_END = "<｜tool▁outputs▁end｜>"
TOOL_OUTPUT_BEGIN = "<｜tool▁output▁begin｜>"
TOOL_OUTPUT_END = "<｜tool▁output▁end｜>"

_CONVERSATION = dict(
    bos=BEGIN_OF_SENTENCE,
    user=USER,
    assistant=ASSISTANT,
    tool_outputs=(TOOL_OUTPUTS_BEGIN, TOOL_OUTPUTS_END),
    tool_output=(TOOL_OUTPUT_BEGIN, TOOL_OUTPUT_END),
)

# R1 and V3-0324: ``function<｜tool▁sep｜>NAME`` then the arguments in a ```json code block;
# calls separated by a newline.
CODEBLOCK = ToolCallFormat(
    layout=MarkedCalls(),
    section=(TOOL_CALLS_BEGIN, TOOL_CALLS_END),
    call=(TOOL_CALL_BEGIN, TOOL_CALL_END),
    sep=TOOL_SEP,
    header="function{sep}{name}\n```json\n",
    footer="\n```",
    separator="\n",
)

# V3.1: ``NAME<｜tool▁sep｜>`` then bare JSON arguments; calls back to back.
SEP_JSON = ToolCallFormat(
    layout=MarkedCalls(),
    section=(TOOL_CALLS_BEGIN, TOOL_CALLS_END),
    call=(TOOL_CALL_BEGIN, TOOL_CALL_END),
    sep=TOOL_SEP,
    header="{name}{sep}",
    footer="",
    separator="",
)

DEEPSEEK_R1 = ChatFormat(
    name="deepseek_r1",
    # R1's chat template ends the prompt with "<think>\n": the output starts inside reasoning.
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking=True),
    tools=CODEBLOCK,
    eos=END_OF_SENTENCE,
    aliases=("deepseek-r1", "deepseekr1"),
    description="DeepSeek-R1 / R1-0528: forced-open <think>, tool calls in ```json code blocks",
    chat=ChatMarkers(**_CONVERSATION, tool_output_separator="\n", think_prompt_suffix="\n"),
)

DEEPSEEK_V3 = ChatFormat(
    name="deepseek_v3",
    # V3-0324 does not think unless it opens <think> itself.
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking="auto"),
    tools=CODEBLOCK,
    eos=END_OF_SENTENCE,
    aliases=("deepseekv3", "deepseek-v3", "deepseek_v3_0324"),
    description="DeepSeek-V3-0324: same tool layout as R1, thinking only if the model opens it",
    chat=ChatMarkers(**_CONVERSATION, tool_output_separator="\n"),
)

DEEPSEEK_V3_1 = ChatFormat(
    name="deepseek_v3_1",
    # The prompt ends in "<think>" (thinking on) or "</think>" (off); read it from the prompt ids.
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking="auto", toggle="thinking"),
    tools=SEP_JSON,
    eos=END_OF_SENTENCE,
    aliases=("deepseekv31", "deepseek_v31", "deepseek-v3.1", "deepseek_v3.1"),
    description="DeepSeek-V3.1: per-request thinking toggle, NAME<｜tool▁sep｜>{JSON} calls",
    chat=ChatMarkers(**_CONVERSATION),
)

DSML = "｜DSML｜"
FUNCTION_CALLS_BEGIN = Text(f"<{DSML}function_calls>\n")  # V3.2's block
FUNCTION_CALLS_END = Text(f"</{DSML}function_calls>")
# V4's block; DeepSeek-V4-Flash misspells its opening now and then (vLLM #51914, #56141)
TOOL_CALLS_BLOCK_BEGIN = Text(f"<{DSML}tool_calls>\n", read_also=(f"<{DSML}toolcalls>\n", f"<{DSML}tool>\n"))
TOOL_CALLS_BLOCK_END = Text(f"</{DSML}tool_calls>")
INVOKE_BEGIN = Text(f'<{DSML}invoke name="')
INVOKE_END = Text(f"</{DSML}invoke>\n")

# the tag says only whether the value is a string: true, else false
STRING_WORDS = tuple((t, "true" if t == "string" else "false") for t in TYPE_NAMES)

DSML_PARAMETERS = XmlArguments(
    style="deepseek_xml",
    key_open=f'<{DSML}parameter name="',
    key_close='" string="{type}">',
    type_words=STRING_WORDS,
    value_close=f"</{DSML}parameter>",
)


def _dsml(block: tuple[str, str], invoke: tuple[str, str] = (INVOKE_BEGIN, INVOKE_END), parameters: XmlArguments = DSML_PARAMETERS) -> ToolCallFormat:
    return ToolCallFormat(layout=MarkedCalls(), arguments=parameters, section=block, call=invoke, header='{name}">\n')


DEEPSEEK_V3_2 = ChatFormat(
    name="deepseek_v3_2",
    # The template's enable_thinking (on unless set) ends the prompt in <think> or </think>.
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking=True, toggle="enable_thinking"),
    tools=_dsml((FUNCTION_CALLS_BEGIN, FUNCTION_CALLS_END)),
    eos=END_OF_SENTENCE,
    aliases=("deepseekv32", "deepseek_v32", "deepseek-v3.2", "deepseek_v3.2", "deepseek_v3_2_dsml"),
    text_calls_in_reasoning=True,
    description='DeepSeek-V3.2: DSML <｜DSML｜function_calls><｜DSML｜invoke name="NAME"><｜DSML｜parameter name="K" string="true|false">V… as text, <think> toggled',
)

DEEPSEEK_V4 = ChatFormat(
    name="deepseek_v4",
    # vLLM's renderer of V4's encoding: thinking unless the request sets thinking off.
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking=True, toggle="thinking"),
    tools=_dsml((TOOL_CALLS_BLOCK_BEGIN, TOOL_CALLS_BLOCK_END)),
    eos=END_OF_SENTENCE,
    aliases=("deepseekv4", "deepseek-v4", "deepseek_v4_flash", "deepseek-v4-flash"),
    text_calls_in_reasoning=True,
    description="DeepSeek-V4: V3.2's DSML calls inside <｜DSML｜tool_calls>, <think> toggled",
)

# V4.1's spaced DSML: every tag name after ``｜DSML｜`` starts with a space, the block is `` calls``.
SPACED_DSML = f"{DSML} "
CALLS_BLOCK_BEGIN = Text(f"<{SPACED_DSML}calls>\n")
CALLS_BLOCK_END = Text(f"</{SPACED_DSML}calls>")
SPACED_INVOKE_BEGIN = Text(f'<{SPACED_DSML}invoke name="')
SPACED_INVOKE_END = Text(f"</{SPACED_DSML}invoke>\n")

SPACED_DSML_PARAMETERS = XmlArguments(
    style="deepseek_v4_1_xml",
    key_open=f'<{SPACED_DSML}parameter name="',
    key_close='" string="{type}">',
    type_words=STRING_WORDS,
    value_close=f"</{SPACED_DSML}parameter>",
)

DEEPSEEK_V4_1 = ChatFormat(
    name="deepseek_v4_1",
    # vLLM's V4.1 tokenizer: thinking unless thinking/enable_thinking is false (or effort "none").
    reasoning=ReasoningFormat(open=THINK_OPEN, close=THINK_CLOSE, default_thinking=True, toggle="thinking"),
    tools=_dsml((CALLS_BLOCK_BEGIN, CALLS_BLOCK_END), (SPACED_INVOKE_BEGIN, SPACED_INVOKE_END), SPACED_DSML_PARAMETERS),
    eos=END_OF_SENTENCE,
    aliases=("deepseek_v41", "deepseekv41", "deepseek-v4.1", "deepseek_v4.1", "deepseek_v4_1_flash", "deepseek-v4.1-flash"),
    text_calls_in_reasoning=True,
    description="DeepSeek-V4.1: spaced DSML <｜DSML｜ calls><｜DSML｜ invoke name=\"NAME\"><｜DSML｜ parameter name=\"K\" string=\"true|false\">V… as text, <think> toggled",
)

FORMATS = (DEEPSEEK_R1, DEEPSEEK_V3, DEEPSEEK_V3_1, DEEPSEEK_V3_2, DEEPSEEK_V4, DEEPSEEK_V4_1)
